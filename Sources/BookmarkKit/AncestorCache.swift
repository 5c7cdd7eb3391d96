// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles

/// The inode numbers of the directories along the paths bookmarks were made for, kept across
/// creations and validated by inotify, so that creating a bookmark does not `statx` every
/// ancestor again (the per-component file IDs, key `0x1005`).
///
/// Policy: a directory is watched the second time a creation meets it, not the first. The first
/// meeting examines it with one `statx` (``AncestorChain/walk(_:prefixes:known:)``) and remembers
/// only that it was met; a process that makes one bookmark (the `bookmark make` command) or a
/// few in unrelated places never sets up inotify, and nothing has to be unwatched for a
/// directory met once. Watching costs about three times a `statx`, and removing the watch again
/// two, so it pays from the second meeting on.
///
/// Soundness (Docs/RESOLUTION.md, "The ancestor cache"): a watched directory's inode is used only
/// if no watched directory reported a change that can re-point a path (see
/// ``DirectoryEvent/mayChangePaths``) and the mount table did not change, between the moment it
/// was watched and the check that follows the target's own lookup. The watched directories are
/// closed under taking the parent: `/` first, and a directory only once its parent is watched,
/// so that its removal or replacement is seen at once in its parent. Only file systems whose every
/// change goes through this kernel's VFS are watched.
///
/// One process-wide instance, created lazily. Everything that touches the inotify queue happens
/// under the lock, so a thread cannot miss an event another thread read: any event that may
/// re-point a path clears the whole cache, and a lookup only ever returns a chain that was in the
/// cache when the queue was last read empty. Directories that are not watched are examined
/// outside the lock.
final class AncestorCache: Sendable {
    /// The process's cache.
    static let shared = AncestorCache()

    /// The most directories watched at once; past it the cache starts over. inotify watches cost
    /// kernel memory and count against `fs.inotify.max_user_watches`, and each pins an inode.
    static let capacity = 4096

    /// The most directories remembered as met once (8 bytes each); past it that memory starts over.
    static let metCapacity = 16384

    /// Tells a forked child from the process that made the queue: the child must never read the
    /// inherited inotify queue (it would take the parent's events), so it does not cache at all.
    /// A global, not part of the locked state: a child cannot safely take a lock that another
    /// thread of the parent may have held at the fork.
    private static let marker: ForkMarker? = try? ForkMarker()

    /// A cached chain: the target's mount (a new mount namespace gives new mount ids; the unique
    /// id, where the kernel has one, also tells a later mount that reuses the reusable id apart)
    /// and the directory path.
    struct Key: Hashable {
        var mountID: MountID
        var uniqueMountID: UniqueMountID?
        var path: [UInt8]

        /// The path's bytes in one call: `[UInt8]`'s own hashing feeds the hasher a byte at a time.
        func hash(into hasher: inout Hasher) {
            hasher.combine(mountID)
            hasher.combine(uniqueMountID)
            path.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    struct State {
        /// Made when the first directory is watched.
        var monitor: DirectoryMonitor?
        /// Chains whose every directory is watched, for a creation to take whole.
        var chains: [Key: AncestorChain] = [:]
        /// The chain last taken from ``chains`` or put there, with its key: a creation in the
        /// folder of the one before (or of the same file again) compares keys instead of hashing
        /// the path (the dictionary's hashing was a quarter of a cache hit, perf). Always one of
        /// ``chains``' entries: set where they are, dropped where they are.
        var last: (key: Key, chain: AncestorChain)?
        /// The watched directories by path (`/` first; a directory only below a watched one).
        var directories: [[UInt8]: WatchedDirectory] = [:]
        /// The watch descriptors this cache removed; their remaining events are stale.
        var removed: Set<Int32> = []
        /// Set when inotify ran out of watches or instances, or the kernel lacks what is needed:
        /// nothing is watched until ``AncestorCache/clear()``.
        var disabled = false
        /// Directories that cannot be watched (no read permission, an untrusted file system), by
        /// the hash of their path (``DirectoryPrefixes``): examined each time without trying again
        /// until the cache is cleared.
        var unwatchable: Set<UInt64> = []
        /// Directories a creation met and did not watch, by the hash of their path: the next
        /// creation that meets one watches it.
        var met: Set<UInt64> = []
    }

    let state = Locked(State())

    /// The inode numbers of every directory on `parent` (`/` excluded): from the cache, or by
    /// watching the directories met before and examining the others; `nil` when a directory on
    /// it is not one (a symlink included) or cannot be examined (the caller then finds the real
    /// path by opening the target).
    ///
    /// - Parameters:
    ///   - parent: A canonical absolute directory path (no symlinks, `.`, `..` or empty
    ///     components): the parent of the target, as the target's lookup saw it.
    ///   - target: The target's identity, for its mount.
    ///   - volumes: Where the mounts of the directories are looked up.
    func chain(parent: [UInt8], target: FileID, volumes: MountedVolumes) -> AncestorChain? {
        guard Self.marker?.isOwnProcess == true else {
            return AncestorChain.walk(parent, prefixes: DirectoryPrefixes(parent), target: target, volumes: volumes)
        }
        let key = Key(mountID: target.mountID, uniqueMountID: target.uniqueMountID, path: parent)
        let found = state.withLock { state -> Found in
            Self.lookUp(key, volumes: volumes, &state)
        }
        switch found {
        case .cached(let chain): return chain
        case .partly(let known, let prefixes):
            return AncestorChain.walk(parent, prefixes: prefixes, known: known, target: target, volumes: volumes)
        }
    }

    /// Forgets everything (the chains, the watched directories and which directories were met),
    /// removes every watch, and tries inotify again if it had run out. The inotify instance stays
    /// open: closing one that has held watches waits for a kernel grace period (about 10 ms).
    func clear() {
        guard Self.marker?.isOwnProcess == true else { return }
        state.withLock { state in
            if let monitor = state.monitor { Self.forget(monitor, &state) }
            state.disabled = false
            // Keeping the storage: a process that clears often (the benchmark's cold row) would
            // otherwise grow the set again each time.
            state.unwatchable.removeAll(keepingCapacity: true)
            state.met.removeAll(keepingCapacity: true)
        }
    }

    // MARK: - Under the lock

    /// What the locked part knows of a path.
    enum Found {
        /// Every directory is watched and valid.
        case cached(AncestorChain)
        /// The inodes of the watched directories at its start (`/` excluded), valid; the rest of
        /// its directories are to be examined.
        case partly([UInt64], DirectoryPrefixes)
    }

    /// A cached chain if nothing happened since it was made, else what ``fill(_:prefixes:volumes:_:)`` finds.
    static func lookUp(_ key: Key, volumes: MountedVolumes, _ state: inout State) -> Found {
        // With nothing watched there is nothing to check (and no chain): no poll.
        if let monitor = state.monitor, !state.directories.isEmpty {
            // Read the queue first: a chain is trusted only if nothing happened since it was made.
            switch drain(monitor, &state) {
            case .unreadable: return .partly([], DirectoryPrefixes(key.path))
            case .quiet:
                if state.last?.key == key, let chain = state.last?.chain { return .cached(chain) }
                if let known = state.chains[key] {
                    state.last = (key, known)
                    return .cached(known)
                }
            case .cleared: break
            }
        }
        // Only now: a cache hit needs no prefixes.
        return fill(key, prefixes: DirectoryPrefixes(key.path), volumes: volumes, &state)
    }

    static func monitor(_ state: inout State) -> DirectoryMonitor? {
        if let monitor = state.monitor { return monitor }
        do {
            let monitor = try DirectoryMonitor()
            state.monitor = monitor
            return monitor
        } catch {
            // EMFILE (the per-user instance limit) or no inotify: stay unwatched.
            state.disabled = true
            return nil
        }
    }

    /// What reading the queue found.
    enum Drained {
        /// Nothing that can re-point a path: the cache is as good as when it was filled.
        case quiet
        /// Something that can: the cache was emptied (the queue is empty now).
        case cleared
        /// The queue could not be read: the cache was emptied, and nothing should be trusted now.
        case unreadable
    }

    /// Reads what happened; clears the cache if anything may have re-pointed a path.
    static func drain(_ monitor: DirectoryMonitor, _ state: inout State) -> Drained {
        guard let changes = try? monitor.changes() else {
            forget(monitor, &state)
            return .unreadable
        }
        var stale = changes.mountTableChanged
        for event in changes.events {
            if state.removed.contains(event.watch) {
                // An event for a watch we removed: old news. Its IN_IGNORED is the last one.
                if event.isWatchRemoved { state.removed.remove(event.watch) }
                continue
            }
            if event.mayChangePaths { stale = true }
        }
        guard stale else { return .quiet }
        forget(monitor, &state)
        return .cleared
    }

    /// Drops every chain and directory and removes their watches. What was met stays met: that
    /// says nothing about what a path names.
    static func forget(_ monitor: DirectoryMonitor, _ state: inout State) {
        for watch in Set(state.directories.values.map(\.watch)) {
            monitor.unwatch(watch)
            state.removed.insert(watch)
        }
        state.directories = [:]
        state.chains = [:]
        state.last = nil
    }

    /// Whether changes on this mount are all seen by inotify: local file systems whose every
    /// change goes through this kernel. Not NFS, SMB or other network file systems (other clients
    /// change them), not FUSE (the daemon does), not ZFS (`zfs rollback` swaps the tree in
    /// place), not virtiofs or 9p (the host does).
    static func isTrusted(mountID: MountID, path: [UInt8], volumes: MountedVolumes) -> Bool {
        // The volume, not the mount entry: the directory remembers volumes by mount id, while an
        // entry missing from its table (a mount newer than the directory) re-reads mountinfo.
        guard let volume = volumes.volume(mountID: mountID), trustedFileSystems.contains(volume.fsType) else {
            return false
        }
        // A reusable mount id from an old table could name another mount: it must at least
        // contain the path.
        let point = volume.mountPoint
        if point == [UInt8(ascii: "/")] { return true }
        return path.starts(with: point) && (path.count == point.count || path[point.count] == UInt8(ascii: "/"))
    }

    static let trustedFileSystems: Set<String> = [
        "ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "f2fs", "jfs", "nilfs2", "reiserfs", "tmpfs",
        "ramfs", "vfat", "msdos", "exfat", "ntfs3", "hfsplus", "hfs", "udf", "iso9660", "squashfs", "erofs",
        "overlay",
    ]
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles

/// The inode numbers of the directories along the paths bookmarks were made for, kept across
/// creations and validated by inotify, so that creating a bookmark does not `statx` every
/// ancestor again (the per-component file IDs, key `0x1005`).
///
/// Soundness (Docs/RESOLUTION.md, "The ancestor cache"): a cached chain is used only if no watched
/// directory reported a change that can re-point a path (see ``DirectoryEvent/mayChangePaths``)
/// and the mount table did not change, between the moment its directories were watched and the
/// check that follows the target's own lookup. Every directory on the path is watched, `/`
/// included (its watch sees the removal of top-level directories). Only file systems whose every
/// change goes through this kernel's VFS are cached.
///
/// One process-wide instance, created lazily. Everything that touches the inotify queue happens
/// under the lock, so a thread cannot miss an event another thread read: any event that may
/// re-point a path clears the whole cache, and a lookup only ever returns a chain that was in the
/// cache when the queue was last read empty.
final class AncestorCache: Sendable {
    /// The process's cache.
    static let shared = AncestorCache()

    /// The most directories watched at once; past it the cache starts over. inotify watches cost
    /// kernel memory and count against `fs.inotify.max_user_watches`, and each pins an inode.
    static let capacity = 4096

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

    private struct State {
        var monitor: DirectoryMonitor?
        /// What each directory path's prefixes are.
        var chains: [Key: AncestorChain] = [:]
        /// The watched directories by path (`/` included).
        var directories: [[UInt8]: WatchedDirectory] = [:]
        /// The watch descriptors this cache removed; their remaining events are stale.
        var removed: Set<Int32> = []
        /// Set when inotify ran out of watches or instances, or the kernel lacks what is needed:
        /// nothing is cached until ``AncestorCache/clear()``.
        var disabled = false
        /// Paths that cannot be watched (no read permission, an untrusted file system): looked
        /// up uncached without trying again until the cache is cleared.
        var uncacheable: Set<Key> = []
    }

    private let state = Locked(State())

    /// The inode numbers of every directory on `parent` (`/` excluded), from the cache or by
    /// watching and examining each one; `nil` when they cannot be cached (the caller then
    /// examines them itself).
    ///
    /// - Parameters:
    ///   - parent: A canonical absolute directory path (no symlinks, `.`, `..` or empty
    ///     components): the parent of the target, as the target's lookup saw it.
    ///   - target: The target's identity, for its mount.
    ///   - volumes: Where the mounts of the directories are looked up.
    func chain(parent: [UInt8], target: FileID, volumes: MountedVolumes) -> AncestorChain? {
        guard Self.marker?.isOwnProcess == true else { return nil }
        let key = Key(mountID: target.mountID, uniqueMountID: target.uniqueMountID, path: parent)
        return state.withLock { state -> AncestorChain? in
            guard !state.disabled, !state.uncacheable.contains(key) else { return nil }
            guard let monitor = Self.monitor(&state) else { return nil }
            // Read the queue first: a chain is trusted only if nothing happened since it was made.
            switch Self.drain(monitor, &state) {
            case .unreadable: return nil
            case .quiet: if let known = state.chains[key] { return known }
            case .cleared: break
            }
            return Self.fill(key, monitor: monitor, volumes: volumes, &state)
        }
    }

    /// Forgets everything, removes every watch, and tries inotify again if it had run out.
    func clear() {
        guard Self.marker?.isOwnProcess == true else { return }
        state.withLock { state in
            if let monitor = state.monitor { Self.forget(monitor, &state) }
            state.disabled = false
            state.uncacheable = []
        }
    }

    // MARK: - Under the lock

    private static func monitor(_ state: inout State) -> DirectoryMonitor? {
        if let monitor = state.monitor { return monitor }
        do {
            let monitor = try DirectoryMonitor()
            state.monitor = monitor
            return monitor
        } catch {
            // EMFILE (the per-user instance limit) or no inotify: stay uncached.
            state.disabled = true
            return nil
        }
    }

    /// What reading the queue found.
    private enum Drained {
        /// Nothing that can re-point a path: the cache is as good as when it was filled.
        case quiet
        /// Something that can: the cache was emptied (the queue is empty now).
        case cleared
        /// The queue could not be read: the cache was emptied, and nothing should be trusted now.
        case unreadable
    }

    /// Reads what happened; clears the cache if anything may have re-pointed a path.
    private static func drain(_ monitor: DirectoryMonitor, _ state: inout State) -> Drained {
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

    /// Drops every chain and directory and removes their watches.
    private static func forget(_ monitor: DirectoryMonitor, _ state: inout State) {
        for watch in Set(state.directories.values.map(\.watch)) {
            monitor.unwatch(watch)
            state.removed.insert(watch)
        }
        state.directories = [:]
        state.chains = [:]
    }

    /// Watches and examines every directory on the path not already watched, then checks that
    /// nothing changed while doing so.
    private static func fill(
        _ key: Key, monitor: DirectoryMonitor, volumes: MountedVolumes, _ state: inout State
    ) -> AncestorChain? {
        let prefixes = PathBytes(key.path).selfAndAncestorsFromRoot.map(\.bytes)
        if state.directories.count + prefixes.count > capacity { forget(monitor, &state) }
        var inodes: [UInt64] = []
        inodes.reserveCapacity(prefixes.count - 1)
        for (index, prefix) in prefixes.enumerated() {
            let directory: WatchedDirectory
            if let known = state.directories[prefix] {
                directory = known
            } else {
                do {
                    directory = try monitor.watchDirectory(prefix)
                } catch {
                    switch error.errno {
                    case .noSpace, .tooManyOpenFiles, .noMemory:
                        // Out of watches: say so once by staying uncached for the process.
                        forget(monitor, &state)
                        state.disabled = true
                    default:
                        // EACCES (a directory without read permission), ENOENT, ENOTDIR (a race).
                        state.uncacheable.insert(key)
                    }
                    return nil
                }
                guard directory.isDirectory, isTrusted(mountID: directory.mountID, path: prefix, volumes: volumes)
                else {
                    // Watches are per inode: keep one that a cached directory shares (a bind mount).
                    if !state.directories.values.contains(where: { $0.watch == directory.watch }) {
                        monitor.unwatch(directory.watch)
                        state.removed.insert(directory.watch)
                    }
                    state.uncacheable.insert(key)
                    return nil
                }
                state.directories[prefix] = directory
            }
            if index > 0 { inodes.append(directory.inode) }
        }
        // Anything that happened between a watch and its statx shows up now.
        guard drain(monitor, &state) == .quiet else { return nil }
        let chain = AncestorChain(path: key.path, inodes: inodes)
        state.chains[key] = chain
        return chain
    }

    /// Whether changes on this mount are all seen by inotify: local file systems whose every
    /// change goes through this kernel. Not NFS, SMB or other network file systems (other clients
    /// change them), not FUSE (the daemon does), not ZFS (`zfs rollback` swaps the tree in
    /// place), not virtiofs or 9p (the host does).
    private static func isTrusted(mountID: MountID, path: [UInt8], volumes: MountedVolumes) -> Bool {
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

/// The directories on a path, as creation records them: kept ready to copy into each bookmark
/// made below them, so that their names and IDs are built once per directory, not per bookmark.
struct AncestorChain: Sendable {
    /// The path's components as the record's items (key `0x1004` without the object's own name),
    /// made once: every creation in the directory shares them instead of building (and later
    /// freeing) a boxed item per component.
    let componentItems: [BookmarkItem]
    /// The directories' inode numbers as the record's items (key `0x1005` without the object's own).
    let fileIDItems: [BookmarkItem]

    /// `inodes`: those of the directories on `path`, `/` excluded, in order.
    init(path: [UInt8], inodes: [UInt64]) {
        componentItems = PathBytes(path).components.map { BookmarkRecord.pathComponentItem(ByteString(bytes: $0)) }
        fileIDItems = inodes.map { BookmarkRecord.fileIDItem(Int64(bitPattern: $0)) }
    }

    /// Whether there is one inode per component (a path that changed shape while it was being
    /// examined would not give that; the caller then examines it itself).
    var isConsistent: Bool { componentItems.count == fileIDItems.count }
}


// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Watches directories for the changes that can make a path name a different directory, and the
/// mount table for mounts and unmounts, so that a cache of what paths named can be kept honest.
///
/// For a directory path to name another inode than before, some directory on it must have been
/// renamed or exchanged (`IN_MOVE_SELF`), removed (`IN_DELETE` with `IN_ISDIR` in its parent,
/// which arrives at once; `IN_DELETE_SELF` on itself waits until nobody holds it open), replaced
/// by a rename over it (`IN_MOVED_TO` with `IN_ISDIR` in its parent; the victim's own events wait
/// too), or covered or uncovered by a mount (the mount table changed). ``watchDirectory(_:)``
/// watches for the first three; the mount table is watched by polling `/proc/self/mountinfo` for
/// `POLLPRI`, which the kernel raises once per change seen by this open file. ``changes()``
/// reports both with one `epoll_wait`.
///
/// The mask has no event that the kernel reports on behalf of children (`IN_ATTRIB`, `IN_MODIFY`,
/// `IN_OPEN`, …): adding such a watch walks every cached entry of the directory to flag it, which
/// profiled at up to 200 µs per `inotify_add_watch` on a large directory, against 2 µs without.
///
/// inotify sees only changes made through this kernel's VFS: not those made by another NFS
/// client, by a FUSE daemon or by the host of a virtual machine share. Callers decide which file
/// systems to trust. A watch pins its directory's inode in memory until it is removed or this
/// monitor is closed.
///
/// Implementation details: `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)` and `open` of
/// `/proc/self/mountinfo` when made, both added to an epoll set; `inotify_add_watch` then `statx`
/// per watched directory; `epoll_wait` with a zero timeout per check, then `read` only when
/// something is queued. All through
/// ``SyscallSeam``.
package final class DirectoryMonitor: Sendable {
    /// The inotify instance.
    private let queue: CInt
    /// `/proc/self/mountinfo`, opened once: its poll state is per open file.
    private let mountTable: CInt
    /// The queue and the mount table, asked together with one `epoll_wait`.
    private let readiness: ReadinessSet
    private static let queueTag: UInt64 = 0
    private static let mountTableTag: UInt64 = 1

    /// What a watch asks for: moves and removals of the directory itself, and removals of and
    /// renames over its entries (of which only subdirectories matter). `IN_ONLYDIR |
    /// IN_DONT_FOLLOW` make the watch fail rather than follow a symlink or land on a file.
    static let watchMask: UInt32 = UInt32(
        IN_MOVE_SELF | IN_DELETE_SELF | IN_DELETE | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// Makes an inotify instance and opens the mount table.
    ///
    /// - Throws: ``FileSystemError`` naming `inotify_init1` (`EMFILE` when the per-user instance
    ///   limit is reached) or `openat`.
    package init() throws(FileSystemError) {
        switch Sys.inotifyInit1(CInt(IN_NONBLOCK | IN_CLOEXEC)) {
        case .success(let fd): queue = fd
        case .failure(let errno): throw FileSystemError(syscall: "inotify_init1", errno: errno, path: nil)
        }
        let opened = "/proc/self/mountinfo".withCString { Sys.openat(atCurrentDirectory, $0, O_RDONLY | O_CLOEXEC, 0) }
        switch opened {
        case .success(let fd): mountTable = fd
        case .failure(let errno):
            _ = Sys.close(queue)
            throw FileSystemError(syscall: "openat", errno: errno, path: "/proc/self/mountinfo")
        }
        // Nothing is watched yet, so a mount-table change between the open and the add (which the
        // add takes without reporting it; ReadinessSet) cannot concern anything watched.
        do throws(FileSystemError) {
            readiness = try ReadinessSet()
            try readiness.add(queue, events: ReadinessSet.readable, tag: Self.queueTag)
            try readiness.add(mountTable, events: ReadinessSet.priority, tag: Self.mountTableTag)
        } catch {
            _ = Sys.close(queue)
            _ = Sys.close(mountTable)
            throw error
        }
    }

    deinit {
        _ = Sys.close(queue)
        _ = Sys.close(mountTable)
    }

    /// Watches the directory at `path` (never following a symlink in its last component), then
    /// reports what it is.
    ///
    /// The watch is added before the `statx`, so if the path named another directory when it was
    /// watched than when it was examined, the watched one was renamed, removed or replaced in
    /// between and ``changes()`` reports it: a caller that checks ``changes()`` after its last
    /// `watchDirectory` can trust every answer it got.
    ///
    /// - Parameter path: An absolute path as raw bytes.
    /// - Returns: The watch and the directory's inode and reusable mount id.
    /// - Throws: ``FileSystemError`` naming `inotify_add_watch` (`ENOSPC` at the per-user watch
    ///   limit, `EACCES` without read permission on the directory, `ENOTDIR` for anything that is
    ///   not a directory, a symlink included) or `statx`.
    package func watchDirectory(_ path: [UInt8]) throws(FileSystemError) -> WatchedDirectory {
        var raw = cls_statx()
        let queue = queue
        let result: Result<CInt, Errno> = withCPath(path) { cPath in
            let watch = Sys.inotifyAddWatch(queue, cPath, Self.watchMask)
            guard case .success = watch else { return watch }
            let mask = CLS_STATX_TYPE | CLS_STATX_INO | CLS_STATX_MNT_ID
            return Sys.statx(atCurrentDirectory, cPath, AT_SYMLINK_NOFOLLOW, mask, &raw).flatMap { _ in watch }
        }
        switch result {
        case .success(let watch):
            return WatchedDirectory(
                watch: watch, inode: raw.stx_ino, mountID: MountID(rawValue: Int32(truncatingIfNeeded: raw.stx_mnt_id)),
                isDirectory: FileKind(mode: UInt32(raw.stx_mode)) == .directory)
        case .failure(let errno):
            // Which call failed is in the audit log; the error names the first that can fail.
            throw FileSystemError(syscall: "inotify_add_watch", errno: errno, path: FilePath(bytes: path))
        }
    }

    /// Removes a watch. Its `IN_IGNORED` event follows in ``changes()``.
    package func unwatch(_ watch: Int32) {
        _ = Sys.inotifyRmWatch(queue, watch)
    }

    /// What happened since the last call: the queued directory events and whether the mount table
    /// changed. One `epoll_wait` (``ReadinessSet``); a `read` per 4 KiB of queued events only when
    /// there are any.
    ///
    /// - Throws: ``FileSystemError`` naming `epoll_wait` or `read`; the caller should then stop
    ///   trusting what it cached.
    package func changes() throws(FileSystemError) -> DirectoryChanges {
        var queued = false
        var changes = DirectoryChanges()
        try readiness.ready { tag, events in
            if tag == Self.queueTag {
                queued = true
            } else if events & (ReadinessSet.priority | ReadinessSet.error) != 0 {
                // mountinfo reports EPOLLERR | EPOLLPRI on a change, once per change.
                changes.mountTableChanged = true
            }
        }
        if queued { try readEvents(into: &changes) }
        return changes
    }

    /// Reads the queue until it is empty (`EAGAIN`).
    private func readEvents(into changes: inout DirectoryChanges) throws(FileSystemError) {
        // Large enough for many events per read; inotify never splits an event across reads.
        let capacity = 4096
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            switch Sys.read(queue, buffer) {
            case .success(let count) where count > 0:
                parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), into: &changes)
            case .success:
                return
            case .failure(.resourceTemporarilyUnavailable):
                return
            case .failure(let errno):
                throw FileSystemError(syscall: "read", errno: errno, path: nil)
            }
        }
    }

    /// Splits a read into `struct inotify_event`s: wd, mask, cookie, len, then `len` name bytes.
    private func parse(_ bytes: UnsafeRawBufferPointer, into changes: inout DirectoryChanges) {
        let header = 16
        var offset = 0
        while offset + header <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            changes.events.append(DirectoryEvent(watch: watch, mask: mask, isAboutChild: nameLength > 0))
            offset += header + nameLength
        }
    }
}

/// A directory ``DirectoryMonitor/watchDirectory(_:)`` watched, and what `statx` said it was.
package struct WatchedDirectory: Sendable, Hashable {
    /// The inotify watch descriptor (the same for every path to the same inode).
    package var watch: Int32
    /// The inode number.
    package var inode: UInt64
    /// The reusable mount id (`/proc/self/mountinfo`'s first field) of the mount it was found on.
    package var mountID: MountID
    /// Whether it is a directory (`false` only if something else was swapped in after the watch).
    package var isDirectory: Bool
}

/// What a ``DirectoryMonitor`` saw since it was last asked.
package struct DirectoryChanges: Sendable, Hashable {
    /// The queued events, oldest first.
    package var events: [DirectoryEvent] = []
    /// Whether the mount table changed (a mount, an unmount, a move, a propagation).
    package var mountTableChanged = false
}

/// One inotify event on a watched directory.
package struct DirectoryEvent: Sendable, Hashable {
    /// The watch it arrived on (-1 for a queue overflow).
    package var watch: Int32
    /// The `IN_*` bits.
    package var mask: UInt32
    /// Whether it concerns an entry inside the directory (it carried a name) rather than the
    /// directory itself.
    package var isAboutChild: Bool

    /// Whether a path through the watched directory may now name another inode: the directory was
    /// moved, removed or unmounted, or lost its watch; a subdirectory of it was removed, or a
    /// directory was renamed into it (possibly over one); or events were lost (`IN_Q_OVERFLOW`).
    /// Files removed from it or renamed into it do not count.
    package var mayChangePaths: Bool {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
        if isAboutChild { return mask & UInt32(IN_DELETE | IN_MOVED_TO) != 0 && mask & UInt32(IN_ISDIR) != 0 }
        return true
    }

    /// Whether the kernel removed the watch (`IN_IGNORED`): after ``DirectoryMonitor/unwatch(_:)``,
    /// or because the directory was deleted or its file system unmounted.
    package var isWatchRemoved: Bool { mask & UInt32(IN_IGNORED) != 0 }
}

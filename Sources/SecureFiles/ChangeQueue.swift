// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemPackage

/// An inotify queue for watching a few paths and waiting for their events, through the syscall
/// seam: what an open document uses to hear that another process moved, replaced, edited or
/// deleted it.
///
/// inotify is not recursive (a watch on a directory reports its own entries, not deeper ones) and
/// sees only changes made through this kernel (not another NFS client's). A watch pins its inode
/// until it is removed or the queue is closed.
public final class ChangeQueue: @unchecked Sendable {
    /// One event.
    public struct Event: Sendable, Hashable {
        /// The watch it belongs to.
        public var watch: Int32
        /// The `IN_*` bits.
        public var mask: UInt32
        /// The entry's name, for an event about an entry of a watched directory (else empty).
        public var name: [UInt8]
    }

    private let descriptor: OwnedDescriptor

    /// Makes an inotify instance (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`).
    ///
    /// - Throws: ``FileSystemError``: `EMFILE` when the per-user limit of instances is reached.
    public init() throws(FileSystemError) {
        switch Sys.inotifyInit1(CInt(IN_NONBLOCK | IN_CLOEXEC)) {
        case .success(let fd): descriptor = OwnedDescriptor(adopting: fd, openedPath: nil)
        case .failure(let errno): throw FileSystemError(syscall: "inotify_init1", errno: errno, path: nil)
        }
    }

    /// Watches `path` (never following a symbolic link in its last component) for `mask`; returns
    /// the watch (the same one for a path whose inode is already watched).
    ///
    /// The corresponding C function is `inotify_add_watch` (with `IN_DONT_FOLLOW`).
    @discardableResult
    public func watch(_ path: FilePath, mask: UInt32) throws(FileSystemError) -> Int32 {
        let fd = try descriptor.raw("inotify_add_watch")
        let result = path.withPlatformString { Sys.inotifyAddWatch(fd, $0, mask | UInt32(IN_DONT_FOLLOW)) }
        switch result {
        case .success(let watch): return watch
        case .failure(let errno): throw FileSystemError(syscall: "inotify_add_watch", errno: errno, path: path)
        }
    }

    /// Removes a watch (one already gone with its inode is not an error).
    public func unwatch(_ watch: Int32) {
        guard let fd = descriptor.rawValue else { return }
        _ = Sys.inotifyRmWatch(fd, watch)
    }

    /// The events queued now, waiting up to `milliseconds` for the first (0: do not wait).
    public func events(waitingUpTo milliseconds: Int32) throws(FileSystemError) -> [Event] {
        let fd = try descriptor.raw("poll")
        var poll = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        let ready = poll.withUnsafeMutableBufferPointer { Sys.poll($0, milliseconds: milliseconds) }
        guard case .success(let count) = ready, count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let read = buffer.withUnsafeMutableBytes { Sys.read(fd, $0) }
        guard case .success(let length) = read, length > 0 else { return [] }
        var events: [Event] = []
        var offset = 0
        let header = MemoryLayout<Int32>.size + 3 * MemoryLayout<UInt32>.size
        while offset + header <= length {
            // struct inotify_event, in this machine's byte order: wd, mask, cookie, len, name.
            let (watch, mask, nameLength) = buffer.withUnsafeBytes { raw in
                (
                    raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                    raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                    Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                )
            }
            guard offset + header + nameLength <= length else { break }
            let name = Array(buffer[(offset + header)..<(offset + header + nameLength)].prefix { $0 != 0 })
            events.append(Event(watch: watch, mask: mask, name: name))
            offset += header + nameLength
        }
        return events
    }

    /// Closes the queue (every watch goes with it).
    public func close() {
        try? descriptor.close()
    }
}

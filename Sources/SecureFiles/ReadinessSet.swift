// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

/// A few descriptors asked at once, without waiting, whether anything happened on them: an
/// `epoll` instance.
///
/// What callers use it for is the check that runs on every default-path call ("did the mount
/// table change? is anything queued on the inotify queue?"), where most answers are "no".
/// `epoll_wait` answers that from the instance's ready list: the kernel puts a descriptor there
/// when its wait queue is woken, and does not call each file's `poll` on every check as `poll(2)`
/// does. Measured in C on this project's machine: 160 ns for one `epoll_wait` with nothing ready,
/// against 310 ns for `poll` of `/proc/self/mountinfo` and 340 ns for it and an inotify queue.
///
/// **Descriptors whose `poll` reports an edge** (`/proc/self/mountinfo`'s `POLLPRI`: the file
/// remembers the last mount-table change it reported, and reports each change once) must be added
/// *before* the state they guard is read: adding calls the file's `poll` once, which takes a
/// change made since the file was opened, so a change between the open and the add is never
/// reported. Read after the add, and that change is in what was read. Any change after the add
/// is reported by the next ``ready(_:)``.
///
/// The set must not be shared with a forked child: the child's copy is the same epoll instance,
/// and a check there would take the parent's reports. Callers drop it in a child (``ForkMarker``).
///
/// Implementation details (through small C shims: x86-64's `struct epoll_event` is packed):
/// `epoll_create1(EPOLL_CLOEXEC)`, one `epoll_ctl(EPOLL_CTL_ADD)` per
/// descriptor, `epoll_wait` with a zero timeout per check; all through ``SyscallSeam`` (the audit
/// log names them).
package final class ReadinessSet: Sendable {
    private let descriptor: CInt

    /// `EPOLLIN`: data to read (an inotify queue with events queued).
    package static let readable: UInt32 = 0x001
    /// `EPOLLPRI`: a priority event (`/proc/self/mountinfo`: the mount table changed).
    package static let priority: UInt32 = 0x002
    /// `EPOLLERR`, which `/proc/self/mountinfo` reports with `EPOLLPRI`; always reported.
    package static let error: UInt32 = 0x008

    /// Makes an empty set.
    ///
    /// - Throws: ``FileSystemError`` naming `epoll_create1` (`EMFILE`, `ENOMEM`).
    package init() throws(FileSystemError) {
        switch Sys.epollCreate() {
        case .success(let fd): descriptor = fd
        case .failure(let errno): throw FileSystemError(syscall: "epoll_create1", errno: errno, path: nil)
        }
    }

    deinit { _ = Sys.close(descriptor) }

    /// Adds `fd` (which the caller keeps open as long as the set is used: closing it removes it),
    /// reported by ``ready(_:)`` with `tag` when one of `events` (`EPOLLIN`, `EPOLLPRI`, …) holds.
    ///
    /// - Throws: ``FileSystemError`` naming `epoll_ctl`.
    package func add(_ fd: CInt, events: UInt32, tag: UInt64) throws(FileSystemError) {
        if case .failure(let errno) = Sys.epollAdd(descriptor, fd, events: events, tag: tag) {
            throw FileSystemError(syscall: "epoll_ctl", errno: errno, path: nil)
        }
    }

    /// ``add(_:events:tag:)`` for an owned descriptor (kept open by the caller as long as the set
    /// is used).
    ///
    /// - Throws: ``FileSystemError`` naming `epoll_ctl` (`EBADF` for a closed descriptor).
    package func add(_ owned: OwnedDescriptor, events: UInt32, tag: UInt64) throws(FileSystemError) {
        try add(try owned.raw("epoll_ctl"), events: events, tag: tag)
    }

    /// Calls `body` with the tag and the events of each descriptor that is ready now (at most
    /// four per call), and returns how many were. Never blocks.
    ///
    /// - Throws: ``FileSystemError`` naming `epoll_wait`.
    @discardableResult
    package func ready(_ body: (_ tag: UInt64, _ events: UInt32) -> Void) throws(FileSystemError) -> Int {
        // On the stack: this runs once per default-path call.
        let outcome = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4) { tags -> Result<Int, Errno> in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 4) { events -> Result<Int, Errno> in
                switch Sys.epollWaitNow(descriptor, tags: tags, events: events) {
                case .success(let count):
                    for index in 0..<Int(count) { body(tags[index], events[index]) }
                    return .success(Int(count))
                case .failure(let errno):
                    return .failure(errno)
                }
            }
        }
        switch outcome {
        case .success(let count): return count
        case .failure(let errno): throw FileSystemError(syscall: "epoll_wait", errno: errno, path: nil)
        }
    }

    /// Whether nothing is ready now (one ``ready(_:)``).
    package func isQuiet() throws(FileSystemError) -> Bool {
        try ready { _, _ in } == 0
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Tells the process that made it apart from a child that inherited it through `fork`.
///
/// State that refers to a kernel object shared across `fork` (an inotify queue, say) must not be
/// used by the child: reading the shared queue in the child would take events the parent needs.
/// A marker is one page of memory marked `MADV_WIPEONFORK`: the kernel gives every child made
/// without `CLONE_VM` (`fork`, `_Fork`, raw `clone`) a zero-filled copy, so the check is a plain
/// memory read with no system call, and it cannot be missed the way a `pthread_atfork` handler is
/// missed by `_Fork` or a raw `clone`.
///
/// Implementation details: one anonymous `mmap` page and one `madvise` (Linux 4.14+), both through
/// ``SyscallSeam``; the page is never unmapped (markers live as long as the process state they guard).
package final class ForkMarker: Sendable {
    /// The page's address; its first byte is 1 in the process that made the marker.
    private let address: UInt

    /// Makes a marker for the calling process.
    ///
    /// - Throws: ``FileSystemError`` naming `mmap` or `madvise` (`EINVAL` before Linux 4.14): then
    ///   forks cannot be told apart and the caller should not keep fork-sensitive state.
    package init() throws(FileSystemError) {
        let length = Int(sysconf(CInt(_SC_PAGESIZE)))
        guard let page = Sys.mapAnonymous(length) else {
            throw FileSystemError(syscall: "mmap", errno: .noMemory, path: nil)
        }
        if case .failure(let errno) = Sys.madvise(page, length, MADV_WIPEONFORK) {
            // Without the wipe the marker would lie in a child; leave the page mapped (one page,
            // once) rather than add an munmap wrapper for a path that is never taken on 4.14+.
            throw FileSystemError(syscall: "madvise", errno: errno, path: nil)
        }
        page.storeBytes(of: 1, as: UInt8.self)
        address = UInt(bitPattern: page)
    }

    /// Whether the calling process is the one that made this marker (`false` in a forked child).
    package var isOwnProcess: Bool {
        guard let page = UnsafeRawPointer(bitPattern: address) else { return false }
        return page.load(as: UInt8.self) == 1
    }
}

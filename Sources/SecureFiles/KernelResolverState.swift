// SPDX-License-Identifier: Apache-2.0
// SecureFiles: whether a root's kernel resolver (openat2) has failed, read on every open.
import Synchronization
import SystemPackage

/// The errno with which `openat2` failed for a root (`ENOSYS` or `EPERM`), after which the root
/// resolves with the component walker; `nil` while the kernel resolver works. Shared by copies
/// of the root.
///
/// An atomic rather than a ``Locked``: every open beneath a root reads it, and the lock and unlock
/// around a read were a measurable part of an open (ThreadSanitizer sees atomics, so the reason
/// ``Locked`` gives for a pthread mutex does not apply to a single word).
final class KernelResolverState: Sendable {
    /// 0, or the errno's raw value.
    private let failure: Atomic<CInt>

    init(_ errno: Errno?) { failure = Atomic(errno?.rawValue ?? 0) }

    /// The recorded failure, if any.
    var failed: Errno? {
        let raw = failure.load(ordering: .acquiring)
        return raw == 0 ? nil : Errno(rawValue: raw)
    }

    /// Records that `openat2` failed with `errno`.
    func record(_ errno: Errno) { failure.store(errno.rawValue, ordering: .releasing) }
}

// SPDX-License-Identifier: Apache-2.0
import Synchronization
import SystemPackage

/// A rule that makes matching calls fail with a chosen errno, for tests.
///
/// ```swift
/// let log = AuditLog(level: .calls, faults: [SyscallFault(call: "ioctl(FS_IOC_GETFSUUID)", errno: .permissionDenied)])
/// ```
public struct SyscallFault: Sendable {
    /// The call name to match (``SyscallCall/name``), or `nil` for every call.
    public var call: String?
    /// Only calls whose path ends with these bytes match, when set.
    public var pathSuffix: [UInt8]?
    /// The errno to inject.
    public var errno: Errno
    /// How many matching calls to fail; `nil` means all of them.
    public var times: Int?
    /// Only calls whose flags contain all these bits match, when set (for example `O_TMPFILE`'s
    /// bits, to fail only temporary-file opens).
    public var requiredFlags: Int64?

    /// Creates a fault rule.
    public init(call: String?, pathSuffix: [UInt8]? = nil, errno: Errno, times: Int? = nil, requiredFlags: Int64? = nil) {
        self.call = call
        self.pathSuffix = pathSuffix
        self.errno = errno
        self.times = times
        self.requiredFlags = requiredFlags
    }

    /// Fails `openat2` with `errno` (`ENOSYS` or `EPERM`), forcing the component-walking resolver.
    public static func openat2Unavailable(_ errno: Errno = .noFunction) -> SyscallFault {
        SyscallFault(call: "openat2", errno: errno)
    }

    /// Fails the next `times` `openat2` calls with `EAGAIN`.
    public static func openat2Again(times: Int) -> SyscallFault {
        SyscallFault(call: "openat2", errno: .resourceTemporarilyUnavailable, times: times)
    }

    /// Fails `O_TMPFILE` opens with `EOPNOTSUPP`, forcing the random-name temporary file.
    public static var temporaryFileUnsupported: SyscallFault {
        SyscallFault(call: "openat", errno: .notSupported, requiredFlags: Int64(LinuxFlags.tmpfile))
    }

    func matches(_ candidate: SyscallCall) -> Bool {
        if let call, call != candidate.name { return false }
        if let requiredFlags {
            guard let flags = candidate.flags, flags & requiredFlags == requiredFlags else { return false }
        }
        if let pathSuffix {
            guard let path = candidate.path, path.count >= pathSuffix.count,
                Array(path.suffix(pathSuffix.count)) == pathSuffix
            else { return false }
        }
        return true
    }
}

extension Array where Element == SyscallFault {
    /// The errno of the first rule matching `call`, counting down (and dropping) a rule limited to
    /// a number of calls.
    mutating func consumeFault(for call: SyscallCall) -> Errno? {
        guard let index = firstIndex(where: { $0.matches(call) }) else { return nil }
        let errno = self[index].errno
        if let remaining = self[index].times {
            if remaining <= 1 { remove(at: index) } else { self[index].times = remaining - 1 }
        }
        return errno
    }
}

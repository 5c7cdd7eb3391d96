// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// The one error type of the file-system layer: which call failed, with which errno, on which path.
///
/// Every failure of a system call made through ``SyscallSeam`` surfaces as a `FileSystemError`.
/// ``code`` groups errno values into what a caller usually branches on; ``errno`` keeps the exact
/// value; ``syscall`` and ``path`` say where.
public struct FileSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A coarse classification of the failure, stable across errno spellings.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// ENOENT: no such file or directory.
        public static let notFound = Code("notFound")
        /// EACCES, EPERM: not allowed.
        public static let permissionDenied = Code("permissionDenied")
        /// EEXIST: the name exists.
        public static let exists = Code("exists")
        /// ENOTDIR: a component is not a directory.
        public static let notDirectory = Code("notDirectory")
        /// EISDIR: the target is a directory.
        public static let isDirectory = Code("isDirectory")
        /// ELOOP: too many symbolic links, or a symlink where none was allowed.
        public static let symlink = Code("symlink")
        /// EXDEV: the path left the root or crossed a mount that was not allowed.
        public static let crossDevice = Code("crossDevice")
        /// ENOTTY, EOPNOTSUPP, ENOSYS, EINVAL on a feature probe: the kernel or file system lacks it.
        public static let unsupported = Code("unsupported")
        /// ESTALE: a file handle refers to a file that no longer exists.
        public static let stale = Code("stale")
        /// ENAMETOOLONG.
        public static let nameTooLong = Code("nameTooLong")
        /// ENOSPC, EDQUOT.
        public static let noSpace = Code("noSpace")
        /// EROFS.
        public static let readOnly = Code("readOnly")
        /// EAGAIN, EWOULDBLOCK, EBUSY.
        public static let busy = Code("busy")
        /// EBADF: the descriptor is closed or unusable for this call.
        public static let badDescriptor = Code("badDescriptor")
        /// ENODATA: no such extended attribute.
        public static let noAttribute = Code("noAttribute")
        /// EIO and anything else.
        public static let io = Code("io")
        /// Refused by the secure layer's policy (owner, mode, type, link count, case collision…);
        /// ``FileSystemError/violation`` says which.
        public static let rejected = Code("rejected")
        /// The name, for descriptions.
        public var description: String { name }

        /// The code for an errno.
        public init(_ errno: Errno) {
            switch errno {
            case .noSuchFileOrDirectory: self = .notFound
            case .permissionDenied, .notPermitted: self = .permissionDenied
            case .fileExists: self = .exists
            case .notDirectory: self = .notDirectory
            case .isDirectory: self = .isDirectory
            case .tooManySymbolicLinkLevels: self = .symlink
            case .improperLink: self = .crossDevice
            case .inappropriateIOCTLForDevice, .notSupported, .noFunction, .notSupportedOnSocket:
                self = .unsupported
            case .staleNFSFileHandle: self = .stale
            case .fileNameTooLong: self = .nameTooLong
            case .noSpace, .diskQuotaExceeded: self = .noSpace
            case .readOnlyFileSystem: self = .readOnly
            case .resourceTemporarilyUnavailable, .resourceBusy: self = .busy
            case .badFileDescriptor: self = .badDescriptor
            case .noData: self = .noAttribute
            default: self = .io
            }
        }
    }

    /// The classification.
    public var code: Code
    /// The C name of the failed call, such as `openat` or `ioctl(FS_IOC_GETFSUUID)`.
    public var syscall: String
    /// The exact errno.
    public var errno: Errno
    /// The path the call was about, when there was one.
    public var path: FilePath?
    /// Where in the library the error was raised (`file:line`).
    public var location: String
    /// The policy reason when the secure layer refused the operation (then ``code`` is
    /// ``Code/rejected``, or ``Code/crossDevice`` for an escape); `nil` for plain call failures.
    public var violation: SecurityViolation?

    /// Creates the error for a failed call. `code` is derived from `errno`.
    public init(syscall: String, errno: Errno, path: FilePath?, file: StaticString = #fileID, line: UInt = #line) {
        self.code = Code(errno)
        self.syscall = syscall
        self.errno = errno
        self.path = path
        self.location = "\(file):\(line)"
        self.violation = nil
    }

    /// Creates the error for an operation the policy refused. `syscall` names the call whose
    /// result showed the problem (or that was not made), `errno` the nearest errno (`EXDEV` for an
    /// escape, `EEXIST` for a case collision, `EACCES` for owner and mode, `EINVAL` for a type).
    public init(
        violation: SecurityViolation, syscall: String, errno: Errno, path: FilePath?, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        self.code = violation == .escape ? .crossDevice : .rejected
        self.syscall = syscall
        self.errno = errno
        self.path = path
        self.location = "\(file):\(line)"
        self.violation = violation
    }

    /// `'statx' failed on '/a/b': No such file or directory (ENOENT 2)`.
    public var description: String {
        var text = "'\(syscall)' failed"
        if let path { text += " on '\(PathBytes(PathBytes(path).bytes).escaped)'" }
        text += ": \(errno) (errno \(errno.rawValue), \(code))"
        if let violation { text += ": rejected: \(violation)" }
        return text
    }

    /// The description plus where it was raised, for logs.
    public var detailedDescription: String { description + " [at \(location)]" }
}

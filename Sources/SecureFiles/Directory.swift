// SPDX-License-Identifier: Apache-2.0
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A directory held by descriptor, under which paths are resolved safely.
///
/// A `Directory` owns an `O_PATH|O_DIRECTORY` descriptor, so it keeps naming the same directory
/// when that directory is renamed or moved. Every path handed to it is resolved *beneath* it by
/// its ``ResolutionPolicy`` (escapes are errors by default, or clamped with ``ResolutionPolicy/inRoot``),
/// in the kernel with `openat2` or, where that is unavailable, with a component walker giving the
/// same results. Every operation records an intent, its system calls and its policy decisions
/// with the ``AuditLog`` of the root or of the current task.
///
/// ```swift
/// let root = try Directory(opening: "/srv/data")
/// let fd = try root.open("reports/2026/q3.json")          // beneath the root, or EXDEV
/// let data = try root.readVerified("keys/signing.key")      // owner, mode, type and links checked first
/// ```
public final class Directory: Sendable, CustomStringConvertible {
    /// The owned `O_PATH|O_DIRECTORY` descriptor.
    public let descriptor: OwnedDescriptor
    /// How paths are resolved beneath this directory unless an operation says otherwise.
    public let policy: ResolutionPolicy
    /// The audit log every operation through this root records into (`nil`: the task's observer).
    public let auditLog: (any SyscallObserver)?
    /// The resolver chosen at creation.
    public let backend: ResolverBackend

    let kernelResolverFailed: KernelResolverState
    let caseFolding: CaseFoldingCache

    init(
        descriptor: OwnedDescriptor, policy: ResolutionPolicy, auditLog: (any SyscallObserver)?,
        backend: ResolverBackend, caseFolding: CaseFoldingCache, kernelResolverFailed: Errno? = nil
    ) {
        self.descriptor = descriptor
        self.policy = policy
        self.auditLog = auditLog
        self.backend = backend
        self.caseFolding = caseFolding
        self.kernelResolverFailed = KernelResolverState(kernelResolverFailed)
    }

    /// Opens `path` as a root.
    ///
    /// The path itself is trusted: it is opened like any `openat` (relative to `directory`, or to
    /// the working directory), following symlinks, with `O_PATH|O_DIRECTORY`. Everything resolved
    /// *beneath* the result is then confined to it.
    ///
    /// - Parameters:
    ///   - path: The directory.
    ///   - directory: Where a relative `path` starts (`nil`: the working directory).
    ///   - policy: How paths beneath it are resolved (default ``ResolutionPolicy/beneath``).
    ///   - auditLog: A log that records every operation through this root, whatever task runs it.
    ///   - backend: ``ResolverBackend/automatic`` (default) or the walker only.
    /// - Throws: ``FileSystemError`` naming `openat`.
    public convenience init(
        opening path: FilePath, relativeTo directory: Directory? = nil, policy: ResolutionPolicy = .beneath,
        auditLog: (any SyscallObserver)? = nil, backend: ResolverBackend = .automatic
    ) throws(FileSystemError) {
        let fd = try Self.scoped(auditLog) { () throws(FileSystemError) -> OwnedDescriptor in
            Audit.intent("Directory.init", PathBytes(path).bytes, ["policy": policy.description])
            return try OwnedDescriptor.open(
                path, relativeTo: directory?.descriptor, options: [.pathOnly, .directory])
        }
        self.init(descriptor: fd, policy: policy, auditLog: auditLog, backend: backend, caseFolding: CaseFoldingCache())
    }

    /// The process's own view of the file system: the working directory (`AT_FDCWD`, following
    /// `chdir`) with the ``ResolutionPolicy/unconfined`` policy, so absolute paths start at `/`
    /// and relative ones at the working directory, resolved exactly as the kernel resolves them.
    ///
    /// This is the entry point for paths the caller trusts: a path a user typed, a path a bookmark
    /// recorded and the library then verifies by identity. Every operation still goes through the
    /// secure layer (one seam, one audit log, exclusive creation, exact modes, atomic replace).
    /// For names taken from untrusted data inside a tree, open a root with
    /// ``init(opening:relativeTo:policy:auditLog:backend:)`` and work beneath it instead.
    ///
    /// ```swift
    /// let status = try Directory.current.status(of: "/etc/hostname")
    /// let fd = try Directory.current.open("notes.txt")        // relative to the working directory
    /// ```
    public static let current = Directory(
        descriptor: .workingDirectory, policy: .unconfined, auditLog: nil, backend: .automatic,
        caseFolding: CaseFoldingCache())

    /// Adopts an open directory descriptor (any access mode) as a root.
    public convenience init(
        adopting descriptor: OwnedDescriptor, policy: ResolutionPolicy = .beneath, auditLog: (any SyscallObserver)? = nil,
        backend: ResolverBackend = .automatic
    ) {
        self.init(descriptor: descriptor, policy: policy, auditLog: auditLog, backend: backend, caseFolding: CaseFoldingCache())
    }

    /// A root for a directory beneath this one, resolved by this root's policy. It shares this
    /// root's audit log, backend and case-folding cache.
    ///
    /// - Throws: ``FileSystemError``; `ENOTDIR` if `path` is not a directory.
    public func subdirectory(_ path: FilePath, policy: ResolutionPolicy? = nil) throws(FileSystemError) -> Directory {
        let fd = try scoped { () throws(FileSystemError) -> OwnedDescriptor in
            Audit.intent("Directory.subdirectory", PathBytes(path).bytes)
            return try resolve(PathBytes(path).bytes, flags: LinuxFlags.path | O_DIRECTORY, policy: policy ?? self.policy)
        }
        return Directory(
            descriptor: fd, policy: policy ?? self.policy, auditLog: auditLog, backend: backend,
            caseFolding: caseFolding, kernelResolverFailed: kernelResolverFailed.failed)
    }

    /// The status of the directory itself (`statx` on the descriptor).
    public func status() throws(FileSystemError) -> FileStatus {
        try scoped { () throws(FileSystemError) -> FileStatus in try descriptor.status() }
    }

    /// `Directory(fd N (path))`.
    public var description: String { "Directory(\(descriptor))" }

    // MARK: Scoping the audit log

    /// Runs `body` with this root's audit log as the task's observer (when it has one).
    func scoped<T>(_ body: () throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        // Tested without binding it first: the root's log is an existential, and copying it out
        // on every operation (the usual case has none) retained its box.
        if auditLog == nil { return try body() }
        return try Self.scoped(auditLog, body)
    }

    static func scoped<T>(_ log: (any SyscallObserver)?, _ body: () throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        guard let log else { return try body() }
        let result = SyscallSeam.$observer.withValue(log) {
            Result { () throws(FileSystemError) -> T in try body() }
        }
        return try result.get()
    }

    /// The raw root descriptor, or EBADF.
    func rootFD(_ syscall: String) throws(FileSystemError) -> CInt {
        guard let fd = descriptor.rawValue else {
            throw FileSystemError(syscall: syscall, errno: .badFileDescriptor, path: descriptor.openedPath)
        }
        return fd
    }
}

extension Directory {
    /// `path` made absolute against the process's working directory, or `path` itself when it is
    /// absolute already or the working directory has no path (deleted, or no `/proc`).
    ///
    /// Implementation details: for a relative path, an `O_PATH` open of `.` and a `readlinkat` of
    /// its `/proc/self/fd` entry, through ``SyscallSeam``; nothing for an absolute one.
    package static func absolute(_ path: [UInt8]) -> [UInt8] {
        guard path.first != UInt8(ascii: "/"),
            let cwd = try? current.open(".", options: [.pathOnly]).currentPathBytes()
        else { return path }
        return PathBytes(cwd).appending(PathBytes(path)).bytes
    }
}

// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor that this object owns and closes exactly once.
///
/// Unlike swift-system's `FileDescriptor` (a plain number), an `OwnedDescriptor` closes itself when
/// the last reference goes away, and any use after ``close()`` fails with `EBADF` instead of
/// touching a descriptor number the process may have reused. Every descriptor is opened with
/// `O_CLOEXEC`. The descriptor names an *object*, not a path: it stays valid when the file or
/// directory is renamed.
public final class OwnedDescriptor: Sendable, CustomStringConvertible {
    /// The descriptor number; -1 once closed. Atomic (not a lock): every use reads it once, and
    /// ThreadSanitizer sees atomics, where it cannot see `Synchronization.Mutex`.
    private let state: Atomic<CInt>
    /// The path it was opened with, for messages only; never used to reach the file again.
    public let openedPath: FilePath?

    /// Takes ownership of `fd`.
    init(adopting fd: CInt, openedPath: FilePath?) {
        state = Atomic(fd)
        self.openedPath = openedPath
    }

    deinit {
        let fd = state.load(ordering: .acquiring)
        if fd >= 0 { _ = Sys.close(fd) }
    }

    /// The process's working directory as a descriptor (`AT_FDCWD`): it follows `chdir`, is never
    /// closed, and ``close()`` on it does nothing. ``Directory/current`` is built on it.
    package static let workingDirectory = OwnedDescriptor(adopting: atCurrentDirectory, openedPath: ".")

    /// Whether this is ``workingDirectory`` (`AT_FDCWD`).
    package var isWorkingDirectory: Bool { state.load(ordering: .acquiring) == atCurrentDirectory }

    /// The descriptor number while open, or `nil` after ``close()``. Do not close it yourself.
    /// For the working directory it is `AT_FDCWD` (-100), which every `*at` call accepts.
    public var rawValue: CInt? {
        let fd = state.load(ordering: .acquiring)
        return fd >= 0 || fd == atCurrentDirectory ? fd : nil
    }

    /// Closes the descriptor now. Closing twice is harmless.
    ///
    /// The corresponding C function is `close`.
    public func close() throws(FileSystemError) {
        // The working directory is never closed; anything else is taken exactly once.
        if state.load(ordering: .acquiring) == atCurrentDirectory { return }
        let fd = state.exchange(-1, ordering: .acquiringAndReleasing)
        guard fd >= 0 else { return }  // closed already, or AT_FDCWD
        if case .failure(let errno) = Sys.close(fd) {
            throw FileSystemError(syscall: "close", errno: errno, path: openedPath)
        }
    }

    /// `fd N (path)`.
    public var description: String {
        let fd = rawValue.map(String.init) ?? "closed"
        return "fd \(fd)" + (openedPath.map { " (\(PathBytes(PathBytes($0).bytes).escaped))" } ?? "")
    }

    /// Runs `body` with the raw descriptor; a closed descriptor fails as EBADF for `syscall`.
    func using<T>(_ syscall: String, _ body: (CInt) -> Result<T, Errno>) throws(FileSystemError) -> T {
        let fd = state.load(ordering: .acquiring)
        guard fd >= 0 || fd == atCurrentDirectory else { throw FileSystemError(syscall: syscall, errno: .badFileDescriptor, path: openedPath) }
        switch body(fd) {
        case .success(let value): return value
        case .failure(let errno): throw FileSystemError(syscall: syscall, errno: errno, path: openedPath)
        }
    }
}

// MARK: - Opening

extension OwnedDescriptor {
    /// How to open: the access mode and the flags that matter to this library.
    public struct OpenOptions: OptionSet, Sendable, Hashable {
        public let rawValue: CInt
        /// Creates options from raw `O_*` bits.
        public init(rawValue: CInt) { self.rawValue = rawValue }

        /// `O_RDONLY` (the default, zero).
        public static let readOnly = OpenOptions([])
        /// `O_WRONLY`.
        public static let writeOnly = OpenOptions(rawValue: O_WRONLY)
        /// `O_RDWR`.
        public static let readWrite = OpenOptions(rawValue: O_RDWR)
        /// `O_PATH`: a descriptor that names the object without opening it for I/O. Works on
        /// files the caller cannot read, never blocks on FIFOs, and has no side effects on devices.
        public static let pathOnly = OpenOptions(rawValue: LinuxFlags.path)
        /// `O_DIRECTORY`: fail unless the object is a directory.
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NOFOLLOW`: fail (or, with ``pathOnly``, open the link itself) if the last component is a symlink.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`: never block opening a FIFO or device.
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_CREAT`.
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_EXCL`.
        public static let exclusive = OpenOptions(rawValue: O_EXCL)
        /// `O_TRUNC`.
        public static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// `O_APPEND`.
        public static let append = OpenOptions(rawValue: O_APPEND)
    }

    /// Opens `path` (relative to `directory`, or to the working directory) with `O_CLOEXEC` added.
    ///
    /// - Parameters:
    ///   - path: Absolute, or relative to `directory`.
    ///   - directory: The directory a relative path starts from; `nil` for the working directory.
    ///   - options: Access mode and flags.
    ///   - permissions: The mode for a created file (subject to the umask; see the secure layer
    ///     for exact modes).
    /// - Throws: ``FileSystemError`` naming `openat`.
    ///
    /// Internal: the layers above open through ``Directory`` (``Directory/current`` for a path
    /// the caller trusts), so that every open has a policy, an intent in the audit log, and one
    /// place to change.
    ///
    /// The corresponding C function is `openat`.
    static func open(
        _ path: FilePath,
        relativeTo directory: OwnedDescriptor? = nil,
        options: OpenOptions = .readOnly,
        permissions: FilePermissions = [.ownerReadWrite]
    ) throws(FileSystemError) -> OwnedDescriptor {
        let flags = options.rawValue | O_CLOEXEC
        let result: Result<CInt, Errno> = path.withPlatformString { cPath in
            if let directory {
                guard let dirfd = directory.rawValue else { return .failure(.badFileDescriptor) }
                return Sys.openat(dirfd, cPath, flags, mode_t(permissions.rawValue))
            }
            return Sys.openat(atCurrentDirectory, cPath, flags, mode_t(permissions.rawValue))
        }
        switch result {
        case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: path)
        case .failure(let errno): throw FileSystemError(syscall: "openat", errno: errno, path: path)
        }
    }

    /// Reads the whole file from the current offset, refusing to read more than `limit` bytes.
    ///
    /// Used for small kernel files such as `/proc/self/mountinfo`.
    ///
    /// The corresponding C function is `read`.
    public func readToEnd(limit: Int = 16 << 20) throws(FileSystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try using("read") { fd in
                chunk.withUnsafeMutableBytes { Sys.read(fd, $0) }
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit {
                throw FileSystemError(syscall: "read", errno: .fileTooLarge, path: openedPath)
            }
        }
    }

    /// Reads a symbolic link's target as raw bytes.
    ///
    /// The corresponding C function is `readlinkat`.
    static func readLink(_ path: FilePath, relativeTo directory: OwnedDescriptor? = nil)
        throws(FileSystemError) -> [UInt8]
    {
        var buffer = [CChar](repeating: 0, count: 4097)
        let result: Result<Int, Errno> = path.withPlatformString { cPath in
            let dirfd = directory == nil ? atCurrentDirectory : (directory?.rawValue ?? -1)
            return buffer.withUnsafeMutableBufferPointer { Sys.readlinkat(dirfd, cPath, $0) }
        }
        switch result {
        case .success(let count): return buffer[0..<min(count, 4096)].map { UInt8(bitPattern: $0) }
        case .failure(let errno): throw FileSystemError(syscall: "readlinkat", errno: errno, path: path)
        }
    }
}

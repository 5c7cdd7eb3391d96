// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Opening beneath the root

extension Directory {
    /// Opens `path` beneath this directory.
    ///
    /// - Parameters:
    ///   - path: Relative to the root. With ``ResolutionPolicy/Scope/beneath``, an absolute path, an
    ///     absolute symlink, or `..` above the root is an error (`EXDEV`); with
    ///     ``ResolutionPolicy/Scope/inRoot`` they are clamped to the root.
    ///   - options: Access mode and flags (`O_CLOEXEC` is always added). ``OwnedDescriptor/OpenOptions/noFollow``
    ///     refuses a trailing symlink (`ELOOP`), or with ``OwnedDescriptor/OpenOptions/pathOnly`` opens the
    ///     link itself. Creation flags are refused (`EINVAL`): use ``createFile(_:permissions:readable:)``.
    ///   - policy: Overrides the root's policy for this call.
    /// - Returns: The opened descriptor.
    /// - Throws: ``FileSystemError`` from `openat2` (or from the walker's `openat`), with
    ///   ``SecurityViolation/escape`` or ``SecurityViolation/magicLink`` when the policy refused.
    ///
    /// Implementation details: `openat2(root, path, {flags, RESOLVE_BENEATH|IN_ROOT, RESOLVE_NO_MAGICLINKS…})`,
    /// retrying `EAGAIN` up to ``ResolutionPolicy/eagainRetries`` times, after which the component
    /// walker answers that call; on `ENOSYS`/`EPERM` the root switches to the walker (see ``ResolverBackend``).
    public func open(
        _ path: FilePath, options: OwnedDescriptor.OpenOptions = .readOnly, policy: ResolutionPolicy? = nil
    ) throws(FileSystemError) -> OwnedDescriptor {
        try open(bytes: PathBytes(path).bytes, display: path, options: options, policy: policy)
    }

    /// Opens a path given as raw bytes (see ``open(_:options:policy:)``). A NUL byte fails with
    /// `EINVAL` before any system call.
    public func open(
        bytes path: [UInt8], options: OwnedDescriptor.OpenOptions = .readOnly, policy: ResolutionPolicy? = nil
    ) throws(FileSystemError) -> OwnedDescriptor {
        try open(bytes: path, display: nil, options: options, policy: policy)
    }

    /// `display`: the caller's `FilePath` for `path`, if it has one (saves making another).
    func open(
        bytes path: [UInt8], display: FilePath?, options: OwnedDescriptor.OpenOptions, policy: ResolutionPolicy?
    ) throws(FileSystemError) -> OwnedDescriptor {
        try scoped { () throws(FileSystemError) -> OwnedDescriptor in
            let chosen = policy ?? self.policy
            Audit.intent("Directory.open", path, ["policy": chosen.description, "flags": String(options.rawValue, radix: 8)])
            if options.rawValue & O_CREAT != 0 || options.rawValue & LinuxFlags.tmpfile == LinuxFlags.tmpfile {
                throw FileSystemError(syscall: "openat2", errno: .invalidArgument, path: FilePath(bytes: path))
            }
            return try resolve(path, display: display, flags: options.rawValue, policy: chosen)
        }
    }

    /// Reads the whole file at `path` beneath the root, refusing more than `limit` bytes.
    ///
    /// The file is opened `O_RDONLY|O_NONBLOCK|O_NOCTTY` (a FIFO or a terminal never blocks the
    /// open), then read to its end. For files whose owner and mode must be checked before they are
    /// trusted, use ``readVerified(_:verification:limit:)``.
    ///
    /// - Throws: ``FileSystemError``: the open's errors, `EFBIG` past `limit`, `EAGAIN` from an
    ///   empty FIFO.
    public func readFile(_ path: FilePath, limit: Int = 16 << 20) throws(FileSystemError) -> [UInt8] {
        try scoped { () throws(FileSystemError) -> [UInt8] in
            Audit.intent("Directory.readFile", PathBytes(path).bytes, ["limit": String(limit)])
            let fd = try resolve(
                PathBytes(path).bytes, display: path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY, policy: policy)
            return try fd.readToEnd(limit: limit)
        }
    }

    /// The status of `path` beneath the root, without following a trailing symlink.
    ///
    /// Implementation details: resolves with `O_PATH|O_NOFOLLOW`, then `statx` on the descriptor.
    public func status(of path: FilePath, policy: ResolutionPolicy? = nil) throws(FileSystemError) -> FileStatus {
        try scoped { () throws(FileSystemError) -> FileStatus in
            Audit.intent("Directory.status", PathBytes(path).bytes)
            let fd = try resolve(PathBytes(path).bytes, flags: LinuxFlags.path | O_NOFOLLOW, policy: policy ?? self.policy)
            return try fd.status()
        }
    }

    /// Resolves `path` beneath the root with `flags` (no creation flags), choosing the backend.
    ///
    /// `display` is the path as the caller gave it, when it gave a `FilePath`: the descriptor keeps
    /// it for messages. Otherwise one is made from the bytes (swift-system's initialisers
    /// normalise separators, which costs about as much as the `openat2` itself).
    func resolve(_ path: [UInt8], display: FilePath? = nil, flags: CInt, policy: ResolutionPolicy)
        throws(FileSystemError) -> OwnedDescriptor
    {
        if path.contains(0) { throw FileSystemError(syscall: "openat2", errno: .invalidArgument, path: nil) }
        let root = try rootFD("openat2")
        let openFlags = flags | O_CLOEXEC
        let displayPath = display ?? FilePath(bytes: path)
        if policy.isPlainOpen {
            // Unconfined: the kernel's own resolution, which is exactly openat.
            switch withCName(path, { Sys.openat(root, $0, openFlags, 0) }) {
            case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: displayPath)
            case .failure(let errno): throw FileSystemError(syscall: "openat", errno: errno, path: displayPath)
            }
        }
        if backend == .automatic, kernelResolverFailed.failed == nil {
            var attempt = 0
            while true {
                let result: Result<CInt, Errno> = withCName(path) {
                    Sys.openat2(root, $0, flags: UInt64(UInt32(bitPattern: openFlags)), mode: 0, resolve: policy.resolveFlags)
                }
                switch result {
                case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: displayPath)
                case .failure(.resourceTemporarilyUnavailable) where attempt < policy.eagainRetries:
                    attempt += 1
                    Audit.policy(.retriedEAGAIN(attempt: attempt, path: path))
                    continue
                case .failure(.resourceTemporarilyUnavailable):
                    // A rename storm elsewhere on the system (the kernel's rename sequence kept
                    // moving) outlasted the bound: the walker, which takes `..` from its own stack
                    // and is not disturbed by that, answers this one call. The root keeps openat2.
                    Audit.policy(.fellBack(errno: .resourceTemporarilyUnavailable))
                case .failure(.noFunction), .failure(.notPermitted):
                    let errno = result.failureErrno ?? .noFunction
                    kernelResolverFailed.record(errno)
                    Audit.policy(.fellBack(errno: errno))
                case .failure(let errno):
                    throw kernelError(errno, path: path, policy: policy)
                }
                break
            }
        }
        if policy.scope == .unconfined {
            // The walker confines to its root; an unconfined lookup with restrictions has no
            // user-space equivalent here, so it is refused rather than resolved less strictly:
            // ENOSYS/EPERM when openat2 is missing, EAGAIN when a rename storm outlasted the retries.
            let errno = backend == .walker
                ? .notSupported : kernelResolverFailed.failed ?? .resourceTemporarilyUnavailable
            throw FileSystemError(syscall: "openat2", errno: errno, path: displayPath)
        }
        var walker = PathWalker(root: root, policy: policy)
        switch walker.open(path, flags: openFlags) {
        case .success(let fd): return fd
        case .failure(let failure):
            if let violation = failure.violation {
                throw Audit.reject(violation, path: path, syscall: failure.syscall, errno: failure.errno)
            }
            throw FileSystemError(syscall: failure.syscall, errno: failure.errno, path: displayPath)
        }
    }

    /// The error for a failed `openat2`, recording an escape when `EXDEV` means one.
    private func kernelError(_ errno: Errno, path: [UInt8], policy: ResolutionPolicy) -> FileSystemError {
        if errno == .improperLink && !policy.refusesMountCrossing {
            return Audit.reject(.escape, path: path, syscall: "openat2", errno: errno)
        }
        return FileSystemError(syscall: "openat2", errno: errno, path: FilePath(bytes: path))
    }
}

extension Result where Failure == Errno {
    var failureErrno: Errno? {
        if case .failure(let errno) = self { return errno }
        return nil
    }
}

// MARK: - Splitting paths into components (bytes, never strings)

enum PathComponents {
    /// The components of `path` without empty ones, and whether it ends with `/` (so the last
    /// component must be a directory).
    static func split(_ path: [UInt8]) -> (components: [[UInt8]], trailingSlash: Bool) {
        let components = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
        return (components, path.last == UInt8(ascii: "/"))
    }

    /// Whether `name` is one usable directory-entry name (not empty, `.`, `..`; no `/` or NUL).
    ///
    /// No array is made and `/` and NUL are found with `memchr`: a package save asks this twice
    /// per `linkat` and a catalog walk three times per entry; comparing with `[0x2E]` literals
    /// allocated two arrays per call, and a loop over the bytes cost some 150 instructions.
    static func isPlainName(_ name: [UInt8]) -> Bool {
        name.withUnsafeBufferPointer { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            if bytes[0] == 0x2E && (bytes.count == 1 || (bytes.count == 2 && bytes[1] == 0x2E)) { return false }
            return memchr(start, 0x2F, bytes.count) == nil && memchr(start, 0, bytes.count) == nil
        }
    }

    /// Splits `path` into its parent path and final name, refusing forms that do not name one new
    /// entry (`x/`, `x/.`, `..`, `/`, empty): those fail with ``SecurityViolation/invalidName``.
    static func parentAndName(_ path: [UInt8]) -> (parent: [UInt8], name: [UInt8])? {
        guard !path.isEmpty, path.last != UInt8(ascii: "/"), !path.contains(0) else { return nil }
        let name: [UInt8]
        let parent: [UInt8]
        if let slash = path.lastIndex(of: UInt8(ascii: "/")) {
            name = Array(path[(slash + 1)...])
            parent = slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash])
        } else {
            name = path
            parent = [UInt8(ascii: ".")]
        }
        guard isPlainName(name) else { return nil }
        return (parent, name)
    }
}

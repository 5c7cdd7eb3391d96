// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Exclusive creation with exact modes

extension Directory {
    /// Creates a new regular file at `path` and returns it open for writing (or reading and writing).
    ///
    /// - The file is created with `O_CREAT|O_EXCL|O_NOFOLLOW`: if *anything* exists at the name
    ///   (a file, a directory, a symlink, a dangling symlink) it fails with `EEXIST`, and a
    ///   symlink's target is never created.
    /// - The final mode is exactly `permissions`, whatever the umask: the file is created `0600`
    ///   and then set with `fchmod` on the descriptor. The umask is never read or changed.
    /// - The returned descriptor's identity equals the new entry's (checked with a
    ///   `statx(parent, name, AT_SYMLINK_NOFOLLOW)` after creation; a mismatch is
    ///   ``SecurityViolation/identityChanged``).
    /// - In a directory that folds case, a name that folds to an existing, differently spelled
    ///   name is refused (``SecurityViolation/caseCollision(existing:requested:)``).
    ///
    /// - Parameters:
    ///   - path: The new file; its parent is resolved by the root's policy. `x/`, `x/.`, `..` and
    ///     `/` are refused with ``SecurityViolation/invalidName(_:)``.
    ///   - permissions: The exact final permission bits (at most `0o777`).
    ///   - readable: Whether to open it read-write instead of write-only.
    /// - Throws: ``FileSystemError``.
    public func createFile(
        _ path: FilePath, permissions: FilePermissions = [.ownerReadWrite], readable: Bool = false
    ) throws(FileSystemError) -> OwnedDescriptor {
        try createFile(bytes: PathBytes(path).bytes, permissions: permissions, readable: readable)
    }

    /// ``createFile(_:permissions:readable:)`` for a path given as raw bytes (a `FilePath` drops a
    /// trailing `/`; bytes keep it, so `x/` is refused as the kernel would).
    public func createFile(
        bytes: [UInt8], permissions: FilePermissions = [.ownerReadWrite], readable: Bool = false
    ) throws(FileSystemError) -> OwnedDescriptor {
        try scoped { () throws(FileSystemError) -> OwnedDescriptor in
            Audit.intent("Directory.createFile", bytes, ["mode": octal(permissions.rawValue)])
            try checkMode(permissions.rawValue, allowed: 0o777, path: bytes)
            let (parent, name) = try splitForCreation(bytes)
            try refuseCaseCollision(name, in: parent, path: bytes)
            let flags = O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (readable ? O_RDWR : O_WRONLY)
            let created = try openAt(parent, name, flags: flags, mode: 0o600, path: bytes)
            try setExactMode(created, permissions.rawValue, path: bytes)
            try confirmIdentity(created, parent: parent, name: name, path: bytes)
            return created
        }
    }

    /// Creates a directory at `path` with exactly `permissions` (plus `S_ISGID` inherited from a
    /// setgid parent) and returns it as a root sharing this root's log and policy.
    ///
    /// - Parameters:
    ///   - path: The new directory; its parent is resolved by the root's policy.
    ///   - permissions: The exact permission bits of every directory this call creates (at most `0o777`).
    ///   - withIntermediateDirectories: `false` (the default): exactly one directory is made, and
    ///     anything at the name is `EEXIST`. `true`: `mkdir -p`, as `FileManager`'s parameter of the
    ///     same name: missing parents are made too, and an existing directory is returned as it is
    ///     (its mode untouched). The longest existing prefix is resolved by the root's policy; every
    ///     missing component is then made with `mkdirat` relative to its parent's descriptor and
    ///     opened with `O_NOFOLLOW|O_DIRECTORY`, so a directory swapped for a symlink mid-walk is
    ///     never followed.
    /// - Throws: ``FileSystemError``: `EEXIST`; `ENOTDIR` when a component exists and is not a
    ///   directory (a dangling symlink included); `ENOENT` for `..` in the part that does not exist
    ///   yet; ``SecurityViolation/modeOutOfRange(_:)`` for setuid, setgid, sticky or bits above `0o777`.
    @discardableResult
    public func createDirectory(
        _ path: FilePath, permissions: FilePermissions = [.ownerReadWriteExecute], withIntermediateDirectories: Bool = false
    ) throws(FileSystemError) -> Directory {
        try scoped { () throws(FileSystemError) -> Directory in
            let bytes = PathBytes(path).bytes
            Audit.intent(
                "Directory.createDirectory", bytes,
                ["mode": octal(permissions.rawValue), "intermediates": String(withIntermediateDirectories)])
            try checkMode(permissions.rawValue, allowed: 0o777, path: bytes)
            if withIntermediateDirectories { return try createDirectoryAndParents(bytes, permissions: permissions.rawValue) }
            let (parent, name) = try splitForCreation(bytes)
            try refuseCaseCollision(name, in: parent, path: bytes)
            return try makeDirectory(name, in: parent, permissions: permissions.rawValue, path: bytes, tolerateExisting: false)
        }
    }

    /// Creates a symbolic link at `path` whose target is `target`, stored verbatim (it is never
    /// resolved here; resolving it later is confined by the policy like any other symlink).
    public func createSymlink(_ path: FilePath, target: [UInt8]) throws(FileSystemError) {
        try scoped { () throws(FileSystemError) in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.createSymlink", bytes, ["target": PathBytes(target).escaped])
            if target.isEmpty || target.contains(0) {
                throw Audit.reject(.invalidName(target), path: bytes, syscall: "symlinkat", errno: .invalidArgument)
            }
            let (parent, name) = try splitForCreation(bytes)
            try refuseCaseCollision(name, in: parent, path: bytes)
            let dirfd = try parent.raw("symlinkat")
            let result = withCName(target) { cTarget in withCName(name) { Sys.symlinkat(cTarget, dirfd, $0) } }
            if case .failure(let errno) = result {
                throw FileSystemError(syscall: "symlinkat", errno: errno, path: FilePath(bytes: bytes))
            }
        }
    }

    // MARK: Shared steps

    /// Resolves the parent of `path` (as a directory, `O_PATH`) and returns it with the final name.
    func splitForCreation(_ path: [UInt8]) throws(FileSystemError) -> (OwnedDescriptor, [UInt8]) {
        guard let (parentPath, name) = PathComponents.parentAndName(path) else {
            throw Audit.reject(.invalidName(path), path: path, syscall: "openat", errno: .invalidArgument)
        }
        let parent = try resolve(parentPath, flags: LinuxFlags.path | O_DIRECTORY, policy: policy)
        return (parent, name)
    }

    func openAt(_ parent: OwnedDescriptor, _ name: [UInt8], flags: CInt, mode: mode_t, path: [UInt8])
        throws(FileSystemError) -> OwnedDescriptor
    {
        let dirfd = try parent.raw("openat")
        switch withCName(name, { Sys.openat(dirfd, $0, flags | O_CLOEXEC, mode) }) {
        case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: FilePath(bytes: path))
        case .failure(let errno): throw FileSystemError(syscall: "openat", errno: errno, path: FilePath(bytes: path))
        }
    }

    func setExactMode(_ fd: OwnedDescriptor, _ permissions: UInt32, path: [UInt8]) throws(FileSystemError) {
        _ = try fd.using("fchmod") { Sys.fchmod($0, mode_t(permissions)) }
    }

    /// Confirms that `fd` is the entry `name` in `parent` (device and inode) and records it as created.
    @discardableResult
    func confirmIdentity(_ fd: OwnedDescriptor, parent: OwnedDescriptor, name: [UInt8], path: [UInt8])
        throws(FileSystemError) -> ObjectIdentity
    {
        let mine = try fd.status()
        let dirfd = try parent.raw("statx")
        let entry = try FileStatus.statx(
            dirfd: dirfd, path: FilePath(bytes: name), flags: AT_SYMLINK_NOFOLLOW, errorPath: FilePath(bytes: path))
        guard mine.device == entry.device, mine.inode == entry.inode else {
            throw Audit.reject(.identityChanged, path: path, syscall: "statx", errno: .resourceTemporarilyUnavailable)
        }
        Audit.policy(.created(path: path, identity: mine.identity))
        return mine.identity
    }

    /// `mkdirat` + open with `O_NOFOLLOW|O_DIRECTORY` + exact mode. With `tolerateExisting`, an
    /// existing *directory* (not a symlink) at the name is opened instead.
    func makeDirectory(
        _ name: [UInt8], in parent: OwnedDescriptor, permissions: UInt32, path: [UInt8], tolerateExisting: Bool
    ) throws(FileSystemError) -> Directory {
        let dirfd = try parent.raw("mkdirat")
        var created = true
        switch withCName(name, { Sys.mkdirat(dirfd, $0, 0o700) }) {
        case .success: break
        case .failure(.fileExists) where tolerateExisting: created = false
        case .failure(let errno): throw FileSystemError(syscall: "mkdirat", errno: errno, path: FilePath(bytes: path))
        }
        let opened: OwnedDescriptor
        do throws(FileSystemError) {
            opened = try openAt(parent, name, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, mode: 0, path: path)
        } catch {
            // Something that is not a directory took the name (a symlink planted in a race).
            if error.errno == .tooManySymbolicLinkLevels || error.errno == .notDirectory {
                throw FileSystemError(syscall: "openat", errno: .notDirectory, path: FilePath(bytes: path))
            }
            throw error
        }
        if created {
            let status = try opened.status()
            // Keep a setgid bit inherited from the parent: fchmod would otherwise clear it.
            try setExactMode(opened, permissions | (status.mode & UInt32(S_ISGID)), path: path)
            try confirmIdentity(opened, parent: parent, name: name, path: path)
        }
        return Directory(
            descriptor: opened, policy: policy, auditLog: auditLog, backend: backend, caseFolding: caseFolding,
            kernelResolverFailed: kernelResolverFailed.failed)
    }

    func checkMode(_ mode: UInt32, allowed: UInt32, path: [UInt8]) throws(FileSystemError) {
        if mode & ~allowed != 0 {
            throw Audit.reject(.modeOutOfRange(mode), path: path, syscall: "fchmod", errno: .invalidArgument)
        }
    }
}

func octal(_ value: UInt32) -> String { "0o" + String(value, radix: 8) }

extension OwnedDescriptor {
    /// The raw descriptor or an EBADF error for `syscall`.
    func raw(_ syscall: String) throws(FileSystemError) -> CInt {
        guard let fd = rawValue else { throw FileSystemError(syscall: syscall, errno: .badFileDescriptor, path: openedPath) }
        return fd
    }
}

extension FileStatus {
    /// The audit-log identity of this status.
    public var identity: ObjectIdentity {
        ObjectIdentity(device: device, inode: inode, mode: mode, uid: uid, linkCount: linkCount)
    }
}

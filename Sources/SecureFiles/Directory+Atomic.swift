import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Atomic publish, atomic replace, renameat2

/// How ``Directory/rename(_:to:in:mode:)`` treats an existing destination.
public enum RenameMode: String, Sendable, Hashable {
    /// Replace it atomically (`renameat2` flags 0).
    case replace
    /// Fail with `EEXIST` if anything exists there, a dangling symlink included (`RENAME_NOREPLACE`).
    case noReplace
    /// Swap the two entries atomically; both must exist (`RENAME_EXCHANGE`).
    case exchange

    var flags: UInt32 {
        switch self {
        case .replace: return 0
        case .noReplace: return 1
        case .exchange: return 2
        }
    }
}

extension Directory {
    /// Publishes a new file at `path` atomically: readers see nothing, then the complete file with
    /// exactly `permissions`; an existing entry at the name is never replaced (`EEXIST`).
    ///
    /// Implementation details: an unnamed `O_TMPFILE` in the parent, written, `fchmod`, `fsync`,
    /// then `linkat` to the name (with `AT_EMPTY_PATH`, or through `/proc/self/fd/N` without
    /// `CAP_DAC_READ_SEARCH`), then `fsync` of the directory. Where `O_TMPFILE` is unsupported
    /// (`EOPNOTSUPP`, `EISDIR`, `EINVAL`), or the unnamed file cannot be linked (no `/proc` to
    /// link through without `CAP_DAC_READ_SEARCH`), a random name created with `O_EXCL` and moved
    /// with `renameat2(RENAME_NOREPLACE)` (or `linkat` + `unlinkat` where that flag is unsupported).
    ///
    /// - Throws: ``FileSystemError``; `EEXIST` when the name exists.
    public func publish(_ path: FilePath, contents: [UInt8], permissions: FilePermissions = [.ownerReadWrite])
        throws(FileSystemError)
    {
        try scoped { () throws(FileSystemError) in
            let bytes = pathBytes(path)
            Audit.intent("Directory.publish", bytes, ["mode": octal(permissions.rawValue), "bytes": String(contents.count)])
            try checkMode(permissions.rawValue, allowed: 0o777, path: bytes)
            let (parent, name) = try splitForCreation(bytes)
            try refuseCaseCollision(name, in: parent, path: bytes)
            let dirfd = try parent.raw("openat")
            switch Sys.openat(dirfd, ".", LinuxFlags.tmpfile | O_RDWR | O_CLOEXEC, 0o600) {
            case .success(let fd):
                let temporary = OwnedDescriptor(adopting: fd, openedPath: path)
                try fill(temporary, contents, permissions: permissions.rawValue, path: bytes)
                do throws(FileSystemError) {
                    try linkTemporary(temporary, into: parent, name: name, path: bytes)
                } catch {
                    // EEXIST is the answer; anything else (no /proc to link through without
                    // CAP_DAC_READ_SEARCH, a file system that refuses) degrades to a named temporary.
                    guard error.errno != .fileExists else { throw error }
                    Audit.policy(.temporaryNameFallback(errno: error.errno))
                    try publishThroughTemporaryName(contents, permissions: permissions.rawValue, parent: parent, name: name, path: bytes)
                }
            case .failure(let errno) where [.notSupported, .isDirectory, .invalidArgument].contains(errno):
                Audit.policy(.temporaryNameFallback(errno: errno))
                try publishThroughTemporaryName(contents, permissions: permissions.rawValue, parent: parent, name: name, path: bytes)
            case .failure(let errno):
                throw FileSystemError(syscall: "openat", errno: errno, path: path)
            }
            try confirmIdentityOfEntry(name, in: parent, path: bytes)
            try syncDirectory(parent, path: bytes)
        }
    }

    /// Replaces the file at `path` atomically (or creates it): readers see the old complete file
    /// or the new one, never a torn one, and after a crash one of the two survives.
    ///
    /// Implementation details: a random name created with `O_CREAT|O_EXCL|O_NOFOLLOW` `0600` in
    /// the same directory, written, `fchmod` to exactly `permissions`, `fsync`, `renameat2` over
    /// the name (a symlink at the name is replaced, never followed), `fsync` of the directory.
    public func replace(_ path: FilePath, contents: [UInt8], permissions: FilePermissions = [.ownerReadWrite])
        throws(FileSystemError)
    {
        try scoped { () throws(FileSystemError) in
            let bytes = pathBytes(path)
            Audit.intent("Directory.replace", bytes, ["mode": octal(permissions.rawValue), "bytes": String(contents.count)])
            try checkMode(permissions.rawValue, allowed: 0o777, path: bytes)
            let (parent, name) = try splitForCreation(bytes)
            try refuseCaseCollision(name, in: parent, path: bytes)
            let (temporary, temporaryName) = try createTemporary(in: parent, for: name, path: bytes)
            let dirfd = try parent.raw("renameat2")
            do throws(FileSystemError) {
                try fill(temporary, contents, permissions: permissions.rawValue, path: bytes)
            } catch {
                _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) }
                throw error
            }
            let result = withCName(temporaryName) { from in withCName(name) { Sys.renameat2(dirfd, from, dirfd, $0, 0) } }
            if case .failure(let errno) = result {
                _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) }
                throw FileSystemError(syscall: "renameat2", errno: errno, path: path)
            }
            try confirmIdentity(temporary, parent: parent, name: name, path: bytes)
            try syncDirectory(parent, path: bytes)
        }
    }

    /// Renames `source` to `destination` (in this root, or in `destinationRoot`) with `renameat2`.
    ///
    /// - Parameters:
    ///   - mode: ``RenameMode/replace``, ``RenameMode/noReplace`` or ``RenameMode/exchange``.
    /// - Throws: ``FileSystemError``: `EEXIST` (no-replace onto anything, a dangling symlink
    ///   included), `ENOENT` (exchange with a missing peer), `EINVAL` where the file system lacks
    ///   the flag.
    public func rename(_ source: FilePath, to destination: FilePath, in destinationRoot: Directory? = nil, mode: RenameMode)
        throws(FileSystemError)
    {
        try scoped { () throws(FileSystemError) in
            let from = pathBytes(source)
            let to = pathBytes(destination)
            Audit.intent("Directory.rename", from, ["to": escapedBytes(to), "mode": mode.rawValue])
            let (fromParent, fromName) = try splitForCreation(from)
            let (toParent, toName) = try (destinationRoot ?? self).splitForCreation(to)
            if mode != .exchange { try (destinationRoot ?? self).refuseCaseCollision(toName, in: toParent, path: to) }
            let fromfd = try fromParent.raw("renameat2")
            let tofd = try toParent.raw("renameat2")
            let result = withCName(fromName) { a in withCName(toName) { Sys.renameat2(fromfd, a, tofd, $0, mode.flags) } }
            if case .failure(let errno) = result {
                throw FileSystemError(syscall: "renameat2", errno: errno, path: source)
            }
        }
    }

    // MARK: Steps

    /// A random name with `O_EXCL`, filled, then moved to `name` without replacing; the temporary
    /// name is removed whatever fails.
    private func publishThroughTemporaryName(
        _ contents: [UInt8], permissions: UInt32, parent: OwnedDescriptor, name: [UInt8], path: [UInt8]
    ) throws(FileSystemError) {
        let (temporary, temporaryName) = try createTemporary(in: parent, for: name, path: path)
        do throws(FileSystemError) {
            try fill(temporary, contents, permissions: permissions, path: path)
        } catch {
            if let dirfd = parent.rawValue { _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) } }
            throw error
        }
        try moveTemporary(temporaryName, in: parent, to: name, path: path)
    }

    private func fill(_ fd: OwnedDescriptor, _ contents: [UInt8], permissions: UInt32, path: [UInt8]) throws(FileSystemError) {
        var offset = 0
        while offset < contents.count {
            let written = try fd.using("write") { raw in
                contents[offset...].withUnsafeBytes { Sys.write(raw, $0) }
            }
            if written <= 0 { throw FileSystemError(syscall: "write", errno: .ioError, path: FilePath(bytes: path)) }
            offset += written
        }
        try setExactMode(fd, permissions, path: path)
        _ = try fd.using("fsync") { Sys.fsync($0) }
    }

    private func linkTemporary(_ temporary: OwnedDescriptor, into parent: OwnedDescriptor, name: [UInt8], path: [UInt8])
        throws(FileSystemError)
    {
        let fd = try temporary.raw("linkat")
        let dirfd = try parent.raw("linkat")
        var result = withCName(name) { Sys.linkat(fd, "", dirfd, $0, LinuxFlags.emptyPath) }
        if case .failure(let errno) = result, errno == .noSuchFileOrDirectory || errno == .notPermitted {
            // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc link of our own descriptor does not.
            result = withCName(Array("/proc/self/fd/\(fd)".utf8)) { proc in
                withCName(name) { Sys.linkat(atCurrentDirectory, proc, dirfd, $0, AT_SYMLINK_FOLLOW) }
            }
        }
        if case .failure(let errno) = result {
            throw FileSystemError(syscall: "linkat", errno: errno, path: FilePath(bytes: path))
        }
    }

    private func createTemporary(in parent: OwnedDescriptor, for name: [UInt8], path: [UInt8])
        throws(FileSystemError) -> (OwnedDescriptor, [UInt8])
    {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let suffix = String(generator.next() as UInt64, radix: 16)
            let temporaryName = Array(".".utf8) + name.prefix(200) + Array(".tmp-\(suffix)".utf8)
            do throws(FileSystemError) {
                let fd = try openAt(
                    parent, temporaryName, flags: O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR, mode: 0o600, path: path)
                return (fd, temporaryName)
            } catch {
                if error.errno != .fileExists { throw error }
            }
        }
        throw FileSystemError(syscall: "openat", errno: .fileExists, path: FilePath(bytes: path))
    }

    private func moveTemporary(_ temporaryName: [UInt8], in parent: OwnedDescriptor, to name: [UInt8], path: [UInt8])
        throws(FileSystemError)
    {
        let dirfd = try parent.raw("renameat2")
        var result = withCName(temporaryName) { from in withCName(name) { Sys.renameat2(dirfd, from, dirfd, $0, 1) } }
        if case .failure(.invalidArgument) = result {
            // No RENAME_NOREPLACE here: a hard link is just as exclusive.
            result = withCName(temporaryName) { from in withCName(name) { Sys.linkat(dirfd, from, dirfd, $0, 0) } }
        }
        _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) }
        if case .failure(let errno) = result {
            throw FileSystemError(syscall: "renameat2", errno: errno, path: FilePath(bytes: path))
        }
    }

    private func confirmIdentityOfEntry(_ name: [UInt8], in parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) {
        let opened = try openAt(parent, name, flags: LinuxFlags.path | O_NOFOLLOW, mode: 0, path: path)
        Audit.policy(.created(path: path, identity: try opened.status().identity))
    }

    func syncDirectory(_ parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) {
        let directory = try openAt(parent, [UInt8(ascii: ".")], flags: O_RDONLY | O_DIRECTORY, mode: 0, path: path)
        _ = try directory.using("fsync") { Sys.fsync($0) }
    }
}

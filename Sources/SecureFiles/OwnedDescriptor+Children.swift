import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

extension OwnedDescriptor {
    /// Opens the entry `name` of this directory as a directory for reading, refusing symlinks and,
    /// with `sameMount`, refusing to cross into another mount. Used by searches that walk a volume.
    ///
    /// - Parameters:
    ///   - name: One component (no `/`), as raw bytes.
    ///   - sameMount: Fail with `EXDEV` when the entry is a mount point of another file system.
    /// - Throws: ``FileSystemError``: `ELOOP`/`ENOTDIR` for a symlink or non-directory, `EXDEV`
    ///   for a mount crossing, `EACCES` for an unreadable directory.
    ///
    /// Implementation details: one `openat2(2)` with `RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`
    /// (`| RESOLVE_NO_XDEV`) and `O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`.
    /// Where `openat2` is missing (`ENOSYS`) or refused (`EPERM` under some seccomp profiles), a
    /// plain `openat` followed by a mount-id comparison gives the same result.
    public func openChildDirectory(_ name: [UInt8], sameMount: Bool = true) throws(FileSystemError) -> OwnedDescriptor {
        guard !name.isEmpty, !name.contains(UInt8(ascii: "/")), name != [0x2E], name != [0x2E, 0x2E] else {
            throw FileSystemError(syscall: "openat2", errno: .invalidArgument, path: FilePath(bytes: name))
        }
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var resolve = CLS_RESOLVE_NO_SYMLINKS | CLS_RESOLVE_NO_MAGICLINKS
        if sameMount { resolve |= CLS_RESOLVE_NO_XDEV }
        let cName = name.map { CChar(bitPattern: $0) } + [0]
        let result: Result<CInt, Errno> = cName.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let fd = rawValue else { return .failure(.badFileDescriptor) }
            return Sys.openat2(fd, base, flags: UInt64(flags), mode: 0, resolve: resolve)
        }
        switch result {
        case .success(let fd):
            return OwnedDescriptor(adopting: fd, openedPath: FilePath(bytes: name))
        case .failure(.noFunction), .failure(.notPermitted):
            let child = try OwnedDescriptor.open(
                FilePath(bytes: name), relativeTo: self, options: [.readOnly, .directory, .noFollow, .nonBlocking])
            if sameMount, try child.reusableMountID() != reusableMountID() {
                throw FileSystemError(syscall: "openat", errno: .improperLink, path: FilePath(bytes: name))
            }
            return child
        case .failure(let errno):
            throw FileSystemError(syscall: "openat2", errno: errno, path: FilePath(bytes: name))
        }
    }
}

extension FilePath {
    /// A path from raw bytes, lossless for names that are not UTF-8 (a NUL truncates).
    public init(bytes: [UInt8]) {
        let count = bytes.firstIndex(of: 0) ?? bytes.count
        // One temporary C string on the stack, no intermediate arrays (this runs for every search hit).
        self = withCName(count == bytes.count ? bytes : Array(bytes[..<count])) { FilePath(platformString: $0) }
    }
}

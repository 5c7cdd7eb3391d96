// SPDX-License-Identifier: Apache-2.0
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
    package func openChildDirectory(_ name: [UInt8], sameMount: Bool = true) throws(FileSystemError) -> OwnedDescriptor {
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

extension OwnedDescriptor {
    /// Opens the entry `name` of this directory, never following a symlink at the name: with
    /// ``OpenOptions/pathOnly`` a symlink is opened itself, otherwise it fails with `ELOOP`. One
    /// component cannot lead anywhere but into this directory, so no resolution policy is needed;
    /// searches and walkers that read a directory's entries open them with this.
    ///
    /// - Parameters:
    ///   - name: One component (no `/`, not `.` or `..`), as raw bytes.
    ///   - options: Access mode and flags; `O_NOFOLLOW` and `O_CLOEXEC` are always added and creation
    ///     flags are refused (`EINVAL`): create through ``Directory``.
    /// - Throws: ``FileSystemError`` naming `openat`.
    ///
    /// The corresponding C function is `openat`.
    public func openChild(_ name: [UInt8], options: OpenOptions = .readOnly) throws(FileSystemError) -> OwnedDescriptor {
        // O_TMPFILE includes O_DIRECTORY's bit: compare all of its bits, not any.
        let creates = options.rawValue & O_CREAT != 0 || options.rawValue & LinuxFlags.tmpfile == LinuxFlags.tmpfile
        guard PathComponents.isPlainName(name), !creates else {
            throw FileSystemError(syscall: "openat", errno: .invalidArgument, path: FilePath(bytes: name))
        }
        let dirfd = try raw("openat")
        switch withCName(name, { Sys.openat(dirfd, $0, options.rawValue | O_NOFOLLOW | O_CLOEXEC, 0) }) {
        case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: FilePath(bytes: name))
        case .failure(let errno): throw FileSystemError(syscall: "openat", errno: errno, path: FilePath(bytes: name))
        }
    }

    /// Opens the object this descriptor names again, with other options: typically an `O_PATH`
    /// descriptor, checked first, upgraded to one that can read or write. The result is the same
    /// object whatever happened to its path since (it is reached through `/proc/self/fd/N`, which
    /// names the object, not a path), so a check made on this descriptor holds for the new one.
    ///
    /// - Parameter options: Access mode and flags (`O_CLOEXEC` added; creation flags and
    ///   `O_NOFOLLOW` refused with `EINVAL`, since the link is the object itself).
    /// - Throws: ``FileSystemError`` naming `openat`: `ENOENT` when `/proc` is not mounted,
    ///   `ENXIO` for a socket, the object's own permission errors (`EACCES`).
    ///
    /// Implementation details: `openat(AT_FDCWD, "/proc/self/fd/N", flags)`, then `statx` on both
    /// descriptors to confirm the device and inode (``SecurityViolation/identityChanged`` otherwise).
    public func reopen(options: OpenOptions) throws(FileSystemError) -> OwnedDescriptor {
        let creates = options.rawValue & O_CREAT != 0 || options.rawValue & LinuxFlags.tmpfile == LinuxFlags.tmpfile
        guard !creates, options.rawValue & O_NOFOLLOW == 0 else {
            throw FileSystemError(syscall: "openat", errno: .invalidArgument, path: openedPath)
        }
        let fd = try raw("openat")
        let link = Array("/proc/self/fd/\(fd)".utf8)
        let reopened: OwnedDescriptor
        switch withCName(link, { Sys.openat(atCurrentDirectory, $0, options.rawValue | O_CLOEXEC, 0) }) {
        case .success(let new): reopened = OwnedDescriptor(adopting: new, openedPath: openedPath)
        case .failure(let errno): throw FileSystemError(syscall: "openat", errno: errno, path: openedPath)
        }
        let before = try status()
        let after = try reopened.status()
        guard before.device == after.device, before.inode == after.inode else {
            throw Audit.reject(
                .identityChanged, path: openedPath.map { PathBytes($0).bytes } ?? [], syscall: "openat",
                errno: .resourceTemporarilyUnavailable)
        }
        return reopened
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

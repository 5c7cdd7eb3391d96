// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemPackage

/// What a package writer needs beyond creating entries: a second name for an existing file, a link's
/// text, and a file's mode and modification time set through its descriptor.
extension OwnedDescriptor {
    /// Gives the entry `name` of this directory a second name, `newName` in `directory`: the same
    /// inode, nothing copied. A symbolic link is linked as the link itself, never followed.
    ///
    /// The corresponding C function is `linkat` (flags 0).
    ///
    /// - Throws: ``FileSystemError``: `EXDEV` across file systems (and btrfs subvolumes), `EEXIST`
    ///   when `newName` exists, `EPERM` where the file system or `protected_hardlinks` refuses.
    public func linkChild(_ name: [UInt8], into directory: OwnedDescriptor, as newName: [UInt8]) throws(FileSystemError) {
        guard PathComponents.isPlainName(name), PathComponents.isPlainName(newName) else {
            throw FileSystemError(syscall: "linkat", errno: .invalidArgument, path: FilePath(bytes: newName))
        }
        let from = try raw("linkat")
        let to = try directory.raw("linkat")
        let result = withCName(name) { old in withCName(newName) { Sys.linkat(from, old, to, $0, 0) } }
        if case .failure(let errno) = result {
            throw FileSystemError(syscall: "linkat", errno: errno, path: FilePath(bytes: newName))
        }
    }

    /// The exact bytes of the symbolic link `name` in this directory (up to 4,096).
    ///
    /// The corresponding C function is `readlinkat`.
    public func symlinkTarget(ofChild name: [UInt8]) throws(FileSystemError) -> [UInt8] {
        guard PathComponents.isPlainName(name) else {
            throw FileSystemError(syscall: "readlinkat", errno: .invalidArgument, path: FilePath(bytes: name))
        }
        return try Self.readLink(FilePath(bytes: name), relativeTo: self)
    }

    /// Sets exactly these permission bits (the umask does not apply).
    ///
    /// The corresponding C function is `fchmod`.
    public func setPermissions(_ permissions: UInt32) throws(FileSystemError) {
        guard permissions & ~0o7777 == 0 else {
            throw FileSystemError(syscall: "fchmod", errno: .invalidArgument, path: openedPath)
        }
        _ = try using("fchmod") { Sys.fchmod($0, mode_t(permissions)) }
    }

    /// Sets the modification time (the access time is left as it is).
    ///
    /// The corresponding C function is `futimens`.
    public func setModificationTime(_ time: Timestamp) throws(FileSystemError) {
        let omit = Int((1 << 30) - 2)  // UTIME_OMIT
        let times = [timespec(tv_sec: 0, tv_nsec: omit), timespec(tv_sec: Int(time.seconds), tv_nsec: Int(time.nanoseconds))]
        _ = try using("futimens") { fd in
            times.withUnsafeBufferPointer { buffer -> Result<CInt, Errno> in
                guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
                return Sys.futimens(fd, base)
            }
        }
    }

    /// Takes an advisory lock on the open file description (`flock`): shared or exclusive, waiting
    /// for it or not. It is released by ``unlock()`` or when the last descriptor of this open file
    /// description closes; unlike POSIX record locks, closing another descriptor of the same file
    /// does not drop it, and two opens of the same file conflict even in one process.
    ///
    /// The corresponding C function is `flock`.
    ///
    /// - Returns: `false` when `wait` is `false` and another open file description holds a
    ///   conflicting lock.
    @discardableResult
    public func lock(exclusive: Bool, wait: Bool = true) throws(FileSystemError) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        do throws(FileSystemError) {
            _ = try using("flock") { Sys.flock($0, CInt(operation)) }
            return true
        } catch {
            if error.errno == .wouldBlock { return false }
            throw error
        }
    }

    /// Releases a lock taken with ``lock(exclusive:wait:)``.
    ///
    /// The corresponding C function is `flock` (`LOCK_UN`).
    public func unlock() throws(FileSystemError) {
        _ = try using("flock") { Sys.flock($0, CInt(LOCK_UN)) }
    }

    /// The status of the entry `name` of this directory, without following a symbolic link: one
    /// `statx` with `AT_SYMLINK_NOFOLLOW`, nothing opened.
    ///
    /// The corresponding C function is `statx`.
    public func statusOfChild(_ name: [UInt8]) throws(FileSystemError) -> FileStatus {
        guard PathComponents.isPlainName(name) else {
            throw FileSystemError(syscall: "statx", errno: .invalidArgument, path: FilePath(bytes: name))
        }
        let dirfd = try raw("statx")
        // The name goes to the kernel as it is; a FilePath is made only for an error (making two
        // per call was a tenth of a catalog scan's walk).
        switch withCName(name, { FileStatus.statx(dirfd: dirfd, cPath: $0, flags: AT_SYMLINK_NOFOLLOW) }) {
        case .success(let status): return status
        case .failure(let errno): throw FileSystemError(syscall: "statx", errno: errno, path: FilePath(bytes: name))
        }
    }

    /// Makes this (empty, writable) file share all of `source`'s data blocks: a reflink, a new
    /// inode whose later writes leave `source` as it is.
    ///
    /// The corresponding C call is `ioctl(FICLONE)`.
    ///
    /// - Throws: ``FileSystemError``: `EOPNOTSUPP` where the file system cannot share extents
    ///   (ext4, tmpfs), `EXDEV` across file systems.
    public func cloneContents(from source: OwnedDescriptor) throws(FileSystemError) {
        let from = try source.raw("ioctl(FICLONE)")
        _ = try using("ioctl(FICLONE)") { Sys.clone($0, from: from) }
    }
}

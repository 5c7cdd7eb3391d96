import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// The few calls that publishing a file needs (write, fsync, exact modes, rename, link, unlink,
// mkdir), for alias files, refreshed bookmarks and signing keys. The full secure layer
// (`Directory`, atomic replace, audit log) supersedes these; they stay thin and go through the
// seam like every other call.

extension OwnedDescriptor {
    /// Writes all of `bytes` at the current offset (retrying short writes).
    ///
    /// The corresponding C function is `write`.
    public func writeAll(_ bytes: [UInt8]) throws(FileSystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = try using("write") { fd in
                bytes.withUnsafeBytes { buffer in
                    Sys.write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
            }
            guard written > 0 else { throw FileSystemError(syscall: "write", errno: .ioError, path: openedPath) }
            offset += written
        }
    }

    /// Reads at most `count` bytes from the current offset (fewer at the end of the file).
    ///
    /// The corresponding C function is `read`.
    public func readPrefix(_ count: Int) throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = try using("read") { fd in
                bytes.withUnsafeMutableBytes { buffer in
                    Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// Flushes the object's data and metadata to the device.
    ///
    /// The corresponding C function is `fsync`.
    public func synchronize() throws(FileSystemError) {
        _ = try using("fsync") { Sys.fsync($0) }
    }

    /// Sets the permission bits exactly (the umask does not apply).
    ///
    /// The corresponding C function is `fchmod`.
    public func setPermissions(_ permissions: FilePermissions) throws(FileSystemError) {
        _ = try using("fchmod") { Sys.fchmod($0, mode_t(permissions.rawValue)) }
    }

    /// Renames the entry `name` of this directory to `newName` in `destination` (this directory
    /// when `nil`), replacing what is there. A symlink at `newName` is replaced, never followed.
    ///
    /// The corresponding C function is `renameat`.
    public func renameEntry(_ name: FilePath, to newName: FilePath, in destination: OwnedDescriptor? = nil)
        throws(FileSystemError)
    {
        let target = destination ?? self
        guard let targetFD = target.rawValue else {
            throw FileSystemError(syscall: "renameat", errno: .badFileDescriptor, path: newName)
        }
        _ = try using("renameat") { fd in
            name.withPlatformString { from in
                newName.withPlatformString { to in Sys.renameat(fd, from, targetFD, to) }
            }
        }
    }

    /// Links the entry `name` of this directory as `newName` in the same directory; fails with
    /// `EEXIST` when `newName` exists (an atomic "create if absent").
    ///
    /// The corresponding C function is `linkat`.
    public func linkEntry(_ name: FilePath, as newName: FilePath) throws(FileSystemError) {
        _ = try using("linkat") { fd in
            name.withPlatformString { from in
                newName.withPlatformString { to in Sys.linkat(fd, from, fd, to) }
            }
        }
    }

    /// Removes the entry `name` (not a directory) of this directory.
    ///
    /// The corresponding C function is `unlinkat`.
    public func removeEntry(_ name: FilePath) throws(FileSystemError) {
        _ = try using("unlinkat") { fd in name.withPlatformString { Sys.unlinkat(fd, $0, 0) } }
    }

    /// Creates the directory `name` in this directory with exactly `permissions`.
    ///
    /// The corresponding C functions are `mkdirat` then `fchmod`.
    public func makeDirectory(_ name: FilePath, permissions: FilePermissions) throws(FileSystemError) {
        _ = try using("mkdirat") { fd in name.withPlatformString { Sys.mkdirat(fd, $0, mode_t(permissions.rawValue)) } }
        let created = try OwnedDescriptor.open(name, relativeTo: self, options: [.readOnly, .directory, .noFollow])
        try created.setPermissions(permissions)
    }

    /// The effective user id of this process (the owner that files we create get).
    public static var effectiveUserID: UInt32 { UInt32(geteuid()) }
}

extension Sys {
    // write, fsync, fchmod, unlinkat and mkdirat live in Syscalls.swift (with modes and identities
    // for the audit log); these two keep the shapes the publishing helpers use.

    /// renameat(2).
    static func renameat(_ fromFD: CInt, _ from: UnsafePointer<CChar>, _ toFD: CInt, _ to: UnsafePointer<CChar>)
        -> Result<CInt, Errno>
    {
        throughSeam("renameat", descriptor: fromFD, path: from, secondDescriptor: toFD, secondPath: to) {
            Glibc.renameat(fromFD, from, toFD, to)
        }
    }

    /// linkat(2) without following symlinks.
    static func linkat(_ fromFD: CInt, _ from: UnsafePointer<CChar>, _ toFD: CInt, _ to: UnsafePointer<CChar>)
        -> Result<CInt, Errno>
    {
        linkat(fromFD, from, toFD, to, 0)
    }
}

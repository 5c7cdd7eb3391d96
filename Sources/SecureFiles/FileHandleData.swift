// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A kernel file handle: an opaque, persistent name of a file on its file system.
///
/// `name_to_handle_at(2)` needs no privilege, works on files the caller cannot read, and on the
/// common file systems encodes the inode number and generation, so it tells a file apart from a
/// later file that reuses its inode number. Opening by handle needs `CAP_DAC_READ_SEARCH`.
public struct FileHandleData: Sendable, Hashable, Codable {
    /// The handle type (1 ext4/tmpfs, 0x81 XFS, 0x4d btrfs, …).
    public var type: Int32
    /// The handle bytes.
    public var bytes: [UInt8]
    /// The mount the kernel reported with it: the reusable id of `/proc/self/mountinfo`.
    public var mountID: MountID

    /// Creates a handle value.
    package init(type: Int32, bytes: [UInt8], mountID: MountID) {
        self.type = type
        self.bytes = bytes
        self.mountID = mountID
    }

    /// The bytes as lowercase hex.
    public var hex: String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    /// The handle of `path`.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - directory: Where a relative path starts; `nil` for the working directory.
    ///   - followSymlinks: Whether a trailing symlink is followed.
    ///   - compareOnly: Asks for `AT_HANDLE_FID` (Linux 6.5): a handle for comparison only, which
    ///     also works on file systems that cannot be opened by handle (procfs, overlayfs).
    /// - Throws: ``FileSystemError`` naming `name_to_handle_at` (`EOPNOTSUPP` where unsupported).
    ///
    /// The corresponding C function is `name_to_handle_at`.
    public init(
        path: FilePath, relativeTo directory: OwnedDescriptor? = nil, followSymlinks: Bool = true, compareOnly: Bool = false
    ) throws(FileSystemError) {
        var flags: CInt = followSymlinks ? AT_SYMLINK_FOLLOW : 0
        if compareOnly { flags |= CLS_AT_HANDLE_FID }
        let dirfd = directory == nil ? atCurrentDirectory : (directory?.rawValue ?? -1)
        self = try Self.make(dirfd: dirfd, path: path, flags: flags, errorPath: path)
    }

    /// The handle of a path given as raw bytes (lossless for non-UTF-8 names), without building a
    /// `FilePath`.
    ///
    /// - Parameters:
    ///   - pathBytes: The path; relative paths start at the working directory. A NUL byte in it
    ///     gives `EINVAL`.
    ///   - followSymlinks: Whether a trailing symlink is followed.
    /// - Throws: ``FileSystemError`` naming `name_to_handle_at` (`EOPNOTSUPP` where unsupported).
    ///
    /// The corresponding C function is `name_to_handle_at`.
    public init(pathBytes: [UInt8], followSymlinks: Bool = true) throws(FileSystemError) {
        switch Self.lookup(pathBytes: pathBytes, followSymlinks: followSymlinks) {
        case .success(let handle): self = handle
        case .failure(let errno):
            throw FileSystemError(syscall: "name_to_handle_at", errno: errno, path: FilePath(bytes: pathBytes))
        }
    }

    /// ``init(pathBytes:followSymlinks:)`` without building an error value.
    package static func lookup(pathBytes: [UInt8], followSymlinks: Bool) -> Result<FileHandleData, Errno> {
        let flags: CInt = followSymlinks ? AT_SYMLINK_FOLLOW : 0
        return withCPath(pathBytes) { make(dirfd: atCurrentDirectory, cPath: $0, flags: flags) }
    }

    static func make(dirfd: CInt, path: FilePath, flags: CInt, errorPath: FilePath?) throws(FileSystemError) -> FileHandleData {
        switch path.withPlatformString({ make(dirfd: dirfd, cPath: $0, flags: flags) }) {
        case .success(let handle): return handle
        case .failure(let errno): throw FileSystemError(syscall: "name_to_handle_at", errno: errno, path: errorPath)
        }
    }

    static func make(dirfd: CInt, cPath: UnsafePointer<CChar>, flags: CInt) -> Result<FileHandleData, Errno> {
        var raw = cls_file_handle()
        var mountID: CInt = 0
        if case .failure(let errno) = Sys.nameToHandle(dirfd, cPath, &raw, &mountID, flags) {
            return .failure(errno)
        }
        let count = Int(min(raw.handle_bytes, UInt32(CLS_HANDLE_MAX)))
        let bytes = withUnsafeBytes(of: raw.f_handle) { Array($0.prefix(count)) }
        return .success(FileHandleData(type: raw.handle_type, bytes: bytes, mountID: MountID(rawValue: mountID)))
    }

    /// Opens the file this handle names, on the file system that `mount` (any descriptor on it)
    /// belongs to. The result finds the file wherever it now is on that file system.
    ///
    /// - Throws: ``FileSystemError`` naming `open_by_handle_at`: `EPERM` without
    ///   `CAP_DAC_READ_SEARCH`, `ESTALE` when the file was deleted.
    ///
    /// The corresponding C function is `open_by_handle_at`.
    public func open(onMountOf mount: OwnedDescriptor, options: OwnedDescriptor.OpenOptions = .pathOnly)
        throws(FileSystemError) -> OwnedDescriptor
    {
        guard bytes.count <= Int(CLS_HANDLE_MAX) else {
            throw FileSystemError(syscall: "open_by_handle_at", errno: .invalidArgument, path: nil)
        }
        var raw = cls_file_handle()
        raw.handle_bytes = UInt32(bytes.count)
        raw.handle_type = type
        withUnsafeMutableBytes(of: &raw.f_handle) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let fd = try mount.using("open_by_handle_at") { mountFD in
            Sys.openByHandle(mountFD, &raw, options.rawValue | O_CLOEXEC)
        }
        return OwnedDescriptor(adopting: fd, openedPath: nil)
    }
}

extension OwnedDescriptor {
    /// The handle of the open object (`AT_EMPTY_PATH`; works on `O_PATH` descriptors).
    ///
    /// The corresponding C function is `name_to_handle_at`.
    public func fileHandle(compareOnly: Bool = false) throws(FileSystemError) -> FileHandleData {
        guard let fd = rawValue else {
            throw FileSystemError(syscall: "name_to_handle_at", errno: .badFileDescriptor, path: openedPath)
        }
        let flags = LinuxFlags.emptyPath | (compareOnly ? CLS_AT_HANDLE_FID : 0)
        return try FileHandleData.make(dirfd: fd, path: "", flags: flags, errorPath: openedPath)
    }

    /// The handle of the entry `name` of this directory, a symbolic link not followed (a link's
    /// own handle, where the file system gives links handles). Unprivileged.
    ///
    /// The corresponding C function is `name_to_handle_at`.
    package func fileHandle(ofChild name: [UInt8]) throws(FileSystemError) -> FileHandleData {
        guard PathComponents.isPlainName(name) else {
            throw FileSystemError(syscall: "name_to_handle_at", errno: .invalidArgument, path: FilePath(bytes: name))
        }
        let fd = try raw("name_to_handle_at")
        let result = withCName(name) { FileHandleData.make(dirfd: fd, cPath: $0, flags: 0) }
        switch result {
        case .success(let handle): return handle
        case .failure(let errno): throw FileSystemError(syscall: "name_to_handle_at", errno: errno, path: FilePath(bytes: name))
        }
    }

    /// Calls `body` with the type and bytes of the handle of the entry `name` of this directory (a
    /// symbolic link not followed), in a buffer on the stack: for callers that decode a field of
    /// the handle for every entry of a tree (a catalog scan's generations) and keep nothing else.
    /// `nil` when the kernel gives no handle.
    ///
    /// The corresponding C function is `name_to_handle_at`.
    package func withFileHandle<T>(ofChild name: [UInt8], _ body: (Int32, UnsafeRawBufferPointer) -> T) -> T? {
        guard PathComponents.isPlainName(name), let fd = rawValue else { return nil }
        var raw = cls_file_handle()
        var mountID: CInt = 0
        let result = withCName(name) { Sys.nameToHandle(fd, $0, &raw, &mountID, 0) }
        guard case .success = result else { return nil }
        let count = Int(min(raw.handle_bytes, UInt32(CLS_HANDLE_MAX)))
        return withUnsafeBytes(of: raw.f_handle) { body(raw.handle_type, UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    /// The current path of the open object, read from `/proc/self/fd/N` (relative to the
    /// process's open `/proc/self/fd`, see `ProcessDescriptorLinks`); it follows renames.
    /// Deleted objects end in `" (deleted)"`, which this reports as `nil`.
    ///
    /// The corresponding C function is `readlinkat`.
    public func currentPath() throws(FileSystemError) -> FilePath? {
        try currentPathBytes().map { FilePath(bytes: $0) }
    }

    /// What the kernel appends to the path of an object that was unlinked.
    static let deletedSuffix = Array(" (deleted)".utf8)

    /// ``currentPath()`` as raw bytes: no `FilePath` is made (for callers that compare or store
    /// bytes). `nil` for a deleted object, or one whose path is not absolute (`/` after a
    /// disconnected handle open is absolute, and is returned).
    ///
    /// The corresponding C function is `readlinkat`.
    public func currentPathBytes() throws(FileSystemError) -> [UInt8]? {
        guard let fd = rawValue else {
            throw FileSystemError(syscall: "readlinkat", errno: .badFileDescriptor, path: openedPath)
        }
        let result: Result<[UInt8], Errno> = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4097) { buffer in
            ProcessDescriptorLinks.read(fd, into: buffer).map { count in
                Array(UnsafeRawBufferPointer(start: buffer.baseAddress, count: min(count, 4096)))
            }
        }
        let bytes: [UInt8]
        switch result {
        case .success(let read): bytes = read
        case .failure(let errno):
            throw FileSystemError(syscall: "readlinkat", errno: errno, path: FilePath("/proc/self/fd/\(fd)"))
        }
        let deleted = Self.deletedSuffix
        if bytes.count >= deleted.count, bytes.suffix(deleted.count).elementsEqual(deleted) { return nil }
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        return bytes
    }
}

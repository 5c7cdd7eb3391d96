// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A point in time with nanosecond precision, as the kernel reports it.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Nanoseconds within the second.
    public var nanoseconds: UInt32

    /// Creates a timestamp.
    public init(seconds: Int64, nanoseconds: UInt32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Seconds as a floating-point number.
    public var timeIntervalSince1970: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

    /// Orders by seconds, then nanoseconds.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// `seconds.nanoseconds`.
    public var description: String {
        let nanos = String(nanoseconds)
        return "\(seconds)." + String(repeating: "0", count: 9 - nanos.count) + nanos
    }
}

/// The kind of file system object.
public enum FileKind: String, Sendable, Hashable, Codable {
    /// A regular file.
    case regular
    /// A directory.
    case directory
    /// A symbolic link.
    case symlink
    /// A named pipe.
    case fifo
    /// A socket.
    case socket
    /// A character device.
    case characterDevice
    /// A block device.
    case blockDevice
    /// Something else (or the type was not reported).
    case unknown

    /// The kind encoded in the `S_IFMT` bits of a mode.
    public init(mode: UInt32) {
        switch mode & 0o170000 {
        case 0o100000: self = .regular
        case 0o040000: self = .directory
        case 0o120000: self = .symlink
        case 0o010000: self = .fifo
        case 0o140000: self = .socket
        case 0o020000: self = .characterDevice
        case 0o060000: self = .blockDevice
        default: self = .unknown
        }
    }
}

/// A device number, split as the kernel reports it in `statx`.
public struct DeviceNumber: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The major number.
    public var major: UInt32
    /// The minor number.
    public var minor: UInt32
    /// Creates a device number.
    public init(major: UInt32, minor: UInt32) {
        self.major = major
        self.minor = minor
    }
    /// `major:minor`, as in `/proc/self/mountinfo`.
    public var description: String { "\(major):\(minor)" }
}

/// What `statx(2)` says about a file: type, mode, owner, size, times (including the birth time that
/// Foundation on Linux lacks), device, mount id and btrfs subvolume.
public struct FileStatus: Sendable, Hashable {
    /// The `STATX_*` bits the kernel filled.
    public var mask: UInt32
    /// The object's kind.
    public var kind: FileKind
    /// The full `st_mode` (type and permission bits).
    public var mode: UInt32
    /// The permission bits (`mode & 0o7777`).
    public var permissions: UInt32 { mode & 0o7777 }
    /// The number of hard links.
    public var linkCount: UInt32
    /// The owner's user id.
    public var uid: UInt32
    /// The group id.
    public var gid: UInt32
    /// The inode number. Not an identity on its own: inode numbers are reused.
    public var inode: UInt64
    /// The size in bytes.
    public var size: UInt64
    /// The number of 512-byte blocks allocated.
    public var blocks: UInt64
    /// The last access time.
    public var accessTime: Timestamp
    /// The last content modification time.
    public var modificationTime: Timestamp
    /// The last status change time (what Foundation on Linux wrongly calls the creation date).
    public var changeTime: Timestamp
    /// The birth (creation) time, or `nil` where the file system does not report one or reports 0.
    public var birthTime: Timestamp?
    /// The device the file lives on. Session-scoped: it changes across remounts and is anonymous
    /// (major 0) on btrfs, tmpfs, overlayfs, NFS and FUSE.
    public var device: DeviceNumber
    /// For device files, the device they represent.
    public var representedDevice: DeviceNumber
    /// The unique mount id (`STATX_MNT_ID_UNIQUE`, Linux 6.8+), never given to another mount in
    /// this boot. `nil` on older kernels, which report ``mountID`` instead.
    ///
    /// `statx` fills one field with one of the two ids, so exactly one of ``uniqueMountID`` and
    /// ``mountID`` is set (neither only before Linux 5.8).
    public var uniqueMountID: UniqueMountID?
    /// The reusable mount id (`STATX_MNT_ID`, mountinfo's first field), when the kernel lacks the
    /// unique one; `nil` when ``uniqueMountID`` is set. ``OwnedDescriptor/reusableMountID()`` asks
    /// for the reusable id on any kernel.
    public var mountID: MountID?
    /// The btrfs subvolume id (`STATX_SUBVOL`, Linux 6.10+), or `nil` where there is none.
    public var subvolume: UInt64?
    /// `STATX_ATTR_*` bits.
    public var attributes: UInt64

    init(_ raw: cls_statx) {
        mask = raw.stx_mask
        mode = UInt32(raw.stx_mode)
        kind = FileKind(mode: UInt32(raw.stx_mode))
        linkCount = raw.stx_nlink
        uid = raw.stx_uid
        gid = raw.stx_gid
        inode = raw.stx_ino
        size = raw.stx_size
        blocks = raw.stx_blocks
        accessTime = Timestamp(raw.stx_atime)
        modificationTime = Timestamp(raw.stx_mtime)
        changeTime = Timestamp(raw.stx_ctime)
        let birth = Timestamp(raw.stx_btime)
        birthTime = (raw.stx_mask & CLS_STATX_BTIME) != 0 && birth != Timestamp(seconds: 0, nanoseconds: 0) ? birth : nil
        device = DeviceNumber(major: raw.stx_dev_major, minor: raw.stx_dev_minor)
        representedDevice = DeviceNumber(major: raw.stx_rdev_major, minor: raw.stx_rdev_minor)
        if raw.stx_mask & CLS_STATX_MNT_ID_UNIQUE != 0 {
            uniqueMountID = UniqueMountID(rawValue: raw.stx_mnt_id)
        } else if raw.stx_mask & CLS_STATX_MNT_ID != 0 {
            mountID = MountID(rawValue: Int32(truncatingIfNeeded: raw.stx_mnt_id))
        }
        subvolume = (raw.stx_mask & CLS_STATX_SUBVOL) != 0 ? raw.stx_subvol : nil
        attributes = raw.stx_attributes
    }
}

extension Timestamp {
    init(_ raw: cls_statx_timestamp) {
        self.init(seconds: raw.tv_sec, nanoseconds: raw.tv_nsec)
    }
}

/// What to ask `statx` for: everything we use, with the unique mount id and the subvolume.
let statxWantedMask: UInt32 = CLS_STATX_BASIC_STATS | CLS_STATX_BTIME | CLS_STATX_MNT_ID_UNIQUE | CLS_STATX_SUBVOL

extension FileStatus {
    /// The status of `path`, relative to `directory` or the working directory.
    ///
    /// - Parameters:
    ///   - path: The path to examine.
    ///   - directory: Where a relative path starts; `nil` for the working directory.
    ///   - followSymlinks: Whether a trailing symlink is followed (`false` adds `AT_SYMLINK_NOFOLLOW`).
    /// - Throws: ``FileSystemError`` naming `statx`.
    ///
    /// Implementation details: one `statx(2)` with `AT_STATX_SYNC_AS_STAT` asking for the basic
    /// fields, `STATX_BTIME`, `STATX_MNT_ID_UNIQUE` and `STATX_SUBVOL`; on a kernel that lacks
    /// the unique mount id, the reusable one is asked for instead.
    public init(
        path: FilePath, relativeTo directory: OwnedDescriptor? = nil, followSymlinks: Bool = true
    ) throws(FileSystemError) {
        let flags: CInt = followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW
        let dirfd = directory == nil ? atCurrentDirectory : (directory?.rawValue ?? -1)
        self = try Self.statx(dirfd: dirfd, path: path, flags: flags, errorPath: path)
    }

    /// The status of a path given as raw bytes (lossless for non-UTF-8 names), without building a
    /// `FilePath` (whose separator normalisation is measurable when resolving many bookmarks).
    ///
    /// - Parameters:
    ///   - pathBytes: The path; relative paths start at the working directory. A NUL byte in it
    ///     gives `EINVAL`.
    ///   - followSymlinks: Whether a trailing symlink is followed (`false` adds `AT_SYMLINK_NOFOLLOW`).
    /// - Throws: ``FileSystemError`` naming `statx`.
    ///
    /// The corresponding C function is `statx`.
    public init(pathBytes: [UInt8], followSymlinks: Bool = true) throws(FileSystemError) {
        switch Self.lookup(pathBytes: pathBytes, followSymlinks: followSymlinks) {
        case .success(let status): self = status
        case .failure(let errno): throw FileSystemError(syscall: "statx", errno: errno, path: FilePath(bytes: pathBytes))
        }
    }

    /// ``init(pathBytes:followSymlinks:)`` for callers that only branch on the errno (a path-first
    /// check that often fails): no error value, whose `FilePath` costs more than the `statx`.
    package static func lookup(pathBytes: [UInt8], followSymlinks: Bool) -> Result<FileStatus, Errno> {
        let flags: CInt = followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW
        return withCPath(pathBytes) { statx(dirfd: atCurrentDirectory, cPath: $0, flags: flags) }
    }

    /// ``lookup(pathBytes:followSymlinks:)`` of the part of `pathBytes` after `directoryPath`, from
    /// `directory` (a descriptor opened at `directoryPath` by the caller): the same object as the
    /// whole path names while `directory` is what `directoryPath` names, for a shorter walk (the
    /// directories down to `directoryPath` are not looked up again). `nil` when `pathBytes` is not
    /// strictly below `directoryPath` or `directory` is closed: the caller then looks up the whole
    /// path.
    ///
    /// Implementation details: `statx(fd, rest, …)`; about a quarter cheaper than the whole path's
    /// `statx` below a mount point five directories deep.
    package static func lookup(
        pathBytes: [UInt8], below directoryPath: [UInt8], relativeTo directory: OwnedDescriptor, followSymlinks: Bool
    ) -> Result<FileStatus, Errno>? {
        let start = directoryPath.count + 1
        guard directoryPath.count > 1, pathBytes.count > start, pathBytes.starts(with: directoryPath),
            pathBytes[directoryPath.count] == UInt8(ascii: "/"), let fd = directory.rawValue
        else { return nil }
        let flags: CInt = followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW
        return withCPath(pathBytes[start...]) { statx(dirfd: fd, cPath: $0, flags: flags) }
    }

    static func statx(dirfd: CInt, path: FilePath, flags: CInt, errorPath: FilePath?) throws(FileSystemError) -> FileStatus {
        switch path.withPlatformString({ statx(dirfd: dirfd, cPath: $0, flags: flags) }) {
        case .success(let status): return status
        case .failure(let errno): throw FileSystemError(syscall: "statx", errno: errno, path: errorPath)
        }
    }

    static func statx(dirfd: CInt, cPath: UnsafePointer<CChar>, flags: CInt) -> Result<FileStatus, Errno> {
        var raw = cls_statx()
        if case .failure(let errno) = Sys.statx(dirfd, cPath, flags, statxWantedMask, &raw) {
            return .failure(errno)
        }
        var status = FileStatus(raw)
        if raw.stx_mask & (CLS_STATX_MNT_ID_UNIQUE | CLS_STATX_MNT_ID) == 0 {
            // Kernels before 6.8 ignore STATX_MNT_ID_UNIQUE: ask for the reusable id.
            var again = cls_statx()
            if case .success = Sys.statx(dirfd, cPath, flags, CLS_STATX_MNT_ID, &again),
                again.stx_mask & CLS_STATX_MNT_ID != 0
            {
                status.mountID = MountID(rawValue: Int32(truncatingIfNeeded: again.stx_mnt_id))
            }
        }
        return .success(status)
    }
}

extension OwnedDescriptor {
    /// The status of the open object (`statx` with `AT_EMPTY_PATH`; works on `O_PATH` descriptors).
    ///
    /// The corresponding C function is `statx`.
    public func status() throws(FileSystemError) -> FileStatus {
        guard let fd = rawValue else {
            throw FileSystemError(syscall: "statx", errno: .badFileDescriptor, path: openedPath)
        }
        return try FileStatus.statx(dirfd: fd, path: "", flags: LinuxFlags.emptyPath, errorPath: openedPath)
    }
}

extension OwnedDescriptor {
    /// The reusable mount id of the open object: the first field of `/proc/self/mountinfo`
    /// (`statx` with `STATX_MNT_ID` only).
    ///
    /// The corresponding C function is `statx`.
    public func reusableMountID() throws(FileSystemError) -> MountID {
        var raw = cls_statx()
        _ = try using("statx") { fd in
            Sys.statx(fd, "", LinuxFlags.emptyPath, CLS_STATX_MNT_ID, &raw)
        }
        return MountID(rawValue: Int32(truncatingIfNeeded: raw.stx_mnt_id))
    }
}

// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

/// What `fstatfs(2)` says about the file system an object lives on.
package struct FileSystemStatistics: Sendable, Hashable {
    /// The file system's magic number (`f_type`): 0xEF53 ext2/3/4, 0x58465342 XFS, 0x9123683E btrfs,
    /// 0x01021994 tmpfs, …
    package var type: Int64
    /// The optimal transfer block size.
    package var blockSize: Int64
    /// The fragment size; capacities are in these units.
    package var fragmentSize: Int64
    /// Total blocks.
    package var blocks: UInt64
    /// Free blocks.
    package var freeBlocks: UInt64
    /// Blocks available to unprivileged users.
    package var availableBlocks: UInt64
    /// Total inodes.
    package var files: UInt64
    /// Free inodes.
    package var freeFiles: UInt64
    /// `f_fsid`. Persistent only on ext4 (folded UUID) and btrfs (folded fsid XOR subvolume); the
    /// device number on XFS; random per mount on tmpfs. Its description is what `stat -f` prints.
    package var fsid: FileSystemID
    /// The longest file name.
    package var nameMax: Int64
    /// Mount flags (`ST_*`).
    package var flags: Int64

    /// Total capacity in bytes.
    package var capacity: UInt64 { blocks &* UInt64(max(fragmentSize, 0)) }

    /// Whether this is tmpfs (no persistent identity: a new UUID at every mount).
    package var isTmpfs: Bool { type == Int64(CLS_TMPFS_MAGIC) }
    /// Whether this is ext2/3/4.
    package var isExt4: Bool { type == Int64(CLS_EXT4_SUPER_MAGIC) }
    /// Whether this is btrfs.
    package var isBtrfs: Bool { type == Int64(CLS_BTRFS_SUPER_MAGIC) }
    /// Whether this is XFS.
    package var isXFS: Bool { type == Int64(CLS_XFS_SUPER_MAGIC) }

    init(_ raw: cls_statfs) {
        type = raw.f_type
        blockSize = raw.f_bsize
        fragmentSize = raw.f_frsize
        blocks = raw.f_blocks
        freeBlocks = raw.f_bfree
        availableBlocks = raw.f_bavail
        files = raw.f_files
        freeFiles = raw.f_ffree
        fsid = FileSystemID(UInt32(bitPattern: raw.f_fsid.0), UInt32(bitPattern: raw.f_fsid.1))
        nameMax = raw.f_namelen
        flags = raw.f_flags
    }
}

extension OwnedDescriptor {
    /// Whether this process's effective user may write the entry `name` of this directory (`.`
    /// for the directory itself), as the kernel decides it: mode bits, ACLs, a read-only mount.
    /// `false` when the entry is missing or the check fails.
    ///
    /// The corresponding C function is `faccessat` with `W_OK` (2) and `AT_EACCESS`.
    package func mayWrite(child name: [UInt8]) -> Bool {
        guard let fd = rawValue, PathComponents.isPlainName(name) || name == [0x2E] else { return false }
        guard case .success = withCName(name, { Sys.faccessat(fd, $0, 2) }) else { return false }
        return true
    }

    /// The statistics of the file system the object lives on (works on `O_PATH` descriptors).
    ///
    /// The corresponding C function is `fstatfs`.
    package func fileSystemStatistics() throws(FileSystemError) -> FileSystemStatistics {
        var raw = cls_statfs()
        _ = try using("fstatfs") { Sys.fstatfs($0, &raw) }
        return FileSystemStatistics(raw)
    }

    /// The UUID the kernel recorded for this file system at mount time, with its length
    /// (`FS_IOC_GETFSUUID`, Linux 6.9). Needs a descriptor opened for I/O (not `O_PATH`).
    ///
    /// It can be all zero (an image made without a UUID), is random per mount on tmpfs, and is
    /// stale after an online `tune2fs -U`; callers rank it accordingly.
    ///
    /// The corresponding C call is `ioctl(fd, FS_IOC_GETFSUUID)`.
    package func fileSystemUUID() throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        var length: UInt8 = 0
        _ = try using("ioctl(FS_IOC_GETFSUUID)") { fd in
            bytes.withUnsafeMutableBufferPointer { buffer -> Result<CInt, Errno> in
                guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
                return Sys.getFSUUID(fd, base, &length)
            }
        }
        return Array(bytes.prefix(Int(length)))
    }

    /// The current on-disk ext4 UUID (`EXT4_IOC_GETFSUUID`, Linux 6.0; unprivileged).
    ///
    /// The corresponding C call is `ioctl(fd, EXT4_IOC_GETFSUUID)`.
    package func ext4UUID() throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = try using("ioctl(EXT4_IOC_GETFSUUID)") { fd in
            bytes.withUnsafeMutableBufferPointer { buffer -> Result<CInt, Errno> in
                guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
                return Sys.ext4GetFSUUID(fd, base)
            }
        }
        return bytes
    }

    /// The btrfs file system id (`BTRFS_IOC_FS_INFO`; unprivileged). The same for every subvolume.
    ///
    /// The corresponding C call is `ioctl(fd, BTRFS_IOC_FS_INFO)`.
    package func btrfsFSID() throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = try using("ioctl(BTRFS_IOC_FS_INFO)") { fd in
            bytes.withUnsafeMutableBufferPointer { buffer -> Result<CInt, Errno> in
                guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
                return Sys.btrfsFSID(fd, base)
            }
        }
        return bytes
    }

    /// The file system label as raw bytes (`FS_IOC_GETFSLABEL`: ext4, XFS, btrfs). Empty when unset.
    ///
    /// The corresponding C call is `ioctl(fd, FS_IOC_GETFSLABEL)`.
    package func fileSystemLabel() throws(FileSystemError) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = try using("ioctl(FS_IOC_GETFSLABEL)") { fd in
            buffer.withUnsafeMutableBufferPointer { buffer -> Result<CInt, Errno> in
                guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
                return Sys.getFSLabel(fd, base)
            }
        }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }

    /// The inode generation (`FS_IOC_GETVERSION`: ext4, XFS, btrfs; tmpfs answers `ENOTTY`).
    ///
    /// The corresponding C call is `ioctl(fd, FS_IOC_GETVERSION)`.
    package func generation() throws(FileSystemError) -> UInt32 {
        var generation: UInt32 = 0
        _ = try using("ioctl(FS_IOC_GETVERSION)") { Sys.getVersion($0, &generation) }
        return generation
    }

    /// The inode flags (`FS_IOC_GETFLAGS`), such as `FS_CASEFOLD_FL` 0x40000000.
    ///
    /// The corresponding C call is `ioctl(fd, FS_IOC_GETFLAGS)`.
    package func inodeFlags() throws(FileSystemError) -> UInt32 {
        var flags: UInt32 = 0
        _ = try using("ioctl(FS_IOC_GETFLAGS)") { Sys.getFlags($0, &flags) }
        return flags
    }
}

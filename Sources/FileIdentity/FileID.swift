// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

/// Who a file is: its volume, btrfs subvolume, inode and generation, kernel handle, birth time, and
/// the facts that help recognise it (size, type, mode, owner, mount).
///
/// Equality compares identity only: the volume key, subvolume, inode number, generation and birth
/// time. It never trusts `(st_dev, st_ino)`: a new file that reuses a deleted file's inode number
/// has a different generation (and birth time), so it compares unequal; the same file after an
/// unmount and a remount on another device compares equal, because the volume is keyed by UUID.
/// Size, mode, owner and the mount id are carried along but do not take part in equality.
public struct FileID: Sendable, CustomStringConvertible {
    /// The volume the file lives on.
    public var volume: Volume
    /// The btrfs subvolume id (`STATX_SUBVOL`), or `nil`.
    public var subvolume: UInt64?
    /// The inode number.
    public var inode: UInt64
    /// The inode generation, decoded from the handle or read with `FS_IOC_GETVERSION`; `nil` where unknown.
    public var generation: UInt32?
    /// The kernel file handle (`name_to_handle_at`), or `nil` where the file system gives none.
    public var handle: FileHandleData?
    /// The birth time (`statx`), or `nil` where unknown (0 is reported as unknown).
    public var birthTime: Timestamp?
    /// The size in bytes.
    public var size: UInt64
    /// The object's kind.
    public var kind: FileKind
    /// The full mode.
    public var mode: UInt32
    /// The owner.
    public var uid: UInt32
    /// The group.
    public var gid: UInt32
    /// The reusable id of the mount the object was found on (mountinfo's first field), from
    /// `name_to_handle_at`, from `statx` on kernels before 6.8, else the volume's mount. Names
    /// that mount only while it exists: the kernel gives the number to a later mount.
    public var mountID: MountID
    /// The unique id of that mount (`STATX_MNT_ID_UNIQUE`, Linux 6.8+), never given to another
    /// mount in this boot; `nil` on older kernels.
    public var uniqueMountID: UniqueMountID?
    /// The device number (session-scoped).
    public var device: DeviceNumber
    /// The modification time.
    public var modificationTime: Timestamp

    /// The volume part of the identity: the volume's key when persistent; for volumes without a
    /// persistent identity (tmpfs), the mount itself, since their files do not outlive the mount.
    public var volumeKey: String {
        if volume.isPersistent { return volume.key }
        return uniqueMountID.map { "mount:u\($0)" } ?? "mount:r\(mountID)"
    }

    /// Whether `status` (a later `statx` of some path) reports the mount this object was found on:
    /// the same unique id, or on kernels without unique ids the same reusable one. Kernels before
    /// 5.8 report neither, and then there is nothing to compare: `true`.
    package func isOnMount(of status: FileStatus) -> Bool {
        if let unique = status.uniqueMountID { return unique == uniqueMountID }
        if let reusable = status.mountID { return uniqueMountID == nil && reusable == mountID }
        return true
    }

    /// `inode.generation@volume`.
    public var description: String {
        "\(inode)" + (generation.map { ".\($0)" } ?? "") + (subvolume.map { "/subvol \($0)" } ?? "") + "@\(volumeKey)"
    }
}

extension FileID: Hashable {
    /// Identity equality: volume key, subvolume, inode, generation, birth time.
    public static func == (lhs: FileID, rhs: FileID) -> Bool {
        lhs.inode == rhs.inode && lhs.generation == rhs.generation && lhs.subvolume == rhs.subvolume
            && lhs.birthTime == rhs.birthTime && lhs.volumeKey == rhs.volumeKey
    }

    /// Hashes the identity fields only.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(inode)
        hasher.combine(generation)
        hasher.combine(subvolume)
        hasher.combine(volumeKey)
    }
}

extension FileID {
    /// The identity of the object at `path`.
    ///
    /// - Parameters:
    ///   - path: The file. Relative paths start at the working directory.
    ///   - followSymlinks: Whether a trailing symlink is followed (default) or identified itself.
    ///   - volumes: The mounted volumes to reuse across calls (each volume is identified once).
    ///   - responseTimeout: How long a FUSE or network volume may take to answer (default 2 s):
    ///     the call then fails with ``FileIdentityError/Code/volumeNotResponding``.
    /// - Throws: ``FileIdentityError``: ``FileIdentityError/Code/fileSystem`` when the file cannot be
    ///   reached (its ``FileIdentityError/cause`` says why: `ENOENT`, `EACCES` on a parent, …); see
    ///   also ``identify(_:volumes:)``.
    ///
    /// Implementation details: the file is opened with `O_PATH` (never for reading: no FIFO blocks,
    /// no device side effects, and unreadable files still work), then `statx`, `name_to_handle_at`
    /// (no privilege needed) and, only if the generation cannot be decoded from the handle,
    /// `FS_IOC_GETVERSION` on a read-only non-blocking open of a regular file or directory.
    public static func identify(
        _ path: FilePath, followSymlinks: Bool = true, volumes: MountedVolumes? = nil,
        responseTimeout: Duration = .seconds(2)
    ) throws(FileIdentityError) -> FileID {
        Audit.intent("FileID.identify", PathBytes(path).bytes, ["followSymlinks": String(followSymlinks)])
        let options: OwnedDescriptor.OpenOptions = followSymlinks ? [.pathOnly] : [.pathOnly, .noFollow]
        let table: MountedVolumes
        if let volumes { table = volumes } else { table = try MountedVolumes.shared() }
        let watched = VolumeWatchdog.guarding(path: PathBytes(path).bytes, volumes: table, timeout: responseTimeout) {
            () -> Result<FileID, FileIdentityError> in
            do throws(FileIdentityError) {
                let descriptor = try FileIdentityError.wrapping { () throws(FileSystemError) in
                    try Directory.current.open(path, options: options)
                }
                return .success(try identify(descriptor, volumes: table))
            } catch {
                return .failure(error)
            }
        }
        return try watched.flatMap { $0 }.get()
    }

    /// The identity of the object at a path from two path lookups, `statx` and
    /// `name_to_handle_at`, without opening it: about 0.8 of the open-based
    /// ``identify(_:followSymlinks:volumes:responseTimeout:)`` in system time, for checking many paths (resolving
    /// unmoved bookmarks).
    ///
    /// The two lookups could see two different objects if the path changes between them, so the
    /// result is returned only when the handle decodes (ext4, XFS, btrfs, tmpfs layouts) to the
    /// inode `statx` reported; the generation comes from the same handle.
    ///
    /// - Parameters:
    ///   - path: The path as raw bytes (lossless for names that are not UTF-8).
    ///   - followSymlinks: Whether a trailing symlink is followed or identified itself.
    ///   - volumes: The mounted volumes (each volume is identified once).
    /// - Returns: The identity, or `nil` when the handle is missing, of an unknown layout, or names
    ///   another inode: then use the open-based ``identify(_:followSymlinks:volumes:responseTimeout:)``.
    /// - Throws: ``FileIdentityError`` (``FileIdentityError/Code/fileSystem``) whose cause names
    ///   `statx` when the path cannot be examined (`ENOENT`, …).
    package static func identifyWithoutOpening(
        _ path: [UInt8], followSymlinks: Bool = true, volumes: MountedVolumes
    ) throws(FileIdentityError) -> FileID? {
        switch lookUpWithoutOpening(path, followSymlinks: followSymlinks, volumes: volumes) {
        case .success(let id): return id
        case .failure(let errno):
            throw FileIdentityError(FileSystemError(syscall: "statx", errno: errno, path: FilePath(bytes: path)))
        }
    }

    /// ``identifyWithoutOpening(_:followSymlinks:volumes:)`` for callers that only branch on the
    /// errno of `statx` (resolution's path-first check): no error value is built.
    package static func lookUpWithoutOpening(
        _ path: [UInt8], followSymlinks: Bool, volumes: MountedVolumes
    ) -> Result<FileID?, Errno> {
        switch FileStatus.lookup(pathBytes: path, followSymlinks: followSymlinks) {
        case .success(let status): return .success(lookUpWithoutOpening(path, status: status, followSymlinks: followSymlinks, volumes: volumes))
        case .failure(let errno): return .failure(errno)
        }
    }

    /// ``lookUpWithoutOpening(_:followSymlinks:volumes:)`` when the caller has the path's `statx`
    /// already (resolution's path-first check tried ``lookUpKnown(_:status:inode:birthTime:generation:handle:volumes:)``
    /// with it first): no second `statx`.
    package static func lookUpWithoutOpening(
        _ path: [UInt8], status: FileStatus, followSymlinks: Bool, volumes: MountedVolumes
    ) -> FileID? {
        // An object looked up before (same mount, inode and birth time) keeps its handle: one
        // `statx` instead of two path walks (KnownHandles).
        // The mount's reusable id: `statx`'s when it gave that one, else the handle's (the entry
        // is keyed by the unique id, so it was learnt on this very mount), with no look-up.
        if let seen = KnownHandles.shared.handle(for: status),
            case let reusable = status.mountID ?? seen.handle.mountID,
            let volume = volumes.volume(mountID: reusable), volume.category == .local, !volume.mayBlock
        {
            return FileID.known(status, on: volume, mountID: reusable, generation: seen.generation, handle: seen.handle)
        }
        guard case .success(let handle) = FileHandleData.lookup(pathBytes: path, followSymlinks: followSymlinks),
            let generation = decodeGeneration(from: handle, inode: status.inode),
            let volume = volumes.volume(mountID: handle.mountID)
        else { return nil }
        // Remembered only when the handle was taken on the mount the status was (not a mount made
        // between the two lookups): a later hit takes the mount's reusable id from the handle.
        if volume.category == .local, !volume.mayBlock, status.reusableMountID == handle.mountID {
            KnownHandles.shared.remember(handle, generation: generation, for: status)
        }
        return FileID(
            volume: volume, subvolume: status.subvolume, inode: status.inode,
            generation: generation, handle: handle, birthTime: status.birthTime, size: status.size,
            kind: status.kind, mode: status.mode, uid: status.uid, gid: status.gid, mountID: handle.mountID,
            uniqueMountID: status.uniqueMountID, device: status.device,
            modificationTime: status.modificationTime)
    }

    /// The identity at `path` when it is an object already known by inode and birth time, with one
    /// `statx` and no file handle: the unmoved-file check of a resolution.
    ///
    /// The same inode and the same birth time (to the nanosecond) on one mount are the same object:
    /// an inode number that is reused gets a new birth time. The generation and the handle are
    /// then the known ones (both change only when the inode is reused), with the handle's mount id
    /// brought up to date. `nil` when anything differs or is unknown (a file system that reports
    /// no birth time, a mount not in the table): the caller falls back to ``lookUpWithoutOpening(_:followSymlinks:volumes:)``,
    /// which asks for the handle. One system call where that takes two is most of the cost of
    /// resolving an unmoved bookmark (Docs/PERFORMANCE.md).
    package static func lookUpKnown(
        _ path: [UInt8], inode: UInt64, birthTime: Timestamp, generation: UInt32?, handle: FileHandleData?,
        volumes: MountedVolumes
    ) -> FileID? {
        guard case .success(let status) = FileStatus.lookup(pathBytes: path, followSymlinks: false) else { return nil }
        return lookUpKnown(status: status, inode: inode, birthTime: birthTime, generation: generation, handle: handle, volumes: volumes)
    }

    /// ``lookUpKnown(_:inode:birthTime:generation:handle:volumes:)`` with the path's `statx` in hand.
    package static func lookUpKnown(
        status: FileStatus, inode: UInt64, birthTime: Timestamp, generation: UInt32?, handle: FileHandleData?,
        volumes: MountedVolumes
    ) -> FileID? {
        guard status.inode == inode, let born = status.birthTime, born == birthTime else { return nil }
        guard let reusable = status.reusableMountID, let volume = volumes.volume(mountID: reusable) else { return nil }
        return known(status, on: volume, mountID: reusable, generation: generation, handle: handle)
    }

    /// The identity of the object `status` describes, once the caller has proved it is the
    /// recorded one (same inode and birth time on the recorded volume): the recorded generation and
    /// handle are taken as they are, with the handle's mount id set to `mountID`.
    package static func known(
        _ status: FileStatus, on volume: Volume, mountID: MountID, generation: UInt32?, handle: FileHandleData?
    ) -> FileID {
        FileID(
            volume: volume, subvolume: status.subvolume, inode: status.inode, generation: generation,
            handle: handle.map { FileHandleData(type: $0.type, bytes: $0.bytes, mountID: mountID) },
            birthTime: status.birthTime, size: status.size, kind: status.kind, mode: status.mode, uid: status.uid,
            gid: status.gid, mountID: mountID, uniqueMountID: status.uniqueMountID, device: status.device,
            modificationTime: status.modificationTime)
    }

    /// The identity of an open object (any descriptor, including `O_PATH`).
    ///
    /// - Throws: ``FileIdentityError``: ``FileIdentityError/Code/fileSystem`` when the object cannot
    ///   be examined or the mount table read, ``FileIdentityError/Code/malformedMountTable``, or
    ///   ``FileIdentityError/Code/notInMountTable`` when its mount is not in this process's table
    ///   (unmounted since it was opened, or a descriptor from another mount namespace).
    public static func identify(_ descriptor: OwnedDescriptor, volumes: MountedVolumes? = nil)
        throws(FileIdentityError) -> FileID
    {
        Audit.intent("FileID.identify(descriptor)", descriptor.openedPath.map { PathBytes($0).bytes } ?? [])
        let handle = try? descriptor.fileHandle()
        let reusableMountID: MountID
        if let handle {
            reusableMountID = handle.mountID
        } else {
            reusableMountID = try FileIdentityError.wrapping { () throws(FileSystemError) in try descriptor.reusableMountID() }
        }
        let mounted: MountedVolumes
        if let volumes { mounted = volumes } else { mounted = try MountedVolumes.shared() }
        guard let entry = mounted.entry(mountID: reusableMountID) else {
            throw FileIdentityError(
                .notInMountTable, "the object's mount (id \(reusableMountID)) is not in /proc/self/mountinfo",
                path: descriptor.openedPath)
        }
        return try identify(descriptor, on: mounted.volume(of: entry), handle: handle)
    }

    /// The identity of an open object whose volume the caller already knows (a search walking one
    /// volume): no mount-table lookup.
    ///
    /// - Throws: ``FileIdentityError`` (``FileIdentityError/Code/fileSystem``) when `statx` fails.
    public static func identify(_ descriptor: OwnedDescriptor, on volume: Volume) throws(FileIdentityError) -> FileID {
        try identify(descriptor, on: volume, handle: try? descriptor.fileHandle())
    }

    /// The identity of an object opened from a known handle (`open_by_handle_at`): the handle is
    /// not asked for again, since opening by it proved it names this object (the file systems
    /// check the generation and answer `ESTALE` otherwise).
    package static func identify(_ descriptor: OwnedDescriptor, on volume: Volume, openedBy handle: FileHandleData)
        throws(FileIdentityError) -> FileID
    {
        let known = FileHandleData(type: handle.type, bytes: handle.bytes, mountID: volume.mountID)
        return try identify(descriptor, on: volume, handle: known)
    }

    static func identify(_ descriptor: OwnedDescriptor, on volume: Volume, handle: FileHandleData?)
        throws(FileIdentityError) -> FileID
    {
        let status = try FileIdentityError.wrapping { () throws(FileSystemError) in try descriptor.status() }
        var generation = handle.flatMap { decodeGeneration(from: $0, inode: status.inode) }
        if generation == nil, status.kind == .regular || status.kind == .directory {
            generation = readGeneration(of: descriptor)
        }
        return FileID(
            volume: volume, subvolume: status.subvolume, inode: status.inode, generation: generation, handle: handle,
            birthTime: status.birthTime, size: status.size, kind: status.kind, mode: status.mode, uid: status.uid,
            gid: status.gid, mountID: status.mountID ?? handle?.mountID ?? volume.mountID,
            uniqueMountID: status.uniqueMountID, device: status.device,
            modificationTime: status.modificationTime)
    }

    /// `FS_IOC_GETVERSION` through a read-only, non-blocking reopen of the same object (the ioctl
    /// does not work on `O_PATH`). `nil` when it cannot be opened or the file system says no.
    /// (Before 0.2 this reopened `/proc/self/fd/N` with `O_NOFOLLOW`, which the kernel refuses
    /// with `ELOOP` for that magic link, so it never answered.)
    static func readGeneration(of descriptor: OwnedDescriptor) -> UInt32? {
        guard let reopened = try? descriptor.reopen(options: [.readOnly, .nonBlocking]) else { return nil }
        return try? reopened.generation()
    }
}

extension FileID {
    /// The inode generation a file handle carries (``decodeGeneration(from:inode:)``), for callers
    /// that take handles of many entries by name (catalog scans) without identifying each.
    package static func generation(in handle: FileHandleData, inode: UInt64) -> UInt32? {
        decodeGeneration(from: handle, inode: inode)
    }

    /// The inode generation of the entry `name` of `directory`, from its file handle, decoded where
    /// the kernel wrote it (no allocation): one `name_to_handle_at`.
    package static func generation(ofChild name: [UInt8], in directory: OwnedDescriptor, inode: UInt64) -> UInt32? {
        directory.withFileHandle(ofChild: name) { type, bytes in decodeGeneration(type: type, bytes: bytes, inode: inode) } ?? nil
    }
}

/// Decodes the generation from a file handle, trying the layouts the common file systems use and
/// accepting one only when its inode field equals the inode `statx` reported:
/// ext4/XFS `[ino32][gen32]`, XFS 64-bit `[ino64][gen32]`, tmpfs `[gen32][ino64]`,
/// btrfs `[objectid64][root64][gen32]`.
func decodeGeneration(from handle: FileHandleData, inode: UInt64) -> UInt32? {
    decodeGeneration(type: handle.type, bytes: handle.bytes, inode: inode)
}

/// ``decodeGeneration(from:inode:)`` over any bytes (an array, or a handle still in its buffer).
func decodeGeneration<Bytes: RandomAccessCollection>(type: Int32, bytes: Bytes, inode: UInt64) -> UInt32?
where Bytes.Element == UInt8, Bytes.Index == Int {
    let start = bytes.startIndex
    func u32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + offset + $1]) << (8 * UInt32($1)) }
    }
    func u64(_ offset: Int) -> UInt64? {
        guard let low = u32(offset), let high = u32(offset + 4) else { return nil }
        return UInt64(low) | UInt64(high) << 32
    }
    switch bytes.count {
    case 8:
        if let ino = u32(0), UInt64(ino) == inode { return u32(4) }
    case 12:
        if let ino = u64(0), ino == inode { return u32(8) }
        if let ino = u64(4), ino == inode { return u32(0) }
    case 20 where type == 0x4d:
        if let ino = u64(0), ino == inode { return u32(16) }
    default:
        break
    }
    return nil
}

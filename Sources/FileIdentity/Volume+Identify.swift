// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

extension Volume {
    /// Identifies the volume of a mount entry, trying the UUID sources in their documented order.
    ///
    /// - Parameters:
    ///   - entry: The mount.
    ///   - descriptor: A descriptor opened for I/O on that mount, if the caller has one; otherwise the
    ///     mount point is opened (read-only, non-blocking, as a directory) and checked to be that mount.
    ///   - touchNetwork: Whether network and FUSE file systems may be opened without a descriptor
    ///     (they may block). Default `false`: they are identified from the mount table and, for
    ///     `fuseblk`, their block device.
    ///
    /// Never throws: a volume that cannot be asked still gets an identity from its source and type.
    package static func identify(
        _ entry: MountEntry, descriptor: OwnedDescriptor? = nil, touchNetwork: Bool = false
    ) -> Volume {
        Audit.intent("Volume.identify", [], ["mountID": entry.mountID.description, "fsType": entry.fsType])
        var volume = Volume(
            uuid: nil, uuidSource: .sourceAndType, uuidVerified: true, isPersistent: false, label: nil,
            fsType: entry.fsType, source: entry.sourceString, blockDevice: nil, mountPoint: entry.mountPoint,
            root: entry.root, mountID: entry.mountID, fsid: nil, capacity: nil, fsMagic: nil, category: entry.category,
            sessionUUID: nil)
        if entry.category == .network && !touchNetwork { return volume }
        if entry.category == .pseudo { return volume }

        // A FUSE mount's root is opened only when the caller already holds a descriptor on it (it
        // asked about a file there) or allowed blocking: a daemon that stopped answering would
        // hold the open forever. Its block device (fuseblk) is still probed: that is the kernel's.
        let mayOpen = !entry.mayBlock || touchNetwork
        let handle = descriptor ?? (mayOpen ? openMountPoint(of: entry) : nil)
        let statistics = try? handle?.fileSystemStatistics()
        if let statistics {
            volume.fsid = statistics.fsid
            volume.capacity = statistics.capacity
            volume.fsMagic = statistics.type
        }
        volume.blockDevice = blockDevice(of: entry)
        var probed: BlockDeviceInfo?

        if let handle, let statistics, let found = uuidFromIoctls(handle, statistics, session: &volume.sessionUUID) {
            (volume.uuid, volume.uuidSource) = found
        } else if let device = volume.blockDevice, let info = BlockDeviceProbe.info(device: FilePath(device)),
            let uuid = info.uuid, !uuid.isEmpty
        {
            probed = info
            volume.uuid = uuid
            volume.uuidSource = info.verified ? .blkidProbe : .blkidCache
            volume.uuidVerified = info.verified
        } else if let statistics, statistics.isExt4 || statistics.isBtrfs, !statistics.fsid.isZero {
            // The identifier is text for every source: the fsid in the form `stat -f` prints.
            volume.uuid = statistics.fsid.description
            volume.uuidSource = .fsid
        }
        volume.isPersistent = volume.uuid != nil && statistics?.isTmpfs != true

        if let label = try? handle?.fileSystemLabel(), !label.isEmpty {
            volume.label = PathBytes(label).escaped
        } else if let label = probed?.label, !label.isEmpty {
            volume.label = label
        }
        return volume
    }

    /// Opens the mount point for the ioctls and checks that it is this mount (not one mounted over it).
    static func openMountPoint(of entry: MountEntry) -> OwnedDescriptor? {
        guard
            let descriptor = try? Directory.current.open(entry.mountPointPath, options: [.readOnly, .directory, .nonBlocking])
        else { return nil }
        guard let mountID = try? descriptor.reusableMountID(), mountID == entry.mountID else { return nil }
        return descriptor
    }

    /// The ioctl sources: FS_IOC_GETFSUUID (not tmpfs, not all zero; on ext4 the on-disk value wins
    /// when they differ), then EXT4_IOC_GETFSUUID, then BTRFS_IOC_FS_INFO.
    static func uuidFromIoctls(
        _ handle: OwnedDescriptor, _ statistics: FileSystemStatistics, session: inout String?
    ) -> (String, UUIDSource)? {
        let ext4 = statistics.isExt4 ? (try? handle.ext4UUID()).flatMap(nonZeroUUID) : nil
        if let generic = (try? handle.fileSystemUUID()).flatMap(nonZeroUUID) {
            if statistics.isTmpfs {
                session = generic
            } else if let ext4, ext4 != generic {
                return (ext4, .ext4Ioctl)  // an online `tune2fs -U` changed it after mounting
            } else {
                return (generic, .fsIocGetFSUUID)
            }
        }
        if let ext4 { return (ext4, .ext4Ioctl) }
        if statistics.isBtrfs, let fsid = (try? handle.btrfsFSID()).flatMap(nonZeroUUID) {
            return (fsid, .btrfsIoctl)
        }
        return nil
    }

    /// The block device node of a mount: its source when that is a `/dev/` node, else what libblkid
    /// maps the superblock's device number to.
    static func blockDevice(of entry: MountEntry) -> String? {
        if entry.source.starts(with: Array("/dev/".utf8)) { return entry.sourceString }
        if entry.category != .local { return nil }
        return BlockDeviceProbe.deviceName(for: entry.device)?.string
    }
}

func nonZeroUUID(_ bytes: [UInt8]) -> String? {
    guard bytes.count == 16, bytes.contains(where: { $0 != 0 }) else { return nil }
    return uuidString(bytes)
}

import SecureFiles
import SystemPackage

/// Where a volume's identifier came from, best first. The ranking is explained in Docs/IDENTITY.md.
public enum UUIDSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// `FS_IOC_GETFSUUID` (Linux 6.9): the superblock UUID, unprivileged. Ignored when all zero and on tmpfs.
    case fsIocGetFSUUID = "FS_IOC_GETFSUUID"
    /// `EXT4_IOC_GETFSUUID` (Linux 6.0): the current on-disk ext4 UUID, unprivileged.
    case ext4Ioctl = "EXT4_IOC_GETFSUUID"
    /// `BTRFS_IOC_FS_INFO`: the btrfs fsid, unprivileged.
    case btrfsIoctl = "BTRFS_IOC_FS_INFO"
    /// libblkid probed the block device now (needs read access to the device node).
    case blkidProbe = "blkid"
    /// libblkid's cache, because the device could not be read: unverified, possibly stale.
    case blkidCache = "blkid-cache"
    /// `statfs().f_fsid`, used only on ext4 and btrfs where it is derived from the UUID. Not a UUID.
    case fsid = "f_fsid"
    /// No identifier: the volume is known only by its mount source and type (network, memory and
    /// pseudo file systems). ``Volume/uuid`` is `nil`.
    case sourceAndType = "source"
}

/// A mounted volume: its identity (UUID and where that came from), label, type and where it is.
public struct Volume: Sendable, Hashable {
    /// The identifier: a UUID in canonical lowercase form for the ioctl sources, libblkid's
    /// spelling for blkid sources (`1234-ABCD` on FAT), `xxxxxxxx:xxxxxxxx` for ``UUIDSource/fsid``,
    /// `nil` for ``UUIDSource/sourceAndType``.
    public var uuid: String?
    /// Where ``uuid`` came from.
    public var uuidSource: UUIDSource
    /// `false` when the identifier came from a cache that could not be checked against the device.
    public var uuidVerified: Bool
    /// Whether the identity survives unmount and remount. `false` on tmpfs and where there is no UUID.
    public var isPersistent: Bool
    /// The label, where the file system has one.
    public var label: String?
    /// The file system type from mountinfo.
    public var fsType: String
    /// The mount source (a device node such as `/dev/loop0`, or `server:/export`, or `tmpfs`).
    public var source: String
    /// The block device node, when there is one (`/dev/loop0`; `nil` for btrfs on some setups,
    /// tmpfs, network).
    public var blockDevice: String?
    /// Where it is mounted (raw bytes; may not be UTF-8).
    public var mountPoint: [UInt8]
    /// The directory of the file system shown at the mount point (`/` unless a bind or subvolume mount).
    public var root: [UInt8]
    /// The reusable mount id (mountinfo's first field).
    public var mountID: Int32
    /// `f_fsid` as `xxxxxxxx:xxxxxxxx`, when the file system could be asked.
    public var fsid: String?
    /// Capacity in bytes, when the file system could be asked.
    public var capacity: UInt64?
    /// The `f_type` magic number, when the file system could be asked.
    public var fsMagic: Int64?
    /// The mount's category.
    public var category: FileSystemCategory
    /// The per-mount random UUID of tmpfs: identifies this mount only, never stored as a volume UUID.
    public var sessionUUID: String?

    /// The mount point as a path.
    public var mountPointPath: FilePath { FilePath(bytes: mountPoint) }

    /// A key that is equal for the same volume across remounts when ``isPersistent``: `uuid:…`,
    /// `fsid:…`, or for volumes without identity `source:TYPE:SOURCE`.
    public var key: String {
        if let uuid {
            return (uuidSource == .fsid ? "fsid:" : "uuid:") + uuid.lowercased()
        }
        return "source:\(fsType):\(source)"
    }

    /// Whether `candidate` (a UUID or fsid string, any case, with or without dashes) names this volume.
    public func matches(uuid candidate: String) -> Bool {
        guard let uuid else { return false }
        return normalizedIdentifier(uuid) == normalizedIdentifier(candidate)
    }
}

func normalizedIdentifier(_ text: String) -> String {
    String(text.lowercased().filter { $0 != "-" })
}

/// Formats 16 bytes as a canonical lowercase UUID string.
func uuidString(_ bytes: [UInt8]) -> String? {
    guard bytes.count == 16 else { return nil }
    let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
    return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
}

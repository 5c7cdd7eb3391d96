// SPDX-License-Identifier: Apache-2.0
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
///
/// A value type whose fields live in one shared, immutable box: a `Volume` is copied into every
/// ``FileID`` and every resolution result, and copying sixteen fields (ten of them reference
/// counted) profiled at a tenth of an unmoved bookmark's resolution. Setting a field makes a new box.
public struct Volume: Sendable, Hashable {
    /// The stored fields.
    struct Fields: Sendable, Hashable {
        var uuid: String?
        var uuidSource: UUIDSource
        var uuidVerified: Bool
        var isPersistent: Bool
        var label: String?
        var fsType: String
        var source: String
        var blockDevice: String?
        var mountPoint: [UInt8]
        var root: [UInt8]
        var mountID: MountID
        var fsid: FileSystemID?
        var capacity: UInt64?
        var fsMagic: Int64?
        var category: FileSystemCategory
        var sessionUUID: String?
        /// ``mountPoint`` as a `FilePath`, made once (swift-system's initialisers normalise).
        var mountPointPath: FilePath
    }

    /// The fields, shared by copies; never mutated (setters replace it).
    final class Box: Sendable {
        let fields: Fields
        /// ``Volume/mayBlock``, from ``Fields/fsType`` once: creation and resolution ask it on
        /// every call, and the answer is a set look-up and two prefix tests of a string.
        let mayBlock: Bool
        init(_ fields: Fields) {
            self.fields = fields
            mayBlock = FileSystemCategory.mayBlock(fsType: fields.fsType)
        }
    }

    private var box: Box

    init(
        uuid: String?,
        uuidSource: UUIDSource,
        uuidVerified: Bool,
        isPersistent: Bool,
        label: String?,
        fsType: String,
        source: String,
        blockDevice: String?,
        mountPoint: [UInt8],
        root: [UInt8],
        mountID: MountID,
        fsid: FileSystemID?,
        capacity: UInt64?,
        fsMagic: Int64?,
        category: FileSystemCategory,
        sessionUUID: String?
    ) {
        box = Box(Fields(
            uuid: uuid,
            uuidSource: uuidSource,
            uuidVerified: uuidVerified,
            isPersistent: isPersistent,
            label: label,
            fsType: fsType,
            source: source,
            blockDevice: blockDevice,
            mountPoint: mountPoint,
            root: root,
            mountID: mountID,
            fsid: fsid,
            capacity: capacity,
            fsMagic: fsMagic,
            category: category,
            sessionUUID: sessionUUID, mountPointPath: FilePath(bytes: mountPoint)))
    }

    /// The same volume with a box of its own. A thread that copies one volume into many results
    /// (a batch's worker) retains its own box instead of one that every core retains, whose
    /// reference count would move between the cores' caches on every copy.
    package func withOwnBox() -> Volume {
        var copy = self
        copy.box = Box(box.fields)
        return copy
    }

    /// Sets one field: a new box, so copies that share the old one are unaffected.
    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = box.fields
        change(&fields)
        box = Box(fields)
    }

    /// The identifier: a UUID in canonical lowercase form for the ioctl sources, libblkid's
    /// spelling for blkid sources (`1234-ABCD` on FAT), `xxxxxxxx:xxxxxxxx` for ``UUIDSource/fsid``,
    /// `nil` for ``UUIDSource/sourceAndType``.
    public var uuid: String? {
        get { box.fields.uuid }
        set { update { $0.uuid = newValue } }
    }
    /// Where ``uuid`` came from.
    public var uuidSource: UUIDSource {
        get { box.fields.uuidSource }
        set { update { $0.uuidSource = newValue } }
    }
    /// `false` when the identifier came from a cache that could not be checked against the device.
    public var uuidVerified: Bool {
        get { box.fields.uuidVerified }
        set { update { $0.uuidVerified = newValue } }
    }
    /// Whether the identity survives unmount and remount. `false` on tmpfs and where there is no UUID.
    public var isPersistent: Bool {
        get { box.fields.isPersistent }
        set { update { $0.isPersistent = newValue } }
    }
    /// The label, where the file system has one.
    public var label: String? {
        get { box.fields.label }
        set { update { $0.label = newValue } }
    }
    /// The file system type from mountinfo.
    public var fsType: String {
        get { box.fields.fsType }
        set { update { $0.fsType = newValue } }
    }
    /// The mount source (a device node such as `/dev/loop0`, or `server:/export`, or `tmpfs`).
    public var source: String {
        get { box.fields.source }
        set { update { $0.source = newValue } }
    }
    /// The block device node, when there is one (`/dev/loop0`; `nil` for btrfs on some setups,
    /// tmpfs, network).
    public var blockDevice: String? {
        get { box.fields.blockDevice }
        set { update { $0.blockDevice = newValue } }
    }
    /// Where it is mounted (raw bytes; may not be UTF-8).
    public var mountPoint: [UInt8] {
        get { box.fields.mountPoint }
        set {
            update {
                $0.mountPoint = newValue
                $0.mountPointPath = FilePath(bytes: newValue)
            }
        }
    }
    /// The directory of the file system shown at the mount point (`/` unless a bind or subvolume mount).
    public var root: [UInt8] {
        get { box.fields.root }
        set { update { $0.root = newValue } }
    }
    /// The reusable mount id (mountinfo's first field) of the mount this volume was identified on.
    public var mountID: MountID {
        get { box.fields.mountID }
        set { update { $0.mountID = newValue } }
    }
    /// `f_fsid`, when the file system could be asked (its description is `xxxxxxxx:xxxxxxxx`).
    public var fsid: FileSystemID? {
        get { box.fields.fsid }
        set { update { $0.fsid = newValue } }
    }
    /// Capacity in bytes, when the file system could be asked.
    public var capacity: UInt64? {
        get { box.fields.capacity }
        set { update { $0.capacity = newValue } }
    }
    /// The `f_type` magic number, when the file system could be asked.
    public var fsMagic: Int64? {
        get { box.fields.fsMagic }
        set { update { $0.fsMagic = newValue } }
    }
    /// The mount's category.
    public var category: FileSystemCategory {
        get { box.fields.category }
        set { update { $0.category = newValue } }
    }
    /// Whether calls on this volume can wait for a FUSE daemon or a network server (see
    /// ``MountEntry/mayBlock``).
    public var mayBlock: Bool { box.mayBlock }
    /// The per-mount random UUID of tmpfs: identifies this mount only, never stored as a volume UUID.
    public var sessionUUID: String? {
        get { box.fields.sessionUUID }
        set { update { $0.sessionUUID = newValue } }
    }

    /// Equal when every field is equal (the same box is equal without comparing).
    public static func == (lhs: Volume, rhs: Volume) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// Whether both are the same stored facts (one box), which `==` checks first: a cache that
    /// keeps the instance it was last asked with compares the next one in one step.
    package func isSameInstance(as other: Volume) -> Bool { box === other.box }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
    }

    /// The mount point as a path.
    public var mountPointPath: FilePath { box.fields.mountPointPath }

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
    // Written byte by byte: joining strings here cost a `bookmark` process 2 % of its start (the
    // generic `joined` builds metadata from a mangled name, and its conformance look-up scans
    // the whole binary's conformances).
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
        if index == 4 || index == 6 || index == 8 || index == 10 { text.append(0x2D) }
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}

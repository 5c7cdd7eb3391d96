// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import Synchronization
import SystemPackage

/// Where a volume is now.
public enum VolumeLocation: Sendable, Hashable {
    /// Mounted; the volume as it is mounted now (the mount of its whole tree preferred over binds).
    case mounted(Volume)
    /// Not mounted, but a block device carrying that UUID is attached. `verified` is `false` when
    /// the device could not be read and libblkid's cache said so.
    case attachedNotMounted(device: String, verified: Bool)
    /// Neither mounted nor (as far as libblkid can tell) attached.
    case notMounted
}

/// The mounted volumes of this mount namespace: the mount table, read once, and each mount's
/// volume, identified on demand (at most once per instance).
public final class MountedVolumes: Sendable {
    /// The mount table these volumes were read from.
    public let table: MountTable
    private let cache = Locked(VolumeCache())

    /// Identified volumes by mount id, and the one asked for last: a run of look-ups on one
    /// mount (every creation and resolution on it) compares one number instead of hashing it
    /// for the dictionary (the hashing was half of a look-up, perf). Entries are never replaced
    /// (a table's mounts do not change), so the last one is always the dictionary's.
    private struct VolumeCache {
        var byMount: [MountID: Volume] = [:]
        var last: (mountID: MountID, volume: Volume)?

        mutating func volume(_ mountID: MountID) -> Volume? {
            if let last, last.mountID == mountID { return last.volume }
            guard let known = byMount[mountID] else { return nil }
            last = (mountID, known)
            return known
        }
    }
    /// UUIDs already located, so a batch of bookmarks on one volume looks it up once.
    private let located = Locked<[String: Volume]>([:])
    /// The UUID (as spelled by the caller) and volume of the last successful ``locate(uuid:hint:)``.
    private let lastLocated = Locked<(String, Volume)?>(nil)
    /// Mount points already examined, by mount id.
    private let mountPoints = Locked<[MountID: MountPointFacts]>([:])
    private let touchNetwork: Bool
    /// The mounts that may block (FUSE, network), so a path on none of them is cleared with one test.
    private let blockingMounts: [MountEntry]
    /// Whether any mount is an automount trigger.
    private let hasAutomountTriggers: Bool
    /// A number no other instance in this process has: what a cache of facts learnt from one
    /// table keeps to know it is asked about the same table, without keeping the table alive.
    package let serial: UInt64

    private static let serials = Atomic<UInt64>(0)

    /// Reads `/proc/self/mountinfo`.
    ///
    /// - Parameter touchNetwork: Whether network mounts may be opened (may block). Default `false`.
    /// - Throws: ``FileIdentityError`` when the table cannot be read or parsed (see ``MountTable/current()``).
    public convenience init(touchNetwork: Bool = false) throws(FileIdentityError) {
        try self.init(table: MountTable.current(), touchNetwork: touchNetwork)
    }

    /// Uses a given table (for tests).
    public init(table: MountTable, touchNetwork: Bool = false) {
        self.table = table
        self.touchNetwork = touchNetwork
        blockingMounts = table.entries.filter(\.mayBlock)
        hasAutomountTriggers = table.entries.contains(where: \.isAutomountTrigger)
        serial = Self.serials.add(1, ordering: .relaxed).newValue
    }

    /// What touching a path would risk, read from the mount table alone.
    package enum PathHazard: Sendable {
        /// The path is on a mount that answers without waiting for anyone.
        case none
        /// The path is on this FUSE or network mount: touch it only under ``VolumeWatchdog``.
        case mayBlock(MountEntry)
        /// The path is beneath this automount trigger with nothing mounted there yet: looking it
        /// up would mount (and wait for the automount daemon).
        case automount(MountEntry)

        /// Whether the path is on a mount that may block or beneath a trigger (not ``none``).
        package var needsCare: Bool {
            if case .none = self { return false }
            return true
        }
    }

    /// What touching `path` would risk (see ``PathHazard``). Costs one test when no mount may
    /// block, which is the common case; otherwise one scan of the table (and, for a relative
    /// path, a look at the working directory's path).
    package func hazard(of path: [UInt8]) -> PathHazard {
        if blockingMounts.isEmpty && !hasAutomountTriggers { return .none }
        guard let entry = table.entry(covering: Directory.absolute(path)) else { return .none }
        if entry.mayBlock { return .mayBlock(entry) }
        if entry.isAutomountTrigger { return .automount(entry) }
        return .none
    }

    /// The volume of a mount entry, identified once and cached.
    package func volume(of entry: MountEntry, descriptor: OwnedDescriptor? = nil) -> Volume {
        if let known = cache.withLock({ $0.volume(entry.mountID) }) { return known }
        let volume = Volume.identify(entry, descriptor: descriptor, touchNetwork: touchNetwork)
        // Another thread may have identified it meanwhile: its instance stays the one handed out.
        return cache.withLock { cache in
            if let first = cache.byMount[entry.mountID] { return first }
            cache.byMount[entry.mountID] = volume
            return volume
        }
    }

    /// What bookmark creation records of the directory a volume is mounted on and of the
    /// directories above it, examined once per mount and `MountedVolumes`.
    package struct MountPointFacts: Sendable {
        /// The mount point's birth time (the volume root's), or `nil` where the file system reports
        /// none or the mount point cannot be examined.
        package var birthTime: Timestamp?
        /// The inode numbers of the directories on the mount point's path, `/` excluded and the
        /// mount point (the volume's root as the path reaches it) last: `[]` for a volume mounted
        /// at `/`; `nil` when one of them is not a directory (a symlink included), cannot be
        /// examined, or the mount point is not this mount's root (a mount stacked on it, a table
        /// older than the mounts).
        package var directoryInodes: [UInt64]?
    }

    /// The mount point's facts (see ``MountPointFacts``): every bookmark made on the volume
    /// records its birth time, and the inode numbers of the directories down to it as the first
    /// per-component file IDs of every path on the volume.
    ///
    /// The directories above a mount point cannot be removed while it is mounted (none is empty)
    /// and the mount point cannot be renamed (`EBUSY`); renaming one of its ancestors moves the
    /// mount with it, and a path through the old name no longer reaches the volume. So a path on
    /// this mount that starts with its mount point, as the mount table gave it, goes through these
    /// directories. What this cannot see: an ancestor renamed and then a symlink (or a same-named
    /// directory that the ancestor is later moved into) put at its old path, with no mount or
    /// unmount since to refresh the table. A creation through that path records the directories
    /// examined here (the symlink's target, the moved ancestor's old inode): IDs of the root
    /// volume's directories that no resolution reads (it compares the object's own inode and its
    /// parent's, both below the mount point).
    ///
    /// - Parameter volume: One of these volumes.
    ///
    /// Implementation details: one `statx` (`AT_SYMLINK_NOFOLLOW`) per directory on the mount
    /// point's path, once per mount.
    package func mountPointFacts(of volume: Volume) -> MountPointFacts {
        if let known = mountPoints.withLock({ $0[volume.mountID] }) { return known }
        let facts = Self.examineMountPoint(of: volume)
        mountPoints.withLock { $0[volume.mountID] = facts }
        return facts
    }

    /// The birth time of the directory a volume is mounted on (its root), examined once per mount
    /// and `MountedVolumes` (``mountPointFacts(of:)``).
    package func mountPointBirthTime(of volume: Volume) -> Timestamp? {
        mountPointFacts(of: volume).birthTime
    }

    static func examineMountPoint(of volume: Volume) -> MountPointFacts {
        let point = volume.mountPoint
        guard case .success(let root) = FileStatus.lookup(pathBytes: point, followSymlinks: false) else {
            return MountPointFacts(birthTime: nil, directoryInodes: nil)
        }
        guard root.kind == .directory, root.reusableMountID == volume.mountID, point.first == UInt8(ascii: "/") else {
            return MountPointFacts(birthTime: root.birthTime, directoryInodes: nil)
        }
        if point.count == 1 { return MountPointFacts(birthTime: root.birthTime, directoryInodes: []) }
        // Each `/` after the first ends the path of a directory above the mount point.
        var ends: [Int] = []
        for (index, byte) in point.enumerated() where byte == UInt8(ascii: "/") && index > 0 { ends.append(index) }
        var inodes: [UInt64] = []
        inodes.reserveCapacity(ends.count + 1)
        guard PathDirectories.inodes(of: point, prefixEnds: ends[...], into: &inodes) == nil else {
            return MountPointFacts(birthTime: root.birthTime, directoryInodes: nil)
        }
        inodes.append(root.inode)
        return MountPointFacts(birthTime: root.birthTime, directoryInodes: inodes)
    }

    /// The volume of the mount with this reusable mount id (`name_to_handle_at`'s), or `nil` when
    /// no such mount exists even in a fresh read of the table. A volume seen before costs one
    /// dictionary lookup: the mount entry is looked up only the first time.
    public func volume(mountID: MountID) -> Volume? {
        if let known = cache.withLock({ $0.volume(mountID) }) { return known }
        return entry(mountID: mountID).map { volume(of: $0) }
    }

    /// Every mounted volume (pseudo file systems left out unless `includingPseudo`).
    public func allVolumes(includingPseudo: Bool = false) -> [Volume] {
        (includingPseudo ? table.entries : table.volumes).map { volume(of: $0) }
    }

    /// Where the volume with this UUID (or fsid string) is mounted now, or whether it is attached.
    ///
    /// Mounts of the whole file system (`root == "/"`) are preferred over bind and subvolume mounts;
    /// among those, the first in mount order. Network mounts are not opened unless allowed.
    ///
    /// - Parameters:
    ///   - uuid: The UUID or fsid string.
    ///   - hint: Where the volume was mounted last (a bookmark's volume path): mounts there are
    ///     identified first, so the common case costs one volume identification, not one per mount.
    public func locate(uuid: String, hint: [UInt8]? = nil) -> VolumeLocation {
        // The last volume located answers a run of bookmarks on one volume with a string
        // comparison (cheaper than hashing the UUID for the dictionary below).
        if let (lastUUID, volume) = lastLocated.withLock({ $0 }), lastUUID == uuid { return .mounted(volume) }
        // Known UUIDs are cached under their spelling as given and their normalized form, so
        // the common repeat (the same spelling) skips normalizing.
        if let known = located.withLock({ $0[uuid] }) {
            lastLocated.withLock { $0 = (uuid, known) }
            return .mounted(known)
        }
        let key = normalizedIdentifier(uuid)
        if let known = located.withLock({ $0[key] }) {
            located.withLock { $0[uuid] = known }
            lastLocated.withLock { $0 = (uuid, known) }
            return .mounted(known)
        }
        var ordered = table.volumes.filter(\.isWholeFileSystem) + table.volumes.filter { !$0.isWholeFileSystem }
        if let hint {
            ordered = ordered.filter { $0.mountPoint == hint } + ordered.filter { $0.mountPoint != hint }
        }
        for entry in ordered where entry.category != .pseudo {
            let volume = volume(of: entry)
            if volume.isPersistent, volume.matches(uuid: uuid) {
                located.withLock {
                    $0[key] = volume
                    $0[uuid] = volume
                }
                lastLocated.withLock { $0 = (uuid, volume) }
                return .mounted(volume)
            }
        }
        return Self.attachedDevice(uuid: uuid)
    }

    /// Whether a block device with this UUID is attached, when no mount matched.
    ///
    /// Every attached block device (`/proc/partitions`) that can be read is probed with libblkid; a
    /// match is verified. Only when no device could be read (an unprivileged caller) is libblkid's
    /// cache asked (`blkid_evaluate_tag`), and a match from it is reported unverified. The cache is
    /// never trusted when the devices can be read: it can name a device that since changed.
    static func attachedDevice(uuid: String) -> VolumeLocation {
        let wanted = normalizedIdentifier(uuid)
        var anyReadable = false
        for device in BlockDeviceProbe.attachedDevices() {
            switch BlockDeviceProbe.probe(device: device) {
            case .success(let info):
                anyReadable = true
                if let found = info.uuid, normalizedIdentifier(found) == wanted {
                    return .attachedNotMounted(device: device.string, verified: true)
                }
            case .failure:
                continue
            }
        }
        if anyReadable { return .notMounted }
        // libblkid compares tags byte for byte; bookmarks store UUIDs upper-case (as Apple does).
        let spellings = [uuid, uuid.lowercased(), uuid.uppercased()]
        guard let device = spellings.lazy.compactMap({ BlockDeviceProbe.device(forUUID: $0) }).first else {
            return .notMounted
        }
        return .attachedNotMounted(device: device.string, verified: false)
    }

    /// The mount entry for a reusable mount id, re-reading the table once if it is not there
    /// (the mount may be newer than this list).
    func entry(mountID: MountID) -> MountEntry? {
        if let entry = table.entry(mountID: mountID) { return entry }
        return (try? MountTable.current())?.entry(mountID: mountID)
    }
}

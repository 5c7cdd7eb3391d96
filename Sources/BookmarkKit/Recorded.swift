// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

/// What a bookmark recorded about its object, in the form resolution compares against.
///
/// A class of constants: derived once per bookmark and shared by every resolution of it, so
/// handing it to a resolver is one reference, not a copy of a dozen arrays and strings.
final class Recorded: Sendable {
    let path: [UInt8]
    /// ``path`` as a `FilePath`, made once per bookmark: an unmoved file's result reuses it, and
    /// `FilePath`'s initialisers (separator normalisation) cost a quarter of such a resolution.
    let filePath: FilePath
    /// Whether ``path`` is in a Trash (what an unmoved object's result reports).
    let pathIsInTrash: Bool
    let components: [[UInt8]]
    let fileIDs: [UInt64?]
    let inode: UInt64?
    let generation: UInt64?
    let birthTime: Timestamp?
    let subvolume: UInt64?
    let handle: FileHandleData?
    let isDirectory: Bool
    let volumeUUID: String?
    let volumeName: String?
    let volumePath: [UInt8]?
    let mountRelativePath: [UInt8]?
    let relativeDirsUp: Int?
    let relativeDirsDown: Int?
    /// Size and modification time, from the stored resource values (for the cross-volume heuristic).
    let fingerprint: SearchGoal.Fingerprint?

    init(_ record: BookmarkRecord) throws(BookmarkError) {
        guard let components = record.pathComponents else {
            throw BookmarkError(.corruptData, "the bookmark has no path components (key 0x1004)")
        }
        self.components = components.map(\.bytes)
        path = PathBytes(components: self.components).bytes
        filePath = FilePath(bytes: path)
        fileIDs = (record.fileIDs ?? []).map { $0.map { UInt64(bitPattern: $0) } }
        inode = record.fileID.map { UInt64(bitPattern: $0) } ?? fileIDs.last.flatMap { $0 }
        // The components read above: the compact Linux item may store the mount-relative path
        // as a count of them.
        let linux = record.linuxFacts(pathComponents: components)
        generation = linux.generation
        birthTime = linux.birthTime.map { Timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds) }
        subvolume = linux.subvolumeID
        if let type = linux.handleType, let bytes = linux.handle {
            handle = FileHandleData(type: type, bytes: bytes, mountID: MountID(rawValue: 0))
        } else {
            handle = nil
        }
        isDirectory = record.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) ?? false
        let volume = record.volumeIdentity
        volumeUUID = volume.uuid
        volumeName = volume.name?.string
        volumePath = volume.path?.bytes
        mountRelativePath = linux.mountRelativePath?.bytes
        relativeDirsUp = record.relativeDirsUp.map { Int(clamping: $0) }
        relativeDirsDown = record.relativeDirsDown.map { Int(clamping: $0) }
        if let modified = record[ResourceKey.contentModificationDate.bookmarkKey]?.dateValue {
            let size = record[ResourceKey.fileSize.bookmarkKey]?.integerValue.map { UInt64(clamping: $0) }
            fingerprint = SearchGoal.Fingerprint(size: size, modificationTime: modified.unixSeconds)
        } else {
            fingerprint = nil
        }
        pathIsInTrash = PathBytes(path).isInTrash
    }

    /// The recorded parent directory's inode, when recorded.
    var parentInode: UInt64? { fileIDs.count >= 2 ? fileIDs[fileIDs.count - 2] : nil }

    /// Whether `id` is the recorded object: same inode and subvolume; generation and birth time
    /// equal wherever both sides know them. Never `(dev, ino)` alone when more is known.
    func matches(_ id: FileID) -> Bool {
        guard let inode, id.inode == inode else { return false }
        if let subvolume, let other = id.subvolume, subvolume != other { return false }
        if let generation, let other = id.generation, generation != UInt64(other) { return false }
        if let birthTime, let other = id.birthTime, birthTime != other { return false }
        return true
    }

    /// The path the object would have now if it had not moved on its volume: the mount-relative
    /// path under the volume's current mount point.
    ///
    /// A batch's quick pass makes the same path from the record's bytes
    /// (`BookmarkQuickSpans.currentPath`); its tests hold it to this rule.
    func rerooted(at volume: Volume) -> [UInt8] {
        guard let relative = mountRelativePath else { return path }
        let point = volume.mountPoint
        if point == [UInt8(ascii: "/")] { return relative }
        return relative == [UInt8(ascii: "/")] ? point : point + relative
    }
}

// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: pointing a legacy alias record at where its target is now.

extension AliasRecord {
    /// Where a resolved alias record's target is now: what ``retargeted(to:)`` writes.
    package struct Target: Sendable {
        /// The absolute path.
        package var path: [UInt8]
        /// The mount point of its volume (a prefix of ``path``, or `/`).
        package var mountPoint: [UInt8]
        /// The target's file ID (inode), and its parent folder's.
        package var fileID: UInt64?
        package var parentID: UInt64?
        package var isFolder: Bool
        package var creationDate: BookmarkDate?
        /// The volume's name now (`nil`: the record's is kept).
        package var volumeName: String?

        package init(
            path: [UInt8], mountPoint: [UInt8], fileID: UInt64?, parentID: UInt64?, isFolder: Bool,
            creationDate: BookmarkDate?, volumeName: String?
        ) {
            self.path = path
            self.mountPoint = mountPoint
            self.fileID = fileID
            self.parentID = parentID
            self.isFolder = isFolder
            self.creationDate = creationDate
            self.volumeName = volumeName
        }
    }

    /// This record with every fact about the target's place rewritten for `target`, and the rest
    /// kept as it was (version, creator and type, volume facts, tags this does not know).
    ///
    /// Rewritten: the kind, the target's and its parent's IDs (`0xFFFFFFFF`, "unknown", for an
    /// inode beyond 32 bits), the name (the fixed Mac OS Roman field, cut to 63 bytes, and tag 14),
    /// the volume's name (the fixed field, cut to 27 bytes, and tag 15 when present),
    /// the creation date (and tag 17 when present), the volume-relative path (tag 18) and the mount
    /// point (tag 19), and the parent folder's name (tag 0) when present. Tags 1 (the ancestors'
    /// IDs) and 2 (the Carbon path) name the old place and cannot be rebuilt from a Linux path, so
    /// they are dropped rather than left wrong; ``BookmarkRecord/init(aliasRecord:originalBytes:)``
    /// does not read them.
    package func retargeted(to target: Target) -> AliasRecord {
        var record = self
        let components = target.path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        let name = components.last.map { Array($0) } ?? []
        let nameText = String(decoding: name, as: UTF8.self)
        record.kind = target.isFolder ? 1 : 0
        record.targetCNID = Self.cnid(target.fileID)
        record.parentCNID = Self.cnid(target.parentID)
        record.targetName = Array(MacRoman.encode(nameText).prefix(63))
        record.setTag(TagNumber.unicodeFileName, Self.encodeUTF16Counted(nameText))
        if let date = target.creationDate {
            let stamp = AliasTimestamp(bookmarkDate: date)
            record.creationDate = stamp
            if record.tagData(TagNumber.highResCreationDate) != nil {
                record.setTag(TagNumber.highResCreationDate, stamp.bigEndianBytes)
            }
        }
        if let volumeName = target.volumeName {
            record.volumeName = Array(MacRoman.encode(volumeName).prefix(27))
            if record.tagData(TagNumber.unicodeVolumeName) != nil {
                record.setTag(TagNumber.unicodeVolumeName, Self.encodeUTF16Counted(volumeName))
            }
        }
        record.setTag(TagNumber.posixPath, Self.volumeRelative(target.path, below: target.mountPoint))
        record.setTag(TagNumber.posixMountPoint, target.mountPoint)
        if record.tagData(TagNumber.folderName) != nil {
            let parent = components.count >= 2 ? String(decoding: components[components.count - 2], as: UTF8.self) : ""
            record.setTag(TagNumber.folderName, MacRoman.encode(parent))
        }
        record.setTag(TagNumber.cnidPath, nil)
        record.setTag(TagNumber.carbonPath, nil)
        return record
    }

    /// An inode as a 32-bit catalog node ID; `0xFFFFFFFF` (unknown) when it does not fit.
    static func cnid(_ id: UInt64?) -> UInt32 {
        guard let id, id < 0xFFFF_FFFF else { return 0xFFFF_FFFF }
        return UInt32(id)
    }

    /// `path` below `mountPoint`, starting with `/` (as tag 18 holds it); the whole path when it is
    /// not below (a mount point of `/`).
    static func volumeRelative(_ path: [UInt8], below mountPoint: [UInt8]) -> [UInt8] {
        let root = mountPoint.last == UInt8(ascii: "/") ? Array(mountPoint.dropLast()) : mountPoint
        guard !root.isEmpty, path.count > root.count, path.starts(with: root), path[root.count] == UInt8(ascii: "/")
        else { return path }
        return Array(path[root.count...])
    }
}

extension AliasTimestamp {
    /// The same instant as `date` (clamped to what the 16.16 form since 1904 can hold).
    package init(bookmarkDate date: BookmarkDate) {
        let seconds = date.secondsSinceReferenceDate + BookmarkDate.macToReferenceOffset
        guard seconds.isFinite, seconds > 0 else {
            self.init(raw: 0)
            return
        }
        self.init(raw: UInt64(min(seconds * 65536, Double(UInt64.max >> 1))))
    }

    /// The 8 big-endian bytes that tags 16 and 17 hold.
    package var bigEndianBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: raw >> (56 - 8 * $0)) } }
}

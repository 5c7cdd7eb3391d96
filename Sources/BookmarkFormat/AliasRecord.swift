// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: legacy Alias Manager records (`alis`, versions 2 and 3).

/// A classic Alias Manager record (big-endian), version 2 or 3, as found standalone (resource
/// forks, old plists) or embedded in bookmark data under key `0xFE00`.
///
/// Fixed fields are decoded into properties; the tag–length–value items that follow are kept
/// verbatim in ``tags`` (in order), with typed accessors for the known ones. Decoding then
/// encoding gives the same bytes for any record this decoder accepts, except a record's
/// padding and trailing bytes after the end tag.
public struct AliasRecord: Sendable, Hashable {
    /// One tag–length–value item.
    public struct Tag: Sendable, Hashable {
        /// The tag number.
        public var tag: Int16
        /// The value bytes (without the padding byte).
        public var data: [UInt8]
        /// Creates a tag.
        public init(tag: Int16, data: [UInt8]) {
            self.tag = tag
            self.data = data
        }
    }

    /// Well-known tag numbers.
    public enum TagNumber: Sendable {
        /// Parent folder name (Mac OS Roman).
        public static let folderName: Int16 = 0
        /// CNIDs of the ancestors (u32 each).
        public static let cnidPath: Int16 = 1
        /// Carbon path (colon-separated, Mac OS Roman).
        public static let carbonPath: Int16 = 2
        /// AppleShare zone.
        public static let appleShareZone: Int16 = 3
        /// AppleShare server name.
        public static let appleShareServer: Int16 = 4
        /// AppleShare user name.
        public static let appleShareUser: Int16 = 5
        /// Driver name.
        public static let driverName: Int16 = 6
        /// Network mount information.
        public static let networkMountInfo: Int16 = 9
        /// Dial-up information.
        public static let dialupInfo: Int16 = 10
        /// UTF-16BE target name (u16 count, then characters).
        public static let unicodeFileName: Int16 = 14
        /// UTF-16BE volume name (u16 count, then characters).
        public static let unicodeVolumeName: Int16 = 15
        /// High-resolution volume creation date (u64, 1/65536 s since 1904).
        public static let highResVolumeCreationDate: Int16 = 16
        /// High-resolution target creation date (u64, 1/65536 s since 1904).
        public static let highResCreationDate: Int16 = 17
        /// POSIX path of the target relative to its volume.
        public static let posixPath: Int16 = 18
        /// POSIX path of the volume's mount point.
        public static let posixMountPoint: Int16 = 19
        /// A nested alias record of the disk image holding the volume.
        public static let diskImageAlias: Int16 = 20
        /// Length of the user-home prefix of the path (u16).
        public static let userHomePrefixLength: Int16 = 21
        /// End of the tag list.
        public static let end: Int16 = -1
    }

    /// Four-byte application info (user type) at offset 0.
    public var appInfo: [UInt8]
    /// Record version: 2 or 3.
    public var version: UInt16
    /// Target kind: 0 file, 1 folder.
    public var kind: UInt16
    /// Volume name (Mac OS Roman Pascal string, v2 only; v3 keeps it in tag 15).
    public var volumeName: [UInt8]
    /// Volume creation date.
    public var volumeCreationDate: AliasTimestamp
    /// File-system signature: 2 bytes in v2 (`H+`), 4 in v3.
    public var fileSystemType: [UInt8]
    /// Disk type.
    public var diskType: UInt16
    /// CNID of the parent folder (`0xFFFFFFFF` = none).
    public var parentCNID: UInt32
    /// Target name (Mac OS Roman Pascal string, v2 only; v3 keeps it in tag 14).
    public var targetName: [UInt8]
    /// CNID of the target (`0xFFFFFFFF` = none).
    public var targetCNID: UInt32
    /// Target creation date.
    public var creationDate: AliasTimestamp
    /// Four-byte creator code (v2 only).
    public var fileCreator: [UInt8]
    /// Four-byte type code (v2 only).
    public var fileType: [UInt8]
    /// Directory levels from the alias to the common ancestor (v2 only).
    public var levelsFrom: Int16
    /// Directory levels from the common ancestor to the target (v2 only).
    public var levelsTo: Int16
    /// Volume attributes.
    public var volumeAttributes: UInt32
    /// Volume file-system id (v2 only).
    public var volumeFSID: UInt16
    /// Reserved bytes at the end of the fixed part (10 in v2, 14 in v3), kept verbatim.
    public var reserved: [UInt8]
    /// The tag–length–value items, in order, without the end tag.
    public var tags: [Tag]

    /// Creates a record with empty defaults for everything not given.
    public init(version: UInt16 = 3, kind: UInt16 = 0, appInfo: [UInt8] = [0, 0, 0, 0]) {
        self.appInfo = appInfo
        self.version = version
        self.kind = kind
        volumeName = []
        volumeCreationDate = AliasTimestamp(raw: 0)
        fileSystemType = version == 2 ? Array("H+".utf8) : Array("H+\0\0".utf8)
        diskType = 0
        parentCNID = 0xFFFF_FFFF
        targetName = []
        targetCNID = 0xFFFF_FFFF
        creationDate = AliasTimestamp(raw: 0)
        fileCreator = [0, 0, 0, 0]
        fileType = [0, 0, 0, 0]
        levelsFrom = -1
        levelsTo = -1
        volumeAttributes = 0
        volumeFSID = 0
        reserved = [UInt8](repeating: 0, count: version == 2 ? 10 : 14)
        tags = []
    }

    // MARK: - Tag accessors

    /// The data of the first tag with number `tag`.
    public func tagData(_ tag: Int16) -> [UInt8]? { tags.first { $0.tag == tag }?.data }

    /// Replaces (or with `nil` removes) every tag with number `tag`; a new tag is appended.
    public mutating func setTag(_ tag: Int16, _ data: [UInt8]?) {
        if let i = tags.firstIndex(where: { $0.tag == tag }) {
            tags.removeAll { $0.tag == tag }
            if let d = data { tags.insert(Tag(tag: tag, data: d), at: min(i, tags.count)) }
        } else if let d = data {
            tags.append(Tag(tag: tag, data: d))
        }
    }

    /// Tag 18: the target's POSIX path relative to its volume.
    public var posixPath: ByteString? { tagData(TagNumber.posixPath).map(ByteString.init(bytes:)) }
    /// Tag 19: the volume's POSIX mount point.
    public var posixMountPoint: ByteString? { tagData(TagNumber.posixMountPoint).map(ByteString.init(bytes:)) }
    /// Tag 14: the target name in Unicode.
    public var unicodeFileName: String? { tagData(TagNumber.unicodeFileName).flatMap(AliasRecord.decodeUTF16Counted) }
    /// Tag 15: the volume name in Unicode.
    public var unicodeVolumeName: String? {
        tagData(TagNumber.unicodeVolumeName).flatMap(AliasRecord.decodeUTF16Counted)
    }
    /// Tag 16: the high-resolution volume creation date.
    public var highResVolumeCreationDate: AliasTimestamp? {
        tagData(TagNumber.highResVolumeCreationDate).flatMap(AliasTimestamp.init(bigEndianBytes:))
    }
    /// Tag 17: the high-resolution target creation date.
    public var highResCreationDate: AliasTimestamp? {
        tagData(TagNumber.highResCreationDate).flatMap(AliasTimestamp.init(bigEndianBytes:))
    }
    /// Tag 1: the ancestors' CNIDs.
    public var cnidPath: [UInt32]? {
        guard let d = tagData(TagNumber.cnidPath), d.count % 4 == 0 else { return nil }
        var out: [UInt32] = []
        for i in stride(from: 0, to: d.count, by: 4) {
            let hi: UInt32 = UInt32(d[i]) << 24 | UInt32(d[i + 1]) << 16
            let lo: UInt32 = UInt32(d[i + 2]) << 8 | UInt32(d[i + 3])
            out.append(hi | lo)
        }
        return out
    }
    /// Tag 2: the Carbon (colon-separated) path, decoded from Mac OS Roman.
    public var carbonPath: String? { tagData(TagNumber.carbonPath).map(MacRoman.decode) }
    /// Tag 0: the parent folder's name, decoded from Mac OS Roman.
    public var folderName: String? { tagData(TagNumber.folderName).map(MacRoman.decode) }
    /// Tag 21: the length of the user-home prefix.
    public var userHomePrefixLength: Int16? {
        guard let d = tagData(TagNumber.userHomePrefixLength), d.count >= 2 else { return nil }
        return Int16(bitPattern: UInt16(d[0]) << 8 | UInt16(d[1]))
    }

    /// The target name: tag 14 when present, else the Mac OS Roman fixed field.
    public var displayTargetName: String { unicodeFileName ?? MacRoman.decode(targetName) }
    /// The volume name: tag 15 when present, else the Mac OS Roman fixed field.
    public var displayVolumeName: String { unicodeVolumeName ?? MacRoman.decode(volumeName) }

    /// Encodes a name as tag 14/15 data: u16 character count, then UTF-16BE.
    public static func encodeUTF16Counted(_ s: String) -> [UInt8] {
        let units = Array(s.utf16)
        var w = ByteWriter()
        w.u16be(UInt16(truncatingIfNeeded: units.count))
        for u in units { w.u16be(u) }
        return w.bytes
    }

    /// Decodes tag 14/15 data; `nil` when the count does not fit.
    static func decodeUTF16Counted(_ d: [UInt8]) -> String? {
        guard d.count >= 2 else { return nil }
        let n = Int(UInt16(d[0]) << 8 | UInt16(d[1]))
        guard 2 + 2 * n <= d.count else { return nil }
        let units = (0..<n).map { UInt16(d[2 + 2 * $0]) << 8 | UInt16(d[3 + 2 * $0]) }
        return String(decoding: units, as: UTF16.self)
    }
}

/// An Alias Manager date: 1/65536 seconds since 1904-01-01 (v3 and tags 16/17 store it so;
/// v2 stores whole seconds, which decode to `seconds << 16`).
public struct AliasTimestamp: Sendable, Hashable, Comparable {
    /// 1/65536 seconds since 1904-01-01 00:00:00.
    public var raw: UInt64

    /// Creates a timestamp from its raw 16.16 fixed-point value.
    public init(raw: UInt64) { self.raw = raw }

    /// Creates a timestamp from whole seconds since 1904 (the v2 form).
    public init(seconds1904: UInt32) { self.raw = UInt64(seconds1904) << 16 }

    /// Decodes 8 big-endian bytes; `nil` for any other length.
    public init?(bigEndianBytes b: [UInt8]) {
        guard b.count == 8 else { return nil }
        raw = b.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Whether the value is 0 (no date).
    public var isZero: Bool { raw == 0 }

    /// Whole seconds since 1904 (the v2 form), saturating.
    public var seconds1904: UInt32 { UInt32(clamping: raw >> 16) }

    /// The same instant as a bookmark date.
    public var bookmarkDate: BookmarkDate {
        BookmarkDate(secondsSinceReferenceDate: Double(raw) / 65536 - BookmarkDate.macToReferenceOffset)
    }

    /// Orders by value.
    public static func < (l: AliasTimestamp, r: AliasTimestamp) -> Bool { l.raw < r.raw }
}

// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the 32-byte com.apple.FinderInfo that marks a file as an alias.

/// The 32-byte `com.apple.FinderInfo` extended attribute (all fields big-endian).
///
/// An alias file carries type `alis` (or `fdrp` for a folder alias), creator `MACS` and the
/// `kIsAlias` (0x8000) Finder flag. On Linux it is stored as `user.com.apple.FinderInfo`.
public struct FinderInfo: Sendable, Hashable {
    /// The `kIsAlias` Finder flag.
    public static let isAliasFlag: UInt16 = 0x8000
    /// File type of a file alias.
    public static let aliasFileType: [UInt8] = Array("alis".utf8)
    /// File type of a folder alias.
    public static let folderAliasFileType: [UInt8] = Array("fdrp".utf8)
    /// Creator of aliases (the Finder).
    public static let finderCreator: [UInt8] = Array("MACS".utf8)

    /// Four-byte file type (bytes 0..<4).
    public var fileType: [UInt8]
    /// Four-byte creator (bytes 4..<8).
    public var creator: [UInt8]
    /// Finder flags (bytes 8..<10).
    public var finderFlags: UInt16
    /// Location in the window: vertical then horizontal (bytes 10..<14).
    public var location: (v: Int16, h: Int16)
    /// Bytes 14..<16 (folder / reserved).
    public var reserved: UInt16
    /// The extended Finder info, bytes 16..<32, kept verbatim.
    public var extended: [UInt8]

    /// Creates Finder info.
    public init(fileType: [UInt8], creator: [UInt8], finderFlags: UInt16, location: (v: Int16, h: Int16) = (0, 0),
                reserved: UInt16 = 0, extended: [UInt8] = [UInt8](repeating: 0, count: 16))
    {
        self.fileType = fileType
        self.creator = creator
        self.finderFlags = finderFlags
        self.location = location
        self.reserved = reserved
        self.extended = extended
    }

    /// The Finder info of an alias file: `alis`/`MACS` (or `fdrp`/`MACS` for a folder) with
    /// `kIsAlias` set.
    public static func alias(toFolder: Bool) -> FinderInfo {
        FinderInfo(fileType: toFolder ? folderAliasFileType : aliasFileType, creator: finderCreator,
                   finderFlags: isAliasFlag)
    }

    /// Decodes the 32 bytes.
    /// - Throws: ``BookmarkFormatError`` (`truncated`) when `bytes` is not 32 bytes long.
    public init(decoding bytes: [UInt8]) throws(BookmarkFormatError) {
        guard bytes.count == 32 else {
            throw BookmarkFormatError(.truncated(needed: 32, available: bytes.count), at: 0)
        }
        let r = ByteReader(bytes)
        fileType = Array(bytes[0..<4])
        creator = Array(bytes[4..<8])
        finderFlags = try r.u16be(8)
        location = (Int16(bitPattern: try r.u16be(10)), Int16(bitPattern: try r.u16be(12)))
        reserved = try r.u16be(14)
        extended = Array(bytes[16..<32])
    }

    /// The 32 bytes (type and creator padded or cut to 4 bytes, extended info to 16).
    public var encoded: [UInt8] {
        var w = ByteWriter()
        w.bytes = Array((fileType + [0, 0, 0, 0]).prefix(4)) + Array((creator + [0, 0, 0, 0]).prefix(4))
        w.u16be(finderFlags)
        w.u16be(UInt16(bitPattern: location.v))
        w.u16be(UInt16(bitPattern: location.h))
        w.u16be(reserved)
        w.bytes += Array((extended + [UInt8](repeating: 0, count: 16)).prefix(16))
        return w.bytes
    }

    /// Whether the `kIsAlias` flag is set.
    public var isAlias: Bool { finderFlags & FinderInfo.isAliasFlag != 0 }

    /// Whether the type is `fdrp` (a folder alias).
    public var isFolderAlias: Bool { fileType == FinderInfo.folderAliasFileType }

    /// Compares every field.
    public static func == (l: FinderInfo, r: FinderInfo) -> Bool { l.encoded == r.encoded }

    /// Hashes the encoded bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }
}

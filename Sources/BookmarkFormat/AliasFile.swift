// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the Finder alias-file container (56-byte header + data section).

/// A Finder alias file's data fork: the 56-byte `book\0\0\0\0mark\0\0\0\0` header followed by
/// the same data section as in-memory bookmark data.
///
/// Header (little-endian): magic (16 bytes), data-section offset 56 at 16, 56 again at 20,
/// data-section length at 24, version `0x10040000` at 28, then 24 bytes that Apple fills with
/// unvalidated values (a CFAbsoluteTime at 40 in some samples); they are kept in
/// ``headerTail`` and never validated.
public struct AliasFile: Sendable, Hashable {
    /// The 16 magic bytes.
    public static let magic: [UInt8] = Array("book".utf8) + [0, 0, 0, 0] + Array("mark".utf8) + [0, 0, 0, 0]
    /// The header size (and data-section offset) Apple writes.
    public static let headerSize = 56

    /// The bookmark held in the data section, as raw tables of contents (see ``record``).
    package var bookmark: BookmarkDocument

    /// The bookmark held in the data section.
    public var record: BookmarkRecord {
        get { BookmarkRecord(document: bookmark) }
        set { bookmark = newValue.document }
    }
    /// Bytes 32..<56 of the header, kept as read (zeros when written by us).
    public var headerTail: [UInt8]

    /// Creates an alias file holding `bookmark`.
    package init(bookmark: BookmarkDocument, headerTail: [UInt8] = [UInt8](repeating: 0, count: 24)) {
        self.bookmark = bookmark
        self.headerTail = headerTail
    }

    /// Creates an alias file holding `record`; `headerTail` is bytes 32..<56 of the header
    /// (Apple fills them with values nobody validates; zeros are fine).
    public init(record: BookmarkRecord, headerTail: [UInt8] = [UInt8](repeating: 0, count: 24)) {
        self.init(bookmark: record.document, headerTail: headerTail)
    }

    /// Whether `bytes` start with the alias-file magic.
    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 16 && Array(bytes[0..<16]) == magic
    }

    /// Decodes an alias file's data fork.
    /// - Throws: ``BookmarkFormatError`` naming what was wrong and at which offset.
    public init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits = .default) throws(BookmarkFormatError) {
        guard bytes.count <= limits.maxInputSize else {
            throw BookmarkFormatError(.sizeLimitExceeded(size: bytes.count, limit: limits.maxInputSize), at: 0)
        }
        let r = ByteReader(bytes)
        try r.require(0, AliasFile.headerSize)
        guard AliasFile.hasMagic(bytes) else { throw BookmarkFormatError(.badMagic(found: Array(bytes[0..<16])), at: 0) }
        let offset = Int(try r.u32le(16))
        let length = Int(try r.u32le(24))
        let version = try r.u32le(28)
        guard offset >= 32, offset <= bytes.count else {
            throw BookmarkFormatError(.badHeader(field: "dataOffset", value: UInt64(offset)), at: 16)
        }
        guard length >= 4, length <= bytes.count - offset else {
            throw BookmarkFormatError(.truncated(needed: length, available: bytes.count - offset), at: 24)
        }
        self.bookmark = try BookmarkDocument.decodeDataSection(bytes, start: offset, end: offset + length,
                                                               version: version, limits: limits)
        self.headerTail = Array(bytes[32..<min(offset, AliasFile.headerSize)])
    }

    /// Encodes the data fork: header then the data section (the same section as
    /// ``BookmarkRecord/encoded()`` writes after its 48-byte header).
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) as ``BookmarkRecord/encoded()`` does.
    public func encoded() throws(BookmarkFormatError) -> [UInt8] {
        let section = try bookmark.encodedDataSection()
        guard section.count <= Int(UInt32.max) - AliasFile.headerSize else {
            throw BookmarkFormatError(.unencodable("alias file larger than 4 GiB"), at: nil)
        }
        var w = ByteWriter()
        w.bytes = AliasFile.magic
        w.u32le(UInt32(AliasFile.headerSize))
        w.u32le(UInt32(AliasFile.headerSize))
        w.u32le(UInt32(section.count))
        w.u32le(bookmark.version)
        var tail = Array(headerTail.prefix(24))
        tail += [UInt8](repeating: 0, count: 24 - tail.count)
        w.bytes += tail
        w.bytes += section
        return w.bytes
    }
}

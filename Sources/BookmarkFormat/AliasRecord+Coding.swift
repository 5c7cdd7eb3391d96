// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: decoding and encoding `alis` records.

extension AliasRecord {
    /// Size of the common header (appInfo, record size, version).
    static let headerSize = 8
    /// Size of the v2 fixed body.
    static let v2BodySize = 142
    /// Size of the v3 fixed body.
    static let v3BodySize = 50

    /// Whether `bytes` look like an alias record: a plausible record size and version 2 or 3.
    public static func looksLikeAliasRecord(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= headerSize + v3BodySize else { return false }
        let size = Int(UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
        let version = UInt16(bytes[6]) << 8 | UInt16(bytes[7])
        let minimum = headerSize + (version == 2 ? v2BodySize : v3BodySize)
        return (version == 2 || version == 3) && size >= minimum && size <= bytes.count
    }

    /// Decodes a version-2 or version-3 alias record. Bytes after the record size are ignored.
    /// - Throws: ``BookmarkFormatError`` naming what was wrong and at which offset.
    public init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits = .default) throws(BookmarkFormatError) {
        guard bytes.count <= limits.maxInputSize else {
            throw BookmarkFormatError(.sizeLimitExceeded(size: bytes.count, limit: limits.maxInputSize), at: 0)
        }
        let r = ByteReader(bytes)
        try r.require(0, AliasRecord.headerSize)
        let size = Int(try r.u16be(4))
        let version = try r.u16be(6)
        guard version == 2 || version == 3 else {
            throw BookmarkFormatError(.unsupportedAliasVersion(version), at: 6)
        }
        let fixedEnd = AliasRecord.headerSize + (version == 2 ? AliasRecord.v2BodySize : AliasRecord.v3BodySize)
        guard size >= fixedEnd else {
            throw BookmarkFormatError(.badHeader(field: "recordSize", value: UInt64(size)), at: 4)
        }
        guard size <= bytes.count else {
            throw BookmarkFormatError(.truncated(needed: size, available: bytes.count), at: 4)
        }
        self.init(version: version)
        appInfo = Array(bytes[0..<4])
        var o = 8
        kind = try r.u16be(o); o += 2
        if version == 2 {
            volumeName = try AliasRecord.pascal(r, at: o, field: 28); o += 28
            volumeCreationDate = AliasTimestamp(seconds1904: try r.u32be(o)); o += 4
            fileSystemType = try r.slice(o, 2); o += 2
            diskType = try r.u16be(o); o += 2
            parentCNID = try r.u32be(o); o += 4
            targetName = try AliasRecord.pascal(r, at: o, field: 64); o += 64
            targetCNID = try r.u32be(o); o += 4
            creationDate = AliasTimestamp(seconds1904: try r.u32be(o)); o += 4
            fileCreator = try r.slice(o, 4); o += 4
            fileType = try r.slice(o, 4); o += 4
            levelsFrom = Int16(bitPattern: try r.u16be(o)); o += 2
            levelsTo = Int16(bitPattern: try r.u16be(o)); o += 2
            volumeAttributes = try r.u32be(o); o += 4
            volumeFSID = try r.u16be(o); o += 2
            reserved = try r.slice(o, 10); o += 10
        } else {
            volumeCreationDate = AliasTimestamp(raw: try r.u64be(o)); o += 8
            fileSystemType = try r.slice(o, 4); o += 4
            diskType = try r.u16be(o); o += 2
            parentCNID = try r.u32be(o); o += 4
            targetCNID = try r.u32be(o); o += 4
            creationDate = AliasTimestamp(raw: try r.u64be(o)); o += 8
            volumeAttributes = try r.u32be(o); o += 4
            reserved = try r.slice(o, 14); o += 14
        }
        // Tag–length–value items up to the end tag (or the end of the record).
        while o + 4 <= size {
            let tag = Int16(bitPattern: try r.u16be(o))
            let length = Int(try r.u16be(o + 2))
            if tag == TagNumber.end { break }
            guard length <= size - (o + 4) else {
                throw BookmarkFormatError(.truncated(needed: length, available: size - (o + 4)), at: o + 2)
            }
            tags.append(Tag(tag: tag, data: try r.slice(o + 4, length)))
            o += 4 + length + (length & 1)
        }
    }

    /// Reads a Pascal string stored in a `field`-byte field.
    static func pascal(_ r: ByteReader, at o: Int, field: Int) throws(BookmarkFormatError) -> [UInt8] {
        let n = Int(try r.u8(o))
        guard n < field else { throw BookmarkFormatError(.badHeader(field: "pascalLength", value: UInt64(n)), at: o) }
        return try r.slice(o + 1, n)
    }

    /// Encodes the record in its ``version``'s layout, followed by the tags and the end tag.
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for a version other than 2 or 3, a
    ///   name too long for its Pascal field, or a record over 65,535 bytes.
    public func encoded() throws(BookmarkFormatError) -> [UInt8] {
        guard version == 2 || version == 3 else {
            throw BookmarkFormatError(.unencodable("alias record version \(version)"), at: nil)
        }
        func fixed(_ b: [UInt8], _ n: Int) -> [UInt8] { Array((b + [UInt8](repeating: 0, count: n)).prefix(n)) }
        func pascal(_ b: [UInt8], _ field: Int) throws(BookmarkFormatError) -> [UInt8] {
            guard b.count < field else {
                throw BookmarkFormatError(.unencodable("name of \(b.count) bytes in a \(field)-byte field"), at: nil)
            }
            return [UInt8(b.count)] + b + [UInt8](repeating: 0, count: field - 1 - b.count)
        }
        var w = ByteWriter()
        w.bytes = fixed(appInfo, 4)
        w.u16be(0)  // size, patched below
        w.u16be(version)
        w.u16be(kind)
        if version == 2 {
            w.bytes += try pascal(volumeName, 28)
            w.u32be(volumeCreationDate.seconds1904)
            w.bytes += fixed(fileSystemType, 2)
            w.u16be(diskType)
            w.u32be(parentCNID)
            w.bytes += try pascal(targetName, 64)
            w.u32be(targetCNID)
            w.u32be(creationDate.seconds1904)
            w.bytes += fixed(fileCreator, 4)
            w.bytes += fixed(fileType, 4)
            w.u16be(UInt16(bitPattern: levelsFrom))
            w.u16be(UInt16(bitPattern: levelsTo))
            w.u32be(volumeAttributes)
            w.u16be(volumeFSID)
            w.bytes += fixed(reserved, 10)
        } else {
            w.u64be(volumeCreationDate.raw)
            w.bytes += fixed(fileSystemType, 4)
            w.u16be(diskType)
            w.u32be(parentCNID)
            w.u32be(targetCNID)
            w.u64be(creationDate.raw)
            w.u32be(volumeAttributes)
            w.bytes += fixed(reserved, 14)
        }
        for t in tags {
            guard t.tag != TagNumber.end, t.data.count <= 0xFFFF else {
                throw BookmarkFormatError(.unencodable("tag \(t.tag) with \(t.data.count) bytes"), at: nil)
            }
            w.u16be(UInt16(bitPattern: t.tag))
            w.u16be(UInt16(t.data.count))
            w.bytes += t.data
            w.pad(to: 2)
        }
        w.u16be(0xFFFF)
        w.u16be(0)
        guard w.bytes.count <= 0xFFFF else {
            throw BookmarkFormatError(.unencodable("alias record of \(w.bytes.count) bytes"), at: nil)
        }
        w.setU16be(UInt16(w.bytes.count), at: 4)
        return w.bytes
    }
}

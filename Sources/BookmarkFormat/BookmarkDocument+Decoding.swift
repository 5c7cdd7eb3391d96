// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: decoding Apple's `book` layout from untrusted bytes.

extension BookmarkDocument {
    /// The magic of in-memory bookmark data.
    package static let magic: [UInt8] = Array("book".utf8)

    /// Decodes bookmark data (`book` header, items, TOC chain).
    ///
    /// Trailing bytes after the size in the header are ignored, so blobs embedded in larger
    /// buffers decode. Every offset and length is bounds-checked; cycles, nesting depth, the
    /// expanded item count and the input size are limited by `limits`.
    ///
    /// - Parameters:
    ///   - bytes: the bookmark data.
    ///   - limits: bounds for hostile input.
    /// - Throws: ``BookmarkFormatError`` naming what was wrong and at which byte offset.
    package init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits = .default) throws(BookmarkFormatError) {
        guard bytes.count <= limits.maxInputSize else {
            throw BookmarkFormatError(.sizeLimitExceeded(size: bytes.count, limit: limits.maxInputSize), at: 0)
        }
        let r = ByteReader(bytes)
        try r.require(0, 16)
        // The first word compared as a number: an array of the four bytes was an allocation.
        let first = try r.u32le(0)
        guard first == BookmarkDocument.magicWord || first == BookmarkDocument.aliasMagicWord else {
            throw BookmarkFormatError(.badMagic(found: Array(bytes[0..<4])), at: 0)
        }
        let size = Int(try r.u32le(4))
        let version = try r.u32le(8)
        let headerSize = Int(try r.u32le(12))
        guard size <= bytes.count else {
            throw BookmarkFormatError(.truncated(needed: size, available: bytes.count), at: 4)
        }
        guard headerSize >= 16, headerSize <= size, size - headerSize >= 4 else {
            throw BookmarkFormatError(.badHeader(field: "headerSize", value: UInt64(headerSize)), at: 12)
        }
        self = try BookmarkDocument.decodeDataSection(bytes, start: headerSize, end: size,
                                                      version: version, limits: limits)
    }

    /// Decodes a data section `bytes[start..<end]` whose offsets are relative to `start`: a u32
    /// first-TOC offset followed by items and TOCs.
    static func decodeDataSection(_ bytes: [UInt8], start: Int, end: Int, version: UInt32,
                                  limits: BookmarkDecodingLimits) throws(BookmarkFormatError) -> BookmarkDocument {
        var d = DataSectionDecoder(bytes: bytes, start: start, end: end, limits: limits)
        defer { d.memo.release() }
        let first = try d.reader.u32le(start)
        var tocs: [BookmarkTOC] = []
        // TOC offsets and ids seen: scanned while the chain is short (every real bookmark has
        // one to three TOCs, and two sets cost four allocations), hashed beyond that.
        var seenOffsets = SmallSet()
        var seenIDs = SmallSet()
        var next = first
        while next != 0 {
            guard tocs.count < limits.maxTOCs else {
                throw BookmarkFormatError(.tocChain(reason: "more than \(limits.maxTOCs) TOCs"), at: d.absolute(next))
            }
            guard seenOffsets.insert(next) else {
                throw BookmarkFormatError(.tocChain(reason: "TOC at data offset \(next) is reached twice"),
                                          at: d.absolute(next))
            }
            let (toc, following) = try d.decodeTOC(at: next)
            guard seenIDs.insert(toc.id) else {
                throw BookmarkFormatError(.duplicateTOC(id: toc.id), at: d.absolute(next) + 8)
            }
            tocs.append(toc)
            next = following
        }
        guard !tocs.isEmpty else {
            throw BookmarkFormatError(.tocChain(reason: "the first-TOC offset is 0"), at: start)
        }
        return BookmarkDocument(version: version, tocs: tocs)
    }
}


// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: encoding in Apple's `book` layout, the way Apple writes it.

extension BookmarkDocument {
    /// The order in which Apple writes the items of the standard keys (observed on the fixtures;
    /// see Docs/FORMAT.md). Keys not listed follow in key order, after any nested TOCs.
    package static let appleItemOrder: [BookmarkKey] = [
        .creationOptions, .pathComponents, .fileName, .fileIDs, .creationDate, .resourceProps,
        .volHomeDirRelativePathComponentCount, .userName, .userUID, .wasFileIDFormat,
        .volURL, .volName, .volCapacity, .volCreationDate, .volUUID, .volProps, .volPath,
        .volWasBoot,
    ]

    /// Encodes the document as bookmark data, as Apple writes it.
    ///
    /// A 48-byte header (`book`, total size, ``version``, 48, 32 zero bytes), then the first-TOC
    /// offset, the items 4-byte aligned (equal items written once and shared, as Apple does),
    /// and the TOCs (size field `12n + 12`, marker `0xFFFFFFFE`, entries sorted by key word).
    /// The first TOC in ``tocs`` is written last and chains to the others in order.
    ///
    /// - Throws: ``BookmarkFormatError`` with kind `unencodable` for values the layout cannot
    ///   hold (more than 4 GiB, a number whose payload does not fit its subtype, no TOC).
    package func encoded() throws(BookmarkFormatError) -> [UInt8] {
        try encoded { Array($0) }
    }

    /// Encodes the document as ``encoded()`` does and hands the bytes, in the encoder's buffer,
    /// to `make`: a caller that wants them in another container (Foundation's `Data`) copies
    /// them once instead of twice.
    package func encoded<R>(_ make: (UnsafeRawBufferPointer) -> R) throws(BookmarkFormatError) -> R {
        // The section is written after room for the header, so the result is built in one buffer.
        try encodeSection(headerSpace: BookmarkDocument.appleHeaderSize, make) { (e) throws(BookmarkFormatError) in
            let total = e.count
            guard total <= Int(UInt32.max) else {
                throw BookmarkFormatError(.unencodable("bookmark larger than 4 GiB"), at: nil)
            }
            e.setU32(BookmarkDocument.magicWord, at: 0)
            e.setU32(UInt32(total), at: 4)
            e.setU32(version, at: 8)
            e.setU32(UInt32(BookmarkDocument.appleHeaderSize), at: 12)
            // Bytes 16..<48 stay zero.
        }
    }

    /// `book` as a little-endian word.
    static let magicWord: UInt32 = 0x6B6F_6F62
    /// `alis` as a little-endian word (an alias file's record, decoded by the same reader).
    static let aliasMagicWord: UInt32 = 0x7369_6C61

    /// Encodes the data section: first-TOC offset, items, TOCs; offsets relative to its start.
    package func encodedDataSection() throws(BookmarkFormatError) -> [UInt8] {
        try encodeSection(headerSpace: 0, { Array($0) }) { _ in }
    }

    /// Encodes the data section after `headerSpace` zero bytes (room for a header the caller
    /// fills in); offsets stay relative to the section's start. `header` then fills in the header,
    /// and `make` receives the bytes.
    private func encodeSection<R>(
        headerSpace: Int, _ make: (UnsafeRawBufferPointer) -> R, header: (inout ItemEncoder) throws(BookmarkFormatError) -> Void
    ) throws(BookmarkFormatError) -> R {
        guard !tocs.isEmpty else { throw BookmarkFormatError(.unencodable("no table of contents"), at: nil) }
        for t in tocs.indices.dropFirst() where tocs[..<t].contains(where: { $0.id == tocs[t].id }) {
            throw BookmarkFormatError(.unencodable("two tables of contents share one id"), at: nil)
        }
        return try ItemEncoder.withEncoder(base: headerSpace, capacity: headerSpace + estimatedSectionSize) {
            (e) throws(BookmarkFormatError) in
            try SectionWriter.withWriter(tocs: tocs, headerSpace: headerSpace) { (writer) throws(BookmarkFormatError) in
                try writer.write(into: &e)
            }
            try header(&e)
            return e.withBytes(make)
        }
    }

    /// The position of numeric key `key` in ``appleItemOrder``, if it is there.
    /// (A switch, not a search of the list: it runs for every numeric entry of every encode.
    /// `EncodingTests` checks that it agrees with the list.)
    package static func appleRank(_ key: UInt32) -> Int? {
        switch key {
        case 0xD010: return 0
        case 0x1004: return 1
        case 0x1020: return 2
        case 0x1005: return 3
        case 0x1040: return 4
        case 0x1010: return 5
        case 0xC001: return 6
        case 0xC011: return 7
        case 0xC012: return 8
        case 0xD001: return 9
        case 0x2005: return 10
        case 0x2010: return 11
        case 0x2012: return 12
        case 0x2013: return 13
        case 0x2011: return 14
        case 0x2020: return 15
        case 0x2002: return 16
        case 0x2030: return 17
        default: return nil
        }
    }
}

extension BookmarkDocument {
    /// A first guess at the data section's size, so the output buffer rarely grows.
    var estimatedSectionSize: Int {
        var entries = 0
        for t in tocs { entries += t.rows.count }
        return 256 + 64 * entries
    }
}

// BookmarkFormat: encoding in Apple's `book` layout, the way Apple writes it.

extension BookmarkDocument {
    /// The order in which Apple writes the items of the standard keys (observed on the fixtures;
    /// see Docs/FORMAT.md). Keys not listed follow in key order, after any nested TOCs.
    static let appleItemOrder: [BookmarkKey] = [
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
    public func encoded() throws(BookmarkFormatError) -> [UInt8] {
        // The section is written after room for the header, so the result is built in one buffer.
        var w = ByteWriter()
        w.bytes = try encodedDataSection(headerSpace: BookmarkDocument.appleHeaderSize)
        let total = w.bytes.count
        guard total <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("bookmark larger than 4 GiB"), at: nil)
        }
        for i in 0..<4 { w.bytes[i] = BookmarkDocument.magic[i] }
        w.setU32le(UInt32(total), at: 4)
        w.setU32le(version, at: 8)
        w.setU32le(UInt32(BookmarkDocument.appleHeaderSize), at: 12)
        // Bytes 16..<48 stay zero.
        return w.bytes
    }

    /// Encodes the data section: first-TOC offset, items, TOCs; offsets relative to its start.
    ///
    /// - Parameter headerSpace: zero bytes to put before the section (room for a header the
    ///   caller fills in); offsets stay relative to the section's start.
    func encodedDataSection(headerSpace: Int = 0) throws(BookmarkFormatError) -> [UInt8] {
        guard !tocs.isEmpty else { throw BookmarkFormatError(.unencodable("no table of contents"), at: nil) }
        for t in tocs.indices.dropFirst() where tocs[..<t].contains(where: { $0.id == tocs[t].id }) {
            throw BookmarkFormatError(.unencodable("two tables of contents share one id"), at: nil)
        }
        var e = ItemEncoder(base: headerSpace, capacity: headerSpace + estimatedSectionSize)
        e.w.u32le(0)  // first-TOC offset, patched below

        // Entry offsets per TOC, as (raw key word, item offset, flags).
        var written: [[(UInt32, UInt32, UInt32)]] = Array(repeating: [], count: tocs.count)

        // Which entries of each TOC are written already.
        var done: [[Bool]] = tocs.map { [Bool](repeating: false, count: $0.entries.count) }

        func writeEntry(_ t: Int, _ i: Int, into e: inout ItemEncoder) throws(BookmarkFormatError) {
            let entry = tocs[t].entries[i]
            let raw: UInt32
            switch entry.key {
            case .numeric(let v):
                guard v & 0x8000_0000 == 0 else {
                    throw BookmarkFormatError(.unencodable("numeric key 0x\(String(v, radix: 16)) has bit 31 set"), at: nil)
                }
                raw = v
            case .string(let name):
                let o = try e.write(.string(name))
                guard o & 0x8000_0000 == 0 else {
                    throw BookmarkFormatError(.unencodable("string key beyond 2 GiB"), at: nil)
                }
                raw = 0x8000_0000 | o
            }
            let o = try e.write(entry.storage)
            written[t].append((raw, o, entry.flags))
            done[t][i] = true
        }

        /// The standard keys present, in Apple's order.
        func writeStandardEntries(_ t: Int, into e: inout ItemEncoder) throws(BookmarkFormatError) {
            for key in BookmarkDocument.appleItemOrder {
                if let i = tocs[t].index(of: key) { try writeEntry(t, i, into: &e) }
            }
        }

        /// Every entry not written yet, in key order.
        func writeRemainingEntries(_ t: Int, into e: inout ItemEncoder) throws(BookmarkFormatError) {
            for i in tocs[t].entries.indices where !done[t][i] { try writeEntry(t, i, into: &e) }
        }

        // Phase 1: the first TOC's standard items in Apple's order.
        try writeStandardEntries(0, into: &e)
        // Phase 2: the other TOCs, each followed by its table.
        var tocOffsets = [UInt32](repeating: 0, count: tocs.count)
        for t in tocs.indices.dropFirst() {
            try writeStandardEntries(t, into: &e)
            try writeRemainingEntries(t, into: &e)
            tocOffsets[t] = try e.alignedOffset()
            e.w.appendZeros(20 + 12 * tocs[t].entries.count)
        }
        // Phase 3: the first TOC's remaining items, then its table.
        try writeRemainingEntries(0, into: &e)
        tocOffsets[0] = try e.alignedOffset()
        e.w.appendZeros(20 + 12 * tocs[0].entries.count)

        // Fill in the tables.
        for t in tocs.indices {
            let entries = written[t].sorted { $0.0 < $1.0 }
            var o = headerSpace + Int(tocOffsets[t])
            func put(_ v: UInt32) { e.w.setU32le(v, at: o); o += 4 }
            put(UInt32(12 * entries.count + 12))
            put(0xFFFF_FFFE)
            put(tocs[t].id)
            put(t + 1 < tocs.count ? tocOffsets[t + 1] : 0)
            put(UInt32(entries.count))
            for (k, off, flags) in entries { put(k); put(off); put(flags) }
        }
        e.w.setU32le(tocOffsets[0], at: headerSpace)
        return e.w.bytes
    }
}

extension BookmarkDocument {
    /// A first guess at the data section's size, so the output buffer rarely grows.
    var estimatedSectionSize: Int {
        var entries = 0
        for t in tocs { entries += t.entries.count }
        return 256 + 64 * entries
    }
}

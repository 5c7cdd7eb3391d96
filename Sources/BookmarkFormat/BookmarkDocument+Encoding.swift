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
        let e = try encodeSection(headerSpace: BookmarkDocument.appleHeaderSize)
        let total = e.count
        guard total <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("bookmark larger than 4 GiB"), at: nil)
        }
        e.setU32(BookmarkDocument.magicWord, at: 0)
        e.setU32(UInt32(total), at: 4)
        e.setU32(version, at: 8)
        e.setU32(UInt32(BookmarkDocument.appleHeaderSize), at: 12)
        // Bytes 16..<48 stay zero.
        return e.bytes
    }

    /// `book` as a little-endian word.
    static let magicWord: UInt32 = 0x6B6F_6F62

    /// Encodes the data section: first-TOC offset, items, TOCs; offsets relative to its start.
    func encodedDataSection() throws(BookmarkFormatError) -> [UInt8] {
        try encodeSection(headerSpace: 0).bytes
    }

    /// Encodes the data section after `headerSpace` zero bytes (room for a header the caller
    /// fills in); offsets stay relative to the section's start.
    private func encodeSection(headerSpace: Int) throws(BookmarkFormatError) -> ItemEncoder {
        guard !tocs.isEmpty else { throw BookmarkFormatError(.unencodable("no table of contents"), at: nil) }
        for t in tocs.indices.dropFirst() where tocs[..<t].contains(where: { $0.id == tocs[t].id }) {
            throw BookmarkFormatError(.unencodable("two tables of contents share one id"), at: nil)
        }
        let e = ItemEncoder(base: headerSpace, capacity: headerSpace + estimatedSectionSize)
        e.appendU32(0)  // first-TOC offset, patched below

        // Per entry over all TOCs (TOC t's entries from firstEntry[t]): whether it is written,
        // and its table row (raw key word, item offset, flags).
        var firstEntry: [Int] = []
        firstEntry.reserveCapacity(tocs.count + 1)
        var total = 0
        for toc in tocs {
            firstEntry.append(total)
            total += toc.entries.count
        }
        firstEntry.append(total)
        var rows = [(UInt32, UInt32, UInt32)](repeating: (0, 0, 0), count: total)
        var done = [Bool](repeating: false, count: total)

        func writeEntry(_ t: Int, _ i: Int) throws(BookmarkFormatError) {
            let entry = tocs[t].entries[i]
            let raw: UInt32
            switch entry.key {
            case .numeric(let v):
                guard v & 0x8000_0000 == 0 else {
                    throw BookmarkFormatError(.unencodable("numeric key 0x\(String(v, radix: 16)) has bit 31 set"), at: nil)
                }
                raw = v
            case .string(let name):
                let o = try e.leaf(BookmarkItem.TypeCode.string, name.bytes)
                guard o & 0x8000_0000 == 0 else {
                    throw BookmarkFormatError(.unencodable("string key beyond 2 GiB"), at: nil)
                }
                raw = 0x8000_0000 | o
            }
            let o = try e.write(entry.storage)
            rows[firstEntry[t] + i] = (raw, o, entry.flags)
            done[firstEntry[t] + i] = true
        }

        /// The standard keys present, in Apple's order.
        func writeStandardEntries(_ t: Int) throws(BookmarkFormatError) {
            // One pass over the (numeric, hence leading) entries files each under its rank;
            // then the ranks in order. Cheaper than a search per standard key.
            let ranks = BookmarkDocument.appleItemOrder.count
            try withUnsafeTemporaryAllocation(of: Int.self, capacity: ranks) { (byRank) throws(BookmarkFormatError) in
                byRank.initialize(repeating: -1)
                for (i, entry) in tocs[t].entries.enumerated() {
                    guard case .numeric(let v) = entry.key else { break }
                    if let r = BookmarkDocument.appleRank(v), r < ranks { byRank[r] = i }
                }
                for i in byRank where i >= 0 { try writeEntry(t, i) }
            }
        }

        /// Every entry not written yet, in key order.
        func writeRemainingEntries(_ t: Int) throws(BookmarkFormatError) {
            for i in tocs[t].entries.indices where !done[firstEntry[t] + i] { try writeEntry(t, i) }
        }

        // Phase 1: the first TOC's standard items in Apple's order.
        try writeStandardEntries(0)
        // Phase 2: the other TOCs, each followed by its table.
        var tocOffsets = [UInt32](repeating: 0, count: tocs.count)
        for t in tocs.indices.dropFirst() {
            try writeStandardEntries(t)
            try writeRemainingEntries(t)
            tocOffsets[t] = try e.alignedOffset()
            e.appendZeros(20 + 12 * tocs[t].entries.count)
        }
        // Phase 3: the first TOC's remaining items, then its table.
        try writeRemainingEntries(0)
        tocOffsets[0] = try e.alignedOffset()
        e.appendZeros(20 + 12 * tocs[0].entries.count)

        // Fill in the tables, rows sorted by key word (string keys sort by where their names
        // were written, so entries in key order need not be in word order).
        for t in tocs.indices {
            let lo = firstEntry[t]
            let hi = firstEntry[t + 1]
            var sorted = true
            for i in (lo + 1)..<max(hi, lo + 1) where rows[i - 1].0 > rows[i].0 { sorted = false }
            if !sorted { rows[lo..<hi].sort { $0.0 < $1.0 } }
            var o = headerSpace + Int(tocOffsets[t])
            func put(_ v: UInt32) { e.setU32(v, at: o); o += 4 }
            put(UInt32(12 * (hi - lo) + 12))
            put(0xFFFF_FFFE)
            put(tocs[t].id)
            put(t + 1 < tocs.count ? tocOffsets[t + 1] : 0)
            put(UInt32(hi - lo))
            for (k, off, flags) in rows[lo..<hi] { put(k); put(off); put(flags) }
        }
        e.setU32(tocOffsets[0], at: headerSpace)
        return e
    }

    /// The position of numeric key `key` in ``appleItemOrder``, if it is there.
    /// (A switch, not a search of the list: it runs for every numeric entry of every encode.
    /// `EncodingTests` checks that it agrees with the list.)
    static func appleRank(_ key: UInt32) -> Int? {
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
        for t in tocs { entries += t.entries.count }
        return 256 + 64 * entries
    }
}

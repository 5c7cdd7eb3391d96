// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the order in which a data section's items and TOCs are written.

/// Writes a document's items and tables of contents the way Apple orders them.
///
/// The first TOC's standard items in Apple's order; then every other TOC, each as its standard
/// items, its remaining items in key order and its table; then the first TOC's remaining items
/// and its table, which the header points at. (A struct with mutating methods rather than nested
/// functions: captured locals were boxed and every access paid a dynamic exclusivity check.)
struct SectionWriter {
    let tocs: [BookmarkTOC]
    /// Bytes before the section in the encoder's output.
    let headerSpace: Int
    /// Where TOC t's entries start in ``rows``; one more element at the end.
    private let firstEntry: UnsafeMutableBufferPointer<Int>
    /// Per entry over all TOCs: its table row (raw key word, item offset, flags). An item offset
    /// of 0 means not written yet (offset 0 holds the first-TOC word, never an item).
    private let rows: UnsafeMutableBufferPointer<(UInt32, UInt32, UInt32)>
    /// Where each TOC's table is written, per TOC.
    private let tocOffsets: UnsafeMutableBufferPointer<UInt32>

    /// Runs `body` with a writer for `tocs`, its tables in temporary memory (on the stack for a
    /// bookmark's few dozen entries, where three arrays cost three allocations).
    static func withWriter<R>(tocs: [BookmarkTOC], headerSpace: Int,
                              _ body: (inout SectionWriter) throws(BookmarkFormatError) -> R) throws(BookmarkFormatError) -> R
    {
        var total = 0
        for toc in tocs { total += toc.rows.count }
        let entries = total
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: tocs.count + 1) {
            (firstEntry) throws(BookmarkFormatError) -> R in
            try withUnsafeTemporaryAllocation(of: UInt32.self, capacity: tocs.count) {
                (tocOffsets) throws(BookmarkFormatError) -> R in
                try withUnsafeTemporaryAllocation(of: (UInt32, UInt32, UInt32).self, capacity: entries) {
                    (rows) throws(BookmarkFormatError) -> R in
                    var writer = SectionWriter(tocs: tocs, headerSpace: headerSpace, firstEntry: firstEntry, rows: rows,
                                               tocOffsets: tocOffsets)
                    return try body(&writer)
                }
            }
        }
    }

    private init(tocs: [BookmarkTOC], headerSpace: Int, firstEntry: UnsafeMutableBufferPointer<Int>,
                 rows: UnsafeMutableBufferPointer<(UInt32, UInt32, UInt32)>, tocOffsets: UnsafeMutableBufferPointer<UInt32>)
    {
        self.tocs = tocs
        self.headerSpace = headerSpace
        self.firstEntry = firstEntry
        self.rows = rows
        self.tocOffsets = tocOffsets
        tocOffsets.initialize(repeating: 0)
        var total = 0
        for (t, toc) in tocs.enumerated() {
            firstEntry[t] = total
            total += toc.rows.count
        }
        firstEntry[tocs.count] = total
        rows.initialize(repeating: (0, 0, 0))
    }

    /// Writes the first-TOC offset, the items and the TOCs.
    mutating func write(into e: inout ItemEncoder) throws(BookmarkFormatError) {
        e.appendU32(0)  // first-TOC offset, patched below
        // Phase 1: the first TOC's standard items in Apple's order.
        try writeStandardEntries(0, into: &e)
        // Phase 2: the other TOCs, each followed by its table.
        // In the writer's temporary memory: a `[UInt32]` made here looked up its storage
        // class's metadata in the runtime's table on every encode.
        let tocOffsets = self.tocOffsets
        for t in tocs.indices.dropFirst() {
            try writeStandardEntries(t, into: &e)
            try writeRemainingEntries(t, into: &e)
            tocOffsets[t] = try e.alignedOffset()
            e.appendZeros(20 + 12 * tocs[t].rows.count)
        }
        // Phase 3: the first TOC's remaining items, then its table.
        try writeRemainingEntries(0, into: &e)
        tocOffsets[0] = try e.alignedOffset()
        e.appendZeros(20 + 12 * tocs[0].rows.count)

        for t in tocs.indices {
            fillTable(t, at: headerSpace + Int(tocOffsets[t]), next: t + 1 < tocs.count ? tocOffsets[t + 1] : 0, in: &e)
        }
        e.setU32(tocOffsets[0], at: headerSpace)
    }

    /// Fills in TOC t's table at output offset `o`, rows sorted by key word (string keys sort
    /// by where their names were written, so entries in key order need not be in word order).
    private mutating func fillTable(_ t: Int, at start: Int, next: UInt32, in e: inout ItemEncoder) {
        let lo = firstEntry[t]
        let hi = firstEntry[t + 1]
        var sorted = true
        for i in (lo + 1)..<max(hi, lo + 1) where rows[i - 1].0 > rows[i].0 { sorted = false }
        if !sorted { rows[lo..<hi].sort { $0.0 < $1.0 } }
        // The table's header and rows, bounds-checked once (`appendZeros` made room for them).
        let rows = self.rows
        let id = tocs[t].id
        e.setWords(at: start, count: 5 + 3 * (hi - lo)) { table in
            func put(_ index: Int, _ v: UInt32) { table.storeBytes(of: v.littleEndian, toByteOffset: 4 * index, as: UInt32.self) }
            put(0, UInt32(12 * (hi - lo) + 12))
            put(1, 0xFFFF_FFFE)
            put(2, id)
            put(3, next)
            put(4, UInt32(hi - lo))
            var k = 5
            for i in lo..<hi {
                put(k, rows[i].0)
                put(k + 1, rows[i].1)
                put(k + 2, rows[i].2)
                k += 3
            }
        }
    }

    /// Writes entry i of TOC t (`entries`, its rows): its key's name (for a string key), then
    /// its item, copied from `section` when still stored there.
    ///
    /// `entries` is passed in as an immutable array so that the entry's key and item are read
    /// in place; copying the entry out of `tocs` retained and released both. `section` is the
    /// TOC's, unretained: `tocs` keeps it alive for the call.
    private mutating func writeEntry(_ entries: [BookmarkTOC.Row], _ section: Unmanaged<StoredSection>?, _ t: Int, _ i: Int,
                                     into e: inout ItemEncoder) throws(BookmarkFormatError)
    {
        let raw: UInt32
        // The key is read through methods rather than a `switch` on a copy: copying a string
        // key retained and released its bytes.
        if let v = entries[i].key.numericWord {
            guard v & 0x8000_0000 == 0 else {
                throw BookmarkFormatError(.unencodable("numeric key 0x\(String(v, radix: 16)) has bit 31 set"), at: nil)
            }
            raw = v
        } else {
            let o = try entries[i].key.withNameBytes { (name) throws(BookmarkFormatError) in
                try e.leaf(BookmarkItem.TypeCode.string, name)
            } ?? 0
            guard o & 0x8000_0000 == 0 else {
                throw BookmarkFormatError(.unencodable("string key beyond 2 GiB"), at: nil)
            }
            raw = 0x8000_0000 | o
        }
        let o: UInt32
        switch entries[i].storage {
        case .stored(let offset):
            guard let section else {
                // Unreachable: a stored row always comes with its section.
                throw BookmarkFormatError(.unencodable("stored item without its section"), at: nil)
            }
            var failure: BookmarkFormatError? = nil
            o = section._withUnsafeGuaranteedRef { s in
                do throws(BookmarkFormatError) {
                    return try e.copy(from: s, at: offset)
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
        case .item(let item):
            o = try e.write(item)
        }
        rows[firstEntry[t] + i] = (raw, o, entries[i].flags)
    }

    /// TOC t's section, unretained (`tocs` holds it).
    private func section(of t: Int) -> Unmanaged<StoredSection>? {
        tocs[t].section.map { Unmanaged.passUnretained($0) }
    }

    /// The standard keys present in TOC t, in Apple's order.
    private mutating func writeStandardEntries(_ t: Int, into e: inout ItemEncoder) throws(BookmarkFormatError) {
        // One pass over the (numeric, hence leading) entries files each under its rank, then the
        // ranks in order: cheaper than a search per standard key.
        let ranks = BookmarkDocument.appleItemOrder.count
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: ranks) { (byRank) throws(BookmarkFormatError) in
            byRank.initialize(repeating: -1)
            let entries = tocs[t].rows
            let section = section(of: t)
            for i in entries.indices {
                guard case .numeric(let v) = entries[i].key else { break }
                if let r = BookmarkDocument.appleRank(v), r < ranks { byRank[r] = i }
            }
            for i in byRank where i >= 0 { try writeEntry(entries, section, t, i, into: &e) }
        }
    }

    /// Every entry of TOC t not written yet, in key order.
    private mutating func writeRemainingEntries(_ t: Int, into e: inout ItemEncoder) throws(BookmarkFormatError) {
        let entries = tocs[t].rows
        let section = section(of: t)
        for i in entries.indices where rows[firstEntry[t] + i].1 == 0 {
            try writeEntry(entries, section, t, i, into: &e)
        }
    }
}

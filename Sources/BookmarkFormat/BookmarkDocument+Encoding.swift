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
            let o = try e.write(entry.value)
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

/// Writes items once each (by encoded bytes) and returns their data-section offsets.
///
/// Each item is written in place at the end of the buffer; if the same bytes (length and type
/// words included) were written before, the new copy is cut off again and the earlier offset is
/// returned. Candidates are found through an open-addressing table of 64-bit FNV-1a hashes of the
/// encoded bytes and confirmed byte for byte, so no item is hashed as a Swift value and no
/// per-item key array is allocated.
struct ItemEncoder {
    var w = ByteWriter()
    /// Where the data section starts in `w.bytes`; offsets are relative to it.
    let base: Int
    /// Open-addressing table; a slot with `end == 0` is empty (no item ends at offset 0).
    private var slots: [Slot]
    private var used = 0

    private struct Slot {
        var hash: UInt64 = 0
        var start: UInt32 = 0
        var end: UInt32 = 0
    }

    init(base: Int = 0, capacity: Int = 0) {
        self.base = base
        w.bytes.reserveCapacity(max(capacity, base))
        w.appendZeros(base)
        slots = Array(repeating: Slot(), count: 64)
    }

    mutating func alignedOffset() throws(BookmarkFormatError) -> UInt32 {
        w.pad(to: 4, from: base)
        let offset = w.bytes.count - base
        guard offset < Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        return UInt32(offset)
    }

    /// Writes `item` (children first) and returns its offset; equal items share one offset.
    mutating func write(_ item: BookmarkItem) throws(BookmarkFormatError) -> UInt32 {
        switch item {
        case .string(let s): return try leaf(item.typeCode, s.bytes)
        case .url(let s): return try leaf(item.typeCode, s.bytes)
        case .data(let d): return try leaf(item.typeCode, d)
        case .number(let n):
            switch n {
            case .sint8(let v): return try fixed(item.typeCode, UInt64(UInt8(bitPattern: v)), count: 1)
            case .sint16(let v): return try fixed(item.typeCode, UInt64(UInt16(bitPattern: v)), count: 2)
            case .sint32(let v): return try fixed(item.typeCode, UInt64(UInt32(bitPattern: v)), count: 4)
            case .sint64(let v): return try fixed(item.typeCode, UInt64(bitPattern: v), count: 8)
            case .float32(let v): return try fixed(item.typeCode, UInt64(v.bitPattern), count: 4)
            case .float64(let v): return try fixed(item.typeCode, v.bitPattern, count: 8)
            case .other(let subtype, let bytes):
                if (1...6).contains(subtype) {
                    throw BookmarkFormatError(.unencodable("number subtype \(subtype) with a \(bytes.count)-byte payload"), at: nil)
                }
                return try leaf(item.typeCode, bytes)
            }
        case .date(let d):
            return try fixed(item.typeCode, d.secondsSinceReferenceDate.bitPattern.byteSwapped, count: 8)
        case .bool, .null: return try fixed(item.typeCode, 0, count: 0)
        case .uuid(let u): return try leaf(item.typeCode, u.bytes)
        case .array(let elements):
            var offsets: [UInt32] = []
            offsets.reserveCapacity(elements.count)
            for el in elements { offsets.append(try write(el)) }
            return try words(item.typeCode, offsets)
        case .dictionary(let pairs):
            var offsets: [UInt32] = []
            offsets.reserveCapacity(2 * pairs.count)
            for p in pairs {
                offsets.append(try write(p.key))
                offsets.append(try write(p.value))
            }
            return try words(item.typeCode, offsets)
        case .relativeURL(let base, let rel):
            let b = try write(base)
            let r = try write(rel)
            return try words(item.typeCode, [b, r])
        case .unknown(_, let p): return try leaf(item.typeCode, p)
        }
    }

    /// An item whose payload is `payload`.
    private mutating func leaf(_ type: UInt32, _ payload: [UInt8]) throws(BookmarkFormatError) -> UInt32 {
        let mark = try begin(type, count: payload.count)
        w.bytes.append(contentsOf: payload)
        return try finish(mark)
    }

    /// An item whose payload is the low `count` bytes of `value`, little-endian.
    private mutating func fixed(_ type: UInt32, _ value: UInt64, count: Int) throws(BookmarkFormatError) -> UInt32 {
        let mark = try begin(type, count: count)
        for i in 0..<count { w.bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
        return try finish(mark)
    }

    /// An item whose payload is little-endian offset words.
    private mutating func words(_ type: UInt32, _ words: [UInt32]) throws(BookmarkFormatError) -> UInt32 {
        guard words.count <= (Int(UInt32.max) - 8) / 4 else {
            throw BookmarkFormatError(.unencodable("item larger than 4 GiB"), at: nil)
        }
        let mark = try begin(type, count: 4 * words.count)
        for v in words { w.u32le(v) }
        return try finish(mark)
    }

    /// Where an item being written starts: the buffer length before padding, and the item's offset.
    private struct Mark {
        var before: Int
        var offset: UInt32
    }

    private mutating func begin(_ type: UInt32, count: Int) throws(BookmarkFormatError) -> Mark {
        guard count <= Int(UInt32.max) - 8 else {
            throw BookmarkFormatError(.unencodable("item larger than 4 GiB"), at: nil)
        }
        let before = w.bytes.count
        let offset = try alignedOffset()
        w.u32le(UInt32(count))
        w.u32le(type)
        return Mark(before: before, offset: offset)
    }

    /// Returns the offset of an earlier identical item (removing the copy just written), or
    /// records the new one.
    private mutating func finish(_ mark: Mark) throws(BookmarkFormatError) -> UInt32 {
        let start = base + Int(mark.offset)
        let end = w.bytes.count
        guard end - base <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        let hash = w.bytes.withUnsafeBufferPointer { buffer -> UInt64 in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for i in start..<end { h = (h ^ UInt64(buffer[i])) &* 0x100_0000_01b3 }
            return h
        }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i].end != 0 {
            let s = slots[i]
            if s.hash == hash, Int(s.end - s.start) == end - start, sameBytes(Int(s.start), start, end - start) {
                w.bytes.removeLast(w.bytes.count - mark.before)
                return s.start - UInt32(base)
            }
            i = (i + 1) & mask
        }
        slots[i] = Slot(hash: hash, start: UInt32(start), end: UInt32(end))
        used += 1
        if 2 * used > slots.count { grow() }
        return mark.offset
    }

    private func sameBytes(_ a: Int, _ b: Int, _ count: Int) -> Bool {
        w.bytes.withUnsafeBufferPointer { buffer in
            for k in 0..<count where buffer[a + k] != buffer[b + k] { return false }
            return true
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: 2 * old.count)
        let mask = slots.count - 1
        for s in old where s.end != 0 {
            var i = Int(truncatingIfNeeded: s.hash) & mask
            while slots[i].end != 0 { i = (i + 1) & mask }
            slots[i] = s
        }
    }
}

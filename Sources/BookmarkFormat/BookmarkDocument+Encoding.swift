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
        let section = try encodedDataSection()
        var w = ByteWriter()
        w.bytes = BookmarkDocument.magic
        let total = section.count + BookmarkDocument.appleHeaderSize
        guard total <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("bookmark larger than 4 GiB"), at: nil)
        }
        w.u32le(UInt32(total))
        w.u32le(version)
        w.u32le(UInt32(BookmarkDocument.appleHeaderSize))
        w.bytes += [UInt8](repeating: 0, count: 32)
        w.bytes += section
        return w.bytes
    }

    /// Encodes the data section: first-TOC offset, items, TOCs; offsets relative to its start.
    func encodedDataSection() throws(BookmarkFormatError) -> [UInt8] {
        guard !tocs.isEmpty else { throw BookmarkFormatError(.unencodable("no table of contents"), at: nil) }
        guard Set(tocs.map(\.id)).count == tocs.count else {
            throw BookmarkFormatError(.unencodable("two tables of contents share one id"), at: nil)
        }
        var e = ItemEncoder()
        e.w.u32le(0)  // first-TOC offset, patched below

        // Entry offsets per TOC, as (raw key word, item offset, flags).
        var written: [[(UInt32, UInt32, UInt32)]] = Array(repeating: [], count: tocs.count)

        func writeEntries(_ t: Int, _ keys: [BookmarkKey], into e: inout ItemEncoder) throws(BookmarkFormatError) {
            for key in keys {
                guard let i = tocs[t].index(of: key) else { continue }
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
            }
        }

        func remainingKeys(_ t: Int) -> [BookmarkKey] {
            let done = Set(written[t].map(\.0))
            return tocs[t].keys.filter { key in
                if case .numeric(let v) = key { return !done.contains(v) }
                return true
            }
        }

        // Phase 1: the first TOC's standard items in Apple's order.
        try writeEntries(0, BookmarkDocument.appleItemOrder, into: &e)
        // Phase 2: the other TOCs, each followed by its table.
        var tocOffsets = [UInt32](repeating: 0, count: tocs.count)
        for t in tocs.indices.dropFirst() {
            try writeEntries(t, BookmarkDocument.appleItemOrder, into: &e)
            try writeEntries(t, remainingKeys(t), into: &e)
            tocOffsets[t] = try e.alignedOffset()
            e.w.bytes += [UInt8](repeating: 0, count: 20 + 12 * tocs[t].entries.count)
        }
        // Phase 3: the first TOC's remaining items, then its table.
        try writeEntries(0, remainingKeys(0), into: &e)
        tocOffsets[0] = try e.alignedOffset()
        e.w.bytes += [UInt8](repeating: 0, count: 20 + 12 * tocs[0].entries.count)

        // Fill in the tables.
        for t in tocs.indices {
            let entries = written[t].sorted { $0.0 < $1.0 }
            var o = Int(tocOffsets[t])
            func put(_ v: UInt32) { e.w.setU32le(v, at: o); o += 4 }
            put(UInt32(12 * entries.count + 12))
            put(0xFFFF_FFFE)
            put(tocs[t].id)
            put(t + 1 < tocs.count ? tocOffsets[t + 1] : 0)
            put(UInt32(entries.count))
            for (k, off, flags) in entries { put(k); put(off); put(flags) }
        }
        e.w.setU32le(tocOffsets[0], at: 0)
        return e.w.bytes
    }
}

/// Writes items once each (by encoded bytes) and returns their data-section offsets.
struct ItemEncoder {
    var w = ByteWriter()
    var offsets: [[UInt8]: UInt32] = [:]

    mutating func alignedOffset() throws(BookmarkFormatError) -> UInt32 {
        w.pad(to: 4)
        guard w.bytes.count < Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        return UInt32(w.bytes.count)
    }

    /// Writes `item` (children first) and returns its offset; equal items share one offset.
    mutating func write(_ item: BookmarkItem) throws(BookmarkFormatError) -> UInt32 {
        var payload: [UInt8]
        switch item {
        case .string(let s): payload = s.bytes
        case .url(let s): payload = s.bytes
        case .data(let d): payload = d
        case .number(let n):
            if case .other(let subtype, _) = n, (1...6).contains(subtype) {
                throw BookmarkFormatError(.unencodable("number subtype \(subtype) with a \(n.payload.count)-byte payload"), at: nil)
            }
            payload = n.payload
        case .date(let d): payload = d.secondsSinceReferenceDate.bitPattern.bigEndianBytes
        case .bool, .null: payload = []
        case .uuid(let u): payload = u.bytes
        case .array(let elements):
            payload = []
            payload.reserveCapacity(elements.count * 4)
            for el in elements { payload += try write(el).littleEndianBytes }
        case .dictionary(let pairs):
            payload = []
            for p in pairs {
                let k = try write(p.key)
                let v = try write(p.value)
                payload += k.littleEndianBytes + v.littleEndianBytes
            }
        case .relativeURL(let base, let rel):
            let b = try write(base)
            let r = try write(rel)
            payload = b.littleEndianBytes + r.littleEndianBytes
        case .unknown(_, let p): payload = p
        }
        guard payload.count <= Int(UInt32.max) - 8 else {
            throw BookmarkFormatError(.unencodable("item larger than 4 GiB"), at: nil)
        }
        var encoded = UInt32(payload.count).littleEndianBytes + item.typeCode.littleEndianBytes
        encoded += payload
        if let existing = offsets[encoded] { return existing }
        let o = try alignedOffset()
        w.bytes += encoded
        offsets[encoded] = o
        return o
    }
}

// BookmarkFormat: writing items once each, the way Apple shares equal items.

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
    /// Offsets of the children written so far for the containers being written, innermost last:
    /// one stack for all of them instead of an array per container.
    var pending: [UInt32] = []

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

    /// Writes an entry's item, built or still stored, and returns its offset.
    mutating func write(_ storage: EntryStorage) throws(BookmarkFormatError) -> UInt32 {
        switch storage {
        case .item(let item): return try write(item)
        case .stored(let section, let offset): return try copy(from: section, at: offset)
        }
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
            let first = pending.count
            for el in elements { pending.append(try write(el)) }
            return try words(item.typeCode, from: first)
        case .dictionary(let pairs):
            let first = pending.count
            for p in pairs {
                pending.append(try write(p.key))
                pending.append(try write(p.value))
            }
            return try words(item.typeCode, from: first)
        case .relativeURL(let base, let rel):
            let first = pending.count
            pending.append(try write(base))
            pending.append(try write(rel))
            return try words(item.typeCode, from: first)
        case .unknown(_, let p): return try leaf(item.typeCode, p)
        }
    }

    /// An item whose payload is `payload`.
    mutating func leaf(_ type: UInt32, _ payload: [UInt8]) throws(BookmarkFormatError) -> UInt32 {
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

    /// An item whose payload is the offset words `pending[first...]`, as little-endian words;
    /// they are popped again.
    mutating func words(_ type: UInt32, from first: Int) throws(BookmarkFormatError) -> UInt32 {
        let count = pending.count - first
        guard count <= (Int(UInt32.max) - 8) / 4 else {
            throw BookmarkFormatError(.unencodable("item larger than 4 GiB"), at: nil)
        }
        let mark = try begin(type, count: 4 * count)
        for i in first..<pending.count { w.u32le(pending[i]) }
        pending.removeSubrange(first...)
        return try finish(mark)
    }

    /// Where an item being written starts: the buffer length before padding, and the item's offset.
    struct Mark {
        var before: Int
        var offset: UInt32
    }

    mutating func begin(_ type: UInt32, count: Int) throws(BookmarkFormatError) -> Mark {
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
    mutating func finish(_ mark: Mark) throws(BookmarkFormatError) -> UInt32 {
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

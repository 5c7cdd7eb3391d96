// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: writing items once each, the way Apple shares equal items.

/// Writes items once each (by encoded bytes) and returns their data-section offsets.
///
/// Each item is written in place at the end of the buffer; if the same bytes (length and type
/// words included) were written before, the new copy is cut off again and the earlier offset is
/// returned. Candidates are found through an open-addressing table of 64-bit hashes of the
/// encoded bytes and confirmed byte for byte, so no item is hashed as a Swift value and no
/// per-item key array is allocated.
///
/// The output, the table and the stack of child offsets live in memory the encoder allocates and
/// writes through pointers: an encode appends a few bytes at a time, a hundred times per
/// bookmark, and through arrays every append re-checked uniqueness and capacity, which cost more
/// than the bytes themselves (and a class's properties would add dynamic exclusivity checks).
/// So it is a struct that must be used only through ``ItemEncoder/withEncoder(base:capacity:_:)``,
/// which frees that memory however the body ends; it is never copied or shared.
struct ItemEncoder {
    /// Where the data section starts in the output; offsets are relative to it.
    let base: Int
    /// The output bytes written so far: `out[0..<count]`.
    private(set) var out: UnsafeMutableRawPointer
    private var outCapacity: Int
    /// How many output bytes are written.
    private(set) var count = 0
    /// Offsets of the children written so far for the containers being written, innermost last:
    /// one stack for all of them instead of an array per container.
    private var pending: UnsafeMutablePointer<UInt32>
    private var pendingCapacity = 64
    /// How many offsets ``pending`` holds.
    private(set) var pendingCount = 0
    /// Open-addressing table of written items (section offsets); a slot with `end == 0` is empty
    /// (no item ends at offset 0).
    private var slots: UnsafeMutablePointer<Slot>
    private var slotCount = 128
    private var used = 0

    private struct Slot {
        var hash: UInt64 = 0
        var start: UInt32 = 0
        var end: UInt32 = 0
    }

    /// Runs `body` with a new encoder whose output starts with `base` zero bytes (room for a
    /// header), and frees the encoder's memory afterwards, also when `body` throws.
    static func withEncoder<R>(base: Int, capacity: Int,
                               _ body: (inout ItemEncoder) throws(BookmarkFormatError) -> R) throws(BookmarkFormatError) -> R {
        var e = ItemEncoder(base: base, capacity: capacity)
        defer { e.deallocate() }
        return try body(&e)
    }

    /// One allocation holding the initial table, stack and output (three allocations cost
    /// more than the rest of a small encode's bookkeeping). A part that grows moves to memory of
    /// its own; the flags say which parts still live here.
    private let block: UnsafeMutableRawPointer
    private var outInBlock = true
    private var pendingInBlock = true
    private var slotsInBlock = true

    private init(base: Int, capacity: Int) {
        self.base = max(base, 0)
        outCapacity = max(capacity, self.base, 64)
        // A bookmark has a few dozen distinct items: room for them without growing.
        let slotBytes = slotCount * MemoryLayout<Slot>.stride
        let pendingBytes = pendingCapacity * MemoryLayout<UInt32>.stride
        block = UnsafeMutableRawPointer.allocate(byteCount: slotBytes + pendingBytes + outCapacity,
                                                 alignment: MemoryLayout<Slot>.alignment)
        slots = block.bindMemory(to: Slot.self, capacity: slotCount)
        slots.initialize(repeating: Slot(), count: slotCount)
        pending = (block + slotBytes).bindMemory(to: UInt32.self, capacity: pendingCapacity)
        out = block + slotBytes + pendingBytes
        appendZeros(self.base)
    }

    private func deallocate() {
        if !outInBlock { out.deallocate() }
        if !pendingInBlock { pending.deallocate() }
        if !slotsInBlock { slots.deallocate() }
        block.deallocate()
    }

    // MARK: - Output

    /// Runs `body` with the output bytes in place (valid only during the call).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: out, count: count))
    }

    /// Makes room for `extra` more output bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard extra > outCapacity - count else { return }
        var capacity = outCapacity
        while capacity - count < extra { capacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        grown.copyMemory(from: out, byteCount: count)
        if !outInBlock { out.deallocate() }
        outInBlock = false
        out = grown
        outCapacity = capacity
    }

    /// Appends `n` bytes from `source`.
    @inline(__always)
    mutating func append(_ source: UnsafeRawPointer, _ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        (out + count).copyMemory(from: source, byteCount: n)
        count += n
    }

    /// Appends `n` bytes from `source` as ``append(_:_:)`` does, for an item of at least 8 bytes:
    /// up to 64 bytes go as 8-byte words, the last one overlapping the one before, inline rather
    /// than through a call to `memmove` (a copied leaf is 12 to 40 bytes).
    @inline(__always)
    mutating func appendItem(_ source: UnsafeRawPointer, _ n: Int) {
        guard n >= 8, n <= 64 else { return append(source, n) }
        reserve(n)
        let target = out + count
        var k = 0
        while n - k > 8 {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
            k += 8
        }
        target.storeBytes(of: source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self), toByteOffset: n - 8, as: UInt64.self)
        count += n
    }

    /// Appends `n` zero bytes.
    mutating func appendZeros(_ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        (out + count).initializeMemory(as: UInt8.self, repeating: 0, count: n)
        count += n
    }

    /// Appends a little-endian word.
    @inline(__always)
    mutating func appendU32(_ v: UInt32) {
        reserve(4)
        (out + count).storeBytes(of: v.littleEndian, as: UInt32.self)
        count += 4
    }

    /// Overwrites `count` words from output offset `o` on with what `body` stores through the
    /// pointer it is given (words at byte offsets 0, 4, …), after one bounds check for all of
    /// them; nothing is written when they are not all within the output. For a TOC's table,
    /// which ``setU32(_:at:)`` checked word by word.
    func setWords(at o: Int, count: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        guard o >= 0, count >= 0, 4 * count <= self.count - o else { return }
        body(out + o)
    }

    /// Overwrites the word at output offset `o` (which must be written already; ignored otherwise).
    func setU32(_ v: UInt32, at o: Int) {
        guard o >= 0, o <= count - 4 else { return }
        (out + o).storeBytes(of: v.littleEndian, as: UInt32.self)
    }

    /// Pads the section with zeros to a multiple of 4 and returns the offset there.
    @inline(__always)
    mutating func alignedOffset() throws(BookmarkFormatError) -> UInt32 {
        let over = (count - base) & 3
        if over != 0 {
            // One to three bytes: stored here rather than through `memset` (a call per item).
            reserve(4)
            for index in 0..<(4 - over) { (out + count + index).storeBytes(of: 0, as: UInt8.self) }
            count += 4 - over
        }
        let offset = count - base
        guard offset < Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        return UInt32(offset)
    }

    // MARK: - Child offsets

    /// Pushes a child's offset for the container being written.
    @inline(__always)
    mutating func push(_ offset: UInt32) {
        if pendingCount == pendingCapacity {
            let grown = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * pendingCapacity)
            grown.update(from: pending, count: pendingCount)
            if !pendingInBlock { pending.deallocate() }
            pendingInBlock = false
            pending = grown
            pendingCapacity *= 2
        }
        pending[pendingCount] = offset
        pendingCount += 1
    }

    // MARK: - Items

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
            let first = pendingCount
            for el in elements { push(try write(el)) }
            return try words(item.typeCode, from: first)
        case .dictionary(let pairs):
            let first = pendingCount
            for p in pairs {
                push(try write(p.key))
                push(try write(p.value))
            }
            return try words(item.typeCode, from: first)
        case .relativeURL(let base, let rel):
            let first = pendingCount
            push(try write(base))
            push(try write(rel))
            return try words(item.typeCode, from: first)
        case .unknown(_, let p): return try leaf(item.typeCode, p)
        }
    }

    /// An item whose payload is `payload`.
    mutating func leaf(_ type: UInt32, _ payload: [UInt8]) throws(BookmarkFormatError) -> UInt32 {
        let mark = try begin(type, count: payload.count)
        payload.withUnsafeBytes { p in
            if let source = p.baseAddress { append(source, p.count) }
        }
        return finish(mark)
    }

    /// An item whose payload is the bytes of `payload`.
    mutating func leaf(_ type: UInt32, _ payload: UnsafeRawBufferPointer) throws(BookmarkFormatError) -> UInt32 {
        let mark = try begin(type, count: payload.count)
        if let source = payload.baseAddress { append(source, payload.count) }
        return finish(mark)
    }

    /// An item whose payload is the low `count` bytes (at most 8) of `value`, little-endian.
    ///
    /// Header and payload are stored as two words, with no call to copy memory: numbers and dates
    /// are a third of a new bookmark's items (each file ID, the sizes, the dates), and the copy
    /// through `memmove` was most of such an item's cost. The payload word's bytes past `count`
    /// lie past the output's end, where the next item or padding overwrites them.
    mutating func fixed(_ type: UInt32, _ value: UInt64, count n: Int) throws(BookmarkFormatError) -> UInt32 {
        let n = min(max(n, 0), 8)
        let mark = try begin(type, count: n)
        reserve(8)
        (out + count).storeBytes(of: value.littleEndian, as: UInt64.self)
        count += n
        return finish(mark)
    }

    /// An item whose payload is the offset words `pending[first..<pendingCount]`, as
    /// little-endian words; they are popped again.
    mutating func words(_ type: UInt32, from first: Int) throws(BookmarkFormatError) -> UInt32 {
        let n = pendingCount - max(first, 0)
        guard n >= 0, n <= (Int(UInt32.max) - 8) / 4 else {
            throw BookmarkFormatError(.unencodable("item larger than 4 GiB"), at: nil)
        }
        let mark = try begin(type, count: 4 * n)
        reserve(4 * n)
        for i in first..<pendingCount { appendU32(pending[i]) }
        pendingCount = first
        return finish(mark)
    }

    /// Where an item being written starts: the buffer length before padding, and the item's offset.
    struct Mark {
        var before: Int
        var offset: UInt32
    }

    /// Pads, writes an item's length and type words, and returns where it starts.
    @inline(__always)
    mutating func begin(_ type: UInt32, count n: Int) throws(BookmarkFormatError) -> Mark {
        guard n <= Int(UInt32.max) - 8 else {
            throw BookmarkFormatError(.unencodable("item larger than 4 GiB"), at: nil)
        }
        let before = count
        let offset = try alignedOffset()
        // Checked here so that `finish` cannot fail: every caller writes exactly `n` bytes.
        guard Int(offset) + 8 + n <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        reserve(8 + n)
        (out + count).storeBytes(of: (UInt64(n) | UInt64(type) << 32).littleEndian, as: UInt64.self)
        count += 8
        return Mark(before: before, offset: offset)
    }

    /// Returns the offset of an earlier identical item (removing the copy just written), or
    /// records the new one.
    @inline(__always)
    mutating func finish(_ mark: Mark) -> UInt32 {
        let start = base + Int(mark.offset)
        return finish(mark, hash: ItemEncoder.hash(UnsafeRawPointer(out + start), count - start))
    }

    /// Writes an item already encoded elsewhere (its 8-byte header and payload, no padding),
    /// shared like any other: `hash` is ``hash(_:_:)`` of those bytes, computed once by the caller
    /// (``CreationPlan`` keeps its template's items this way).
    mutating func writeEncoded(_ item: UnsafeRawBufferPointer, hash: UInt64) throws(BookmarkFormatError) -> UInt32 {
        guard item.count >= 8, let source = item.baseAddress else {
            throw BookmarkFormatError(.unencodable("an encoded item shorter than its header"), at: nil)
        }
        let before = count
        let offset = try alignedOffset()
        guard Int(offset) + item.count <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        append(source, item.count)
        return finish(Mark(before: before, offset: offset), hash: hash)
    }

    @inline(__always)
    mutating func finish(_ mark: Mark, hash: UInt64) -> UInt32 {
        let start = base + Int(mark.offset)
        let end = count
        let mask = slotCount - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i].end != 0 {
            let s = slots[i]
            if s.hash == hash, Int(s.end - s.start) == end - start, sameBytes(base + Int(s.start), start, end - start) {
                count = mark.before
                return s.start
            }
            i = (i + 1) & mask
        }
        // Section offsets: `end - base` fits in 32 bits (checked above); absolute ones might not.
        slots[i] = Slot(hash: hash, start: mark.offset, end: UInt32(end - base))
        used += 1
        if 2 * used > slotCount { grow() }
        return mark.offset
    }

    /// A 64-bit hash of `n` bytes at `p` for finding candidates (confirmed byte for byte, so it
    /// only has to spread equal-length items over the table; equal bytes always hash equal).
    ///
    /// Two independent lanes of multiply-xor over 8-byte words, 16 bytes per step, the last one
    /// or two words read overlapping the ones before when `n` is not a multiple of 16 (every item
    /// is at least 8 bytes); then one fold and one multiply bring the high bits, where the
    /// multiplications carried every input bit, down to the low bits the table indexes by. Most
    /// items are 12 to 24 bytes, so the finishing steps dominate: this is about half the latency
    /// of the FNV-1a with a murmur finalizer it replaced (the codec's profile had the hash as its
    /// largest single cost).
    @inline(__always)
    static func hash(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
        let k: UInt64 = 0x9e37_79b9_7f4a_7c15
        var a: UInt64 = 0x243f_6a88_85a3_08d3 ^ UInt64(truncatingIfNeeded: n)
        var b: UInt64 = 0x1319_8a2e_0370_7344
        if n >= 8 {
            var i = 0
            while n - i > 16 {
                a = (a ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k
                b = (b ^ p.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* k
                i += 16
            }
            // 1 to 16 bytes are left: the word at `i` when more than 8 are, and the last word.
            if n - i > 8 { a = (a ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k }
            b = (b ^ p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) &* k
        }
        var h = a ^ (b >> 29 | b << 35)
        h ^= h >> 32
        h = h &* 0xff51_afd7_ed55_8ccd
        return h ^ (h >> 29)
    }

    /// Whether the `n` output bytes at `a` and at `b` are equal.
    private func sameBytes(_ a: Int, _ b: Int, _ n: Int) -> Bool {
        guard a >= 0, b >= 0, n >= 8, a <= count - n, b <= count - n else { return false }
        // Word by word, the last word overlapping when `n` is not a multiple of 8.
        var k = 0
        while n - k >= 8 {
            if out.loadUnaligned(fromByteOffset: a + k, as: UInt64.self) != out.loadUnaligned(fromByteOffset: b + k, as: UInt64.self) {
                return false
            }
            k += 8
        }
        return k == n
            || out.loadUnaligned(fromByteOffset: a + n - 8, as: UInt64.self) == out.loadUnaligned(fromByteOffset: b + n - 8, as: UInt64.self)
    }

    private mutating func grow() {
        let old = slots
        let oldCount = slotCount
        slotCount *= 2
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: slotCount)
        slots.initialize(repeating: Slot(), count: slotCount)
        let mask = slotCount - 1
        for k in 0..<oldCount where old[k].end != 0 {
            var i = Int(truncatingIfNeeded: old[k].hash) & mask
            while slots[i].end != 0 { i = (i + 1) & mask }
            slots[i] = old[k]
        }
        if !slotsInBlock { old.deallocate() }
        slotsInBlock = false
    }
}

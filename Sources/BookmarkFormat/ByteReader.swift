// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: bounds-checked reads from a byte array.

/// Bounds-checked integer reads; every failure is a typed ``BookmarkFormatError``.
struct ByteReader: Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Checks that `count` bytes are available at `offset`.
    @inline(__always)
    func require(_ offset: Int, _ count: Int) throws(BookmarkFormatError) {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw BookmarkFormatError(.truncated(needed: count, available: max(0, bytes.count - max(0, offset))),
                                      at: offset)
        }
    }

    func u8(_ o: Int) throws(BookmarkFormatError) -> UInt8 {
        try require(o, 1)
        return bytes[o]
    }

    func u16le(_ o: Int) throws(BookmarkFormatError) -> UInt16 {
        try require(o, 2)
        return UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8
    }

    func u16be(_ o: Int) throws(BookmarkFormatError) -> UInt16 {
        try require(o, 2)
        return UInt16(bytes[o]) << 8 | UInt16(bytes[o + 1])
    }

    @inline(__always)
    func u32le(_ o: Int) throws(BookmarkFormatError) -> UInt32 {
        try require(o, 4)
        // One unaligned load once the range is checked: this read runs for every word of every
        // item and TOC entry, and a per-byte loop checked each subscript again.
        return UInt32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt32.self) })
    }

    /// The little-endian word at `o`, which the caller has bounds-checked; zero if it was not.
    @inline(__always)
    func u32leInBounds(_ o: Int) -> UInt32 {
        guard o >= 0, o <= bytes.count - 4 else { return 0 }
        return UInt32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt32.self) })
    }

    func u32be(_ o: Int) throws(BookmarkFormatError) -> UInt32 {
        try require(o, 4)
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[o + i]) }
        return v
    }

    func u64le(_ o: Int) throws(BookmarkFormatError) -> UInt64 {
        try require(o, 8)
        return UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt64.self) })
    }

    func u64be(_ o: Int) throws(BookmarkFormatError) -> UInt64 {
        try require(o, 8)
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[o + i]) }
        return v
    }

    func slice(_ o: Int, _ n: Int) throws(BookmarkFormatError) -> [UInt8] {
        try require(o, n)
        return Array(bytes[o..<(o + n)])
    }
}

/// Appends little- and big-endian integers to a byte array.
struct ByteWriter: Sendable {
    var bytes: [UInt8] = []

    mutating func u16le(_ v: UInt16) { bytes += v.littleEndianBytes }
    mutating func appendZeros(_ count: Int) {
        if count > 0 { bytes.append(contentsOf: repeatElement(0, count: count)) }
    }
    /// Pads with zero bytes until `(bytes.count - origin)` is a multiple of `alignment`.
    mutating func pad(to alignment: Int, from origin: Int) {
        let over = (bytes.count - origin) % alignment
        if over != 0 { appendZeros(alignment - over) }
    }
    mutating func u16be(_ v: UInt16) { bytes += v.bigEndianBytes }
    mutating func u32le(_ v: UInt32) {
        // One append of four bytes: per-byte appends each re-checked uniqueness and capacity.
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    mutating func u32be(_ v: UInt32) { bytes += v.bigEndianBytes }
    mutating func u64le(_ v: UInt64) { bytes += v.littleEndianBytes }
    mutating func u64be(_ v: UInt64) { bytes += v.bigEndianBytes }
    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }
    mutating func setU32le(_ v: UInt32, at o: Int) {
        precondition(o >= 0 && o <= bytes.count - 4, "setU32le outside the written bytes")
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: v.littleEndian, toByteOffset: o, as: UInt32.self) }
    }
    mutating func setU16be(_ v: UInt16, at o: Int) {
        bytes[o] = UInt8(v >> 8)
        bytes[o + 1] = UInt8(truncatingIfNeeded: v)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Byte helpers for building and checking inputs by hand.
//
// Deliberately not the codec's own ByteReader/ByteWriter (those are internal): a test that writes
// the documented layout with the code under test would agree with it even when both are wrong.

extension FixedWidthInteger {
    /// The value as little-endian bytes.
    var littleEndianBytes: [UInt8] { (0..<(Self.bitWidth / 8)).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) } }

    /// The value as big-endian bytes.
    var bigEndianBytes: [UInt8] { littleEndianBytes.reversed() }
}

/// Appends integers to a byte array, as the documented layouts store them.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u16be(_ v: UInt16) { bytes += v.bigEndianBytes }
    mutating func u32le(_ v: UInt32) { bytes += v.littleEndianBytes }
    mutating func u32be(_ v: UInt32) { bytes += v.bigEndianBytes }
    mutating func u64be(_ v: UInt64) { bytes += v.bigEndianBytes }

    /// Pads with zero bytes to a multiple of `alignment`.
    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func setU32le(_ v: UInt32, at o: Int) { bytes.replaceSubrange(o..<(o + 4), with: v.littleEndianBytes) }
    mutating func setU16be(_ v: UInt16, at o: Int) { bytes.replaceSubrange(o..<(o + 2), with: v.bigEndianBytes) }
}

/// Reads integers from bytes; out of range is a thrown error, so a check fails instead of trapping.
struct ByteReader {
    struct OutOfRange: Error {}

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u32le(_ o: Int) throws -> UInt32 {
        guard o >= 0, o + 4 <= bytes.count else { throw OutOfRange() }
        return (0..<4).reduce(0) { $0 | UInt32(bytes[o + $1]) << (8 * UInt32($1)) }
    }
}

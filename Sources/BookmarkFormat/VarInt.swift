// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: LEB128 integers for our compact items, written and read without trapping.

/// Unsigned LEB128 (seven bits per byte, low bits first, high bit set on every byte but the
/// last) and zigzag for signed values: small numbers take one byte, any 64-bit value at most ten.
enum VarInt {
    /// The most bytes a 64-bit value takes.
    static let maxLength = 10

    /// Appends `value` in LEB128.
    static func append(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Appends `value` zigzag-encoded (0, -1, 1, -2, … as 0, 1, 2, 3, …) in LEB128.
    static func appendSigned(_ value: Int64, to out: inout [UInt8]) {
        append(zigzag(value), to: &out)
    }

    /// `value` with its sign moved to the low bit, so small negative numbers stay small.
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    /// The inverse of ``zigzag(_:)``.
    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}

/// Reads a compact item's bytes front to back; every read past the end or malformed number is a
/// typed error, never a trap. Offsets in errors are relative to the item's payload.
struct CompactReader {
    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    private(set) var offset = 0
    /// The key the item is stored under, for error messages.
    let key: String

    init(_ bytes: UnsafeRawBufferPointer, key: String) {
        self.bytes = bytes
        self.key = key
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset >= bytes.count }

    /// Throws unless `count` more bytes are there.
    private func require(_ count: Int) throws(BookmarkFormatError) {
        guard count >= 0, count <= bytes.count - offset else {
            throw BookmarkFormatError(.truncated(needed: count, available: max(0, bytes.count - offset)), at: offset)
        }
    }

    /// One byte.
    mutating func byte() throws(BookmarkFormatError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An unsigned LEB128 number. More than ten bytes, or a tenth byte holding more than the
    /// 64th bit, is malformed rather than silently wrapped.
    mutating func varint() throws(BookmarkFormatError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        for index in 0..<VarInt.maxLength {
            let b = try byte()
            let payload = UInt64(b & 0x7F)
            if index == VarInt.maxLength - 1, payload > 1 {
                throw BookmarkFormatError(.malformedValue("\(key): a number exceeds 64 bits"), at: start)
            }
            value |= payload << (7 * UInt64(index))
            if b & 0x80 == 0 { return value }
        }
        throw BookmarkFormatError(.malformedValue("\(key): a number is longer than 10 bytes"), at: start)
    }

    /// A zigzag LEB128 number.
    mutating func signedVarint() throws(BookmarkFormatError) -> Int64 {
        VarInt.unzigzag(try varint())
    }

    /// `count` bytes.
    mutating func bytes(_ count: Int) throws(BookmarkFormatError) -> [UInt8] {
        try require(count)
        defer { offset += count }
        // Copied from a rebased buffer, not a `Slice`: no generic metadata looked up per call.
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
    }

    /// A length read from the input, checked against what is left before anything is allocated
    /// or skipped, so a huge length costs nothing.
    private func available(_ length: UInt64) throws(BookmarkFormatError) -> Int {
        let available = bytes.count - offset
        guard length <= UInt64(available) else {
            throw BookmarkFormatError(.truncated(needed: Int(clamping: length), available: available), at: offset)
        }
        return Int(length)
    }

    /// Steps over `length` bytes (a length read from the input), copying nothing.
    mutating func skip(length: UInt64) throws(BookmarkFormatError) {
        offset += try available(length)
    }

    /// `length` bytes, for a length read from the input.
    mutating func bytes(length: UInt64) throws(BookmarkFormatError) -> [UInt8] {
        try self.bytes(try available(length))
    }

    /// A LEB128 length, then that many bytes.
    mutating func lengthPrefixed() throws(BookmarkFormatError) -> [UInt8] {
        try bytes(length: try varint())
    }

    /// Where the next `length` bytes are (a length read from the input), stepped over, copied
    /// nowhere: a quick view keeps the position instead of the bytes.
    mutating func span(length: UInt64) throws(BookmarkFormatError) -> Range<Int> {
        let start = offset
        offset += try available(length)
        return start..<offset
    }

    /// A LEB128 length, then where that many bytes are (``span(length:)``).
    mutating func lengthPrefixedSpan() throws(BookmarkFormatError) -> Range<Int> {
        try span(length: try varint())
    }
}

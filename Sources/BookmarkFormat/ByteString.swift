// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: strings that are bytes (Linux names need not be UTF-8).

/// The bytes of a string item, kept exactly as stored.
///
/// Apple stores strings as UTF-8, but Linux file names are arbitrary bytes, so the codec never
/// converts them: ``string`` gives the text when the bytes are valid UTF-8, and ``escaped``
/// always gives a printable form.
public struct ByteString: Sendable, Hashable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The raw bytes.
    public var bytes: [UInt8]

    /// Creates a byte string from raw bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Creates a byte string holding the UTF-8 encoding of `string`.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// Creates a byte string from a string literal (its UTF-8 bytes).
    public init(stringLiteral value: String) { self.init(value) }

    /// The text, or `nil` when the bytes are not valid UTF-8.
    public var string: String? {
        // Fast path: the standard library's validating decoder (nil on invalid UTF-8, as below).
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var it = bytes.makeIterator()
        var out = ""
        var decoder = UTF8()
        while true {
            switch decoder.decode(&it) {
            case .scalarValue(let s): out.unicodeScalars.append(s)
            case .emptyInput: return out
            case .error: return nil
            }
        }
    }

    /// Whether the bytes are valid UTF-8.
    public var isValidUTF8: Bool { string != nil }

    /// A printable form: the text when it is valid UTF-8 (control characters and backslash
    /// escaped), otherwise the same with every byte that is not part of valid UTF-8 as `\xNN`.
    public var escaped: String {
        var out = ""
        var i = 0
        while i < bytes.count {
            if let (scalar, width) = ByteString.decodeScalar(bytes, at: i) {
                switch scalar {
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                default:
                    if scalar.value < 0x20 || scalar.value == 0x7F {
                        out += "\\x" + hex2(UInt8(scalar.value))
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
                i += width
            } else {
                out += "\\x" + hex2(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// The escaped form (see ``escaped``).
    public var description: String { escaped }

    /// Orders byte strings by their bytes, lexicographically.
    public static func < (lhs: ByteString, rhs: ByteString) -> Bool {
        lhs.bytes.withUnsafeBytes { l in rhs.bytes.withUnsafeBytes { r in precedes(l, r) } }
    }

    /// Whether the bytes `l` order before the bytes `r`, lexicographically.
    static func precedes(_ l: UnsafeRawBufferPointer, _ r: UnsafeRawBufferPointer) -> Bool {
        let n = min(l.count, r.count)
        // Eight bytes at a time (as big-endian words, which order like their bytes): TOC
        // decoding compares every string key with the one before it.
        var i = 0
        while n - i >= 8 {
            let a = UInt64(bigEndian: l.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let b = UInt64(bigEndian: r.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if a != b { return a < b }
            i += 8
        }
        while i < n {
            if l[i] != r[i] { return l[i] < r[i] }
            i += 1
        }
        return l.count < r.count
    }

    /// Decodes one UTF-8 scalar at `i`, or returns nil for an invalid sequence.
    static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let b0 = b[i]
        if b0 < 0x80 { return (Unicode.Scalar(b0), 1) }
        let width: Int
        var value: UInt32
        if b0 & 0xE0 == 0xC0 { width = 2; value = UInt32(b0 & 0x1F) }
        else if b0 & 0xF0 == 0xE0 { width = 3; value = UInt32(b0 & 0x0F) }
        else if b0 & 0xF8 == 0xF0 { width = 4; value = UInt32(b0 & 0x07) }
        else { return nil }
        guard i + width <= b.count else { return nil }
        for k in 1..<width {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = (value << 6) | UInt32(c & 0x3F)
        }
        let minimum: UInt32 = width == 2 ? 0x80 : (width == 3 ? 0x800 : 0x10000)
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, width)
    }
}

// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: number items with their CFNumber subtype preserved.

/// A number item (`0x03NN`), with its CFNumber subtype kept so that re-encoding writes the
/// same type Apple wrote.
///
/// Floating-point values compare by bit pattern, so a NaN equals itself and round trips are
/// checkable.
public enum BookmarkNumber: Sendable, Hashable, CustomStringConvertible {
    /// `0x0301`, kCFNumberSInt8Type.
    case sint8(Int8)
    /// `0x0302`, kCFNumberSInt16Type.
    case sint16(Int16)
    /// `0x0303`, kCFNumberSInt32Type.
    case sint32(Int32)
    /// `0x0304`, kCFNumberSInt64Type (file IDs and capacities).
    case sint64(Int64)
    /// `0x0305`, kCFNumberFloat32Type.
    case float32(Float)
    /// `0x0306`, kCFNumberFloat64Type.
    case float64(Double)
    /// Any other CFNumber subtype (7…16 and beyond): the low byte of the item type and the
    /// payload, kept verbatim.
    case other(subtype: UInt8, bytes: [UInt8])

    /// The CFNumber subtype (the low byte of the item type).
    public var subtype: UInt8 {
        switch self {
        case .sint8: return 1
        case .sint16: return 2
        case .sint32: return 3
        case .sint64: return 4
        case .float32: return 5
        case .float64: return 6
        case .other(let subtype, _): return subtype
        }
    }

    /// The value as an integer, when it is an integer subtype (or a fixed-width `other` payload
    /// of 1, 2, 4 or 8 bytes, read little-endian and sign-extended).
    public var integerValue: Int64? {
        switch self {
        case .sint8(let v): return Int64(v)
        case .sint16(let v): return Int64(v)
        case .sint32(let v): return Int64(v)
        case .sint64(let v): return v
        case .float32, .float64: return nil
        case .other(let subtype, let bytes):
            // CFNumber 12 (float), 13 (double), 16 (CGFloat) are floating point.
            guard ![12, 13, 16].contains(subtype) else { return nil }
            switch bytes.count {
            case 1: return Int64(Int8(bitPattern: bytes[0]))
            case 2: return Int64(Int16(bitPattern: UInt16(littleEndianBytes: bytes)))
            case 4: return Int64(Int32(bitPattern: UInt32(littleEndianBytes: bytes)))
            case 8: return Int64(bitPattern: UInt64(littleEndianBytes: bytes))
            default: return nil
            }
        }
    }

    /// The value as a floating-point number (integers are converted).
    public var doubleValue: Double? {
        switch self {
        case .float32(let v): return Double(v)
        case .float64(let v): return v
        case .other(let subtype, let bytes) where [12, 13, 16].contains(subtype):
            if bytes.count == 4 { return Double(Float(bitPattern: UInt32(littleEndianBytes: bytes))) }
            if bytes.count == 8 { return Double(bitPattern: UInt64(littleEndianBytes: bytes)) }
            return nil
        default: return integerValue.map(Double.init)
        }
    }

    /// The little-endian payload as stored in the item.
    package var payload: [UInt8] {
        switch self {
        case .sint8(let v): return [UInt8(bitPattern: v)]
        case .sint16(let v): return UInt16(bitPattern: v).littleEndianBytes
        case .sint32(let v): return UInt32(bitPattern: v).littleEndianBytes
        case .sint64(let v): return UInt64(bitPattern: v).littleEndianBytes
        case .float32(let v): return v.bitPattern.littleEndianBytes
        case .float64(let v): return v.bitPattern.littleEndianBytes
        case .other(_, let bytes): return bytes
        }
    }

    /// Decodes a payload of the given subtype; `nil` when the length does not fit the subtype.
    package init?(subtype: UInt8, payload: [UInt8]) {
        switch (subtype, payload.count) {
        case (1, 1): self = .sint8(Int8(bitPattern: payload[0]))
        case (2, 2): self = .sint16(Int16(bitPattern: UInt16(littleEndianBytes: payload)))
        case (3, 4): self = .sint32(Int32(bitPattern: UInt32(littleEndianBytes: payload)))
        case (4, 8): self = .sint64(Int64(bitPattern: UInt64(littleEndianBytes: payload)))
        case (5, 4): self = .float32(Float(bitPattern: UInt32(littleEndianBytes: payload)))
        case (6, 8): self = .float64(Double(bitPattern: UInt64(littleEndianBytes: payload)))
        case (1...6, _): return nil
        default: self = .other(subtype: subtype, bytes: payload)
        }
    }

    /// Compares by subtype and payload bytes (so NaN equals NaN with the same bits).
    public static func == (lhs: BookmarkNumber, rhs: BookmarkNumber) -> Bool {
        lhs.subtype == rhs.subtype && lhs.payload == rhs.payload
    }

    /// Hashes subtype and payload bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(subtype)
        hasher.combine(payload)
    }

    /// The value in decimal, e.g. `23307` or `1.5`.
    public var description: String {
        switch self {
        case .float32(let v): return "\(v)"
        case .float64(let v): return "\(v)"
        default:
            if let i = integerValue { return "\(i)" }
            if let d = doubleValue { return "\(d)" }
            return payload.map { hex2($0) }.joined()
        }
    }

    /// A short name of the subtype, e.g. `"sint64"`.
    public var subtypeName: String {
        switch self {
        case .sint8: return "sint8"
        case .sint16: return "sint16"
        case .sint32: return "sint32"
        case .sint64: return "sint64"
        case .float32: return "float32"
        case .float64: return "float64"
        case .other(let s, _): return "cfnumber\(s)"
        }
    }
}

// MARK: - Little-endian helpers

extension FixedWidthInteger {
    /// Assembles a value from up to `bitWidth/8` little-endian bytes.
    init(littleEndianBytes b: [UInt8]) {
        var v: Self = 0
        for (i, byte) in b.prefix(Self.bitWidth / 8).enumerated() { v |= Self(byte) << (8 * i) }
        self = v
    }

    /// The value as little-endian bytes.
    var littleEndianBytes: [UInt8] {
        (0..<(Self.bitWidth / 8)).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) }
    }

    /// The value as big-endian bytes.
    var bigEndianBytes: [UInt8] { littleEndianBytes.reversed() }
}

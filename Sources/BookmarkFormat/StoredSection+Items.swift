// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: building item trees from validated bytes, on access.

extension StoredSection {
    /// The item at data offset `offset`, built from the validated bytes.
    ///
    /// Equal to what the eager decoder built for the same bytes. Shared items are built once per
    /// reference; validation already bounded the expanded size, so this costs at most that.
    func item(at offset: UInt32) -> BookmarkItem { item(at: offset, depth: 0) }

    /// A stand-in for an item the bytes cannot give. Unreachable: validation checked every case
    /// that returns it; it exists so that a broken invariant cannot trap.
    private static let unreadable = BookmarkItem.unknown(type: 0, payload: [])

    private func item(at offset: UInt32, depth: Int) -> BookmarkItem {
        guard depth <= maxDepth, let (n, type, p) = header(offset) else { return Self.unreadable }
        switch type {
        case BookmarkItem.TypeCode.string:
            return .string(ByteString(bytes: slice(p, n)))
        case BookmarkItem.TypeCode.data:
            return .data(slice(p, n))
        case 0x0300...0x03FF:
            return number(subtype: UInt8(type & 0xFF), at: p, count: n).map(BookmarkItem.number) ?? Self.unreadable
        case BookmarkItem.TypeCode.date:
            return .date(BookmarkDate(secondsSinceReferenceDate: Double(bitPattern: word64(p).byteSwapped)))
        case BookmarkItem.TypeCode.boolFalse:
            return .bool(false)
        case BookmarkItem.TypeCode.boolTrue:
            return .bool(true)
        case BookmarkItem.TypeCode.null:
            return .null
        case BookmarkItem.TypeCode.uuid:
            return BookmarkUUID(bytes: slice(p, n)).map(BookmarkItem.uuid) ?? Self.unreadable
        case BookmarkItem.TypeCode.url:
            return .url(ByteString(bytes: slice(p, n)))
        case BookmarkItem.TypeCode.array:
            var elements: [BookmarkItem] = []
            elements.reserveCapacity(n / 4)
            for i in 0..<(n / 4) { elements.append(item(at: word(p + 4 * i), depth: depth + 1)) }
            return .array(elements)
        case BookmarkItem.TypeCode.dictionary:
            var pairs: [BookmarkDictionaryEntry] = []
            pairs.reserveCapacity(n / 8)
            for i in 0..<(n / 8) {
                pairs.append(BookmarkDictionaryEntry(key: item(at: word(p + 8 * i), depth: depth + 1),
                                                     value: item(at: word(p + 8 * i + 4), depth: depth + 1)))
            }
            return .dictionary(pairs)
        case BookmarkItem.TypeCode.relativeURL:
            return .relativeURL(base: item(at: word(p), depth: depth + 1), relative: item(at: word(p + 4), depth: depth + 1))
        default:
            return .unknown(type: type, payload: slice(p, n))
        }
    }

    /// A number item's value: the fixed-width subtypes straight from the bytes, the rest through
    /// ``BookmarkNumber/init(subtype:payload:)`` as the validator checked them.
    private func number(subtype: UInt8, at p: Int, count n: Int) -> BookmarkNumber? {
        switch (subtype, n) {
        case (1, 1): return .sint8(Int8(truncatingIfNeeded: little(p, 1)))
        case (2, 2): return .sint16(Int16(truncatingIfNeeded: little(p, 2)))
        case (3, 4): return .sint32(Int32(bitPattern: word(p)))
        case (4, 8): return .sint64(Int64(bitPattern: word64(p)))
        case (5, 4): return .float32(Float(bitPattern: word(p)))
        case (6, 8): return .float64(Double(bitPattern: word64(p)))
        default: return BookmarkNumber(subtype: subtype, payload: slice(p, n))
        }
    }
}

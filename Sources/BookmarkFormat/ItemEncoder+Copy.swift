// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: re-encoding stored items by copying their bytes.

extension ItemEncoder {
    /// Writes the validated item at `offset` of `section` exactly as ``write(_:)-(BookmarkItem)``
    /// would write the item built from it, without building it, and returns its offset.
    ///
    /// Leaves are copied: every leaf type is written as its length and type words and its payload
    /// as stored (fixed-width numbers, dates and UUIDs included, whose values round-trip
    /// bit for bit). Containers are rewritten, children first in stored order, because their
    /// children's offsets change. Equal items are still shared through ``finish(_:)``.
    mutating func copy(from section: StoredSection, at offset: UInt32) throws(BookmarkFormatError) -> UInt32 {
        guard let (n, type, p) = section.header(offset) else {
            // Unreachable after validation; an error rather than a trap if it ever were not.
            throw BookmarkFormatError(.unencodable("stored item outside its section"), at: nil)
        }
        switch type {
        case BookmarkItem.TypeCode.array:
            let first = pendingCount
            for i in 0..<(n / 4) { push(try copy(from: section, at: section.word(p + 4 * i))) }
            return try words(type, from: first)
        case BookmarkItem.TypeCode.dictionary:
            let first = pendingCount
            for i in 0..<(n / 8) * 2 { push(try copy(from: section, at: section.word(p + 4 * i))) }
            return try words(type, from: first)
        case BookmarkItem.TypeCode.relativeURL:
            let first = pendingCount
            push(try copy(from: section, at: section.word(p)))
            push(try copy(from: section, at: section.word(p + 4)))
            return try words(type, from: first)
        default:
            // Every leaf: numbers of subtypes 1...6 were validated to their width, so even those
            // are what writing their values would give.
            return try copyLeaf(section, p, n)
        }
    }

    /// Writes a leaf item whose stored bytes (length and type words, then the `n`-byte payload
    /// at `p`) are exactly what `begin` and the payload would write: one copy of `8 + n` bytes.
    private mutating func copyLeaf(_ section: StoredSection, _ p: Int, _ n: Int)
        throws(BookmarkFormatError) -> UInt32
    {
        // As `begin`, without writing the header: it comes with the copy.
        let before = count
        let offset = try alignedOffset()
        guard n <= Int(UInt32.max) - 8, Int(offset) + 8 + n <= Int(UInt32.max) else {
            throw BookmarkFormatError(.unencodable("data section larger than 4 GiB"), at: nil)
        }
        let hash = section.bytes.withUnsafeBytes { b -> UInt64? in
            // `header` checked that the item lies inside the section.
            guard let source = b.baseAddress, p >= 8, n <= b.count - p else { return nil }
            appendItem(source + (p - 8), 8 + n)
            // Hashed where it was read, not where it was just written: loading a word that two
            // of the copy's overlapping stores wrote stalls until both have landed.
            return ItemEncoder.hash(source + (p - 8), 8 + n)
        }
        guard let hash else {
            throw BookmarkFormatError(.unencodable("stored item outside its section"), at: nil)
        }
        return finish(Mark(before: before, offset: offset), hash: hash)
    }
}

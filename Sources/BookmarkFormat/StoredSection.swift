// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the validated bytes a decoded document reads its items from.

/// The bytes of one data section that decoding has fully validated, shared by every entry
/// decoded from it.
///
/// Decoding checks every item reachable from the TOCs (bounds, types, lengths, cycles, depth and
/// the expanded-size limits) but builds no ``BookmarkItem`` trees: an entry keeps this section
/// and its item's offset, and builds the item only when ``BookmarkEntry/value`` is read.
/// Encoding copies such items from here without building them. The bytes never change after
/// validation, so building an item later cannot fail.
final class StoredSection: Sendable {
    /// The whole input the section was decoded from (shared with the caller's array, not copied).
    let bytes: [UInt8]
    /// Where the data section starts in ``bytes``; item offsets are relative to it.
    let start: Int
    /// Where the data section ends in ``bytes``.
    let end: Int
    /// The deepest nesting validation allowed, which bounds the recursion of building an item.
    let maxDepth: Int

    init(bytes: [UInt8], start: Int, end: Int, maxDepth: Int) {
        self.bytes = bytes
        self.start = start
        self.end = end
        self.maxDepth = maxDepth
    }

    /// The absolute index of data offset `offset` in ``bytes``, when an item header fits there.
    ///
    /// Validation guarantees this for every offset an entry or a container holds; the check is
    /// kept so that a broken invariant reads as a missing item rather than a trap.
    @inline(__always)
    func headerIndex(_ offset: UInt32) -> Int? {
        let abs = start + Int(offset)
        guard abs >= start, abs <= end - 8 else { return nil }
        return abs
    }

    /// The little-endian word at absolute index `i` (zero outside the section).
    @inline(__always)
    func word(_ i: Int) -> UInt32 {
        guard i >= start, i <= end - 4 else { return 0 }
        return bytes.withUnsafeBufferPointer { b in
            UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        }
    }

    /// The `count` bytes at absolute index `i`, little-endian (zero outside the section); for
    /// payloads shorter than a word, which may end the section.
    func little(_ i: Int, _ count: Int) -> UInt64 {
        guard i >= start, count >= 0, count <= 8, count <= end - i else { return 0 }
        var v: UInt64 = 0
        for k in 0..<count { v |= UInt64(bytes[i + k]) << (8 * k) }
        return v
    }

    /// The little-endian 64-bit word at absolute index `i` (zero outside the section).
    func word64(_ i: Int) -> UInt64 { UInt64(word(i)) | UInt64(word(i + 4)) << 32 }

    /// The payload bytes `bytes[i..<i + n]` (empty outside the section).
    func slice(_ i: Int, _ n: Int) -> [UInt8] {
        guard i >= start, n >= 0, n <= end - i else { return [] }
        return Array(bytes[i..<(i + n)])
    }

    /// The length and type words of the item at data offset `offset`, and where its payload
    /// starts; `nil` if the header or the payload would leave the section (never after validation).
    @inline(__always)
    func header(_ offset: UInt32) -> (length: Int, type: UInt32, payload: Int)? {
        guard let abs = headerIndex(offset) else { return nil }
        let length = Int(word(abs))
        guard length <= end - abs - 8 else { return nil }
        return (length, word(abs + 4), abs + 8)
    }
}

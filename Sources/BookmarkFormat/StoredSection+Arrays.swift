// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: reading the two common arrays straight from validated bytes.

extension StoredSection {
    /// The strings of the array of strings at data offset `offset` (key `0x1004`, path
    /// components), read without building the array's items; `nil` when the item is not an array
    /// or an element is not a string, and the caller then builds the item as usual.
    ///
    /// Resolution derives a bookmark's facts once; building a dozen boxed string items to copy
    /// their bytes out again was a sixth of a freshly decoded bookmark's first resolution.
    func stringArray(at offset: UInt32) -> [ByteString]? {
        guard let (length, type, payload) = header(offset), type == BookmarkItem.TypeCode.array else { return nil }
        var strings: [ByteString] = []
        strings.reserveCapacity(length / 4)
        for index in 0..<(length / 4) {
            guard let (count, elementType, start) = header(word(payload + 4 * index)),
                elementType == BookmarkItem.TypeCode.string
            else { return nil }
            strings.append(ByteString(bytes: slice(start, count)))
        }
        return strings
    }

    /// The values of the array of integers and nulls at data offset `offset` (key `0x1005`, file
    /// IDs), read without building items: signed 8-, 16-, 32- and 64-bit numbers of their exact
    /// width, and `nil` for null. `nil` for anything else, and the caller then builds the item.
    func integerArray(at offset: UInt32) -> [Int64?]? {
        guard let (length, type, payload) = header(offset), type == BookmarkItem.TypeCode.array else { return nil }
        var values: [Int64?] = []
        values.reserveCapacity(length / 4)
        for index in 0..<(length / 4) {
            guard let (count, elementType, start) = header(word(payload + 4 * index)) else { return nil }
            switch (elementType, count) {
            case (BookmarkItem.TypeCode.null, _): values.append(nil)
            case (BookmarkItem.TypeCode.numberBase | 4, 8): values.append(Int64(bitPattern: word64(start)))
            case (BookmarkItem.TypeCode.numberBase | 3, 4): values.append(Int64(Int32(bitPattern: word(start))))
            case (BookmarkItem.TypeCode.numberBase | 2, 2): values.append(Int64(Int16(truncatingIfNeeded: little(start, 2))))
            case (BookmarkItem.TypeCode.numberBase | 1, 1): values.append(Int64(Int8(truncatingIfNeeded: little(start, 1))))
            default: return nil
            }
        }
        return values
    }
}

extension BookmarkDocument {
    /// Where the target TOC's item under `key` lies in validated bytes, if it is still stored
    /// there (not set since decoding).
    func storedTargetItem(_ key: BookmarkKey) -> (StoredSection, UInt32)? {
        guard let t = targetIndex, let i = tocs[t].index(of: key),
            case .stored(let offset) = tocs[t].rows[i].storage, let section = tocs[t].section
        else { return nil }
        return (section, offset)
    }
}

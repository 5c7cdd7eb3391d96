// SPDX-License-Identifier: Apache-2.0

/// Bookmark data stored back to back, as an application keeps a library of bookmarks in one file
/// (each bookmark's data appended): no separator, because every record's `book` header gives its
/// own length (bytes 4–7, little-endian). `Bookmark.resolveAll(storedIn:)` reads such a file a
/// chunk at a time; ``BookmarkSource`` counts the records after the first.
package enum StoredBookmarks {
    /// The shortest record: a `book` header (16 bytes) and a data section's first-TOC offset.
    package static let shortest = 20

    /// The header at `offset`: whether it starts with `book`, and the record length it gives.
    /// ``shortest`` bytes must be there.
    package static func header(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (isBook: Bool, length: Int) {
        let magic = bytes[offset] == UInt8(ascii: "b") && bytes[offset + 1] == UInt8(ascii: "o")
            && bytes[offset + 2] == UInt8(ascii: "o") && bytes[offset + 3] == UInt8(ascii: "k")
        var length = 0
        for index in 0..<4 { length |= Int(bytes[offset + 4 + index]) << (8 * index) }
        return (magic, length)
    }

    /// Whether a record may be this long: at least ``shortest``, at most the decoder's input limit.
    package static func acceptable(_ length: Int, limits: BookmarkDecodingLimits = .default) -> Bool {
        length >= shortest && length <= limits.maxInputSize
    }

    /// How many records `bytes` holds back to back, each a `book` header with an acceptable length
    /// and whole; `nil` when anything else is there (what the library reader refuses).
    package static func count(_ bytes: [UInt8], limits: BookmarkDecodingLimits = .default) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            var offset = 0
            var count = 0
            while offset < raw.count {
                guard raw.count - offset >= shortest else { return nil }
                let (isBook, length) = header(raw, at: offset)
                guard isBook, acceptable(length, limits: limits), length <= raw.count - offset else { return nil }
                offset += length
                count += 1
            }
            return count
        }
    }
}

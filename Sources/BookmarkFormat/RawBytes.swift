// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: byte comparisons for the quick paths, eight bytes at a time.

/// Comparisons of raw bytes where `elementsEqual` would go byte by byte through two iterators: a
/// library's batch compares each record's volume UUID, path and name with the last volume's
/// (a twentieth of its time when done with `elementsEqual`).
package enum RawBytes {
    /// Whether `bytes` and `other` hold the same bytes.
    package static func equal(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        return other.withUnsafeBytes { equal(bytes, $0) }
    }

    /// Whether `bytes` and `other` hold the same bytes.
    package static func equal(_ bytes: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == other.count else { return false }
        let count = bytes.count
        var at = 0
        while at + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                != other.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            {
                return false
            }
            at += 8
        }
        while at < count {
            if bytes[at] != other[at] { return false }
            at += 1
        }
        return true
    }
}

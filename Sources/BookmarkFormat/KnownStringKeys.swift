// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: string keys decoded without allocating.

/// The string keys bookmarks usually carry, as shared ``ByteString`` values.
///
/// A decoded string key must be a ``BookmarkKey/string(_:)`` holding its own bytes, which costs
/// an allocation per key; our bookmarks carry a few (our Linux key, nine in 0.1's bookmarks, and
/// the resource values Apple stores by name). Decoding one of these names reuses the shared value instead, which is
/// equal to a freshly built one in every way.
enum KnownStringKeys {
    /// Our Linux keys (the compact one and those of 0.1) and the resource-value names that
    /// ``BookmarkKit`` records.
    static let all: [ByteString] = {
        var names: [ByteString] = ([LinuxKeys.compact] + LinuxKeys.legacy).compactMap {
            if case .string(let name) = $0 { return name }
            return nil
        }
        for name in ["NSURLNameKey", "NSURLFileSizeKey", "NSURLContentModificationDateKey", "NSURLCreationDateKey",
                     "NSURLIsDirectoryKey", "NSURLIsRegularFileKey", "NSURLIsHiddenKey", "NSURLPathKey",
                     "NSURLVolumeNameKey", "NSURLVolumeUUIDStringKey"]
        {
            names.append(ByteString(name))
        }
        return names
    }()

    /// The shared value whose bytes are `bytes`, if it is a known key.
    static func shared(_ bytes: UnsafeRawBufferPointer) -> ByteString? {
        for name in all where name.bytes.count == bytes.count {
            if name.bytes.withUnsafeBytes({ equal($0, bytes) }) { return name }
        }
        return nil
    }

    /// Whether two buffers of at least 8 bytes and equal length hold the same bytes; word by
    /// word from the end, because the Linux keys share a 26-byte prefix.
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let n = a.count
        guard n == b.count else { return false }
        guard n >= 8 else { return a.elementsEqual(b) }
        var end = n
        while end >= 8 {
            if a.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self) { return false }
            end -= 8
        }
        return end == 0 || a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
    }
}

// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: tables of contents.

/// One table of contents: an id ("level") and its key → item entries, kept sorted by key.
///
/// TOC `1` describes the target; `0xF000` the boot volume (when the target is elsewhere);
/// ids of 4000 and up hold nested disk-image bookmarks.
package struct BookmarkTOC: Sendable, Hashable {
    /// TOC id of the target.
    package static let targetID: UInt32 = 1
    /// TOC id of the boot-volume information.
    package static let bootVolumeID: UInt32 = 0xF000

    /// The TOC id.
    package var id: UInt32
    /// The entries, sorted by key (numeric keys first), with no key twice.
    package private(set) var entries: [BookmarkEntry]

    /// Creates a TOC; entries are sorted by key, and for a repeated key the last one wins.
    package init(id: UInt32, entries: [BookmarkEntry] = []) {
        self.id = id
        var byKey: [BookmarkKey: BookmarkEntry] = [:]
        for e in entries { byKey[e.key] = e }
        self.entries = byKey.values.sorted { $0.key < $1.key }
    }

    /// Creates a TOC from entries already known to be sorted and unique.
    init(id: UInt32, sortedUniqueEntries: [BookmarkEntry]) {
        self.id = id
        self.entries = sortedUniqueEntries
    }

    /// The item stored under `key`; setting `nil` removes the entry.
    package subscript(key: BookmarkKey) -> BookmarkItem? {
        get { index(of: key).map { entries[$0].value } }
        set { set(newValue, for: key) }
    }

    /// Sets or removes the item under `key`, and returns the index of the first entry whose key
    /// sorts after `key` (for a caller that goes on to the keys that follow).
    @discardableResult
    mutating func set(_ value: BookmarkItem?, for key: BookmarkKey) -> Int {
        let i = lowerBound(key)
        let present = i < entries.count && entries[i].key == key
        switch (value, present) {
        case (let v?, true): entries[i].value = v
        case (let v?, false): entries.insert(BookmarkEntry(key: key, value: v), at: i)
        case (nil, true): entries.remove(at: i); return i
        case (nil, false): return i
        }
        return i + 1
    }

    /// The keys, in order.
    package var keys: [BookmarkKey] { entries.map(\.key) }

    func index(of key: BookmarkKey) -> Int? {
        let i = lowerBound(key)
        return i < entries.count && entries[i].key == key ? i : nil
    }

    /// The index of `key`, or where it would be inserted.
    func lowerBound(_ key: BookmarkKey) -> Int {
        if case .numeric(let wanted) = key {
            // Numeric keys sort before string keys and by value: compare words, not enums.
            return entries.withUnsafeBufferPointer { buffer in
                var lo = 0
                var hi = buffer.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if case .numeric(let v) = buffer[mid].key, v < wanted { lo = mid + 1 } else { hi = mid }
                }
                return lo
            }
        }
        var lo = 0
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

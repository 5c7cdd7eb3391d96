// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: tables of contents.

/// One table of contents: an id ("level") and its key → item entries, kept sorted by key.
///
/// TOC `1` describes the target; `0xF000` the boot volume (when the target is elsewhere);
/// ids of 4000 and up hold nested disk-image bookmarks.
///
/// A decoded TOC keeps the validated section its items are in once, in ``section``, and each
/// row only the offset of its item there (see Docs/FORMAT.md, "Storage model"). Each row holding
/// the section itself cost a retain when decoding and a release when freeing, per entry: a
/// tenth of decoding and re-encoding a bookmark.
package struct BookmarkTOC: Sendable, Hashable {
    /// TOC id of the target.
    package static let targetID: UInt32 = 1
    /// TOC id of the boot-volume information.
    package static let bootVolumeID: UInt32 = 0xF000

    /// The TOC id.
    package var id: UInt32
    /// The entries as kept: sorted by key (numeric keys first), with no key twice.
    private(set) var rows: [Row]
    /// The validated bytes that the rows' stored items are in; `nil` when none is stored.
    private(set) var section: StoredSection?

    /// One entry as a TOC keeps it: its item is either built or an offset into ``section``.
    struct Row: Sendable {
        var key: BookmarkKey
        var storage: RowStorage
        var flags: UInt32
    }

    /// Where a row's item is.
    enum RowStorage: Sendable {
        /// Set or built since decoding.
        case item(BookmarkItem)
        /// Still in the TOC's ``BookmarkTOC/section``, validated, at this data offset.
        case stored(UInt32)
    }

    /// The entries, sorted by key (numeric keys first), with no key twice. Each one made for the
    /// call (a stored one holds the section), so a caller that wants a single item reads it
    /// through the subscript instead.
    package var entries: [BookmarkEntry] {
        rows.map { row in
            if case .stored(let offset) = row.storage, let section {
                return BookmarkEntry(key: row.key, section: section, offset: offset, flags: row.flags)
            }
            return BookmarkEntry(key: row.key, value: value(of: row), flags: row.flags)
        }
    }

    /// Creates a TOC; entries are sorted by key, and for a repeated key the last one wins.
    package init(id: UInt32, entries: [BookmarkEntry] = []) {
        var byKey: [BookmarkKey: BookmarkEntry] = [:]
        for e in entries { byKey[e.key] = e }
        self.init(id: id, sortedUniqueEntries: byKey.values.sorted { $0.key < $1.key })
    }

    /// Creates a TOC from entries already known to be sorted and unique. Entries still stored in
    /// one section stay stored; entries from another section (copied from a second document)
    /// are built.
    init(id: UInt32, sortedUniqueEntries: [BookmarkEntry]) {
        self.id = id
        var section: StoredSection? = nil
        for e in sortedUniqueEntries {
            if case .stored(let s, _) = e.storage { section = s; break }
        }
        self.section = section
        self.rows = sortedUniqueEntries.map { e in
            if case .stored(let s, let offset) = e.storage, s === section {
                return Row(key: e.key, storage: .stored(offset), flags: e.flags)
            }
            return Row(key: e.key, storage: .item(e.value), flags: e.flags)
        }
    }

    /// A decoded TOC: rows already sorted and unique, stored ones in `section`.
    init(id: UInt32, section: StoredSection, sortedUniqueRows: [Row]) {
        self.id = id
        self.section = section
        self.rows = sortedUniqueRows
    }

    /// The item of `row`, built from the section when it is still stored.
    func value(of row: Row) -> BookmarkItem {
        switch row.storage {
        case .item(let item): return item
        case .stored(let offset):
            // A stored row always comes with its section; the stand-in only keeps a broken
            // invariant from trapping.
            return section?.item(at: offset) ?? .unknown(type: 0, payload: [])
        }
    }

    /// The item stored under `key`; setting `nil` removes the entry.
    package subscript(key: BookmarkKey) -> BookmarkItem? {
        get { index(of: key).map { value(of: rows[$0]) } }
        set { set(newValue, for: key) }
    }

    /// Sets or removes the item under `key`, and returns the index of the first entry whose key
    /// sorts after `key` (for a caller that goes on to the keys that follow).
    @discardableResult
    mutating func set(_ value: BookmarkItem?, for key: BookmarkKey) -> Int {
        let i = lowerBound(key)
        let present = i < rows.count && rows[i].key == key
        switch (value, present) {
        case (let v?, true): rows[i].storage = .item(v)
        case (let v?, false): rows.insert(Row(key: key, storage: .item(v), flags: 0), at: i)
        case (nil, true): rows.remove(at: i); return i
        case (nil, false): return i
        }
        return i + 1
    }

    /// The keys, in order.
    package var keys: [BookmarkKey] { rows.map(\.key) }

    func index(of key: BookmarkKey) -> Int? {
        let i = lowerBound(key)
        return i < rows.count && rows[i].key == key ? i : nil
    }

    /// The index of `key`, or where it would be inserted.
    func lowerBound(_ key: BookmarkKey) -> Int {
        if case .numeric(let wanted) = key {
            // Numeric keys sort before string keys and by value: compare words, not enums.
            return rows.withUnsafeBufferPointer { buffer in
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
        var hi = rows.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rows[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Equal when the ids are and the entries are pairwise (key, flags and item value), as
    /// ``BookmarkEntry`` compares them; the same stored item is equal without building it.
    package static func == (lhs: BookmarkTOC, rhs: BookmarkTOC) -> Bool {
        guard lhs.id == rhs.id, lhs.rows.count == rhs.rows.count else { return false }
        let sameSection = lhs.section === rhs.section
        for i in lhs.rows.indices {
            let a = lhs.rows[i]
            let b = rhs.rows[i]
            guard a.key == b.key, a.flags == b.flags else { return false }
            if sameSection, case .stored(let x) = a.storage, case .stored(let y) = b.storage, x == y { continue }
            guard lhs.value(of: a) == rhs.value(of: b) else { return false }
        }
        return true
    }

    /// Hashes the id and each entry's key, item value and flags.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(rows.count)
        for row in rows {
            hasher.combine(row.key)
            hasher.combine(value(of: row))
            hasher.combine(row.flags)
        }
    }
}

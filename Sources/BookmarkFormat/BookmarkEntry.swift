// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: one TOC entry, whose item may still be bytes.

/// One TOC entry: a key, the item it points at, and the entry's flags word (always 0 in Apple's
/// data, kept as read).
///
/// An entry made by decoding holds its item as validated bytes and builds the ``value`` on each
/// read (see Docs/FORMAT.md, "Storage model"); setting ``value`` stores the item itself. Either
/// way, entries compare and hash by the item's value.
package struct BookmarkEntry: Sendable, Hashable {
    /// The key.
    package var key: BookmarkKey
    /// The item.
    package var value: BookmarkItem {
        get {
            switch storage {
            case .item(let item): return item
            case .stored(let section, let offset): return section.item(at: offset)
            }
        }
        set { storage = .item(newValue) }
    }
    /// The third word of the entry.
    package var flags: UInt32
    /// The item, as a value or as a place in validated bytes.
    var storage: EntryStorage

    /// Whether the item is still a place in validated bytes (decoded and not set since): what
    /// the storage tests check without seeing the storage itself.
    package var isStored: Bool {
        if case .stored = storage { return true }
        return false
    }

    /// Creates an entry.
    package init(key: BookmarkKey, value: BookmarkItem, flags: UInt32 = 0) {
        self.key = key
        self.storage = .item(value)
        self.flags = flags
    }

    /// Creates an entry whose item is the validated item at `offset` of `section`.
    init(key: BookmarkKey, section: StoredSection, offset: UInt32, flags: UInt32) {
        self.key = key
        self.storage = .stored(section, offset)
        self.flags = flags
    }

    /// Equal when keys, items (by value) and flags are equal.
    package static func == (lhs: BookmarkEntry, rhs: BookmarkEntry) -> Bool {
        guard lhs.key == rhs.key, lhs.flags == rhs.flags else { return false }
        // The same validated item is equal to itself without building it.
        if case .stored(let a, let x) = lhs.storage, case .stored(let b, let y) = rhs.storage, a === b, x == y {
            return true
        }
        return lhs.value == rhs.value
    }

    /// Hashes key, item value and flags.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(value)
        hasher.combine(flags)
    }
}

/// Where an entry's item is: built, or still in the validated bytes it was decoded from.
enum EntryStorage: Sendable {
    /// An item value (set by the caller, or built by an initialiser).
    case item(BookmarkItem)
    /// The item at this data offset of a validated section.
    case stored(StoredSection, UInt32)
}

extension BookmarkKey {
    /// The word of a numeric key; `nil` for a string key.
    var numericWord: UInt32? {
        if case .numeric(let v) = self { return v }
        return nil
    }

    /// Runs `body` with the name of a string key, read in place; `nil` for a numeric key.
    func withNameBytes<R>(_ body: (UnsafeRawBufferPointer) throws(BookmarkFormatError) -> R) throws(BookmarkFormatError) -> R? {
        guard case .string(let name) = self else { return nil }
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out by hand.
        var failure: BookmarkFormatError? = nil
        let result: R? = name.bytes.withUnsafeBytes { b in
            do throws(BookmarkFormatError) {
                return try body(b)
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return result
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles

/// One difference between two states of a catalogued tree.
public struct CatalogChange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// New since the earlier state.
        case added
        /// Gone since the earlier state.
        case deleted
        /// The same object with other contents (size or modification time; a link's target).
        case modified
        /// The same object (by identity) under another name or parent.
        case moved
    }

    /// What happened.
    public var kind: Kind
    /// What the entry is.
    public var entryKind: CatalogEntryKind
    /// Where it is now (for `deleted`: where it was last seen).
    public var path: [UInt8]
    /// For `moved`: where it was.
    public var oldPath: [UInt8]?
    /// For an added or deleted directory: how many entries beneath it were added or deleted with
    /// it. They are folded into this one change, as a moved directory's contents are.
    public var descendants: Int
    /// Its size now (for `deleted`: when last seen).
    public var size: UInt64
    /// Its inode number.
    public var inode: UInt64

    /// Creates a change.
    public init(
        kind: Kind, entryKind: CatalogEntryKind, path: [UInt8], oldPath: [UInt8]? = nil, descendants: Int = 0, size: UInt64 = 0,
        inode: UInt64 = 0
    ) {
        self.kind = kind
        self.entryKind = entryKind
        self.path = path
        self.oldPath = oldPath
        self.descendants = descendants
        self.size = size
        self.inode = inode
    }

    /// `moved a -> b`, `added a (and 12 inside)`, for a person (bytes escaped).
    public var description: String {
        switch kind {
        case .moved: return "moved \(oldPath.map { PathBytes($0).escaped } ?? "?") -> \(PathBytes(path).escaped)"
        case .added, .deleted:
            let inside = descendants > 0 ? " (and \(descendants) inside)" : ""
            return "\(kind.rawValue) \(PathBytes(path).escaped)\(inside)"
        case .modified: return "modified \(PathBytes(path).escaped)"
        }
    }
}

extension Array where Element == CatalogChange {
    /// Added and deleted entries under a directory added or deleted with them are folded into
    /// that directory's change (its `descendants`); `parentOf` gives an entry's parent key.
    static func folding<Key: Hashable>(
        _ changes: [(key: Key, change: CatalogChange)], parentOf: (Key) -> Key?
    ) -> [CatalogChange] {
        var byKey: [Key: Int] = [:]
        for (index, item) in changes.enumerated() where item.change.kind == .added || item.change.kind == .deleted {
            byKey[item.key] = index
        }
        var folded = [Bool](repeating: false, count: changes.count)
        var counts = [Int](repeating: 0, count: changes.count)
        for (index, item) in changes.enumerated() where item.change.kind == .added || item.change.kind == .deleted {
            // The topmost ancestor changed the same way takes this one.
            var top: Int?
            var cursor = parentOf(item.key)
            var steps = 0
            while let parent = cursor, let parentIndex = byKey[parent], changes[parentIndex].change.kind == item.change.kind,
                steps < 100_000
            {
                top = parentIndex
                cursor = parentOf(parent)
                steps += 1
            }
            if let top {
                folded[index] = true
                counts[top] += 1
            }
        }
        return changes.enumerated().compactMap { index, item in
            guard !folded[index] else { return nil }
            var change = item.change
            change.descendants += counts[index]
            return change
        }
    }
}

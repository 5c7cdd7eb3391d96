// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: a set of a few words without allocating.

/// A set of words that makes no allocation for its first four members and hashes from the
/// seventeenth on, so that a long hostile chain stays linear.
struct SmallSet {
    private var few: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    private var list: [UInt32] = []
    private var hashed: Set<UInt32> = []
    private(set) var count = 0

    /// Inserts `v`; `false` if it was there already.
    mutating func insert(_ v: UInt32) -> Bool {
        if count > 16 { return hashed.insert(v).inserted }
        if count >= 1, few.0 == v { return false }
        if count >= 2, few.1 == v { return false }
        if count >= 3, few.2 == v { return false }
        if count >= 4, few.3 == v { return false }
        if list.contains(v) { return false }
        switch count {
        case 0: few.0 = v
        case 1: few.1 = v
        case 2: few.2 = v
        case 3: few.3 = v
        default: list.append(v)
        }
        count += 1
        if count == 17 {
            hashed = Set(list)
            hashed.formUnion([few.0, few.1, few.2, few.3])
        }
        return true
    }
}

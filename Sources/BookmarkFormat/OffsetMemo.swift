// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: per-offset results of validation, with cycle detection.

/// What validation found per item offset, and the offsets being validated (for cycle detection).
///
/// For sections up to 64 KiB (every real bookmark) a dense table indexed by aligned offset
/// replaces hashing; larger sections and unaligned offsets use dictionaries.
struct OffsetMemo {
    enum State {
        case unseen
        case inProgress
        case done(DataSectionDecoder.Checked)
    }

    static let denseLimit = 1 << 16
    /// The first `denseLength` elements, per aligned offset / 4: 0 unseen, -1 in progress, else
    /// the index after them where the item's size, height and byte count follow. One array for
    /// both (a bookmark has two or three containers, and a second array was a second allocation).
    private var dense: [Int] = []
    private var sparse: [UInt32: DataSectionDecoder.Checked] = [:]
    private var sparseInProgress: Set<UInt32> = []

    init(sectionLength: Int) {
        // One slot per 4-byte-aligned offset (where Apple and our encoder put every item);
        // unaligned offsets, possible only in crafted input, go to the dictionaries. The table
        // is made when the first container is validated (leaves are never memoised).
        denseLength = sectionLength >= 0 && sectionLength <= OffsetMemo.denseLimit ? sectionLength / 4 + 1 : 0
    }

    /// How many slots the dense table has (made on first use); 0 when the dictionaries are used.
    private let denseLength: Int

    /// The dense slot of `offset`, or `nil` when the dictionaries hold it.
    private func slot(_ offset: UInt32) -> Int? {
        guard offset & 3 == 0 else { return nil }
        let i = Int(offset >> 2)
        return i < denseLength ? i : nil
    }

    @inline(__always)
    func state(_ offset: UInt32) -> State {
        if let i = slot(offset) {
            guard i < dense.count else { return .unseen }
            let v = dense[i]
            if v == 0 { return .unseen }
            if v < 0 { return .inProgress }
            guard v <= dense.count - 3 else { return .unseen }
            return .done((size: dense[v], height: dense[v + 1], bytes: dense[v + 2]))
        }
        if let m = sparse[offset] { return .done(m) }
        return sparseInProgress.contains(offset) ? .inProgress : .unseen
    }

    /// Marks `offset` as being validated.
    mutating func begin(_ offset: UInt32) {
        if let i = slot(offset) {
            if dense.isEmpty {
                dense.reserveCapacity(denseLength + 3 * 8)
                dense.append(contentsOf: repeatElement(0, count: denseLength))
            }
            dense[i] = -1
        } else {
            sparseInProgress.insert(offset)
        }
    }

    /// Clears the in-progress mark if validation did not finish (an error was thrown).
    mutating func abandon(_ offset: UInt32) {
        if let i = slot(offset) {
            if i < dense.count, dense[i] < 0 { dense[i] = 0 }
        } else {
            sparseInProgress.remove(offset)
        }
    }

    mutating func finish(_ offset: UInt32, _ result: DataSectionDecoder.Checked) {
        if let i = slot(offset), i < dense.count {
            dense[i] = dense.count
            dense.append(result.size)
            dense.append(result.height)
            dense.append(result.bytes)
        } else {
            sparseInProgress.remove(offset)
            sparse[offset] = result
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: per-offset results of validation, with cycle detection.

/// What validation found per item offset, and the offsets being validated (for cycle detection).
///
/// For sections up to 64 KiB (every real bookmark) a dense table indexed by aligned offset
/// replaces hashing; larger sections and unaligned offsets use dictionaries.
///
/// The dense table is memory the memo allocates itself, freed by ``release()``, which its owner
/// (``BookmarkDocument/decodeDataSection(_:start:end:version:limits:)``) calls when decoding
/// ends. A Swift array of `Int` made here looked up its storage class's generic metadata in the
/// runtime's table on every decode, which cost as much as zeroing the table.
struct OffsetMemo {
    enum State {
        case unseen
        case inProgress
        case done(DataSectionDecoder.Checked)
    }

    static let denseLimit = 1 << 16
    /// `denseLength` slots, per aligned offset / 4: 0 unseen, -1 in progress, else the index
    /// after them where the item's size, height and byte count follow; then those results,
    /// `used` elements in all, in `capacity`. `nil` until the first container is validated
    /// (leaves are never memoised). One block for both: a bookmark has two or three containers.
    private var dense: UnsafeMutablePointer<Int>? = nil
    private var used = 0
    private var capacity = 0
    private var sparse: [UInt32: DataSectionDecoder.Checked] = [:]
    private var sparseInProgress: Set<UInt32> = []

    init(sectionLength: Int) {
        // One slot per 4-byte-aligned offset (where Apple and our encoder put every item);
        // unaligned offsets, possible only in crafted input, go to the dictionaries.
        denseLength = sectionLength >= 0 && sectionLength <= OffsetMemo.denseLimit ? sectionLength / 4 + 1 : 0
    }

    /// Frees the dense table. The memo must not be used afterwards.
    mutating func release() {
        dense?.deallocate()
        dense = nil
        used = 0
        capacity = 0
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
            guard let dense, i < used else { return .unseen }
            let v = dense[i]
            if v == 0 { return .unseen }
            if v < 0 { return .inProgress }
            guard v <= used - 3 else { return .unseen }
            return .done((size: dense[v], height: dense[v + 1], bytes: dense[v + 2]))
        }
        if let m = sparse[offset] { return .done(m) }
        return sparseInProgress.contains(offset) ? .inProgress : .unseen
    }

    /// Marks `offset` as being validated.
    mutating func begin(_ offset: UInt32) {
        if let i = slot(offset) {
            let table = dense ?? makeDense()
            table[i] = -1
        } else {
            sparseInProgress.insert(offset)
        }
    }

    /// The dense table, zeroed, with room for eight containers' results after the slots.
    private mutating func makeDense() -> UnsafeMutablePointer<Int> {
        let table = UnsafeMutablePointer<Int>.allocate(capacity: denseLength + 3 * 8)
        table.initialize(repeating: 0, count: denseLength)
        dense = table
        used = denseLength
        capacity = denseLength + 3 * 8
        return table
    }

    /// Clears the in-progress mark if validation did not finish (an error was thrown).
    mutating func abandon(_ offset: UInt32) {
        if let i = slot(offset) {
            if let dense, i < used, dense[i] < 0 { dense[i] = 0 }
        } else {
            sparseInProgress.remove(offset)
        }
    }

    mutating func finish(_ offset: UInt32, _ result: DataSectionDecoder.Checked) {
        if let i = slot(offset), var table = dense, i < used {
            if used + 3 > capacity {
                let grown = UnsafeMutablePointer<Int>.allocate(capacity: 2 * capacity)
                grown.initialize(from: table, count: used)
                table.deallocate()
                table = grown
                dense = grown
                capacity *= 2
            }
            table[i] = used
            table[used] = result.size
            table[used + 1] = result.height
            table[used + 2] = result.bytes
            used += 3
        } else {
            sparseInProgress.remove(offset)
            sparse[offset] = result
        }
    }
}

// BookmarkFormat: per-offset results of validation, with cycle detection.

/// What validation found per item offset, and the offsets being validated (for cycle detection).
///
/// For sections up to 64 KiB (every real bookmark) a dense table indexed by offset replaces
/// hashing; larger sections use dictionaries.
struct OffsetMemo {
    enum State {
        case unseen
        case inProgress
        case done(DataSectionDecoder.Checked)
    }

    static let denseLimit = 1 << 16
    /// Per offset: 0 unseen, -1 in progress, else 1 + index into `items`.
    private var dense: [Int32]
    private var items: [DataSectionDecoder.Checked] = []
    private var sparse: [UInt32: DataSectionDecoder.Checked] = [:]
    private var sparseInProgress: Set<UInt32> = []

    init(sectionLength: Int) {
        dense = sectionLength >= 0 && sectionLength <= OffsetMemo.denseLimit
            ? Array(repeating: 0, count: sectionLength + 1) : []
        // Distinct items rarely start closer than 8 bytes apart, so this is usually the only allocation.
        if isDense { items.reserveCapacity(sectionLength / 8 + 1) }
    }

    private var isDense: Bool { !dense.isEmpty }

    func state(_ offset: UInt32) -> State {
        if isDense {
            guard Int(offset) < dense.count else { return .unseen }
            let v = dense[Int(offset)]
            if v == 0 { return .unseen }
            if v < 0 { return .inProgress }
            return .done(items[Int(v) - 1])
        }
        if let m = sparse[offset] { return .done(m) }
        return sparseInProgress.contains(offset) ? .inProgress : .unseen
    }

    /// Marks `offset` as being decoded. (Offsets beyond the section never reach here: they fail
    /// the bounds check first.)
    mutating func begin(_ offset: UInt32) {
        if isDense {
            if Int(offset) < dense.count { dense[Int(offset)] = -1 }
        } else {
            sparseInProgress.insert(offset)
        }
    }

    /// Clears the in-progress mark if decoding did not finish (an error was thrown).
    mutating func abandon(_ offset: UInt32) {
        if isDense {
            if Int(offset) < dense.count, dense[Int(offset)] < 0 { dense[Int(offset)] = 0 }
        } else {
            sparseInProgress.remove(offset)
        }
    }

    mutating func finish(_ offset: UInt32, _ result: DataSectionDecoder.Checked) {
        if isDense {
            guard Int(offset) < dense.count else { return }
            items.append(result)
            dense[Int(offset)] = Int32(items.count)
        } else {
            sparseInProgress.remove(offset)
            sparse[offset] = result
        }
    }
}

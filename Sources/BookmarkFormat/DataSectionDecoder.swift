// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: validating a data section's items and TOCs from untrusted bytes.

/// Validates the items and TOCs of one data section, memoising shared items, and makes TOCs whose
/// entries point into the validated bytes.
///
/// Every item reachable from an entry is checked here, once per offset: bounds, the length each
/// type requires, number subtypes, cycles, nesting depth, and the expanded item count and size
/// (shared items counted once per reference). So a decoded document never meets bad bytes when an
/// entry's item is built later, and decoding rejects exactly what building every item would.
struct DataSectionDecoder {
    let reader: ByteReader
    let start: Int
    let end: Int
    let limits: BookmarkDecodingLimits
    /// The bytes entries will read their items from.
    let section: StoredSection
    /// Validated items by data offset, with expanded node count, height and expanded byte size.
    var memo: OffsetMemo
    var totalExpanded = 0
    var totalExpandedBytes = 0

    /// What validating one item found: its expanded node count, height and expanded byte size.
    typealias Checked = (size: Int, height: Int, bytes: Int)

    init(bytes: [UInt8], start: Int, end: Int, limits: BookmarkDecodingLimits) {
        self.reader = ByteReader(bytes)
        self.start = start
        self.end = end
        self.limits = limits
        self.section = StoredSection(bytes: bytes, start: start, end: end, maxDepth: limits.maxDepth)
        self.memo = OffsetMemo(sectionLength: end - start)
    }

    @inline(__always)
    func absolute(_ offset: UInt32) -> Int { start + Int(offset) }

    /// Checks that `count` bytes at data offset `offset` lie inside the data section.
    @inline(__always)
    func requireInSection(_ offset: UInt32, _ count: Int) throws(BookmarkFormatError) {
        let abs = absolute(offset)
        guard abs <= end, count <= end - abs else {
            if abs > end {
                throw BookmarkFormatError(.offsetOutOfBounds(offset), at: abs)
            }
            throw BookmarkFormatError(.truncated(needed: count, available: end - abs), at: abs)
        }
    }

    mutating func decodeTOC(at offset: UInt32) throws(BookmarkFormatError) -> (BookmarkTOC, UInt32) {
        try requireInSection(offset, 20)
        let abs = absolute(offset)
        let marker = try reader.u32le(abs + 4)
        guard marker == 0xFFFF_FFFE else { throw BookmarkFormatError(.badTOCMarker(marker), at: abs + 4) }
        let id = try reader.u32le(abs + 8)
        let next = try reader.u32le(abs + 12)
        let count = Int(try reader.u32le(abs + 16))
        guard count <= (end - abs - 20) / 12 else {
            throw BookmarkFormatError(.truncated(needed: 20 + count * 12, available: end - abs), at: abs + 16)
        }
        var rows: [BookmarkTOC.Row] = []
        rows.reserveCapacity(count)
        // Whether the keys so far are in order: numeric keys by word, then string keys by bytes.
        var sorted = true
        var lastNumeric: UInt32? = nil
        // Where the previous string key's name is in the input (not a copy: that would retain).
        var lastString: Range<Int>? = nil
        for i in 0..<count {
            let e = abs + 20 + 12 * i
            // Inside the section: `count` was checked against the room after the header above.
            let rawKey = reader.u32leInBounds(e)
            let itemOffset = reader.u32leInBounds(e + 4)
            let flags = reader.u32leInBounds(e + 8)
            let key: BookmarkKey
            if rawKey & 0x8000_0000 != 0 {
                let keyOffset = rawKey & 0x7FFF_FFFF
                try checkRoot(at: keyOffset)
                // Validated, so the header is there.
                let type = try reader.u32le(absolute(keyOffset) + 4)
                guard type == BookmarkItem.TypeCode.string else {
                    throw BookmarkFormatError(.stringKeyNotString(type: type), at: e)
                }
                let length = Int(try reader.u32le(absolute(keyOffset)))
                let name = absolute(keyOffset) + 8 ..< absolute(keyOffset) + 8 + length
                try reader.require(name.lowerBound, length)
                let (shared, inOrder) = reader.bytes.withUnsafeBytes { b in
                    let bytes = UnsafeRawBufferPointer(rebasing: b[name])
                    return (KnownStringKeys.shared(bytes),
                            lastString.map { ByteString.precedes(UnsafeRawBufferPointer(rebasing: b[$0]), bytes) } ?? true)
                }
                if !inOrder { sorted = false }
                lastString = name
                if let shared {
                    key = .string(shared)
                } else {
                    key = .string(ByteString(bytes: try reader.slice(name.lowerBound, length)))
                }
            } else {
                key = .numeric(rawKey)
            }
            try checkRoot(at: itemOffset)
            if case .numeric(let v) = key {
                if lastString != nil || lastNumeric.map({ $0 >= v }) == true { sorted = false }
                lastNumeric = v
            }
            rows.append(BookmarkTOC.Row(key: key, storage: .stored(itemOffset), flags: flags))
        }
        // Apple writes entries sorted by key word, which is key order: sort only when needed.
        if !sorted {
            rows.sort { $0.key < $1.key }
            for i in rows.indices.dropFirst() where rows[i].key == rows[i - 1].key {
                throw BookmarkFormatError(.duplicateKey(rows[i].key.description), at: abs + 20)
            }
        }
        return (BookmarkTOC(id: id, section: section, sortedUniqueRows: rows), next)
    }

    /// Validates a TOC-referenced item and charges its expanded size to the global budget.
    mutating func checkRoot(at offset: UInt32) throws(BookmarkFormatError) {
        let checked = try checkItem(at: offset, depth: 0)
        totalExpanded += checked.size
        totalExpandedBytes += checked.bytes
        guard totalExpanded <= limits.maxItems else {
            throw BookmarkFormatError(.itemLimitExceeded(limit: limits.maxItems), at: absolute(offset))
        }
        guard totalExpandedBytes <= limits.maxExpandedBytes else {
            throw BookmarkFormatError(.expandedSizeLimitExceeded(limit: limits.maxExpandedBytes), at: absolute(offset))
        }
    }

    /// Validates the item at `offset` and everything it references.
    mutating func checkItem(at offset: UInt32, depth: Int) throws(BookmarkFormatError) -> Checked {
        // Leaves first, without the memo: a leaf is never memoised, so for it the memo would
        // answer "unseen" and the checks below run in the same order as for any unseen item.
        let abs = start + Int(offset)
        if abs <= end - 8 {
            let type = reader.u32leInBounds(abs + 4)
            if !DataSectionDecoder.isContainer(type) {
                guard depth <= limits.maxDepth else {
                    throw BookmarkFormatError(.depthLimitExceeded(limit: limits.maxDepth), at: abs)
                }
                return try checkLeaf(at: offset, type: type, length: reader.u32leInBounds(abs))
            }
        }
        return try checkUnlessLeaf(at: offset, depth: depth)
    }

    /// Whether items of `type` reference other items.
    @inline(__always)
    static func isContainer(_ type: UInt32) -> Bool {
        type == BookmarkItem.TypeCode.array || type == BookmarkItem.TypeCode.dictionary
            || type == BookmarkItem.TypeCode.relativeURL
    }

    /// Checks a leaf item whose header lies inside the section: its payload's bounds and the
    /// length its type requires.
    @inline(__always)
    func checkLeaf(at offset: UInt32, type: UInt32, length: UInt32) throws(BookmarkFormatError) -> Checked {
        let n = Int(length)
        try requireInSection(offset &+ 8, n)
        func bad() -> BookmarkFormatError {
            BookmarkFormatError(.badItemLength(type: type, length: length), at: absolute(offset))
        }
        switch type {
        case 0x0300...0x03FF:
            // Subtypes 1...6 have fixed widths (BookmarkNumber(subtype:payload:) refuses others);
            // any other subtype keeps any payload.
            switch (type & 0xFF, n) {
            case (1, 1), (2, 2), (3, 4), (4, 8), (5, 4), (6, 8): break
            case (1...6, _): throw bad()
            default: break
            }
        case BookmarkItem.TypeCode.date:
            guard n == 8 else { throw bad() }
        case BookmarkItem.TypeCode.boolFalse, BookmarkItem.TypeCode.boolTrue, BookmarkItem.TypeCode.null:
            guard n == 0 else { throw bad() }
        case BookmarkItem.TypeCode.uuid:
            guard n == 16 else { throw bad() }
        default:
            // Strings, data, URLs and unknown types take any payload.
            break
        }
        return (size: 1, height: 0, bytes: 8 + n)
    }

    /// Checks an item through the memo: containers, and anything whose header is out of bounds.
    private mutating func checkUnlessLeaf(at offset: UInt32, depth: Int) throws(BookmarkFormatError) -> Checked {
        switch memo.state(offset) {
        case .done(let m):
            guard depth + m.height <= limits.maxDepth else {
                throw BookmarkFormatError(.depthLimitExceeded(limit: limits.maxDepth), at: absolute(offset))
            }
            return m
        case .inProgress:
            throw BookmarkFormatError(.cycle(itemOffset: offset), at: absolute(offset))
        case .unseen:
            break
        }
        guard depth <= limits.maxDepth else {
            throw BookmarkFormatError(.depthLimitExceeded(limit: limits.maxDepth), at: absolute(offset))
        }
        try requireInSection(offset, 8)
        let abs = absolute(offset)
        let length = try reader.u32le(abs)
        let type = try reader.u32le(abs + 4)
        try requireInSection(offset &+ 8, Int(length))
        let payloadStart = abs + 8
        let n = Int(length)

        func bad() -> BookmarkFormatError { BookmarkFormatError(.badItemLength(type: type, length: length), at: abs) }

        // A leaf has no references: nothing to memoise (checking it again is as cheap as a
        // lookup), no cycle to find, and its counts are its own.
        if !DataSectionDecoder.isContainer(type) { return try checkLeaf(at: offset, type: type, length: length) }

        memo.begin(offset)
        defer { memo.abandon(offset) }

        var size = 1
        var height = 0
        var expandedBytes = 8 + n
        /// Adds a child's expanded counts and enforces the per-item limits.
        func add(_ child: Checked) throws(BookmarkFormatError) {
            size += child.size
            expandedBytes += child.bytes
            height = max(height, child.height + 1)
            guard size <= limits.maxItems else {
                throw BookmarkFormatError(.itemLimitExceeded(limit: limits.maxItems), at: abs)
            }
            guard expandedBytes <= limits.maxExpandedBytes else {
                throw BookmarkFormatError(.expandedSizeLimitExceeded(limit: limits.maxExpandedBytes), at: abs)
            }
        }
        switch type {
        case BookmarkItem.TypeCode.array:
            guard n % 4 == 0 else { throw bad() }
            for i in 0..<(n / 4) {
                try add(try checkItem(at: try reader.u32le(payloadStart + 4 * i), depth: depth + 1))
            }
        case BookmarkItem.TypeCode.dictionary:
            guard n % 8 == 0 else { throw bad() }
            for i in 0..<(n / 8) {
                let k = try checkItem(at: try reader.u32le(payloadStart + 8 * i), depth: depth + 1)
                let v = try checkItem(at: try reader.u32le(payloadStart + 8 * i + 4), depth: depth + 1)
                try add(k)
                try add(v)
            }
        case BookmarkItem.TypeCode.relativeURL:
            guard n == 8 else { throw bad() }
            let base = try checkItem(at: try reader.u32le(payloadStart), depth: depth + 1)
            let rel = try checkItem(at: try reader.u32le(payloadStart + 4), depth: depth + 1)
            try add(base)
            try add(rel)
        default:
            break
        }
        let result: Checked = (size: size, height: height, bytes: expandedBytes)
        memo.finish(offset, result)
        return result
    }
}

// BookmarkFormat: decoding Apple's `book` layout from untrusted bytes.

extension BookmarkDocument {
    /// The magic of in-memory bookmark data.
    public static let magic: [UInt8] = Array("book".utf8)

    /// Decodes bookmark data (`book` header, items, TOC chain).
    ///
    /// Trailing bytes after the size in the header are ignored, so blobs embedded in larger
    /// buffers decode. Every offset and length is bounds-checked; cycles, nesting depth, the
    /// expanded item count and the input size are limited by `limits`.
    ///
    /// - Parameters:
    ///   - bytes: the bookmark data.
    ///   - limits: bounds for hostile input.
    /// - Throws: ``BookmarkFormatError`` naming what was wrong and at which byte offset.
    public init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits = .default) throws(BookmarkFormatError) {
        guard bytes.count <= limits.maxInputSize else {
            throw BookmarkFormatError(.sizeLimitExceeded(size: bytes.count, limit: limits.maxInputSize), at: 0)
        }
        let r = ByteReader(bytes)
        try r.require(0, 16)
        let magic = Array(bytes[0..<4])
        guard magic == BookmarkDocument.magic || magic == Array("alis".utf8) else {
            throw BookmarkFormatError(.badMagic(found: magic), at: 0)
        }
        let size = Int(try r.u32le(4))
        let version = try r.u32le(8)
        let headerSize = Int(try r.u32le(12))
        guard size <= bytes.count else {
            throw BookmarkFormatError(.truncated(needed: size, available: bytes.count), at: 4)
        }
        guard headerSize >= 16, headerSize <= size, size - headerSize >= 4 else {
            throw BookmarkFormatError(.badHeader(field: "headerSize", value: UInt64(headerSize)), at: 12)
        }
        self = try BookmarkDocument.decodeDataSection(bytes, start: headerSize, end: size,
                                                      version: version, limits: limits)
    }

    /// Decodes a data section `bytes[start..<end]` whose offsets are relative to `start`: a u32
    /// first-TOC offset followed by items and TOCs.
    static func decodeDataSection(_ bytes: [UInt8], start: Int, end: Int, version: UInt32,
                                  limits: BookmarkDecodingLimits) throws(BookmarkFormatError) -> BookmarkDocument {
        var d = DataSectionDecoder(bytes: bytes, start: start, end: end, limits: limits)
        let first = try d.reader.u32le(start)
        var tocs: [BookmarkTOC] = []
        var seenOffsets: Set<UInt32> = []
        var seenIDs: Set<UInt32> = []
        var next = first
        while next != 0 {
            guard tocs.count < limits.maxTOCs else {
                throw BookmarkFormatError(.tocChain(reason: "more than \(limits.maxTOCs) TOCs"), at: d.absolute(next))
            }
            guard seenOffsets.insert(next).inserted else {
                throw BookmarkFormatError(.tocChain(reason: "TOC at data offset \(next) is reached twice"),
                                          at: d.absolute(next))
            }
            let (toc, following) = try d.decodeTOC(at: next)
            guard seenIDs.insert(toc.id).inserted else {
                throw BookmarkFormatError(.duplicateTOC(id: toc.id), at: d.absolute(next) + 8)
            }
            tocs.append(toc)
            next = following
        }
        guard !tocs.isEmpty else {
            throw BookmarkFormatError(.tocChain(reason: "the first-TOC offset is 0"), at: start)
        }
        return BookmarkDocument(version: version, tocs: tocs)
    }
}

/// Decodes items and TOCs of one data section, memoising shared items.
struct DataSectionDecoder {
    let reader: ByteReader
    let start: Int
    let end: Int
    let limits: BookmarkDecodingLimits
    /// Decoded items by data offset, with expanded node count, height and expanded byte size.
    var memo: OffsetMemo
    var totalExpanded = 0
    var totalExpandedBytes = 0

    typealias Decoded = (item: BookmarkItem, size: Int, height: Int, bytes: Int)

    init(bytes: [UInt8], start: Int, end: Int, limits: BookmarkDecodingLimits) {
        self.reader = ByteReader(bytes)
        self.start = start
        self.end = end
        self.limits = limits
        self.memo = OffsetMemo(sectionLength: end - start)
    }

    func absolute(_ offset: UInt32) -> Int { start + Int(offset) }

    /// Checks that `count` bytes at data offset `offset` lie inside the data section.
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
        var entries: [BookmarkEntry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let e = abs + 20 + 12 * i
            let rawKey = try reader.u32le(e)
            let itemOffset = try reader.u32le(e + 4)
            let flags = try reader.u32le(e + 8)
            let key: BookmarkKey
            if rawKey & 0x8000_0000 != 0 {
                let keyItem = try decodeRoot(at: rawKey & 0x7FFF_FFFF)
                guard case .string(let name) = keyItem else {
                    throw BookmarkFormatError(.stringKeyNotString(type: keyItem.typeCode), at: e)
                }
                key = .string(name)
            } else {
                key = .numeric(rawKey)
            }
            let value = try decodeRoot(at: itemOffset)
            entries.append(BookmarkEntry(key: key, value: value, flags: flags))
        }
        entries.sort { $0.key < $1.key }
        for i in entries.indices.dropFirst() where entries[i].key == entries[i - 1].key {
            throw BookmarkFormatError(.duplicateKey(entries[i].key.description), at: abs + 20)
        }
        return (BookmarkTOC(id: id, sortedUniqueEntries: entries), next)
    }

    /// Decodes a TOC-referenced item and charges its expanded size to the global budget.
    mutating func decodeRoot(at offset: UInt32) throws(BookmarkFormatError) -> BookmarkItem {
        let decoded = try decodeItem(at: offset, depth: 0)
        totalExpanded += decoded.size
        totalExpandedBytes += decoded.bytes
        guard totalExpanded <= limits.maxItems else {
            throw BookmarkFormatError(.itemLimitExceeded(limit: limits.maxItems), at: absolute(offset))
        }
        guard totalExpandedBytes <= limits.maxExpandedBytes else {
            throw BookmarkFormatError(.expandedSizeLimitExceeded(limit: limits.maxExpandedBytes), at: absolute(offset))
        }
        return decoded.item
    }

    mutating func decodeItem(at offset: UInt32, depth: Int) throws(BookmarkFormatError) -> Decoded {
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
        memo.begin(offset)
        defer { memo.abandon(offset) }

        func bad() -> BookmarkFormatError { BookmarkFormatError(.badItemLength(type: type, length: length), at: abs) }

        var size = 1
        var height = 0
        var expandedBytes = 8 + n
        /// Adds a child's expanded counts and enforces the per-item limits.
        func add(_ child: Decoded) throws(BookmarkFormatError) {
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
        let item: BookmarkItem
        switch type {
        case BookmarkItem.TypeCode.string:
            item = .string(ByteString(bytes: try reader.slice(payloadStart, n)))
        case BookmarkItem.TypeCode.data:
            item = .data(try reader.slice(payloadStart, n))
        case 0x0300...0x03FF:
            // The fixed-width subtypes straight from the bytes (no payload array), as
            // BookmarkNumber(subtype:payload:) would decode them.
            switch (type & 0xFF, n) {
            case (1, 1): item = .number(.sint8(Int8(bitPattern: try reader.u8(payloadStart))))
            case (2, 2): item = .number(.sint16(Int16(bitPattern: try reader.u16le(payloadStart))))
            case (3, 4): item = .number(.sint32(Int32(bitPattern: try reader.u32le(payloadStart))))
            case (4, 8): item = .number(.sint64(Int64(bitPattern: try reader.u64le(payloadStart))))
            case (5, 4): item = .number(.float32(Float(bitPattern: try reader.u32le(payloadStart))))
            case (6, 8): item = .number(.float64(Double(bitPattern: try reader.u64le(payloadStart))))
            default:
                guard let num = BookmarkNumber(subtype: UInt8(type & 0xFF), payload: try reader.slice(payloadStart, n))
                else { throw bad() }
                item = .number(num)
            }
        case BookmarkItem.TypeCode.date:
            guard n == 8 else { throw bad() }
            item = .date(BookmarkDate(secondsSinceReferenceDate: Double(bitPattern: try reader.u64be(payloadStart))))
        case BookmarkItem.TypeCode.boolFalse, BookmarkItem.TypeCode.boolTrue:
            guard n == 0 else { throw bad() }
            item = .bool(type == BookmarkItem.TypeCode.boolTrue)
        case BookmarkItem.TypeCode.null:
            guard n == 0 else { throw bad() }
            item = .null
        case BookmarkItem.TypeCode.uuid:
            guard n == 16, let u = BookmarkUUID(bytes: try reader.slice(payloadStart, n)) else { throw bad() }
            item = .uuid(u)
        case BookmarkItem.TypeCode.url:
            item = .url(ByteString(bytes: try reader.slice(payloadStart, n)))
        case BookmarkItem.TypeCode.array:
            guard n % 4 == 0 else { throw bad() }
            var elements: [BookmarkItem] = []
            elements.reserveCapacity(n / 4)
            for i in 0..<(n / 4) {
                let child = try decodeItem(at: try reader.u32le(payloadStart + 4 * i), depth: depth + 1)
                elements.append(child.item)
                try add(child)
            }
            item = .array(elements)
        case BookmarkItem.TypeCode.dictionary:
            guard n % 8 == 0 else { throw bad() }
            var pairs: [BookmarkDictionaryEntry] = []
            pairs.reserveCapacity(n / 8)
            for i in 0..<(n / 8) {
                let k = try decodeItem(at: try reader.u32le(payloadStart + 8 * i), depth: depth + 1)
                let v = try decodeItem(at: try reader.u32le(payloadStart + 8 * i + 4), depth: depth + 1)
                pairs.append(BookmarkDictionaryEntry(key: k.item, value: v.item))
                try add(k)
                try add(v)
            }
            item = .dictionary(pairs)
        case BookmarkItem.TypeCode.relativeURL:
            guard n == 8 else { throw bad() }
            let base = try decodeItem(at: try reader.u32le(payloadStart), depth: depth + 1)
            let rel = try decodeItem(at: try reader.u32le(payloadStart + 4), depth: depth + 1)
            try add(base)
            try add(rel)
            item = .relativeURL(base: base.item, relative: rel.item)
        default:
            item = .unknown(type: type, payload: try reader.slice(payloadStart, n))
        }
        let result: Decoded = (item: item, size: size, height: height, bytes: expandedBytes)
        memo.finish(offset, result)
        return result
    }
}

/// Decoded items by data offset, and the offsets being decoded (for cycle detection).
///
/// For sections up to 64 KiB (every real bookmark) a dense table indexed by offset replaces
/// hashing; larger sections use dictionaries.
struct OffsetMemo {
    enum State {
        case unseen
        case inProgress
        case done(DataSectionDecoder.Decoded)
    }

    static let denseLimit = 1 << 16
    /// Per offset: 0 unseen, -1 in progress, else 1 + index into `items`.
    private var dense: [Int32]
    private var items: [DataSectionDecoder.Decoded] = []
    private var sparse: [UInt32: DataSectionDecoder.Decoded] = [:]
    private var sparseInProgress: Set<UInt32> = []

    init(sectionLength: Int) {
        dense = sectionLength >= 0 && sectionLength <= OffsetMemo.denseLimit
            ? Array(repeating: 0, count: sectionLength + 1) : []
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

    mutating func finish(_ offset: UInt32, _ result: DataSectionDecoder.Decoded) {
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

// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: a new bookmark's bytes written from one file's facts and its volume's template,
// with no record built in between.

/// The items a creation writes for each file, where its volume's template holds a placeholder.
package enum CreationSlot: Sendable, Hashable {
    /// `0x1004`: the path's components.
    case pathComponents
    /// `0x1005`: the inode number of each directory on the path, then the object's.
    case fileIDs
    /// `0x1010`: the kind and hidden flags.
    case resourceProperties
    /// `0x1020`: the last component.
    case fileName
    /// `0x1030`: the object's inode number.
    case fileID
    /// `0x1040`: the object's birth time.
    case creationDate
    /// Our compact Linux item (``LinuxKeys/compact``).
    case linux
    /// `NSURLFileSizeKey`.
    case fileSize
    /// `NSURLContentModificationDateKey`.
    case modificationDate
}

/// One file's facts as a creation records them: what ``CreationPlan/write(_:_:)`` puts under the
/// template's placeholders. A `nil` fact leaves its key out, as setting it to `nil` on a record
/// removes it.
package struct CreationFacts: Sendable {
    /// The object's canonical absolute path (no empty, `.` or `..` component), not `/`.
    package var path: [UInt8]
    /// The inode numbers of the directories on ``path``, `/` excluded: one per component but the last.
    package var ancestorInodes: [UInt64]
    package var inode: UInt64
    package var creationDate: BookmarkDate?
    /// The `0x1010` item's payload (``BookmarkPropertyFlags/bytes``).
    package var resourceProperties: [UInt8]
    /// Encoded as ``BookmarkRecord`` encodes them, the mount-relative path counted against ``path``.
    package var linux: LinuxFileFacts
    package var fileSize: Int64?
    package var modificationDate: BookmarkDate?

    package init(
        path: [UInt8], ancestorInodes: [UInt64], inode: UInt64, creationDate: BookmarkDate?, resourceProperties: [UInt8],
        linux: LinuxFileFacts, fileSize: Int64?, modificationDate: BookmarkDate?
    ) {
        self.path = path
        self.ancestorInodes = ancestorInodes
        self.inode = inode
        self.creationDate = creationDate
        self.resourceProperties = resourceProperties
        self.linux = linux
        self.fileSize = fileSize
        self.modificationDate = modificationDate
    }
}

/// A template record (a volume's facts, the options, the user, and a placeholder under each key
/// ``CreationSlot`` names) prepared for writing bookmarks straight from ``CreationFacts``.
///
/// The bytes are the ones `BookmarkRecord.encoded()` gives for the record a creation would fill
/// from the same template and facts: the same item order (Apple's, then the rest by key), the
/// same sharing of equal items, the same table. Only the work differs: the template's items are
/// encoded once, here, with their hashes; each file's items are written from its path and numbers,
/// without the record's entries, boxed items and copy-on-write table, and without freeing them
/// afterwards. `Tests/BookmarkKitTests/CreationPlanTests.swift` checks the bytes against the
/// record's on real volumes.
package final class CreationPlan: Sendable {
    struct Entry: Sendable {
        /// The TOC key word of a numeric key; `nil` for a string key (its word is the offset of
        /// its name, known only while writing).
        var numericKey: UInt32?
        /// A string key's name, encoded as a string item, in ``CreationPlan/encoded``.
        var name: Range<Int>?
        var nameHash: UInt64
        /// The template's item, encoded, in ``CreationPlan/encoded``; `nil` for a slot.
        var item: Range<Int>?
        var itemHash: UInt64
        var slot: CreationSlot?
        var flags: UInt32
    }

    /// The template's items and string keys' names, each encoded (header and payload).
    let encoded: [UInt8]
    /// The template's entries, in TOC (key) order.
    let entries: [Entry]
    /// Indices of ``entries`` in the order the encoder writes their items: Apple's standard keys
    /// in Apple's order, then the others in key order.
    let writeOrder: [Int]
    let tocID: UInt32
    let version: UInt32

    /// Prepares `template`; `nil` when it is not one this writer reproduces byte for byte (more
    /// than one TOC, or an item holding other items, whose offsets depend on where it lies).
    ///
    /// - Parameter slots: The keys whose items come from each file, whatever the template holds
    ///   under them.
    package init?(template: BookmarkRecord, slots: [BookmarkKey: CreationSlot]) {
        let document = template.document
        guard document.tocs.count == 1, let toc = document.tocs.first else { return nil }
        var built: [Entry] = []
        built.reserveCapacity(toc.entries.count)
        var bytes: [UInt8] = []
        let failed: Bool = (try? ItemEncoder.withEncoder(base: 0, capacity: 1024) { (e) throws(BookmarkFormatError) -> Bool in
            var ranges: [(name: Range<Int>?, item: Range<Int>?)] = []
            func range(at offset: UInt32) -> Range<Int>? {
                let start = Int(offset)
                return e.withBytes { all -> Range<Int>? in
                    guard start >= 0, start + 8 <= all.count else { return nil }
                    let length = Int(all.load(fromByteOffset: start, as: UInt32.self).littleEndian)
                    guard length <= all.count - start - 8 else { return nil }
                    return start..<(start + 8 + length)
                }
            }
            for entry in toc.entries {
                var name: Range<Int>?
                if entry.key.numericWord == nil {
                    guard let offset = try entry.key.withNameBytes({ (text) throws(BookmarkFormatError) in
                        try e.leaf(BookmarkItem.TypeCode.string, text)
                    }), let span = range(at: offset) else { return true }
                    name = span
                } else if let word = entry.key.numericWord, word & 0x8000_0000 != 0 {
                    return true
                }
                var item: Range<Int>?
                if slots[entry.key] == nil {
                    let offset = try e.write(entry.storage)
                    guard let span = range(at: offset) else { return true }
                    let type = e.withBytes { $0.load(fromByteOffset: span.lowerBound + 4, as: UInt32.self).littleEndian }
                    // Containers hold their children's offsets: valid only where they were written.
                    if type == BookmarkItem.TypeCode.array || type == BookmarkItem.TypeCode.dictionary
                        || type == BookmarkItem.TypeCode.relativeURL
                    {
                        return true
                    }
                    item = span
                }
                ranges.append((name, item))
            }
            bytes = e.withBytes { Array($0) }
            built = zip(toc.entries, ranges).map { entry, spans in
                Entry(
                    numericKey: entry.key.numericWord, name: spans.name, nameHash: 0, item: spans.item, itemHash: 0,
                    slot: slots[entry.key], flags: entry.flags)
            }
            return false
        }) ?? true
        if failed { return nil }
        bytes.withUnsafeBytes { all in
            func hash(_ span: Range<Int>?) -> UInt64 {
                guard let span, let base = all.baseAddress else { return 0 }
                return ItemEncoder.hash(base + span.lowerBound, span.count)
            }
            for index in built.indices {
                built[index].nameHash = hash(built[index].name)
                built[index].itemHash = hash(built[index].item)
            }
        }
        // The encoder's order (SectionWriter): the leading numeric keys by Apple's rank, then the rest.
        var byRank = [Int?](repeating: nil, count: BookmarkDocument.appleItemOrder.count)
        for (index, entry) in built.enumerated() {
            guard let word = entry.numericKey else { break }
            if let rank = BookmarkDocument.appleRank(word), rank < byRank.count { byRank[rank] = index }
        }
        let standard = byRank.compactMap { $0 }
        let standardSet = Set(standard)
        encoded = bytes
        entries = built
        writeOrder = standard + built.indices.filter { !standardSet.contains($0) }
        tocID = toc.id
        version = document.version
    }

    /// The bookmark's bytes (header, data section, table), handed to `make` in place.
    ///
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) only when ``CreationFacts/linux`` cannot
    ///   be encoded (a birth time's nanoseconds out of range) or the result would pass 4 GiB.
    package func write<R>(_ facts: CreationFacts, _ make: (UnsafeRawBufferPointer) -> R) throws(BookmarkFormatError) -> R {
        // The work is in a function that is not generic: called from another module, a generic
        // one runs unspecialised (type metadata looked up at run time).
        var made: R?
        try writeBytes(facts) { made = make($0) }
        guard let made else { throw BookmarkFormatError(.unencodable("the bookmark was not written"), at: nil) }
        return made
    }

    /// ``write(_:_:)`` for a body that keeps what it needs.
    private func writeBytes(_ facts: CreationFacts, _ body: (UnsafeRawBufferPointer) -> Void) throws(BookmarkFormatError) {
        let linux: [UInt8]? =
            facts.linux.isEmpty ? nil : try CompactLinuxFacts.encode(facts.linux, path: .splitFrom(facts.path))
        let header = BookmarkDocument.appleHeaderSize
        let components = facts.ancestorInodes.count + 1
        let estimate = header + encoded.count + facts.path.count + 40 * components + (linux?.count ?? 0) + 160 + 12 * entries.count
        try ItemEncoder.withEncoder(base: header, capacity: estimate) { (e) throws(BookmarkFormatError) in
            e.appendU32(0)  // the table's offset, set below
            try withUnsafeTemporaryAllocation(of: (UInt32, UInt32, UInt32).self, capacity: entries.count) {
                (rows) throws(BookmarkFormatError) in
                rows.initialize(repeating: (0, 0, 0))
                try Self.withBytes(encoded) { (all) throws(BookmarkFormatError) in
                    for index in writeOrder {
                        let entry = entries[index]
                        if let slot = entry.slot, !facts.has(slot, linux: linux) { continue }
                        var word: UInt32
                        if let numeric = entry.numericKey {
                            word = numeric
                        } else if let name = entry.name {
                            let offset = try e.writeEncoded(UnsafeRawBufferPointer(rebasing: all[name]), hash: entry.nameHash)
                            guard offset & 0x8000_0000 == 0 else {
                                throw BookmarkFormatError(.unencodable("string key beyond 2 GiB"), at: nil)
                            }
                            word = 0x8000_0000 | offset
                        } else {
                            continue
                        }
                        let offset: UInt32
                        if let slot = entry.slot {
                            offset = try Self.write(slot, facts, linux: linux, into: &e)
                        } else if let item = entry.item {
                            offset = try e.writeEncoded(UnsafeRawBufferPointer(rebasing: all[item]), hash: entry.itemHash)
                        } else {
                            continue
                        }
                        rows[index] = (word, offset, entry.flags)
                    }
                }
                // The table: the entries written, in key order (the words of string keys follow
                // their names' offsets; sorted as the encoder sorts them when those are not in order).
                var count = 0
                for index in 0..<entries.count where rows[index].1 != 0 {
                    rows[count] = rows[index]
                    count += 1
                }
                var sorted = true
                for index in stride(from: 1, to: count, by: 1) where rows[index - 1].0 > rows[index].0 { sorted = false }
                if !sorted { rows[0..<count].sort { $0.0 < $1.0 } }
                let table = try e.alignedOffset()
                e.appendU32(UInt32(12 * count + 12))
                e.appendU32(0xFFFF_FFFE)
                e.appendU32(tocID)
                e.appendU32(0)
                e.appendU32(UInt32(count))
                for index in 0..<count {
                    e.appendU32(rows[index].0)
                    e.appendU32(rows[index].1)
                    e.appendU32(rows[index].2)
                }
                e.setU32(table, at: header)
                guard e.count <= Int(UInt32.max) else {
                    throw BookmarkFormatError(.unencodable("bookmark larger than 4 GiB"), at: nil)
                }
                e.setU32(BookmarkDocument.magicWord, at: 0)
                e.setU32(UInt32(e.count), at: 4)
                e.setU32(version, at: 8)
                e.setU32(UInt32(header), at: 12)
                e.withBytes(body)
            }
        }
    }

    /// One slot's item, written as the encoder writes the record's item for it.
    private static func write(
        _ slot: CreationSlot, _ facts: CreationFacts, linux: [UInt8]?, into e: inout ItemEncoder
    ) throws(BookmarkFormatError) -> UInt32 {
        switch slot {
        case .pathComponents:
            let first = e.pendingCount
            try Self.withBytes(facts.path) { (path) throws(BookmarkFormatError) in
                var start = 0
                for index in 0...path.count where index == path.count || path[index] == UInt8(ascii: "/") {
                    if index > start {
                        e.push(try e.leaf(BookmarkItem.TypeCode.string, UnsafeRawBufferPointer(rebasing: path[start..<index])))
                    }
                    start = index + 1
                }
            }
            return try e.words(BookmarkItem.TypeCode.array, from: first)
        case .fileName:
            return try Self.withBytes(facts.path) { (path) throws(BookmarkFormatError) -> UInt32 in
                var start = path.count
                while start > 0, path[start - 1] != UInt8(ascii: "/") { start -= 1 }
                return try e.leaf(BookmarkItem.TypeCode.string, UnsafeRawBufferPointer(rebasing: path[start...]))
            }
        case .fileIDs:
            let first = e.pendingCount
            for inode in facts.ancestorInodes { e.push(try number(Int64(bitPattern: inode), into: &e)) }
            e.push(try number(Int64(bitPattern: facts.inode), into: &e))
            return try e.words(BookmarkItem.TypeCode.array, from: first)
        case .fileID: return try number(Int64(bitPattern: facts.inode), into: &e)
        case .creationDate: return try date(facts.creationDate ?? BookmarkDate(secondsSinceReferenceDate: 0), into: &e)
        case .resourceProperties: return try e.leaf(BookmarkItem.TypeCode.data, facts.resourceProperties)
        case .linux: return try e.leaf(BookmarkItem.TypeCode.data, linux ?? [])
        case .fileSize: return try number(facts.fileSize ?? 0, into: &e)
        case .modificationDate: return try date(facts.modificationDate ?? BookmarkDate(secondsSinceReferenceDate: 0), into: &e)
        }
    }

    /// `bytes.withUnsafeBytes` keeping the body's error type (the standard one rethrows `any Error`).
    private static func withBytes<R>(
        _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(BookmarkFormatError) -> R
    ) throws(BookmarkFormatError) -> R {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(BookmarkFormatError) -> R in try body(raw) } }
        return try result.get()
    }

    /// An SInt64 number item (`BookmarkItem.int64`).
    private static func number(_ value: Int64, into e: inout ItemEncoder) throws(BookmarkFormatError) -> UInt32 {
        try e.fixed(BookmarkItem.TypeCode.numberBase | 4, UInt64(bitPattern: value), count: 8)
    }

    /// A date item: seconds since 2001 as a big-endian double.
    private static func date(_ value: BookmarkDate, into e: inout ItemEncoder) throws(BookmarkFormatError) -> UInt32 {
        try e.fixed(BookmarkItem.TypeCode.date, value.secondsSinceReferenceDate.bitPattern.byteSwapped, count: 8)
    }
}

extension CreationFacts {
    /// Whether the record a creation fills would hold an item under `slot`.
    func has(_ slot: CreationSlot, linux: [UInt8]?) -> Bool {
        switch slot {
        case .creationDate: return creationDate != nil
        case .fileSize: return fileSize != nil
        case .modificationDate: return modificationDate != nil
        case .linux: return linux != nil
        case .pathComponents, .fileIDs, .resourceProperties, .fileName, .fileID: return true
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Decoded documents keep validated bytes and build items on access; they must behave exactly
// like documents built from values: same items, same equality and hashes, same encoded bytes.
import BookmarkFormat
import Testing
import VolumeFixtures

@Suite("Lazy storage")
struct LazyStorageTests {
    /// The same document with every item built, as if decoded eagerly.
    static func eager(_ doc: BookmarkDocument) -> BookmarkDocument {
        BookmarkDocument(version: doc.version, tocs: doc.tocs.map { toc in
            BookmarkTOC(id: toc.id, entries: toc.entries.map { BookmarkEntry(key: $0.key, value: $0.value, flags: $0.flags) })
        })
    }

    /// Whether every entry of `doc` still holds its item as stored bytes.
    static func allStored(_ doc: BookmarkDocument) -> Bool {
        doc.tocs.allSatisfy { toc in
            toc.entries.allSatisfy(\.isStored)
        }
    }

    /// One item of every type, nested ones included.
    static let everyType: [BookmarkItem] = [
        .string("name"), .string(ByteString(bytes: [0xFF, 0xFE, 0x00])), .data([1, 2, 3, 4, 5]), .data([]),
        .number(.sint8(-3)), .number(.sint16(-300)), .number(.sint32(-70_000)), .number(.sint64(1 << 40)),
        .number(.float32(1.5)), .number(.float64(-2.25)), .number(.other(subtype: 9, bytes: [1, 0, 0, 0])),
        .number(.other(subtype: 0x20, bytes: [1, 2, 3])),
        .date(BookmarkDate(secondsSinceReferenceDate: 123_456.5)), .bool(true), .bool(false), .null,
        .url("file:///tmp/"), .relativeURL(base: .url("file:///tmp/"), relative: .string("a/b")),
        .array([.string("x"), .int64(1), .array([.null, .bool(true)])]),
        .dictionary([BookmarkDictionaryEntry(key: .string("k"), value: .int32(7)),
                     BookmarkDictionaryEntry(key: .int64(2), value: .array([]))]),
        .unknown(type: 0x0B01, payload: [9, 8, 7]),
    ] + (BookmarkUUID(bytes: Array(0..<16)).map { [BookmarkItem.uuid($0)] } ?? [])

    static func everyTypeDocument() -> BookmarkDocument {
        var doc = BookmarkDocument()
        for (i, item) in everyType.enumerated() { doc[.numeric(0xE000 + UInt32(i))] = item }
        doc[.pathComponents] = .array([.string("tmp"), .string("name")])
        doc[LinuxKeys.fsType] = .string("ext4")
        doc[.string("custom key")] = .data([1])
        doc[tocID: BookmarkTOC.bootVolumeID] = BookmarkTOC(id: BookmarkTOC.bootVolumeID, entries: [
            BookmarkEntry(key: .volName, value: .string("boot")), BookmarkEntry(key: .volPath, value: .string("/")),
        ])
        return doc
    }

    @Test func everyItemTypeReadsBackFromStoredBytes() throws {
        let built = Self.everyTypeDocument()
        let bytes = try built.encoded()
        let decoded = try BookmarkDocument(decoding: bytes)
        #expect(Self.allStored(decoded))
        for (i, item) in Self.everyType.enumerated() {
            #expect(decoded[.numeric(0xE000 + UInt32(i))] == item, "item \(i): \(item.typeName)")
        }
        #expect(decoded == built)
        #expect(decoded.hashValue == built.hashValue)
        // Copying stored items writes exactly what the value encoder writes.
        #expect(try decoded.encoded() == bytes)
        #expect(try Self.eager(decoded).encoded() == bytes)
    }

    @Test("lazily decoded equals eagerly built, and encodes to the same bytes", arguments: Fixtures.goodNames)
    func lazyEqualsEager(_ name: String) throws {
        let lazy = try Fixtures.record(name).document
        let eager = Self.eager(lazy)
        #expect(Self.allStored(lazy))
        #expect(!Self.allStored(eager))
        #expect(lazy == eager)
        #expect(eager == lazy)
        #expect(lazy.hashValue == eager.hashValue)
        #expect(Set([lazy, eager]).count == 1)
        #expect(try lazy.encoded() == eager.encoded())
        #expect(try lazy.encodedDataSection() == eager.encodedDataSection())
    }

    @Test func randomRecordsEncodeAlikeEitherWay() throws {
        for seed in 0..<300 as Range<UInt64> {
            let record = RandomRecords.record(seed: seed, interop: false)
            let bytes = try record.encoded()
            let lazy = try BookmarkDocument(decoding: bytes)
            #expect(lazy == record.document)
            #expect(try lazy.encoded() == bytes)
            #expect(try Self.eager(lazy).encoded() == bytes)
        }
    }

    @Test func documentsFromDifferentBytesCompareByValue() throws {
        let bytes = try Fixtures.bytes("fq-sample1.book")
        let a = try BookmarkDocument(decoding: bytes)
        let b = try BookmarkDocument(decoding: bytes + [0, 0, 0])  // trailing bytes: another array
        #expect(a == b)
        var c = b
        c[.fileName] = .string("other")
        #expect(a != c)
        #expect(c != a)
    }

    @Test("decode, change one key, encode: the same bytes as the value encoder", arguments: Fixtures.goodNames)
    func modifiedThenEncoded(_ name: String) throws {
        var lazy = try Fixtures.record(name).document
        var eager = Self.eager(lazy)
        lazy[.fileName] = .string("renamed.txt")
        eager[.fileName] = .string("renamed.txt")
        lazy[.numeric(0xE123)] = .array([.string("new"), .int64(5)])
        eager[.numeric(0xE123)] = .array([.string("new"), .int64(5)])
        let bytes = try lazy.encoded()
        #expect(bytes == (try eager.encoded()))
        let again = try BookmarkDocument(decoding: bytes)
        #expect(again == eager)
        #expect(again[.fileName] == .string("renamed.txt"))
        // Removing an entry and moving a stored one to another document also mix correctly.
        var other = BookmarkDocument()
        for entry in lazy.targetTOC?.entries ?? [] where entry.key != .fileName { other[entry.key] = entry.value }
        #expect(try BookmarkDocument(decoding: other.encoded())[.fileName] == nil)
    }

    @Test func storedEntriesMoveBetweenDocuments() throws {
        let source = try Fixtures.record("fq-sample2.book").document
        let entries = source.targetTOC?.entries ?? []
        // Entries keep their bytes; a document made of them encodes like one made of values.
        let moved = BookmarkDocument(tocs: [BookmarkTOC(id: 1, entries: entries)])
        let built = BookmarkDocument(tocs: [BookmarkTOC(id: 1, entries: entries.map {
            BookmarkEntry(key: $0.key, value: $0.value, flags: $0.flags)
        })])
        #expect(try moved.encoded() == built.encoded())
    }

    @Test func entriesOfTwoDecodedDocumentsMixInOneTOC() throws {
        // A TOC keeps one section: the entries of the first document stay stored, those of the
        // second are built, and the TOC reads, compares, hashes and encodes as if built of values.
        let first = try Fixtures.record("fq-sample2.book").document
        let second = try Fixtures.record("fq-sample1.book").document
        let ours = (first.targetTOC?.entries ?? []).filter { $0.key != .fileName && $0.key != .volName }
        let theirs = (second.targetTOC?.entries ?? []).filter { $0.key == .fileName || $0.key == .volName }
        #expect(!theirs.isEmpty)
        let all = ours + theirs
        #expect(all.allSatisfy { $0.isStored })
        let mixed = BookmarkTOC(id: 1, entries: all)
        let byValue = BookmarkTOC(id: 1, entries: all.map { BookmarkEntry(key: $0.key, value: $0.value, flags: $0.flags) })
        let stored = mixed.entries.filter { $0.isStored }.map { $0.key }
        #expect(Set(stored) == Set(ours.map(\.key)))
        for entry in theirs { #expect(mixed[entry.key] == entry.value) }
        #expect(mixed == byValue)
        #expect(mixed.hashValue == byValue.hashValue)
        let bytes = try BookmarkDocument(tocs: [mixed]).encoded()
        let valueBytes = try BookmarkDocument(tocs: [byValue]).encoded()
        #expect(bytes == valueBytes)
        #expect(try BookmarkDocument(decoding: bytes).targetTOC == byValue)
    }

    @Test func manyContainersGrowTheValidationMemo() throws {
        // More containers than the memo's first room (eight), some of them shared by two keys,
        // and nested: each is validated once, and the document reads and re-encodes as built.
        var doc = BookmarkDocument()
        for i in 0..<40 {
            let inner: BookmarkItem = .array([.string("inner \(i % 5)"), .int64(Int64(i % 5))])
            doc[.numeric(0xE000 + UInt32(i))] = .array([inner, .string("outer \(i % 20)")])
        }
        let bytes = try doc.encoded()
        let lazy = try BookmarkDocument(decoding: bytes)
        #expect(lazy == doc)
        #expect(try lazy.encoded() == bytes)
        #expect(lazy[.numeric(0xE000 + 27)] == .array([.array([.string("inner 2"), .int64(2)]), .string("outer 7")]))
    }

    @Test func badItemsNestedAnywhereFailAtDecode() throws {
        // A bool with a payload, hidden inside an array inside a dictionary: refused when
        // decoding, not when the entry is read.
        var doc = BookmarkDocument()
        doc[.numeric(0xE000)] = .dictionary([BookmarkDictionaryEntry(key: .string("k"), value: .array([.bool(true)]))])
        var bytes = try doc.encoded()
        let boolHeader: [UInt8] = [0, 0, 0, 0, 0x01, 0x05, 0, 0]
        let at = try #require(Self.find(boolHeader, in: bytes))
        bytes[at] = 4  // length 4 for a bool
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkDocument(decoding: bytes) }
    }

    @Test func everyDecodableMutationReadsAndEncodesLikeValues() throws {
        // Whatever decoding accepts can be read and encoded later without failing differently
        // from a document of values.
        for name in Fixtures.bookmarkNames {
            let bytes = try Fixtures.bytes(name)
            var rng = SplitMix(seed: 99)
            for i in 48..<bytes.count {
                var m = bytes
                m[i] = UInt8(truncatingIfNeeded: rng.next())
                guard let lazy = try? BookmarkDocument(decoding: m) else { continue }
                let eager = Self.eager(lazy)
                #expect(lazy == eager)
                let a = Result { () throws(BookmarkFormatError) in try lazy.encoded() }
                let b = Result { () throws(BookmarkFormatError) in try eager.encoded() }
                switch (a, b) {
                case (.success(let x), .success(let y)): #expect(x == y, "\(name) byte \(i)")
                case (.failure(let x), .failure(let y)): #expect(x == y, "\(name) byte \(i)")
                default: Issue.record("\(name) byte \(i): lazy \(a), eager \(b)")
                }
            }
        }
    }

    @Test func unalignedAndSharedItemsInCraftedInput() throws {
        // Items at odd offsets (Apple never writes them, but they are valid) and one string
        // referenced from two places.
        var section: [UInt8] = [0, 0, 0, 0]  // first-TOC offset, patched below
        func item(_ type: UInt32, _ payload: [UInt8]) -> UInt32 {
            let offset = UInt32(section.count)
            section += UInt32(payload.count).littleEndianBytes + type.littleEndianBytes + payload
            return offset
        }
        section.append(0xAA)  // makes every following item unaligned
        let s = item(BookmarkItem.TypeCode.string, Array("shared".utf8))
        let n = item(BookmarkItem.TypeCode.numberBase | 4, Int64(42).littleEndianBytes)
        let array = item(BookmarkItem.TypeCode.array, s.littleEndianBytes + n.littleEndianBytes + s.littleEndianBytes)
        let tocOffset = UInt32(section.count)
        let entries: [(UInt32, UInt32)] = [(0x1004, array), (0x1020, s)]
        section += UInt32(12 * entries.count + 12).littleEndianBytes + UInt32(0xFFFF_FFFE).littleEndianBytes
            + UInt32(1).littleEndianBytes + UInt32(0).littleEndianBytes + UInt32(entries.count).littleEndianBytes
        for (k, o) in entries { section += k.littleEndianBytes + o.littleEndianBytes + UInt32(0).littleEndianBytes }
        section.replaceSubrange(0..<4, with: tocOffset.littleEndianBytes)
        let bytes = Array("book".utf8) + UInt32(48 + section.count).littleEndianBytes
            + BookmarkDocument.appleVersion.littleEndianBytes + UInt32(48).littleEndianBytes
            + [UInt8](repeating: 0, count: 32) + section

        let lazy = try BookmarkDocument(decoding: bytes)
        #expect(lazy[.pathComponents] == .array([.string("shared"), .int64(42), .string("shared")]))
        #expect(lazy[.fileName] == .string("shared"))
        let encoded = try lazy.encoded()
        #expect(encoded == (try Self.eager(lazy).encoded()))
        #expect(encoded != bytes)  // re-encoding aligns and shares
        #expect(try BookmarkDocument(decoding: encoded) == lazy)
    }

    @Test func largeDocumentsGrowEveryEncoderBuffer() throws {
        // More items than the encoder's first table, a deeper child stack, more output than its guess.
        var doc = BookmarkDocument()
        doc[.pathComponents] = .array((0..<300).map { .string("component \($0)") })
        doc[.fileIDs] = .array((0..<300).map { .int64(Int64($0)) })
        doc[.numeric(0xE000)] = .data([UInt8](repeating: 7, count: 100_000))
        let bytes = try doc.encoded()
        let lazy = try BookmarkDocument(decoding: bytes)
        #expect(lazy == doc)
        #expect(try lazy.encoded() == bytes)
        #expect(try Self.eager(lazy).encoded() == bytes)
    }

    @Test func outOfOrderAndRepeatedKeys() throws {
        var doc = BookmarkDocument()
        doc[.fileName] = .string("b")
        doc[.pathComponents] = .array([])
        doc[.string("zeta")] = .int32(1)
        doc[.string("alpha")] = .int32(2)
        var bytes = try doc.encoded()
        // Swap the first two table rows: still a valid document, sorted on decode.
        let toc = 48 + Int(try ByteReader(bytes).u32le(48))
        let rows = toc + 20
        let first = Array(bytes[rows..<(rows + 12)])
        bytes.replaceSubrange(rows..<(rows + 12), with: bytes[(rows + 12)..<(rows + 24)])
        bytes.replaceSubrange((rows + 12)..<(rows + 24), with: first)
        let swapped = try BookmarkDocument(decoding: bytes)
        #expect(swapped == doc)
        #expect(swapped.targetTOC?.keys == doc.targetTOC?.keys)
        // The same row twice: a repeated key is refused.
        bytes.replaceSubrange((rows + 12)..<(rows + 24), with: bytes[rows..<(rows + 12)])
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkDocument(decoding: bytes) }
    }

    @Test func knownStringKeysDecodeToEqualKeys() throws {
        var doc = BookmarkDocument()
        for key in LinuxKeys.legacy + [LinuxKeys.compact] { doc[key] = .int32(1) }
        doc[.string("NSURLFileSizeKey")] = .int64(3)
        doc[.string("org.swift-bookmarks.linux.unknown")] = .int64(4)
        let decoded = try BookmarkDocument(decoding: doc.encoded())
        #expect(decoded.targetTOC?.keys == doc.targetTOC?.keys)
        for key in LinuxKeys.legacy + [LinuxKeys.compact] { #expect(decoded[key] == .int32(1)) }
        #expect(decoded[.string("org.swift-bookmarks.linux.unknown")] == .int64(4))
    }

    @Test func appleRankFollowsAppleItemOrder() {
        for (rank, key) in BookmarkDocument.appleItemOrder.enumerated() {
            guard case .numeric(let word) = key else { Issue.record("\(key) is not numeric"); continue }
            #expect(BookmarkDocument.appleRank(word) == rank)
        }
        #expect(BookmarkDocument.appleRank(0x1030) == nil)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}

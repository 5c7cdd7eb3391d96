// SPDX-License-Identifier: Apache-2.0
// Decode → encode is lossless, and our encoder writes the fixtures back byte for byte.
import Testing
import BookmarkFormat

@Suite("Round trips")
struct RoundTripTests {
    /// The data section (offset 48 of bookmark data, 56 of an alias file) of a fixture.
    static func dataSection(_ name: String) throws -> [UInt8] {
        let bytes = try Fixtures.bytes(name)
        let start = AliasFile.hasMagic(bytes) ? 56 : 48
        return Array(bytes[start...])
    }

    @Test("re-encoding reproduces Apple's bytes exactly", arguments: Fixtures.goodNames)
    func byteExact(_ name: String) throws {
        let record = try Fixtures.record(name)
        let encoded = try record.encoded()
        #expect(Array(encoded[48...]) == (try Self.dataSection(name)))
        if !name.hasSuffix(".alias") {
            #expect(encoded == (try Fixtures.bytes(name)))
        }
    }

    @Test("decode → encode → decode is the identity", arguments: Fixtures.goodNames)
    func lossless(_ name: String) throws {
        let record = try Fixtures.record(name)
        let again = try BookmarkRecord(decoding: record.encoded())
        #expect(again == record)
    }

    @Test("alias files re-encode with the same data section", arguments: Fixtures.aliasNames)
    func aliasFileBytes(_ name: String) throws {
        let bytes = try Fixtures.bytes(name)
        let file = try AliasFile(decoding: bytes)
        let encoded = try file.encoded()
        // Header fields Apple validates are rewritten; bytes 32..<56 are carried over.
        #expect(encoded == bytes)
        // Converting to in-memory bookmark data keeps every offset.
        let bookmark = try file.bookmark.encoded()
        #expect(Array(bookmark[48...]) == Array(bytes[56...]))
    }

    @Test func modifyingKeepsUnknownKeys() throws {
        var record = try Fixtures.record("fq-sample2.book")
        record.pathComponents = ["tmp", "x"]
        record.fileIDs = [1, nil]
        try record.setLinuxFacts(LinuxFileFacts(generation: 7, fsType: "ext4"))
        let again = try BookmarkRecord(decoding: record.encoded())
        #expect(again.path == "/tmp/x")
        #expect(again.fileIDs == [1, nil])
        #expect(again[.numeric(0xF000F)] == .bool(true))
        #expect(again.linux.generation == 7)
        #expect(again.linux.fsType == "ext4")
        #expect(again.userName == "davidmcdonald")
    }

    @Test func encoderFollowsApplesLayout() throws {
        var record = BookmarkRecord()
        record.pathComponents = ["home", "me", "file.txt"]
        record.fileIDs = [2, 3, 4]
        record.creationOptions = 0x2000_0000
        record.volume = BookmarkVolume(path: "/", url: "file:///", name: "root",
                                       uuid: "8a829a03-9b24-4085-8051-18978712e4be", capacity: 1)
        let bytes = try record.encoded()
        let r = ByteReader(bytes)
        #expect(Array(bytes[0..<4]) == Array("book".utf8))
        #expect(try r.u32le(4) == UInt32(bytes.count))
        #expect(try r.u32le(8) == 0x1004_0000)
        #expect(try r.u32le(12) == 48)
        #expect(bytes[16..<48].allSatisfy { $0 == 0 })
        // creationOptions is the first item, as SInt32.
        #expect(try r.u32le(52) == 4)
        #expect(try r.u32le(56) == 0x0303)
        // TOC: size 12n+12, marker, id 1, no next, sorted keys.
        let toc = 48 + Int(try r.u32le(48))
        let n = Int(try r.u32le(toc + 16))
        #expect(try r.u32le(toc) == UInt32(12 * n + 12))
        #expect(try r.u32le(toc + 4) == 0xFFFF_FFFE)
        #expect(try r.u32le(toc + 8) == 1)
        #expect(try r.u32le(toc + 12) == 0)
        let keys = try (0..<n).map { i in try r.u32le(toc + 20 + 12 * i) }
        #expect(keys == keys.sorted())
        // Every item offset is 4-byte aligned; file IDs and capacity are SInt64; UUID upper-case.
        let decoded = try BookmarkRecord(decoding: bytes)
        #expect(decoded[.fileIDs]?.arrayValue?.first == .int64(2))
        #expect(decoded[.volCapacity] == .int64(1))
        #expect(decoded[.volUUID] == .string("8A829A03-9B24-4085-8051-18978712E4BE"))
        for i in 0..<n { #expect(try r.u32le(toc + 24 + 12 * i) % 4 == 0) }
    }

    @Test func equalItemsAreShared() throws {
        var record = BookmarkRecord()
        record.pathComponents = ["Users", "me", "doc"]
        record.userName = "me"
        record.displayName = "doc"
        record.volume = BookmarkVolume(wasBoot: true)
        record.wasFileIDFormat = true
        let bytes = try record.encoded()
        // "me", "doc", and `true` each appear once.
        func count(_ needle: [UInt8]) -> Int {
            var c = 0
            for i in 0...(bytes.count - needle.count) where Array(bytes[i..<(i + needle.count)]) == needle { c += 1 }
            return c
        }
        #expect(count([2, 0, 0, 0, 1, 1, 0, 0] + Array("me".utf8)) == 1)
        #expect(count([3, 0, 0, 0, 1, 1, 0, 0] + Array("doc".utf8)) == 1)
        #expect(count([0, 0, 0, 0, 1, 5, 0, 0]) == 1)
    }

    @Test func everyItemTypeRoundTrips() throws {
        var doc = BookmarkDocument()
        let items: [BookmarkItem] = [
            .string("é"), .string(ByteString(bytes: [0xFF, 0xFE])), .data([1, 2, 3]),
            .number(.sint8(-1)), .number(.sint16(-300)), .number(.sint32(7)), .number(.sint64(-9)),
            .number(.float32(1.5)), .number(.float64(.nan)), .number(.other(subtype: 9, bytes: [1, 0, 0, 0])),
            .number(.other(subtype: 0, bytes: [])),
            .date(BookmarkDate(secondsSinceReferenceDate: -978_307_200)), .bool(false), .bool(true),
            .array([.null, .array([])]), .dictionary([BookmarkDictionaryEntry(key: .string("k"), value: .int32(1))]),
            .uuid(try #require(BookmarkUUID(string: "07FD1A5D-7D66-475A-AF51-934CDEF2D60C"))),
            .url("file:///"), .relativeURL(base: .url("file:///a/"), relative: .string("b")), .null,
            .unknown(type: 0xF00D, payload: [9, 9, 9]),
        ]
        for (i, item) in items.enumerated() { doc[.numeric(0x9000 + UInt32(i))] = item }
        doc[.string("NSURLVolumeURLKey")] = .url("file:///")
        doc[tocID: 0xF000] = BookmarkTOC(id: 0xF000, entries: [BookmarkEntry(key: .volName, value: .string("boot"))])
        let again = try BookmarkDocument(decoding: doc.encoded())
        #expect(again == doc)
    }
}

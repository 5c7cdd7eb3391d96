// SPDX-License-Identifier: Apache-2.0
// Path components and file IDs are read straight from validated bytes when they are still
// stored; the answer must be the one the built items give, whatever the items are.
import Testing
import BookmarkFormat

@Suite("Path components and file IDs read from stored bytes")
struct StoredArrayTests {
    /// The record with every item built, so its getters take the general path.
    static func eager(_ record: BookmarkRecord) -> BookmarkRecord {
        BookmarkRecord(document: LazyStorageTests.eager(record.document))
    }

    /// Encodes `record`, decodes it again, and checks both getters against the built items.
    static func check(_ record: BookmarkRecord) throws {
        let lazy = try BookmarkRecord(decoding: try record.encoded())
        let eager = Self.eager(lazy)
        #expect(lazy.document.targetTOC?.entries.first { $0.key == .pathComponents }?.isStored == true || lazy[.pathComponents] == nil)
        #expect(lazy.pathComponents == eager.pathComponents)
        #expect(lazy.fileIDs == eager.fileIDs)
        #expect(lazy.pathComponents == record.pathComponents)
        #expect(lazy.fileIDs == record.fileIDs)
    }

    @Test("fixtures", arguments: Fixtures.goodNames)
    func fixtures(_ name: String) throws {
        let record = try Fixtures.record(name)
        let eager = Self.eager(record)
        #expect(record.pathComponents == eager.pathComponents)
        #expect(record.fileIDs == eager.fileIDs)
    }

    @Test func randomRecords() throws {
        for seed in 0..<300 as Range<UInt64> { try Self.check(RandomRecords.record(seed: seed, interop: false)) }
    }

    @Test("every integer width, nulls, and elements the fast path leaves to the items")
    func unusualElements() throws {
        let cases: [[BookmarkItem]] = [
            [.int64(-1), .null, .int64(Int64.max)],
            [.number(.sint8(-3)), .number(.sint16(-300)), .number(.sint32(-70_000)), .number(.sint64(1 << 40))],
            [.number(.float64(2.5)), .int64(1)],  // a float: not an integer, so no file IDs at all
            [.number(.other(subtype: 9, bytes: [1, 0, 0, 0]))],  // CFNumber 9 (long), 4 bytes
            [.string("7")],
            [],
        ]
        for ids in cases {
            var record = BookmarkRecord()
            record[.pathComponents] = .array(ids.isEmpty ? [] : [.string("a"), .string(ByteString(bytes: [0xFF]))])
            record[.fileIDs] = .array(ids)
            try Self.check(record)
        }
        // Components that are not all strings: no components, as the built items say.
        var mixed = BookmarkRecord()
        mixed[.pathComponents] = .array([.string("a"), .int64(3)])
        try Self.check(mixed)
        #expect(try BookmarkRecord(decoding: try mixed.encoded()).pathComponents == nil)
        // Not an array at all.
        var scalar = BookmarkRecord()
        scalar[.pathComponents] = .string("a")
        scalar[.fileIDs] = .int64(5)
        try Self.check(scalar)
    }
}

@Suite("Records set from kept items")
struct RecordItemSetterTests {
    @Test("item setters give the same record as the value setters")
    func itemSettersMatchValueSetters() throws {
        let components: [ByteString] = ["home", ByteString(bytes: [0xFF, 0x41]), "file.txt"]
        let ids: [Int64?] = [2, nil, -5]
        let flags = BookmarkPropertyFlags(flags: 0x81, validMask: 0x8F, extra: 0x8F)
        var byValue = BookmarkRecord()
        byValue.pathComponents = components
        byValue.fileIDs = ids
        byValue.resourceProperties = flags
        var byItems = BookmarkRecord()
        byItems.setPathComponents(items: components.map(BookmarkRecord.pathComponentItem))
        byItems.setFileIDs(items: ids.map(BookmarkRecord.fileIDItem))
        byItems.setResourceProperties(item: BookmarkRecord.resourcePropertiesItem(flags))
        #expect(byItems == byValue)
        #expect(try byItems.encoded() == byValue.encoded())
        #expect(byItems.pathComponents == components)
        #expect(byItems.fileIDs == ids)
        #expect(byItems.resourceProperties == flags)
    }
}

@Suite("Partial readers agree with the full ones")
struct PartialReaderTests {
    static func check(_ record: BookmarkRecord) {
        let identity = record.volumeIdentity
        let volume = record.volume
        #expect(identity.path == volume.path && identity.name == volume.name && identity.uuid == volume.uuid)
        #expect(identity.url == nil && identity.capacity == nil && identity.creationDate == nil)
        // Resolution hands over the components it read; the facts must not depend on that.
        #expect(record.linuxFacts(pathComponents: record.pathComponents) == record.linux)
    }

    @Test("fixtures", arguments: Fixtures.goodNames)
    func fixtures(_ name: String) throws { Self.check(try Fixtures.record(name)) }

    @Test func randomRecordsAndOurLinuxKeys() throws {
        for seed in 0..<200 as Range<UInt64> {
            var record = RandomRecords.record(seed: seed, interop: false)
            try record.setLinuxFacts(LinuxFileFacts(
                generation: seed, handleType: 1, handle: [1, 2, 3], subvolumeID: seed % 3 == 0 ? 256 : nil,
                volumeUUIDSource: .ext4Ioctl, mountRelativePath: "/a/b", fsType: "ext4", fsid: LinuxFSID(1, 2)))
            Self.check(record)
            Self.check(try BookmarkRecord(decoding: try record.encoded()))
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Every real macOS fixture decodes to exactly the values in ../shared/fixtures/apple/README.md.
import Testing
import BookmarkFormat

@Suite("Apple fixtures")
struct FixtureTests {
    struct Expected: Sendable, CustomStringConvertible {
        var name: String
        var path: String
        var volumeName: String
        var volumeUUID: String
        var fileIDs: [Int64?]
        var creationOptions: UInt32
        var description: String { name }
    }

    static let macHD = "8A829A03-9B24-4085-8051-18978712E4BE"
    static let perlHD = "07FD1A5D-7D66-475A-AF51-934CDEF2D60C"

    static let expected: [Expected] = [
        Expected(name: "fq-sample1.book", path: "/Applications/Bitwarden.app", volumeName: "Macintosh HD",
                 volumeUUID: "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA", fileIDs: [55637351, 54389243],
                 creationOptions: 0x2000_0000),
        Expected(name: "fq-sample2.book", path: "/Users/davidmcdonald/hxstore", volumeName: "Macintosh HD",
                 volumeUUID: macHD, fileIDs: [23307, 564764, 54838727], creationOptions: 0x2000_0000),
        Expected(name: "fq-sample3.book", path: "/Users/davidmcdonald/Documents/Arduino/generated_examples/Blink",
                 volumeName: "Macintosh HD", volumeUUID: macHD,
                 fileIDs: [23307, 564764, 909650, 925616, 36514705, 36514706], creationOptions: 0x2000_0000),
        Expected(name: "fq-sample4.book", path: "/Users/davidmcdonald/go/src/thesis", volumeName: "Macintosh HD",
                 volumeUUID: macHD, fileIDs: [23307, 564764, 1193796, 1381791, 33157203], creationOptions: 0x2000_0000),
        Expected(name: "perl-folder.alias", path: "/System/Library/Perl", volumeName: "Macintosh HD",
                 volumeUUID: perlHD,
                 fileIDs: [1152921500311902579, 1152921500311902703, 1152921500312062052], creationOptions: 1024),
        Expected(name: "perl-removable.alias", path: "/Volumes/SANDISK/untitled", volumeName: "SANDISK",
                 volumeUUID: "66D290A3-6692-3D78-ABD5-A2FE6F3F4DBD", fileIDs: [23589, nil, nil], creationOptions: 1024),
        Expected(name: "perl-root.alias", path: "/", volumeName: "Macintosh HD", volumeUUID: perlHD, fileIDs: [],
                 creationOptions: 1024),
    ]

    @Test("decodes to the README's values", arguments: expected)
    func decodes(_ e: Expected) throws {
        let r = try Fixtures.record(e.name)
        #expect(r.path == e.path)
        #expect(r.volume.name?.string == e.volumeName)
        #expect(r.volume.uuid == e.volumeUUID)
        #expect(r.creationOptions == e.creationOptions)
        if e.fileIDs.isEmpty {
            #expect(r.fileIDs == nil || r.fileIDs == [])
        } else {
            #expect(r.fileIDs == e.fileIDs)
        }
    }

    @Test func sample1Volume() throws {
        let r = try Fixtures.record("fq-sample1.book")
        #expect(r.volume.path == "/")
        #expect(r.volume.capacity == 499_963_174_912)
        #expect(r.volume.url == "file:///")
        #expect(r.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) == true)
        #expect(r.document.tocs.map(\.id) == [1])
    }

    @Test func sample2Extras() throws {
        let r = try Fixtures.record("fq-sample2.book")
        #expect(r.userName == "davidmcdonald")
        #expect(r.userUID == 501)
        #expect(r.displayName == "hxstore")
        #expect(r.volumeHomeDirRelativePathComponentCount == 1)
        #expect(r[.numeric(0xF000F)] == .bool(true))
        #expect(r.volume.wasBoot == true)
        #expect(r.volume.properties == BookmarkPropertyFlags(flags: 0x1_0000_0081, validMask: 0x1_0000_13EF, extra: 0))
    }

    @Test func perlFolder() throws {
        let r = try Fixtures.record("perl-folder.alias")
        #expect(r.volume.wasBoot == true)
        #expect(r.displayName == "Perl")
        #expect(r.wasFileIDFormat == true)
        #expect(r.creationDate?.unixSeconds == 1_594_633_443)
        #expect(r.volume.creationDate?.unixSeconds == 1_594_641_815.0816462)
        #expect(r.bootVolume == nil)
    }

    @Test func perlRemovableTargetsSandiskNotBootVolume() throws {
        let r = try Fixtures.record("perl-removable.alias")
        #expect(r.volume.name == "SANDISK")
        #expect(r.volume.path == "/Volumes/SANDISK")
        #expect(r.volume.url == "file:///Volumes/SANDISK/")
        #expect(r.volume.capacity == 8_003_780_608)
        #expect(r.volume.creationDate?.unixSeconds == 0)
        #expect(r.displayName == "untitled")
        #expect(r.creationDate?.unixSeconds == 1_656_841_329)
        #expect(r.document.tocs.map(\.id) == [1, 0xF000])
        #expect(r.volInfoDepths == [0xF000, 0, 1, 0])
        #expect(r[.fileIDs]?.arrayValue?[1] == .null)
        let boot = try #require(r.bootVolume)
        #expect(boot.name == "Macintosh HD")
        #expect(boot.uuid == Self.perlHD)
        #expect(boot.path == "/")
    }

    @Test func perlRoot() throws {
        let r = try Fixtures.record("perl-root.alias")
        #expect(r.pathComponents == [])
        #expect(r.fileName == "Macintosh HD")
        #expect(r.displayName == "Macintosh HD")
        #expect(r.volume.name == "Macintosh HD")
        #expect(r.resourceProperties.map { $0.flags & 0xFF } == 0x0A)
    }

    @Test("alias files carry the 56-byte header", arguments: Fixtures.aliasNames)
    func aliasHeader(_ name: String) throws {
        let bytes = try Fixtures.bytes(name)
        let source = try BookmarkSource(decoding: bytes)
        #expect(source.container == .aliasFile)
        let file = try AliasFile(decoding: bytes)
        #expect(file.bookmark.version == 0x1004_0000)
    }
}

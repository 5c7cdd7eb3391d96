// SPDX-License-Identifier: Apache-2.0
// Properties: random records round-trip; arbitrary bytes never trap.
import BookmarkFormat
import PropertyBased
import Testing
import VolumeFixtures

@Suite("Properties")
struct PropertyTests {
    @Test func randomRecordsRoundTrip() async {
        await propertyCheck(count: 500, input: Gen.uint64()) { seed in
            let record = RandomRecords.record(seed: seed, interop: false)
            let encoded = try #require(try? record.encoded())
            let decoded = try #require(try? BookmarkRecord(decoding: encoded))
            #expect(decoded == record)
            #expect(decoded.pathComponents == record.pathComponents)
            #expect(decoded.fileIDs == record.fileIDs)
            #expect(decoded.volume == record.volume)
            #expect(decoded.linux == record.linux)
            // The alias-file container holds the same section.
            let file = try #require(try? AliasFile(record: record).encoded())
            #expect((try? AliasFile(decoding: file))?.record == record)
        }
    }

    @Test func arbitraryBytesNeverTrap() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...600)) { bytes in
            if let s = try? BookmarkSource(decoding: bytes) {
                #expect((try? BookmarkDocument(decoding: s.record.document.encoded())) == s.record.document)
            }
            _ = try? AliasRecord(decoding: bytes)
            _ = try? FinderInfo(decoding: bytes)
        }
    }

    @Test func mutatedFixturesNeverTrap() async throws {
        let fixtures = try Fixtures.allNames.map { try Fixtures.bytes($0) }
        await propertyCheck(count: 2000, input: Gen.uint64()) { seed in
            var g = SplitMix(seed: seed)
            var bytes = fixtures[Int(g.next() % UInt64(fixtures.count))]
            for _ in 0..<(1 + Int(g.next() % 8)) {
                let i = Int(g.next() % UInt64(bytes.count))
                switch g.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: g.next())
                case 1: bytes[i] = bytes[i] &+ 1
                default: bytes = Array(bytes.prefix(i + 1))
                }
            }
            if let s = try? BookmarkSource(decoding: bytes) {
                #expect((try? BookmarkDocument(decoding: s.record.document.encoded())) == s.record.document)
                _ = BookmarkInspection(source: s).jsonText
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// The offline dump (text and JSON) used by `bookmark inspect`.
import Foundation
import Testing
import BookmarkFormat

@Suite("Inspection dump")
struct InspectionTests {
    @Test func nonUTF8AndBinaryValuesAreEscaped() throws {
        var record = BookmarkRecord()
        record.pathComponents = ["tmp", ByteString(bytes: [0x66, 0xFF, 0x0A])]
        record[.numeric(0x9999)] = .data([0, 1, 0xFE])
        let inspection = BookmarkInspection(source: nil, record: record)
        #expect(record.path == "/tmp/f\\xff\\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(inspection.jsonText.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "/tmp/f\\xff\\n")
        let keys = try #require(object["keys"] as? [String: Any])
        let comps = try #require((keys["0x1004"] as? [String: Any])?["value"] as? [[String: Any]])
        #expect(comps[1]["hex"] as? String == "66ff0a")
        #expect((keys["0x9999"] as? [String: Any])?["hex"] as? String == "0001fe")
        #expect(inspection.text.contains("\"f\\xff\\n\""))
        #expect(inspection.text.contains("unknown") == false)
    }

    @Test func jsonAlwaysParses() throws {
        for seed in 0..<200 as Range<UInt64> {
            let record = RandomRecords.record(seed: seed, interop: false)
            let text = BookmarkInspection(source: nil, record: record).jsonText
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            #expect(object?["tocs"] != nil)
        }
    }

    @Test func keyNames() {
        #expect(BookmarkKey.pathComponents.name == "pathComponents")
        #expect(BookmarkKey.hasBaseURL.name == "haseBaseURL")
        #expect(LinuxKeys.birthTime.name == "linux.birthTime")
        #expect(BookmarkKey.numeric(0xF000F).name == nil)
        #expect(BookmarkKey.numeric(0xF000F).description == "0xF000F")
    }
}

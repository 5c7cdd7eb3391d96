// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// `find --json` and `--jsonl` write each hit's record as it comes (they were all built, then
/// encoded as one document); the format is what it was: a pretty-printed array with sorted keys,
/// and one object per line.
@Suite("Catalog find JSON output")
struct CatalogFindJSONTests {
    @Test("--json is one pretty-printed array across catalogs, the same records as --jsonl; no hit is an empty array")
    func streamedArray() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-json")
        defer { cleanUp() }
        for index in 0..<300 { try fixture.file("d/file-\(index).txt", "\(index)") }
        try Shell.check(["sh", "-c", "printf '' > \"$1/$(printf 'caf\\351.txt')\"", "sh", fixture.root])
        let one = folder + "/one.catalog"
        let two = folder + "/two.catalog"
        for catalog in [one, two] { #expect(try CatalogCLI.run(["scan", fixture.root, "-o", catalog]).status == 0) }

        let json = try CatalogCLI.run(["find", one, two, "--json", "*"])
        #expect(json.status == 0, "\(json.stderr)")
        let lines = try CatalogCLI.run(["find", one, two, "--jsonl", "*"])
        #expect(lines.status == 0, "\(lines.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [NSDictionary])
        let objects = try lines.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary)
        }
        // The tree's root, d, 300 files and the Latin-1 name, from each catalog.
        #expect(array.count == 2 * 303)
        #expect(array == objects)
        #expect(array.map { $0["catalog"] as? String } == Array(repeating: one, count: 303) + Array(repeating: two, count: 303))
        #expect(array.contains { $0["pathBase64"] != nil }, "the Latin-1 name has its bytes in base64")
        // JSONEncoder's layout, as before: two spaces per level, " : ", a newline at the end.
        #expect(json.stdout.hasPrefix("[\n  {\n    \"catalog\" : \"\(one)\",\n    \"drive\" : "), "\(json.stdout.prefix(200))")
        #expect(json.stdout.contains("\n  },\n  {\n    \"catalog\" : \"\(two)\""))
        #expect(json.stdout.hasSuffix("\"\n  }\n]\n"))
        #expect(!json.stdout.contains("\n{"), "every object is indented inside the array")

        let none = try CatalogCLI.run(["find", one, "--json", "no-such-name"])
        #expect(none.status == 3)
        #expect(none.stdout == "[\n\n]\n", "as JSONEncoder writes an empty array")
        let noLines = try CatalogCLI.run(["find", one, "--jsonl", "no-such-name"])
        #expect(noLines.status == 3 && noLines.stdout.isEmpty)
    }
}

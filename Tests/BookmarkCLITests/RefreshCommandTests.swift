// SPDX-License-Identifier: Apache-2.0
// `bookmark refresh`: its JSON output as a batch.
import Foundation
import Testing
import VolumeFixtures

@Suite("bookmark refresh: output")
struct RefreshCommandTests {
    typealias Object = [String: Any]

    /// `count` files in `work/files` with their bookmarks in `work/bmk`, every file then renamed
    /// (so each bookmark is stale); returns the bookmarks.
    static func staleBookmarks(in work: String, count: Int) throws -> [String] {
        try FileManager.default.createDirectory(atPath: work + "/files", withIntermediateDirectories: true)
        var inputs: [String] = []
        for index in 0..<count {
            let path = "\(work)/files/f\(index).txt"
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
            inputs.append(path)
        }
        let made = try BookmarkTool.run(["make", "--output-dir", work + "/bmk"] + inputs)
        #expect(made.status == 0, "\(made.stderr)")
        for path in inputs { try FileManager.default.moveItem(atPath: path, toPath: path + ".moved") }
        return made.stdout.split(separator: "\n").map(String.init)
    }

    /// Several SOURCEs printed one pretty JSON array, unlike every other batch command (and unlike
    /// the same list through --files-from); one SOURCE prints one object.
    @Test("--json: JSON Lines for a batch, with -0 too; one object for one SOURCE")
    func jsonLines() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-json-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let bookmarks = try Self.staleBookmarks(in: work, count: 3)

        let batch = try BookmarkTool.run(["refresh", "--json", bookmarks[0], bookmarks[1]])
        #expect(batch.status == 0, "\(batch.stderr)")
        let lines = batch.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "", "two lines: \(batch.stdout)")
        let records = try lines.dropLast().map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? Object) }
        #expect(records.map { $0["status"] as? String } == ["refreshed", "refreshed"])
        #expect(records.map { $0["source"] as? String } == [bookmarks[0], bookmarks[1]])
        #expect(records.map { $0["exitStatus"] as? Int } == [0, 0])

        // -0 separates plain records and the --files-from list; JSON Lines still end in a newline.
        let nul = try BookmarkTool.run(["refresh", "-0", "--json", bookmarks[0], bookmarks[1]])
        #expect(nul.stdout.split(separator: "\n").count == 2 && !nul.stdout.contains("\0"), "\(nul.stdout)")
        let plainNul = try BookmarkTool.run(["refresh", "-0", bookmarks[0], bookmarks[1]])
        #expect(plainNul.stdout == "fresh \(bookmarks[0]) -> \(work)/files/f0.txt.moved\0fresh \(bookmarks[1]) -> \(work)/files/f1.txt.moved\0")

        let one = try BookmarkTool.run(["refresh", "--json", bookmarks[2]])
        #expect(one.status == 0, "\(one.stderr)")
        let object = try #require(try BookmarkTool.json(one) as? Object, "one object, not an array: \(one.stdout)")
        #expect(object["status"] as? String == "refreshed")
    }
}

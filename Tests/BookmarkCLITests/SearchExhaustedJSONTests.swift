// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// A `notFound` from a search that ran out of its budget is "not looked for everywhere", never
/// "deleted" (RESOLUTION.md, "Errors"); the JSON record says which, so that a script need not
/// parse the message (before, the two records differed only in their message).
@Suite("bookmark resolve --json: a search that ran out of its budget says so", .serialized, .requiresRealVolumes)
struct SearchExhaustedJSONTests {
    @Test("as uid 65534 (no handles): searchExhausted with --budget-ms 0; absent when the volume was searched to its end", .requiresUnprivilegedUser)
    func flag() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            // 3,000 entries: the walk looks at its clock every 1,024.
            let work = volume.path("w")
            for folder in 0..<30 {
                try FileManager.default.createDirectory(atPath: work + "/d\(folder)", withIntermediateDirectories: true)
                for file in 0..<100 { _ = FileManager.default.createFile(atPath: work + "/d\(folder)/f\(file)", contents: nil) }
            }
            _ = FileManager.default.createFile(atPath: work + "/gone.txt", contents: Data("x".utf8))
            let made = try BookmarkTool.runUnprivileged(["make", work + "/gone.txt"])
            try #require(made.status == 0, "make failed: \(made.stderr)")
            let bookmark = volume.path("gone.bookmark")
            try made.stdoutData.write(to: URL(fileURLWithPath: bookmark))
            try FileManager.default.removeItem(atPath: work + "/gone.txt")

            let cut = try BookmarkTool.runUnprivileged(["resolve", "--json", "--budget-ms", "0", bookmark])
            #expect(cut.status == 3, "\(cut.stderr)")
            let exhausted = try #require(try BookmarkTool.json(cut) as? [String: Any], "\(cut.stdout)")
            #expect(exhausted["error"] as? String == "notFound")
            #expect(exhausted["searchExhausted"] as? Bool == true, "\(cut.stdout)")

            let whole = try BookmarkTool.runUnprivileged(["resolve", "--json", bookmark])
            #expect(whole.status == 3, "\(whole.stderr)")
            let searched = try #require(try BookmarkTool.json(whole) as? [String: Any], "\(whole.stdout)")
            #expect(searched["error"] as? String == "notFound")
            #expect(searched["searchExhausted"] == nil, "\(whole.stdout)")
        }
    }
}

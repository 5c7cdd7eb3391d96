// SPDX-License-Identifier: Apache-2.0
// `bookmark resolve --relative-to DIR` with a relative DIR, and `--strict` in a batch.
import Foundation
import Testing
import VolumeFixtures

@Suite("bookmark resolve: --relative-to and --strict")
struct ResolveOptionsTests {
    /// A scratch folder, removed by the caller.
    private static func scratch(_ name: String) throws -> String {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        return work
    }

    /// Runs `bookmark ARGS` in `directory` (relative arguments are taken against it).
    private static func run(in directory: String, _ arguments: [String]) throws -> CommandResult {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        return try Shell.run(["sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", directory, tool] + arguments)
    }

    /// A relative DIR was passed on as it was, and never matched: the copied project was not found
    /// (exit 3), while the same DIR given absolute worked.
    @Test("a relative --relative-to DIR is taken against the current directory")
    func relativeDirectory() throws {
        let work = try Self.scratch("relative-to")
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work + "/proj/sub", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: work + "/proj/sub/a.txt", contents: Data("a".utf8)))
        let made = try Self.run(in: work, ["make", "--relative-to", "proj", "proj/sub/a.txt", "-o", "rel.bm"])
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.copyItem(atPath: work + "/proj", toPath: work + "/copy")
        try FileManager.default.removeItem(atPath: work + "/proj")

        let resolved = try Self.run(in: work, ["resolve", "--json", "--relative-to", "copy", "rel.bm"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let object = try #require(try BookmarkTool.json(resolved) as? [String: Any], "\(resolved.stdout)")
        #expect(object["matchedBy"] as? String == "relative")
        #expect(object["path"] as? String == work + "/copy/sub/a.txt")
        // A batch takes it the same way.
        let batch = try Self.run(in: work, ["resolve", "--relative-to", "./copy", "rel.bm", "rel.bm"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stdout == String(repeating: work + "/copy/sub/a.txt\n", count: 2))
    }

    /// Under `--strict` a stale input's record says 10 (it said 0 while the process exited 10),
    /// and it does not stop the batch: it resolved.
    @Test("--strict: a stale record's exitStatus is 10; it stops no batch; the process exits 10")
    func strictBatch() throws {
        let work = try Self.scratch("strict-batch")
        defer { try? FileManager.default.removeItem(atPath: work) }
        for name in ["a", "b"] {
            #expect(FileManager.default.createFile(atPath: "\(work)/\(name).txt", contents: Data(name.utf8)))
            let made = try BookmarkTool.run(["make", "\(work)/\(name).txt", "-o", "\(work)/\(name).bookmark"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        try FileManager.default.moveItem(atPath: work + "/a.txt", toPath: work + "/a-renamed.txt")
        let sources = [work + "/a.bookmark", work + "/b.bookmark"]

        for keepGoing in [["--keep-going"], []] {
            let result = try BookmarkTool.run(["resolve", "--strict", "--json"] + keepGoing + sources)
            #expect(result.status == 10, "\(keepGoing): \(result.stderr)")
            let records = try result.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(records.count == 2, "\(keepGoing): the stale input stopped the batch: \(result.stdout)")
            #expect(records.first?["stale"] as? Bool == true)
            #expect(records.first?["exitStatus"] as? Int == 10, "\(keepGoing): \(result.stdout)")
            #expect(records.last?["exitStatus"] as? Int == 0, "\(keepGoing): \(result.stdout)")

            let plain = try BookmarkTool.run(["resolve", "--strict"] + keepGoing + sources)
            #expect(plain.status == 10)
            #expect(plain.stdout == "\(work)/a-renamed.txt\n\(work)/b.txt\n", "\(keepGoing): \(plain.stdout)")
        }
        // A failure after it still stops the batch without --keep-going, and outranks 10.
        let missing = work + "/missing.bookmark"
        let stopped = try BookmarkTool.run(["resolve", "--strict", sources[0], missing, sources[1]])
        #expect(stopped.status == 66, "\(stopped.stderr)")
        #expect(stopped.stdout == "\(work)/a-renamed.txt\n\n", "\(stopped.stdout)")
    }
}

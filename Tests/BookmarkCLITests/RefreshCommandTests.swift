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

    /// Each rewrite read the whole folder (the sweep of dead writers' leftovers) and synced it:
    /// 100 refreshes in one folder made 500 getdents64 and 200 fsync calls, and 3,000 took
    /// seconds. Now the folder is swept once per run and synced once before the records that
    /// name its files leave, as `make --output-dir` does.
    @Test("refresh and resolve --refresh: one sweep per folder, its fsync before the records", arguments: [["refresh"], ["resolve", "--refresh"]])
    func oneSweepAndSyncPerFolder(command: [String]) throws {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        try #require(Shell.has("strace"), "strace counts the calls and shows their order")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-sync-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        var bookmarks = try Self.staleBookmarks(in: work, count: 300)
        // A missing SOURCE in the middle, with --keep-going: its message on stderr comes after
        // the records before it, which are written (and their folder synced) first.
        bookmarks.insert(work + "/bmk/missing.bookmark", at: 150)
        let trace = work + "/refresh.trace"
        let traced = try Shell.run(
            ["strace", "-f", "-e", "trace=fsync,renameat2,rename,renameat,getdents64,write", "-o", trace, tool]
                + command + ["--keep-going"] + bookmarks)
        #expect(traced.status == 66, "\(traced.stderr)")  // the missing SOURCE
        #expect(traced.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == 302)
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let renames = calls.filter { $0.contains(" rename") && !$0.contains("resumed>") }.count
        #expect(renames == 300, "\(renames) renames for 300 stale bookmarks")
        // One file data fsync per rewrite and a few for the folder; before, two per rewrite.
        let fsyncs = calls.filter { $0.contains(" fsync(") }.count
        #expect(fsyncs >= 300 && fsyncs < 310, "\(fsyncs) fsync calls for 300 rewrites")
        // The folder is read once (a few getdents64 calls), not once per rewrite.
        let reads = calls.filter { $0.contains(" getdents64(") }.count
        #expect(reads < 20, "\(reads) getdents64 calls for 300 rewrites in one folder")
        // Before every write of records to stdout, each file renamed into place since the last
        // one has its folder synced. (`refresh` writes the records before the message first;
        // `resolve --refresh` rewrites every file before it prints any record.)
        var renamedSinceSync = false
        var writes = 0
        for call in calls {
            if call.contains(" rename") { renamedSinceSync = true }
            if call.contains(" fsync(") { renamedSinceSync = false }
            if call.contains(" write(1,") {
                writes += 1
                #expect(!renamedSinceSync, "records written before their folder was synced: \(call.prefix(120))")
            }
        }
        #expect(writes >= (command == ["refresh"] ? 2 : 1), "records before and after the message")
        // Every bookmark was rewritten: each resolves fresh now.
        let resolved = try BookmarkTool.run(["resolve", "--strict", "--keep-going"] + bookmarks.filter { !$0.hasSuffix("missing.bookmark") })
        #expect(resolved.status == 0, "\(resolved.stderr)")
    }
}

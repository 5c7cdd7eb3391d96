// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// A SOURCE holding several bookmarks stored back to back (a library file, as
/// `Bookmark.resolveAll(storedIn:)` reads it): refused by the commands that take one bookmark
/// (exit 5, the file untouched, where a refresh used to rewrite it with the first bookmark only),
/// shown by `inspect`, and resolved whole by `resolve --stored`.
@Suite("bookmark resolve --stored, and library files given as one SOURCE", .serialized, .requiresRealVolumes)
struct StoredLibraryCommandTests {
    /// Three files on a volume, their bookmarks stored back to back in `library.bm`, the first file
    /// then moved (so a refresh would rewrite) and `body` run with the library's path.
    func withLibrary(_ body: (LoopVolume, String) throws -> Void) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            var library = Data()
            for name in ["a", "b", "c"] {
                let file = volume.path("\(name).txt")
                try Data(name.utf8).write(to: URL(fileURLWithPath: file))
                let raw = volume.path("\(name).bm")
                try #require(try BookmarkTool.run(["make", file, "-o", raw]).status == 0)
                library += try Data(contentsOf: URL(fileURLWithPath: raw))
            }
            let path = volume.path("library.bm")
            try library.write(to: URL(fileURLWithPath: path))
            try FileManager.default.moveItem(atPath: volume.path("a.txt"), toPath: volume.path("a-renamed.txt"))
            try body(volume, path)
        }
    }

    @Test("resolve, values, --refresh and refresh refuse a library as one SOURCE: exit 5, the file byte for byte as it was")
    func refusedAsOneBookmark() throws {
        try withLibrary { volume, library in
            let before = try Data(contentsOf: URL(fileURLWithPath: library))
            for arguments in [["resolve", library], ["resolve", "--refresh", library], ["values", library], ["refresh", library]] {
                let result = try BookmarkTool.run(arguments)
                #expect(result.status == 5, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("3 bookmarks stored back to back"), "\(arguments): \(result.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == before, "\(arguments) changed the file")
            }
            // Base64 text of the same bytes is refused the same way.
            let text = volume.path("library.txt")
            try Data(before.base64EncodedString().utf8).write(to: URL(fileURLWithPath: text))
            #expect(try BookmarkTool.run(["resolve", text]).status == 5)
            // Bytes after one bookmark that are not bookmark data: corrupt, whatever they are.
            let one = try Data(contentsOf: URL(fileURLWithPath: volume.path("b.bm")))
            let padded = volume.path("padded.bm")
            try (one + Data(repeating: 0, count: 40)).write(to: URL(fileURLWithPath: padded))
            let result = try BookmarkTool.run(["resolve", padded])
            #expect(result.status == 5)
            #expect(result.stderr.contains("40 bytes follow the bookmark data"), "\(result.stderr)")
        }
    }

    @Test("inspect shows the first bookmark and says what follows it")
    func inspectShowsTrailing() throws {
        try withLibrary { _, library in
            let text = try BookmarkTool.run(["inspect", library])
            #expect(text.status == 0)
            #expect(text.stdout.contains("3 bookmarks stored back to back; the first is shown"), "\(text.stdout)")
            let json = try #require(try BookmarkTool.json(BookmarkTool.run(["inspect", "--json", library])) as? [String: Any])
            #expect(json["storedBookmarks"] as? Int == 3)
            #expect((json["trailingBytes"] as? Int ?? 0) > 0)
            #expect((json["path"] as? String)?.hasSuffix("/a.txt") == true)
        }
    }

    @Test("resolve --stored: one record per bookmark in file order; JSON names the SOURCE and the record; a deleted one exits 3")
    func resolveStored() throws {
        try withLibrary { volume, library in
            let plain = try BookmarkTool.run(["resolve", "--stored", library])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout == [volume.path("a-renamed.txt"), volume.path("b.txt"), volume.path("c.txt")].map { $0 + "\n" }.joined())
            let lines = try BookmarkTool.run(["resolve", "--stored", "--json", library])
            #expect(lines.status == 0)
            let records = lines.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(records.map { $0["record"] as? Int } == [0, 1, 2])
            #expect(records.allSatisfy { $0["source"] as? String == library })
            #expect(records.map { $0["stale"] as? Bool } == [true, false, false])
            #expect(try BookmarkTool.run(["resolve", "--stored", "--strict", library]).status == 10)
            // b deleted: its record is empty and the command stops there (exit 3), or goes on.
            try FileManager.default.removeItem(atPath: volume.path("b.txt"))
            let stopped = try BookmarkTool.run(["resolve", "--stored", library])
            #expect(stopped.status == 3)
            #expect(stopped.stdout == volume.path("a-renamed.txt") + "\n\n")
            let all = try BookmarkTool.run(["resolve", "--stored", "--keep-going", library])
            #expect(all.status == 3)
            #expect(all.stdout == volume.path("a-renamed.txt") + "\n\n" + volume.path("c.txt") + "\n")
            #expect(all.stderr.contains("(bookmark 1)"), "\(all.stderr)")
        }
    }

    @Test("resolve --stored: a broken library exits 5, a missing one 66, standard input or --verify is a usage error")
    func resolveStoredFailures() throws {
        try withLibrary { volume, library in
            let whole = try Data(contentsOf: URL(fileURLWithPath: library))
            let cut = volume.path("cut.bm")
            try whole.prefix(whole.count - 10).write(to: URL(fileURLWithPath: cut))
            let broken = try BookmarkTool.run(["resolve", "--stored", cut])
            #expect(broken.status == 5)
            #expect(broken.stderr.contains("ends"), "\(broken.stderr)")
            #expect(try BookmarkTool.run(["resolve", "--stored", volume.path("missing.bm")]).status == 66)
            #expect(try BookmarkTool.run(["resolve", "--stored", volume.path("")]).status == 5, "a directory")
            #expect(try BookmarkTool.run(["resolve", "--stored", "-"]).status == 64)
            #expect(try BookmarkTool.run(["resolve", "--stored", "--verify", volume.path("key"), library]).status == 64)
            #expect(try BookmarkTool.run(["resolve", "--stored", "--refresh", cut]).status == 5, "a broken library is not rewritten")
            #expect(try Data(contentsOf: URL(fileURLWithPath: cut)) == whole.prefix(whole.count - 10))
            // With --keep-going the other SOURCEs are still resolved, and the worst status wins.
            let mixed = try BookmarkTool.run(["resolve", "--stored", "--keep-going", volume.path("missing.bm"), library])
            #expect(mixed.status == 66)
            #expect(mixed.stdout.split(separator: "\n").count == 3)
        }
    }

    @Test("resolve --stored --refresh rewrites the stale bookmarks of a library in place, the others byte for byte")
    func resolveStoredRefresh() throws {
        try withLibrary { volume, library in
            let before = [UInt8](try Data(contentsOf: URL(fileURLWithPath: library)))
            let first = try BookmarkTool.run(["resolve", "--stored", "--refresh", "--json", library])
            #expect(first.status == 0, "\(first.stderr)")
            let records = first.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(records.map { $0["refreshed"] as? Bool } == [true, false, false])
            #expect(records.map { $0["stale"] as? Bool } == [true, false, false], "what the old data said")
            #expect(records.first?["path"] as? String == volume.path("a-renamed.txt"))
            // The first bookmark is new; the other two are the bytes they were, after it.
            let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: library)))
            let oldFirst = Int(before[4]) | Int(before[5]) << 8 | Int(before[6]) << 16 | Int(before[7]) << 24
            let newFirst = Int(after[4]) | Int(after[5]) << 8 | Int(after[6]) << 16 | Int(after[7]) << 24
            #expect(Array(after[newFirst...]) == Array(before[oldFirst...]))
            #expect(Array(after[..<newFirst]) != Array(before[..<oldFirst]))
            // Now nothing is stale, and a second run rewrites nothing.
            #expect(try BookmarkTool.run(["resolve", "--stored", "--strict", library]).status == 0)
            let second = try BookmarkTool.run(["resolve", "--stored", "--refresh", "--json", library])
            #expect(second.status == 0)
            #expect(!second.stdout.contains("\"refreshed\":true") && !second.stdout.contains("\"refreshed\" : true"))
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: library))) == after)
        }
    }

    @Test("as uid 65534 (setpriv): its own library is refreshed, the moved file found by the walk; root's is refused with 13 and untouched",
          .requiresUnprivilegedUser)
    func resolveStoredRefreshUnprivileged() throws {
        try withLibrary { volume, library in
            // A folder the user owns, holding a copy of the library that it owns.
            let folder = volume.path("user")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let own = folder + "/library.bm"
            try FileManager.default.copyItem(atPath: library, toPath: own)
            try Shell.check(["chown", "-R", "65534:65534", folder])
            let before = try Data(contentsOf: URL(fileURLWithPath: library))
            let refused = try BookmarkTool.runUnprivileged(["resolve", "--stored", "--refresh", library])
            #expect(refused.status == 13, "\(refused.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == before)

            let result = try BookmarkTool.runUnprivileged(["resolve", "--stored", "--refresh", "--json", own])
            #expect(result.status == 0, "\(result.stderr)")
            let records = result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(records.map { $0["refreshed"] as? Bool } == [true, false, false])
            #expect(records.first?["matchedBy"] as? String == "search", "no handles without CAP_DAC_READ_SEARCH")
            let owner = try FileManager.default.attributesOfItem(atPath: own)[.ownerAccountID] as? Int
            #expect(owner == 65534)
            #expect(try BookmarkTool.runUnprivileged(["resolve", "--stored", "--strict", own]).status == 0)
        }
    }

    @Test("records are held back in large writes when stdout is not a terminal, and stay in order with stderr in one file")
    func heldBackOutput() throws {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        try #require(Shell.has("strace"), "strace counts the writes")
        try withLibrary { volume, library in
            // A library of 300 bookmarks: the three, a hundred times.
            let three = try Data(contentsOf: URL(fileURLWithPath: library))
            let big = volume.path("big.bm")
            try Data((0..<100).flatMap { _ in three }).write(to: URL(fileURLWithPath: big))
            let trace = volume.path("writes.trace")
            let traced = try Shell.run(["strace", "-f", "-e", "trace=write", "-o", trace, tool, "resolve", "--stored", big])
            #expect(traced.status == 0, "\(traced.stderr)")
            #expect(traced.stdout.split(separator: "\n").count == 300)
            let writes = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("write(1,") }
            #expect(writes.count < 10, "\(writes.count) writes for 300 records")
            // b deleted: its message comes between the records around it, through one pipe.
            try FileManager.default.removeItem(atPath: volume.path("b.txt"))
            let both = try Shell.run(["sh", "-c", "\"$0\" resolve --stored --keep-going \"$1\" 2>&1", tool, library])
            let lines = both.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.count == 5, "\(lines)")
            #expect(lines.first == volume.path("a-renamed.txt"))
            #expect(lines.firstIndex { $0.contains("(bookmark 1)") } == 1, "\(lines)")
            #expect(lines.dropFirst(2).first == "", "\(lines)")
            #expect(lines.dropFirst(3).first == volume.path("c.txt"), "\(lines)")
        }
    }

    @Test("make --output-dir with held-back records: the folder is synced once before each write of records, not after each file")
    func outputFolderSyncedBeforeRecords() throws {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        try #require(Shell.has("strace"), "strace shows the order of fsync, renameat2 and write")
        try LoopVolume.withVolume(.ext4) { volume in
            var inputs: [String] = []
            try FileManager.default.createDirectory(atPath: volume.path("files"), withIntermediateDirectories: true)
            for index in 0..<400 {
                let path = volume.path("files/f\(index).txt")
                #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
                inputs.append(path)
            }
            // A missing input in the middle, with --keep-going: its message on stderr comes after
            // the records before it, which are written (and their folder synced) first.
            inputs.insert(volume.path("files/missing.txt"), at: 200)
            let out = volume.path("out")
            let trace = volume.path("make.trace")
            let traced = try Shell.run(
                ["strace", "-f", "-e", "trace=fsync,renameat2,write", "-o", trace, tool, "make", "--keep-going", "--output-dir", out] + inputs)
            #expect(traced.status == 3, "\(traced.stderr)")  // the missing one: not found
            #expect(traced.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == 402)
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            let fsyncs = calls.filter { $0.contains(" fsync(") }.count
            // One per file (its data, before its rename) and a few for the folder; before, two per file.
            #expect(fsyncs >= 400 && fsyncs < 420, "\(fsyncs) fsync calls for 400 files")
            // Before every write of records to stdout (and of the message to stderr), each file
            // renamed into place since the last one has its folder synced: an fsync after the
            // last renameat2.
            var renamedSinceSync = false
            var writes = 0
            for call in calls {
                if call.contains(" renameat2(") { renamedSinceSync = true }
                if call.contains(" fsync(") { renamedSinceSync = false }
                if call.contains(" write(1,") || call.contains(" write(2,") {
                    writes += 1
                    #expect(!renamedSinceSync, "records written before their folder was synced: \(call.prefix(120))")
                }
            }
            #expect(writes >= 3, "records before and after the message, and the message")
            // Every file is there and resolves to its input.
            let written = traced.stdout.split(separator: "\n").map(String.init)
            let resolved = try BookmarkTool.run(["resolve"] + written)
            #expect(resolved.stdout == inputs.filter { !$0.hasSuffix("missing.txt") }.map { $0 + "\n" }.joined(), "\(resolved.stderr)")
        }
    }
}

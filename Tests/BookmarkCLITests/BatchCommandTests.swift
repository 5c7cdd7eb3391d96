// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// Many inputs in one process: `--files-from`, `-0`, `--keep-going`, JSON Lines, the exit status
/// of a batch, progress only on a terminal, and the fast path's equivalence with the parser.
@Suite("bookmark: many at once", .serialized, .requiresRealVolumes)
struct BatchCommandTests {
    typealias Object = [String: Any]

    @Test(
        "10,000 bookmarks resolve in one process through --files-from - -0, in one shared walk, one record per input in order, most severe exit",
        .requiresUnprivilegedUser)
    func tenThousand() throws {
        // XFS: its inodes are allocated as needed (the 64 MB ext4 fixture has about 16,000).
        try LoopVolume.withVolume(.xfs) { volume in
            // As uid 65534 (no open_by_handle_at), a moved file can only be found by a search,
            // so the moved ones show whether they shared one walk.
            let library = volume.path("library")
            let folders = 100
            let perFolder = 100
            var files: [String] = []
            for folder in 0..<folders {
                let directory = "\(library)/album-\(folder)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for track in 0..<perFolder {
                    let file = "\(directory)/track-\(folder)-\(track).flac"
                    #expect(FileManager.default.createFile(atPath: file, contents: Data("t".utf8)))
                    files.append(file)
                }
            }
            let bookmarks = volume.path("bookmarks")
            try FileManager.default.createDirectory(atPath: bookmarks, withIntermediateDirectories: true)
            try Shell.check(["chown", "-R", "65534:65534", library, bookmarks])

            // One `make` process for all 10,000, printing base64 records (NUL-terminated) in input
            // order; the test writes them to files itself (each `make -o` would fsync its file).
            let list = Data(files.joined(separator: "\0").utf8) + Data([0])
            let made = try BookmarkTool.runUnprivileged(["make", "--files-from", "-", "-0"], input: list)
            try #require(made.status == 0, "\(made.stderr.prefix(500))")
            let printed = made.stdoutData.split(separator: 0)
            try #require(printed.count == files.count)
            var written: [String] = []
            for (index, base64) in printed.enumerated() {
                let data = try #require(Data(base64Encoded: Data(base64)), "record \(index) is not base64")
                let file = "\(bookmarks)/\(index).bookmark"
                try data.write(to: URL(fileURLWithPath: file))
                written.append(file)
            }
            try Shell.check(["chown", "-R", "65534:65534", bookmarks])

            // Reorganise: 20 albums move into another folder, three tracks are deleted.
            let elsewhere = volume.path("library/sorted")
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            var expected: [String?] = files
            for folder in 0..<20 {
                try FileManager.default.moveItem(atPath: "\(library)/album-\(folder)", toPath: "\(elsewhere)/album-\(folder)")
                for track in 0..<perFolder {
                    expected[folder * perFolder + track] = "\(elsewhere)/album-\(folder)/track-\(folder)-\(track).flac"
                }
            }
            for index in [5_000, 7_777, 9_999] {
                try FileManager.default.removeItem(atPath: files[index])
                expected[index] = nil
            }
            try Shell.check(["chown", "-R", "65534:65534", library])
            // Plus a SOURCE that does not exist (66) and one that is not bookmark data (5).
            let corrupt = "\(bookmarks)/corrupt.bookmark"
            try Data("not a bookmark".utf8).write(to: URL(fileURLWithPath: corrupt))
            try Shell.check(["chown", "65534:65534", corrupt])
            var sources = written
            sources.insert("\(bookmarks)/missing.bookmark", at: 3)
            expected.insert(nil, at: 3)
            sources.insert(corrupt, at: 8_000)
            expected.insert(nil, at: 8_000)
            let input = Data(sources.joined(separator: "\0").utf8)

            let json = try BookmarkTool.runUnprivileged(
                ["resolve", "--files-from", "-", "-0", "--keep-going", "--json"], input: input)
            #expect(json.status == 5, "corrupt data outranks a missing SOURCE (66) and a deleted file (3)")
            let records = try json.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? Object)
            }
            try #require(records.count == sources.count)
            var walks = Set<Int>()
            for (index, record) in records.enumerated() {
                #expect(record["source"] as? String == sources[index], "record \(index) out of order")
                if let path = expected[index] {
                    #expect(record["path"] as? String == path, "record \(index): \(record)")
                    #expect(record["exitStatus"] as? Int == 0)
                    if path.hasPrefix(elsewhere) {
                        // Found in the walk: the file itself, or its moved folder (then the name in it).
                        #expect(["search", "parent"].contains(record["matchedBy"] as? String), "\(record)")
                        walks.insert(try #require(record["entriesSearched"] as? Int))
                    }
                } else {
                    #expect(record["path"] == nil)
                }
            }
            #expect(walks.count == 1, "every moved bookmark reports the one shared walk: \(walks)")
            #expect(records[3]["exitStatus"] as? Int == 66)
            #expect(records[8_000]["exitStatus"] as? Int == 5)
            #expect(records[5_001]["exitStatus"] as? Int == 3, "deleted track 5,000 (shifted by the missing SOURCE)")

            // Plain and NUL-terminated: one record per input, empty for a failure.
            let plain = try BookmarkTool.runUnprivileged(["resolve", "--files-from", "-", "-0", "--keep-going"], input: input)
            #expect(plain.status == 5)
            let paths = plain.stdoutData.split(separator: 0, omittingEmptySubsequences: false).dropLast()
                .map { String(decoding: $0, as: UTF8.self) }
            try #require(paths.count == expected.count)
            #expect(paths.indices.first { paths[$0] != (expected[$0] ?? "") } == nil, "plain records in input order")

            // By default the batch stops at the first failure, with its status.
            let stopped = try BookmarkTool.runUnprivileged(["resolve", "--files-from", "-", "-0"], input: input)
            #expect(stopped.status == 66)
            #expect(stopped.stdoutData.filter { $0 == 0 }.count == 4, "three records, then the failed one")
        }
    }

    @Test("progress goes to stderr on a terminal (count, rate, volume) and never when stderr is a file")
    func progressOnlyOnATerminal() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            var sources: [String] = []
            for index in 0..<150 {
                let file = volume.path("f\(index)")
                #expect(FileManager.default.createFile(atPath: file, contents: Data()))
                sources.append(file)
            }
            let made = try BookmarkTool.run(["make", "--output-dir", volume.path("b")] + sources)
            #expect(made.status == 0, "\(made.stderr)")
            let list = volume.path("list")
            let bookmarks = made.stdout.split(separator: "\n").map(String.init)
            #expect(bookmarks == (0..<150).map { volume.path("b/f\($0).bookmark") }, "make --output-dir: DIR/NAME.bookmark, in input order")
            try Data((bookmarks.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: list))

            let quiet = try BookmarkTool.run(["resolve", "--files-from", list])
            #expect(quiet.status == 0)
            #expect(quiet.stderr.isEmpty, "no progress when stderr is not a terminal: \(quiet.stderr)")
            #expect(quiet.stdout.split(separator: "\n").count == 150)

            // script(1) gives the command a pseudo-terminal for stdout and stderr alike.
            let binary = try #require(BookmarkTool.path)
            let tty = try Shell.run(["script", "-qec", "\(binary) resolve --files-from \(list) > /dev/null", "/dev/null"])
            #expect(tty.status == 0, "\(tty.stdout)")
            #expect(tty.stdout.contains("resolving 0/150"), "\(tty.stdout.debugDescription)")
            #expect(tty.stdout.contains("/s)"))
            #expect(tty.stdout.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end")
        }
    }

    @Test("make --output-dir: DIR/NAME.bookmark, NAME~2.bookmark for a repeated NAME, a 255-byte NAME cut to fit; DIR made 0700")
    func outputNames() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let long = String(repeating: "n", count: 251) + ".txt"
            let paths = [volume.path("a/notes.txt"), volume.path("b/notes.txt"), volume.path("c/" + long)]
            for path in paths {
                try FileManager.default.createDirectory(
                    atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
                #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            }
            let out = volume.path("out/nested")
            let made = try BookmarkTool.run(["make", "--output-dir", out] + paths)
            #expect(made.status == 0, "\(made.stderr)")
            let cut = String(long.prefix(255 - ".bookmark".count - 8))
            #expect(made.stdout == [out + "/notes.txt.bookmark", out + "/notes.txt~2.bookmark", out + "/" + cut + ".bookmark"]
                .map { $0 + "\n" }.joined())
            let attributes = try FileManager.default.attributesOfItem(atPath: out)
            #expect((attributes[.posixPermissions] as? Int) == 0o700)
            // Each file resolves to its own input.
            let resolved = try BookmarkTool.run(["resolve"] + made.stdout.split(separator: "\n").map(String.init))
            #expect(resolved.stdout == paths.map { $0 + "\n" }.joined(), "\(resolved.stderr)")
            // -o is for one PATH.
            #expect(try BookmarkTool.run(["make", "-o", volume.path("x"), paths[0], paths[1]]).status == 64)
        }
    }

    @Test(
        "make --output-dir never writes two inputs to one file: an input named x~2 among two named x, and X and x in a folder that folds case",
        arguments: [FixtureFileSystem.ext4, .exfat])
    func outputNamesNeverShared(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(.ext4) { sources in
            // The inputs live on ext4 (names differ only in case there); the output folder is on
            // `kind`: ext4 keeps X.bookmark and x.bookmark apart, exFAT folds them into one file.
            let paths = [sources.path("a/x~2"), sources.path("a/x"), sources.path("b/x"), sources.path("c/X")]
            for path in paths {
                try FileManager.default.createDirectory(
                    atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
                #expect(FileManager.default.createFile(atPath: path, contents: Data(path.utf8)))
            }
            try LoopVolume.withVolume(kind) { target in
                let out = target.path("out")
                let made = try BookmarkTool.run(["make", "--output-dir", out] + paths)
                #expect(made.status == 0, "\(made.stderr)")
                let files = made.stdout.split(separator: "\n").map(String.init)
                try #require(files.count == paths.count)
                // Before: a/x~2's bookmark was replaced by b/x's, and both records named x~2.bookmark.
                #expect(Array(files.prefix(3)) == [out + "/x~2.bookmark", out + "/x.bookmark", out + "/x~3.bookmark"])
                #expect(Set(files).count == files.count, "two records name one file: \(files)")
                // On exFAT X.bookmark is x.bookmark's file, and X~2 and X~3 are taken too: the fourth input gets X~4.
                #expect(files[3] == (kind == .exfat ? out + "/X~4.bookmark" : out + "/X.bookmark"))
                // Each file resolves to its own input.
                let resolved = try BookmarkTool.run(["resolve"] + files)
                #expect(resolved.stdout == paths.map { $0 + "\n" }.joined(), "\(resolved.stderr)")
            }
        }
    }

    @Test("exit precedence: a batch exits with the most severe failure of the documented order")
    func precedence() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("a")
            #expect(FileManager.default.createFile(atPath: file, contents: Data()))
            let good = volume.path("good.bookmark")
            #expect(try BookmarkTool.run(["make", file, "-o", good]).status == 0)
            let gone = volume.path("gone")
            #expect(FileManager.default.createFile(atPath: gone, contents: Data()))
            let goneBookmark = volume.path("gone.bookmark")
            #expect(try BookmarkTool.run(["make", gone, "-o", goneBookmark]).status == 0)
            try FileManager.default.removeItem(atPath: gone)
            let missing = volume.path("missing.bookmark")
            let cases: [([String], Int32)] = [
                ([good, good], 0),
                ([good, goneBookmark], 3),
                ([goneBookmark, missing], 66),
                ([missing, goneBookmark, good], 66),
            ]
            for (sources, status) in cases {
                let result = try BookmarkTool.run(["resolve", "--keep-going"] + sources)
                #expect(result.status == status, "\(sources.map { URL(fileURLWithPath: $0).lastPathComponent }): \(result.stderr)")
                #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == sources.count + 1)
            }
            // An empty list is no work: exit 0, no output.
            let empty = try BookmarkTool.run(["resolve", "--files-from", "-"], input: Data())
            #expect(empty.status == 0 && empty.stdout.isEmpty)
        }
    }

    @Test("the fast path (resolve [--json --strict --no-search -0] SOURCE, --version) prints the same bytes and status as ArgumentParser's path")
    func fastPathMatchesParser() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("doc.txt")
            #expect(FileManager.default.createFile(atPath: file, contents: Data("d".utf8)))
            let fresh = volume.path("fresh.bookmark")
            #expect(try BookmarkTool.run(["make", file, "-o", fresh]).status == 0)
            let moved = volume.path("moved.bookmark")
            let other = volume.path("other.txt")
            #expect(FileManager.default.createFile(atPath: other, contents: Data()))
            #expect(try BookmarkTool.run(["make", other, "-o", moved]).status == 0)
            try FileManager.default.moveItem(atPath: other, toPath: volume.path("renamed.txt"))
            let corrupt = volume.path("corrupt.bookmark")
            try Data("nope".utf8).write(to: URL(fileURLWithPath: corrupt))
            let deleted = volume.path("deleted.bookmark")
            let victim = volume.path("victim")
            #expect(FileManager.default.createFile(atPath: victim, contents: Data()))
            #expect(try BookmarkTool.run(["make", victim, "-o", deleted]).status == 0)
            try FileManager.default.removeItem(atPath: victim)
            // Every subset of the flags the fast path takes, before and after SOURCE; `--` makes
            // the argument list a form it does not take, so the second run goes through the parser.
            let flags = ["--json", "--strict", "--no-search", "-0"]
            var compared = 0
            for source in [fresh, moved, corrupt, deleted, volume.path("absent.bookmark")] {
                for mask in 0..<(1 << flags.count) {
                    let chosen = flags.indices.filter { mask & (1 << $0) != 0 }.map { flags[$0] }
                    let parsed = try BookmarkTool.run(["resolve"] + chosen + ["--", source])
                    for fast in [["resolve"] + chosen + [source], ["resolve", source] + chosen] {
                        let result = try BookmarkTool.run(fast)
                        #expect(result.status == parsed.status, "\(fast)")
                        #expect(result.stdoutData == parsed.stdoutData, "\(fast)")
                        #expect(result.stderr == parsed.stderr, "\(fast)")
                        compared += 1
                    }
                }
            }
            #expect(compared == 160)
            // A repeated flag is not the fast path's: the parser decides (and accepts it).
            #expect(try BookmarkTool.run(["resolve", "--json", "--json", fresh]).status == 0)
            let version = try BookmarkTool.run(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout.wholeMatch(of: /bookmark \d+\.\d+\.\d+(-[a-z]+)? \(([0-9a-f]{12}(\+dirty)?|unknown)\)\n/) != nil, "\(version.stdout)")
            let help = try BookmarkTool.run(["--help"])
            #expect(help.status == 0 && help.stdout.contains("USAGE: bookmark"))
        }
    }
}

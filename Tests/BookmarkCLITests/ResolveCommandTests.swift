// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// `bookmark make / resolve / values`, run as a script would, with every exit code of the table.
@Suite("bookmark make / resolve / values", .serialized, .requiresRealVolumes)
struct ResolveCommandTests {
    typealias Object = [String: Any]

    func json(_ result: CommandResult) throws -> Object {
        try #require(try BookmarkTool.json(result) as? Object, "stdout: \(result.stdout) stderr: \(result.stderr)")
    }

    @Test("make prints base64 or writes raw bytes; resolve reads both, and stdin; stale exits 0, or 10 with --strict")
    func makeAndResolve() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("notes.txt")
            try Data("n".utf8).write(to: URL(fileURLWithPath: file))
            let printed = try BookmarkTool.run(["make", file])
            #expect(printed.status == 0)
            let base64 = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(Data(base64Encoded: base64)?.prefix(4) == Data("book".utf8))
            let raw = volume.path("notes.bookmark")
            #expect(try BookmarkTool.run(["make", file, "-o", raw]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: raw)).prefix(4) == Data("book".utf8))

            let fresh = try json(BookmarkTool.run(["resolve", raw, "--json"]))
            #expect(fresh["path"] as? String == file)
            #expect(fresh["stale"] as? Bool == false)
            #expect(fresh["matchedBy"] as? String == "path")
            let volumeInfo = try #require(fresh["volume"] as? Object)
            #expect(volumeInfo["uuid"] as? String == volume.uuid)
            #expect(volumeInfo["mountPoint"] as? String == volume.mountPoint?.path)

            try FileManager.default.moveItem(atPath: file, toPath: volume.path("renamed.txt"))
            let viaStdin = try BookmarkTool.run(["resolve", "-"], input: Data(base64.utf8))
            #expect(viaStdin.status == 0)
            #expect(viaStdin.stdout == volume.path("renamed.txt") + "\n")
            let stale = try json(BookmarkTool.run(["resolve", raw, "--json"]))
            #expect(stale["stale"] as? Bool == true)
            #expect((stale["changes"] as? [String])?.contains("name") == true)
            #expect(try BookmarkTool.run(["resolve", raw, "--strict"]).status == 10)
            #expect(try BookmarkTool.run(["resolve", raw, "--no-search", "--json"]).status == 0, "root opens the handle")
        }
    }

    /// `a.txt` on `volume` and its bookmark `a.bookmark`, made by the tool.
    private func bookmarkedFile(in volume: LoopVolume) throws -> (file: String, bookmark: String) {
        let file = volume.path("a.txt")
        try Data("a".utf8).write(to: URL(fileURLWithPath: file))
        let bookmark = volume.path("a.bookmark")
        #expect(try BookmarkTool.run(["make", file, "-o", bookmark]).status == 0)
        return (file, bookmark)
    }

    @Test("--refresh rewrites a stale file atomically, keeping keys it does not know")
    func refresh() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (file, raw) = try bookmarkedFile(in: volume)
            // An extra key an app stored: a string-keyed value this tool does not know.
            let extra = try insertStringKey(into: Data(contentsOf: URL(fileURLWithPath: raw)), key: "com.example.note", value: "keep me")
            try extra.write(to: URL(fileURLWithPath: raw))
            try FileManager.default.moveItem(atPath: file, toPath: volume.path("b.txt"))
            let refreshed = try json(BookmarkTool.run(["resolve", raw, "--refresh", "--json"]))
            #expect(refreshed["refreshed"] as? Bool == true)
            let after = try json(BookmarkTool.run(["resolve", raw, "--json"]))
            #expect(after["stale"] as? Bool == false)
            #expect(after["path"] as? String == volume.path("b.txt"))
            let inspected = try BookmarkTool.run(["inspect", raw])
            #expect(inspected.stdout.contains("com.example.note"))
            #expect(inspected.stdout.contains("keep me"))
        }
    }

    @Test("refresh of a SOURCE that is a symbolic link rewrites neither the link nor its target, and says what to give instead")
    func refreshThroughLink() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (file, raw) = try bookmarkedFile(in: volume)
            let link = volume.path("link.bookmark")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "a.bookmark")
            try FileManager.default.moveItem(atPath: file, toPath: volume.path("b.txt"))
            let before = try Data(contentsOf: URL(fileURLWithPath: raw))
            let result = try BookmarkTool.run(["refresh", link])
            #expect(result.status == 1)
            #expect(result.stdout == "failed \(link)\n")
            #expect(result.stderr.contains("\(link): refused: a symbolic link, which refresh does not rewrite; give the file it points to"))
            // One message for one failure (the refusal's own message came first, with an errno
            // the kernel never returned).
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!result.stderr.contains("errno"), "\(result.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "a.bookmark")
            #expect(try Data(contentsOf: URL(fileURLWithPath: raw)) == before)
            // Given the file itself, it is refreshed.
            #expect(try BookmarkTool.run(["refresh", raw]).stdout == "refreshed \(raw) -> \(volume.path("b.txt"))\n")
        }
    }

    @Test("exit 3 not found, 4 volume not mounted (with values still readable offline), 5 corrupt, 64 usage")
    func exitCodes() throws {
        try LoopVolume.withVolume(.ext4, label: "offline") { volume in
            let file = volume.path("gone.txt")
            try Data("g".utf8).write(to: URL(fileURLWithPath: file))
            let raw = volume.directory.appendingPathComponent("gone.bookmark").path
            #expect(try BookmarkTool.run(["make", file, "-o", raw]).status == 0)
            try FileManager.default.removeItem(atPath: file)
            let missing = try BookmarkTool.run(["resolve", raw])
            #expect(missing.status == 3)
            #expect(missing.stderr.contains("gone.txt"))

            try volume.unmount()
            let unmounted = try BookmarkTool.run(["resolve", raw, "--json"])
            #expect(unmounted.status == 4)
            let failure = try json(unmounted)
            #expect(failure["error"] as? String == "volumeNotMounted")
            #expect(failure["volumeName"] as? String == "offline")
            #expect(failure["lastKnownPath"] as? String == file)

            let values = try json(BookmarkTool.run(["values", raw, "--json"]))
            #expect(values["path"] as? String == file)
            #expect(values["volumeName"] as? String == "offline")
            #expect(values["volumeUUID"] as? String == volume.uuid.uppercased())
        }
        let garbage = "/var/tmp/swift-bookmarks-garbage-\(getpid())"
        try Data("book-not-really".utf8).write(to: URL(fileURLWithPath: garbage))
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        let corrupt = try BookmarkTool.run(["resolve", garbage])
        #expect(corrupt.status == 5)
        #expect(corrupt.stderr.contains(garbage))
        #expect(try BookmarkTool.run(["resolve"]).status == 64)
        #expect(try BookmarkTool.run(["resolve", "-", "--refresh"]).status == 64)
        #expect(try BookmarkTool.run(["make", "/nonexistent/x"]).status == 3)
        // A name that starts with '-' and holds an 'h', given without '--': ArgumentParser would
        // read it as a cluster holding -h and print help with exit 0; a script would take that for
        // a bookmark. A usage error instead; `-h` itself and a real cluster still ask for help.
        for cluster in ["-dash.txt", "-photo.jpg"] {
            let refused = try BookmarkTool.run(["make", cluster])
            #expect(refused.status == 64, "\(cluster)")
            #expect(refused.stdout.isEmpty && refused.stderr.contains("'--'"), "\(cluster): \(refused.stderr)")
        }
        // The advice fits the subcommand: `./NAME` for a file, only `--` for a find PATTERN (there
        // `./-dash.txt` would be a path glob).
        let made = try BookmarkTool.run(["make", "-dash.txt"])
        #expect(made.stderr.contains("bookmark make -o OUT -- -dash.txt") && made.stderr.contains("./-dash.txt"), "\(made.stderr)")
        let found = try BookmarkTool.run(["catalog", "find", "some.catalog", "-dash.txt"])
        #expect(found.status == 64)
        #expect(found.stderr.contains("bookmark catalog find CATALOG -- -dash.txt"), "\(found.stderr)")
        #expect(!found.stderr.contains("./-dash.txt"), "\(found.stderr)")
        // Without an 'h', ArgumentParser's own message named one letter of the word ('-m' for
        // `-mtime`), or, for a lone SOURCE, ran validation first ("give a SOURCE"): the same
        // advice for both, and a long option or a missing value keeps ArgumentParser's message.
        for (arguments, advice) in [
            (["catalog", "find", "some.catalog", "-name"], "bookmark catalog find CATALOG -- -name"),
            (["catalog", "find", "some.catalog", "-mtime"], "bookmark catalog find CATALOG -- -mtime"),
            (["resolve", "-z.book"], "bookmark resolve -- -z.book"),
            (["make", "-note.txt"], "bookmark make -o OUT -- -note.txt"),
        ] {
            let refused = try BookmarkTool.run(arguments)
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.stdout.isEmpty && refused.stderr.contains(advice), "\(arguments): \(refused.stderr)")
        }
        let longOption = try BookmarkTool.run(["resolve", "--bogus", "x"])
        #expect(longOption.status == 64 && longOption.stderr.contains("Unknown option '--bogus'"), "\(longOption.stderr)")
        let missingValue = try BookmarkTool.run(["make", "-o"])
        #expect(missingValue.status == 64 && missingValue.stderr.contains("Missing value"), "\(missingValue.stderr)")
        let resolved = try BookmarkTool.run(["resolve", "-hidden.book"])
        #expect(resolved.stderr.contains("bookmark resolve -- -hidden.book"), "\(resolved.stderr)")
        #expect(try BookmarkTool.run(["make", "-h"]).status == 0)
        #expect(try BookmarkTool.run(["catalog", "find", "-0h"]).status == 0)
        #expect(try BookmarkTool.run(["make", "--", "-dash-missing.txt"]).status == 3)
        let help = try BookmarkTool.run(["resolve", "--help"])
        #expect(help.stdout.contains("10  resolved but stale (--strict)"))
    }
}

/// Adds a string-keyed value to bookmark data, as another app might.
func insertStringKey(into data: Data, key: String, value: String) throws -> Data {
    try addingStringKey(data, key: key, value: value)
}

/// SOURCE files a script may hand over by mistake: each gets an exit code it can trust.
@Suite("SOURCE input: exit codes a script can trust")
struct SourceInputExitCodeTests {
    let directory: String = {
        let path = "/var/tmp/swift-bookmarks-source-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    @Test("a SOURCE that cannot be opened is 66, never 3 (which is about the bookmarked file)",
          arguments: ["resolve", "values", "inspect", "refresh"])
    func unopenable(command: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = directory + "/missing.bookmark"
        let result = try BookmarkTool.run([command, missing])
        #expect(result.status == 66, "\(command): \(result.stderr)")
        #expect(result.stderr.contains("missing.bookmark"))
        let dangling = directory + "/dangling.bookmark"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: directory + "/nowhere")
        #expect(try BookmarkTool.run([command, dangling]).status == 66)
    }

    @Test("oversized, sparse, device, FIFO and directory SOURCEs are 5 (not bookmark data), at once; the same bytes on stdin are 5 too")
    func notBookmarkData() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let big = directory + "/big.bookmark"
        try Data(count: 64 << 20).write(to: URL(fileURLWithPath: big))
        let sparse = directory + "/sparse.bookmark"
        #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
        #expect(truncate(sparse, 1 << 30) == 0)
        let fifo = directory + "/fifo.bookmark"
        #expect(mkfifo(fifo, 0o600) == 0)
        for command in ["resolve", "values", "inspect"] {
            for source in [big, sparse, "/dev/zero", fifo, directory] {
                let result = try BookmarkTool.run([command, source])
                #expect(result.status == 5, "\(command) \(source): \(result.status) \(result.stderr)")
            }
        }
        let stdin = try BookmarkTool.run(["resolve", "-"], input: Data(count: 64 << 20))
        #expect(stdin.status == 5)
        let refresh = try BookmarkTool.run(["refresh", fifo, big])
        #expect(refresh.status == 5)
        let help = try BookmarkTool.run(["resolve", "--help"])
        #expect(help.stdout.contains("66  a SOURCE or key file cannot be opened"))
    }
}

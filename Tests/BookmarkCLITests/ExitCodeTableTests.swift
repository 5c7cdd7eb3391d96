// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import Testing
import VolumeFixtures

/// Every row of the exit-code table in `bookmark --help` (and Docs/CLI.md), each produced for real.
@Suite("The exit-code table, row by row")
struct ExitCodeTableTests {
    /// The codes `bookmark --help` lists.
    static func helpCodes() throws -> Set<Int32> {
        let help = try BookmarkTool.run(["--help"])
        var codes = Set<Int32>()
        var inTable = false
        for line in help.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Exit codes:") { inTable = true; continue }
            guard inTable else { continue }
            if line.isEmpty { break }  // the table ends at the blank line before USAGE
            // Rows start with two spaces and the code; wrapped meanings continue unindented.
            if line.hasPrefix("  "), let first = line.split(separator: " ").first, let code = Int32(first) {
                codes.insert(code)
            }
        }
        return codes
    }

    /// The rows this suite produces, and the one the dead-volume suite produces (75: it needs a FUSE daemon).
    static let producedHere: Set<Int32> = [0, 1, 3, 4, 5, 6, 10, 64, 66]
    static let producedElsewhere: [Int32: String] = [
        13: "ExitCodeTableTests.permissionDenied (as uid 65534)",
        75: "DeadVolumeCLITests.exitCodes (a FUSE volume that stopped answering)",
    ]

    @Test("the table in --help has exactly the rows these tests produce")
    func tableMatchesTests() throws {
        let listed = try Self.helpCodes()
        #expect(listed == Self.producedHere.union(Self.producedElsewhere.keys), "listed: \(listed.sorted())")
    }

    @Test("each row, produced by the situation it names")
    func rows() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("exit-codes-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        func path(_ name: String) -> String { work + "/" + name }
        try Data("t".utf8).write(to: URL(fileURLWithPath: path("target.txt")))

        // 0: made and resolved.
        let made = try BookmarkTool.run(["make", path("target.txt"), "-o", path("t.bookmark")])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try BookmarkTool.run(["resolve", path("t.bookmark")]).status == 0)

        // 1: a failure with no more specific code (a symlink loop: ELOOP).
        #expect(symlink("loop", path("loop")) == 0)
        let loop = try BookmarkTool.run(["id", path("loop")])
        #expect(loop.status == 1, "\(loop.status) \(loop.stderr)")

        // 1, not 3: an OUTPUT that cannot be written (the input exists). The message names the
        // output as the output, without the "(last known path …)" of a bookmarked file.
        let outputs: [(arguments: [String], output: String, says: String)] = [
            (["make", path("target.txt"), "-o", path("no-dir/x.bookmark")], path("no-dir/x.bookmark"), "cannot write the output file"),
            (["make", "--output-dir", path("target.txt"), path("target.txt")], path("target.txt"), "cannot make the output directory"),
            (["make", "--output-dir", path("target.txt"), path("target.txt"), path("loop")], path("target.txt"),
             "cannot make the output directory"),
            (["alias", path("target.txt"), path("no-dir/x")], path("no-dir/x"), "cannot write the alias file"),
        ]
        for (arguments, output, says) in outputs {
            let failed = try BookmarkTool.run(arguments)
            #expect(failed.status == 1, "\(arguments): \(failed.status) \(failed.stderr)")
            #expect(failed.stderr.hasPrefix("bookmark: \(output): \(says): "), "\(arguments): \(failed.stderr)")
            #expect(!failed.stderr.contains("last known path"), "\(arguments): \(failed.stderr)")
        }
        // make --output-dir DIR with many inputs: a file that cannot be written is 1 in its record.
        try FileManager.default.createDirectory(atPath: path("out/target.txt.bookmark"), withIntermediateDirectories: true)
        let blocked = try BookmarkTool.run(
            ["make", "--json", "--keep-going", "--output-dir", path("out"), path("target.txt"), path("target.txt")])
        #expect(blocked.status == 1, "\(blocked.status) \(blocked.stderr)")
        let records = blocked.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(records.map { $0?["exitStatus"] as? Int } == [1, 0], "\(blocked.stdout)")
        // A directory where the file goes is refused, and said as a refusal (not as a failed call).
        #expect(blocked.stderr.contains("\(path("out/target.txt.bookmark")): refused: it is a directory, not a regular file; "
            + "bookmark writes only regular files\n"), "\(blocked.stderr)")

        // 10: stale with --strict (renamed), and 0 without it.
        try FileManager.default.moveItem(atPath: path("target.txt"), toPath: path("renamed.txt"))
        #expect(try BookmarkTool.run(["resolve", "--strict", path("t.bookmark")]).status == 10)
        #expect(try BookmarkTool.run(["resolve", path("t.bookmark")]).status == 0)

        // 3: the bookmarked file is gone.
        try FileManager.default.removeItem(atPath: path("renamed.txt"))
        let gone = try BookmarkTool.run(["resolve", "--no-search", path("t.bookmark")])
        #expect(gone.status == 3, "\(gone.status) \(gone.stderr)")

        // 4: the volume (by UUID) is not mounted: the same bookmark with another volume UUID.
        try Data("u".utf8).write(to: URL(fileURLWithPath: path("u.txt")))
        #expect(try BookmarkTool.run(["make", path("u.txt"), "-o", path("u.bookmark")]).status == 0)
        var record = try BookmarkRecord(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: path("u.bookmark")))))
        var volume = record.volume
        volume.uuid = "0BADC0DE-0000-4000-8000-000000000001"
        record.volume = volume
        try Data(try record.encoded()).write(to: URL(fileURLWithPath: path("elsewhere.bookmark")))
        let unmounted = try BookmarkTool.run(["resolve", path("elsewhere.bookmark")])
        #expect(unmounted.status == 4, "\(unmounted.status) \(unmounted.stderr)")

        // 5: not bookmark data (file and stdin alike).
        try Data("not a bookmark".utf8).write(to: URL(fileURLWithPath: path("junk")))
        #expect(try BookmarkTool.run(["resolve", path("junk")]).status == 5)
        #expect(try BookmarkTool.run(["resolve", "-"], input: Data("junk".utf8)).status == 5)

        // 6: signed with one key, verified with another.
        let signed = try BookmarkTool.run(["make", path("u.txt"), "--sign", path("key-a"), "-o", path("s.bookmark")])
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(try BookmarkTool.run(["make", path("u.txt"), "--sign", path("key-b")]).status == 0)
        #expect(try BookmarkTool.run(["resolve", "--verify", path("key-b"), path("s.bookmark")]).status == 6)
        #expect(try BookmarkTool.run(["resolve", "--verify", path("key-a"), path("s.bookmark")]).status == 0)

        // 64: a bad command line.
        #expect(try BookmarkTool.run(["resolve"]).status == 64)
        #expect(try BookmarkTool.run(["resolve", "--volume-timeout", "-1", path("s.bookmark")]).status == 64)

        // 66: a SOURCE that cannot be opened, distinct from 3.
        #expect(try BookmarkTool.run(["resolve", path("missing.bookmark")]).status == 66)
    }

    @Test("13: permission denied, as uid 65534", .requiresUnprivilegedUser)
    func permissionDenied() throws {
        let work = "/var/tmp/exit-code-13-\(UUID())"
        try FileManager.default.createDirectory(atPath: work + "/private", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        chmod(work, 0o755)
        chmod(work + "/private", 0o700)
        try Data("p".utf8).write(to: URL(fileURLWithPath: work + "/private/secret.txt"))
        let denied = try BookmarkTool.runUnprivileged(["id", work + "/private/secret.txt"])
        #expect(denied.status == 13, "\(denied.status) \(denied.stderr)")
    }
}

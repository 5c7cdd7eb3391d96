// SPDX-License-Identifier: Apache-2.0
// Where the command and Docs/CLI.md disagreed: `make -x`, `alias` over an existing file, a
// `--files-from` record `-`.
import Foundation
import Testing
import VolumeFixtures

@Suite("bookmark: what Docs/CLI.md says")
struct DocumentedBehaviourTests {
    /// A work folder with a file `t.txt`, removed afterwards.
    static func withWork(_ body: (String) throws -> Void) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("documented-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        #expect(FileManager.default.createFile(atPath: work + "/t.txt", contents: Data("t".utf8)))
        try body(work)
    }

    /// CLI.md: a word that starts with one '-' and names no short flag gets the "starts with '-'"
    /// message; `make -x` said "give a PATH, or --files-from", `make -x t.txt` "Unknown option '-x'".
    @Test("make -x: the message about names that start with '-', exit 64", arguments: [["make", "-x"], ["make", "-x", "t.txt"], ["resolve", "-x"]])
    func unknownShortFlag(arguments: [String]) throws {
        let result = try BookmarkTool.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("unknown option '-x'; a file whose name starts with '-' goes after '--'"), "\(result.stderr)")
        #expect(!result.stderr.contains("give a"), "\(result.stderr)")
        // The short flags themselves keep ArgumentParser's messages (a missing value here).
        #expect(!(try BookmarkTool.run(["make", "-o"]).stderr.contains("unknown option")))
    }

    @Test("alias over an existing file that is not an alias: refused (exit 1, file kept) unless --force; an alias file is replaced")
    func aliasDoesNotClobber() throws {
        try Self.withWork { work in
            let notes = work + "/notes.txt"
            try Data("precious".utf8).write(to: URL(fileURLWithPath: notes))
            // The arguments swapped: FILE is the user's document.
            let swapped = try BookmarkTool.run(["alias", work + "/t.txt", notes])
            #expect(swapped.status == 1, "\(swapped.stderr)")
            #expect(swapped.stdout.isEmpty)
            #expect(swapped.stderr == "bookmark: \(notes): refused: it exists and is not an alias file (were TARGET and FILE "
                + "swapped?); give --force to replace it\n")
            #expect(try String(contentsOfFile: notes, encoding: .utf8) == "precious")

            // An alias file there is replaced (refreshing it is the point), without --force.
            let alias = work + "/t.alias"
            #expect(try BookmarkTool.run(["alias", work + "/t.txt", alias]).status == 0)
            let again = try BookmarkTool.run(["alias", notes, alias])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try BookmarkTool.run(["resolve", alias]).stdout == notes + "\n")

            // --force replaces the file.
            let forced = try BookmarkTool.run(["alias", "--force", work + "/t.txt", notes])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(try BookmarkTool.run(["resolve", notes]).stdout == work + "/t.txt\n")
        }
    }

    @Test("a --files-from record that is exactly '-' is refused (64) before anything is done; ./- names the file", arguments: [false, true])
    func dashRecord(listOnStdin: Bool) throws {
        try Self.withWork { work in
            let made = try BookmarkTool.run(["make", work + "/t.txt", "-o", work + "/-"])
            try #require(made.status == 0, "\(made.stderr)")
            let records = Data("\(work)/-\n-\n".utf8)
            let list = work + "/list"
            try records.write(to: URL(fileURLWithPath: list))
            let arguments = ["resolve", "--files-from", listOnStdin ? "-" : list]
            // With a list file, standard input holds a bookmark that the '-' record used to read.
            let result = try BookmarkTool.run(arguments, input: listOnStdin ? records : try Data(contentsOf: URL(fileURLWithPath: work + "/-")))
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stdout.isEmpty, "nothing done: \(result.stdout)")
            #expect(result.stderr.contains("record 2 is '-', which is not read as standard input in a list; a file named '-' is written ./-"),
                    "\(result.stderr)")
            // Written as ./- (from the work folder, as find prints it), it is the file.
            try Data("./-\n".utf8).write(to: URL(fileURLWithPath: list))
            let named = try Shell.run(["sh", "-c", "cd \"$1\" && exec \"$2\" resolve --files-from list", "sh", work, try #require(BookmarkTool.path)])
            #expect(named.status == 0, "\(named.stderr)")
            #expect(named.stdout == work + "/t.txt\n")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Messages a new user met that said the wrong thing: `help` of an unknown name, an empty SOURCE,
// a device as SOURCE, a negative `--budget-ms`.
import Foundation
import Testing
import VolumeFixtures

@Suite("plain messages for mistakes")
struct PlainMessageTests {
    /// `help badcmd` printed the top-level help and exited 0.
    @Test("help of an unknown subcommand is a usage error; of a known one, its help")
    func helpOfUnknownName() throws {
        for names in [["badcmd"], ["catalog", "nope"], ["resolve", "extra"]] {
            let result = try BookmarkTool.run(["help"] + names)
            #expect(result.status == 64, "\(names): \(result.status) \(result.stdout)")
            #expect(result.stdout.isEmpty, "\(names): \(result.stdout)")
            #expect(result.stderr.contains("no subcommand '\(names.last ?? "")'"), "\(names): \(result.stderr)")
        }
        for names in [[], ["resolve"], ["catalog", "find"]] {
            let result = try BookmarkTool.run(["help"] + names)
            #expect(result.status == 0, "\(names): \(result.stderr)")
            #expect(result.stdout.contains("USAGE"), "\(names): \(result.stdout)")
        }
    }

    /// An empty SOURCE said "bad magic  at offset 0"; a character device "a characterDevice".
    @Test("an empty SOURCE says it is empty; /dev/zero says a character device")
    func emptyAndDeviceSources() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("plain-messages-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let empty = work + "/empty.bookmark"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        for command in ["resolve", "inspect", "values"] {
            let result = try BookmarkTool.run([command, empty])
            #expect(result.status == 5, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(empty): not bookmark data: the input is empty (0 bytes)"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("bad magic"), "\(command): \(result.stderr)")
        }
        let stdin = try BookmarkTool.run(["resolve", "-"], input: Data())
        #expect(stdin.status == 5 && stdin.stderr.contains("-: not bookmark data: the input is empty"), "\(stdin.stderr)")

        let device = try BookmarkTool.run(["resolve", "/dev/zero"])
        #expect(device.status == 5, "\(device.stderr)")
        #expect(device.stderr.contains("/dev/zero: not bookmark data: a character device, not a regular file"), "\(device.stderr)")
        let folder = try BookmarkTool.run(["inspect", work])
        #expect(folder.stderr.contains("not bookmark data: a directory, not a regular file"), "\(folder.stderr)")
    }

    /// `--budget-ms -1` said "Missing value for '--budget-ms'" (ArgumentParser took -1 for an option).
    @Test("a negative --budget-ms says the rule")
    func negativeBudget() throws {
        for arguments in [["--budget-ms", "-1"], ["--budget-ms=-1"]] {
            let result = try BookmarkTool.run(["resolve"] + arguments + ["x.bookmark"])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--budget-ms must be 0 or more"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Missing value"), "\(arguments): \(result.stderr)")
        }
        // 0 is allowed (no search time): the SOURCE is what fails here.
        let zero = try BookmarkTool.run(["resolve", "--budget-ms", "0", "/nonexistent/x.bookmark"])
        #expect(zero.status == 66, "\(zero.stderr)")
    }

    /// Standard input that cannot be read (a directory, or closed) trapped in FileHandle's
    /// readData (SIGILL, 132); now it is a SOURCE that cannot be read: 66, said on stderr.
    @Test("a SOURCE '-' whose standard input cannot be read exits 66", arguments: ["< /", "<&-"])
    func unreadableStandardInput(redirection: String) throws {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        for command in [["inspect", "-"], ["resolve", "-"], ["values", "-"]] {
            let result = try Shell.run(["sh", "-c", "exec \"$@\" \(redirection)", "sh", tool] + command)
            #expect(result.status == 66, "\(command) \(redirection): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("-: cannot read standard input: "), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"), "\(command): \(result.stderr)")
        }
    }

    /// `bookmark badcmd` said "Unexpected argument 'badcmd'"; `bookmark` and `bookmark package`
    /// alone printed the help on stdout and exited 0, which a script takes for output and success.
    @Test("an unknown subcommand, or none, is a usage error (64): the help goes to stderr, stdout stays empty")
    func missingOrUnknownSubcommand() throws {
        for (arguments, says) in [
            (["badcmd"], "bookmark: no subcommand 'badcmd'; `bookmark --help` lists them\n"),
            (["package", "nope"], "bookmark: no subcommand 'nope' in 'bookmark package'; `bookmark package --help` lists them\n"),
        ] {
            let result = try BookmarkTool.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr == says, "\(arguments): \(result.stderr)")
        }
        for (arguments, group) in [([String](), "bookmark"), (["package"], "bookmark package"), (["catalog"], "bookmark catalog")] {
            let result = try BookmarkTool.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr.contains("USAGE: \(group) <subcommand>"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasSuffix("bookmark: \(group) needs a subcommand (listed above)\n"), "\(arguments): \(result.stderr)")
        }
        // Asked for, help is still output: stdout, exit 0.
        for arguments in [["--help"], ["package", "--help"], ["help", "package"]] {
            let result = try BookmarkTool.run(arguments)
            #expect(result.status == 0 && result.stdout.contains("USAGE"), "\(arguments): \(result.stderr)")
        }
    }

    /// `bookmark ref` said "Missing expected argument '<argument>'".
    @Test("ref without its argument names it")
    func refArgumentName() throws {
        let result = try BookmarkTool.run(["ref"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'<path-or-url>'"), "\(result.stderr)")
        #expect(try BookmarkTool.run(["ref", "--help"]).stdout.contains("<path-or-url>"))
    }

    /// A missing key file said `keyRejected` and exited 6, which reads like a tampered signature.
    @Test("a --verify or --sign key file that cannot be opened exits 66 and names the key file")
    func missingKeyFile() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("missing-key-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        #expect(FileManager.default.createFile(atPath: work + "/t.txt", contents: Data("t".utf8)))
        let made = try BookmarkTool.run(["make", "--sign", work + "/k.key", work + "/t.txt", "-o", work + "/s.bookmark"])
        try #require(made.status == 0, "\(made.stderr)")
        let missing = work + "/nokey"
        for arguments in [["resolve", "--verify", missing, work + "/s.bookmark"], ["refresh", "--sign", missing, work + "/s.bookmark"]] {
            let result = try BookmarkTool.run(arguments)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "bookmark: \(missing): cannot read the key file: No such file or directory (errno 2)\n",
                    "\(arguments): \(result.stderr)")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Stdout that cannot be written (a full disk, a closed descriptor): every command says so on
// stderr and exits 1, instead of exiting 0 with its output lost (or trapping, as `inspect` did).
import Foundation
import Testing
import VolumeFixtures

@Suite("stdout that cannot be written")
struct StdoutFailureTests {
    /// A scratch folder with a file, its bookmark, and a second file.
    private static func scratch() throws -> String {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("stdout-failure-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: work + "/a.txt", contents: Data("a".utf8)))
        #expect(FileManager.default.createFile(atPath: work + "/b.txt", contents: Data("b".utf8)))
        let made = try BookmarkTool.run(["make", work + "/a.txt", "-o", work + "/a.bookmark"])
        #expect(made.status == 0, "\(made.stderr)")
        return work
    }

    /// Runs `bookmark ARGS` with stdout redirected as `redirection` says (`>/dev/full`, `>&-`).
    private static func run(_ arguments: [String], stdout redirection: String) throws -> CommandResult {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        return try Shell.run(["sh", "-c", "exec \"$@\" \(redirection)", "sh", tool] + arguments)
    }

    /// With stdout closed, descriptor 1 was free and the first file the tool opened took it (the
    /// mount table, in `strace`): a record would have gone into that file had it been writable.
    @Test("a closed stdout or stdin is held by /dev/null: no file the tool opens takes descriptor 0 or 1")
    func closedDescriptorsHeld() throws {
        try #require(Shell.has("strace"), "strace shows which file gets descriptor 1")
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let trace = work + "/open.trace"
        let result = try Shell.run([
            "sh", "-c", "exec strace -f -e trace=openat,open -o \"$1\" \"$2\" resolve \"$3\" <&- >&-", "sh", trace, tool,
            work + "/a.bookmark",
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("stdout: cannot write: Bad file descriptor"), "\(result.stderr)")
        let opens = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        // The dynamic loader opens (and closes) the libraries at the free numbers before main runs;
        // from the placeholders on, nothing but them may take 0 or 1.
        let fromMain = opens.drop { !$0.contains("\"/dev/null\"") }
        let low = fromMain.filter { $0.contains("open") && ($0.hasSuffix(" = 0") || $0.hasSuffix(" = 1")) }
        #expect(low.count == 2, "\(low)")
        #expect(low.allSatisfy { $0.contains("\"/dev/null\"") }, "\(low)")
    }

    /// Each command that prints, on a full device and on a closed stdout.
    @Test("each command exits 1 and names stdout and the errno", arguments: [">/dev/full", ">&-"])
    func everyCommand(redirection: String) throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let commands: [[String]] = [
            ["resolve", work + "/a.bookmark"],
            ["resolve", "--json", work + "/a.bookmark"],
            ["resolve", work + "/a.bookmark", work + "/a.bookmark"],
            ["make", work + "/a.txt"],
            ["make", "--json", work + "/a.txt", work + "/b.txt"],
            ["make", "--output-dir", work + "/out", work + "/a.txt"],
            ["id", work + "/a.txt"],
            ["values", work + "/a.bookmark"],
            ["volumes"],
            ["refresh", work + "/a.bookmark"],
            ["ref", work + "/a.txt"],
            ["inspect", work + "/a.bookmark"],
            ["inspect", "--json", work + "/a.bookmark"],
            ["package", "inspect", work + "/pkg"],
            ["package", "verify", work + "/pkg"],
        ]
        try FileManager.default.createDirectory(atPath: work + "/pkg/sub", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: work + "/pkg/sub/f", contents: Data([1])))
        let errno = redirection == ">&-" ? "Bad file descriptor" : "No space left on device"
        for command in commands {
            let result = try Self.run(command, stdout: redirection)
            #expect(result.status == 1, "\(command): exit \(result.status), \(result.stderr)")
            #expect(result.stderr.contains("stdout: cannot write: \(errno)"), "\(command): \(result.stderr)")
            // `inspect` used FileHandle, whose write traps (SIGILL) on a failed write.
            #expect(!result.stderr.contains("Fatal error"), "\(command): \(result.stderr)")
        }
    }

    /// A failed input keeps its own, more severe code: 1 only raises a success.
    @Test("a batch with a failed input keeps the more severe code")
    func moreSevereCodeKept() throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let corrupt = work + "/junk.bookmark"
        #expect(FileManager.default.createFile(atPath: corrupt, contents: Data("not a bookmark".utf8)))
        let result = try Self.run(["resolve", "--keep-going", work + "/a.bookmark", corrupt], stdout: ">/dev/full")
        #expect(result.status == 5, "\(result.status) \(result.stderr)")  // corrupt data outranks 1
        #expect(result.stderr.contains("stdout: cannot write"), "\(result.stderr)")
    }

    /// `make --output-dir`: the batch stops once stdout failed, and the files it wrote are whole
    /// bookmarks (it says how many).
    @Test("make --output-dir stops at the failure; the files written resolve")
    func makeOutputDirectoryStops() throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: work) }
        var inputs: [String] = []
        try FileManager.default.createDirectory(atPath: work + "/files", withIntermediateDirectories: true)
        // JSON records of about 300 bytes: the first 64 KiB write fails after a few hundred.
        for index in 0..<800 {
            let path = work + "/files/f\(index).txt"
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
            inputs.append(path)
        }
        let out = work + "/out"
        let result = try Self.run(["make", "--json", "--output-dir", out] + inputs, stdout: ">/dev/full")
        #expect(result.status == 1, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".bookmark") }
        #expect(!files.isEmpty && files.count < inputs.count, "\(files.count) files: the batch did not stop")
        #expect(result.stderr.contains("\(files.count) bookmark file(s) were written before stdout failed"), "\(result.stderr)")
        let resolved = try BookmarkTool.run(["resolve", "--keep-going"] + files.map { out + "/" + $0 })
        #expect(resolved.status == 0, "\(resolved.stderr)")
    }
}

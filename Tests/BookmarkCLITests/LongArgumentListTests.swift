// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// Long lists of inputs on the command line (`bookmark resolve DIR/*`) are folded before
/// ArgumentParser sees them (its parse of a list is quadratic in its length). Folding must not
/// change what a command does: the same inputs as arguments, with options, `help`, `--` and names
/// that are not UTF-8 among them, must give what they give through `--files-from`, byte for byte.
@Suite("bookmark: long argument lists")
struct LongArgumentListTests {
    /// A fresh folder with `count` plain files and the awkward names below; removed by `body`'s end.
    private func withFiles<T>(_ count: Int, _ body: (_ folder: String, _ plain: [[UInt8]], _ awkward: [[UInt8]]) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("long-args-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plain: [[UInt8]] = []
        for index in 0..<count {
            let path = "\(folder)/file-\(index).txt"
            #expect(FileManager.default.createFile(atPath: path, contents: Data("\(index)".utf8)))
            plain.append(Array(path.utf8))
        }
        // A file called `help`, one with a space and a newline, one whose name is not UTF-8.
        var awkward: [[UInt8]] = []
        for name in [Array("help".utf8), Array("with space\nand newline".utf8), [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x74, 0x78, 0x74]] {
            let path = Array(folder.utf8) + [0x2F] + name
            let fd = (path + [0]).withUnsafeBytes { bytes -> Int32 in
                guard let base = bytes.baseAddress else { return -1 }
                return open(base.assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
            }
            try #require(fd >= 0)
            close(fd)
            awkward.append(path)
        }
        return try body(folder, plain, awkward)
    }

    /// `bookmark ARGS`, then the same inputs through `--files-from` (NUL-separated, `-0`), with
    /// `options`: the two must exit alike and print the same bytes.
    private func expectSameAsList(_ command: String, arguments: [[UInt8]], inputs: [[UInt8]], options: [String], _ comment: Comment) throws {
        let given = try BookmarkTool.run(bytes: [Array(command.utf8)] + arguments)
        let list = Data(inputs.flatMap { $0 + [0] })
        let listed = try BookmarkTool.run(bytes: ([command] + options + ["--files-from", "-"]).map { Array($0.utf8) }, input: list)
        #expect(given.status == listed.status, comment)
        #expect(given.stdoutData == listed.stdoutData, comment)
    }

    @Test("id: inputs among flags, an option's value, `help` and `--` give what --files-from gives")
    func identityAmongOptions() throws {
        try withFiles(45) { _, plain, awkward in
            let dashName = plain[44]  // stands for a name after `--`; a real `-` name is checked below
            // id f0…f9 -0 f10…f19 awkward --keep-going f20…f29 --volume-timeout 3 f30…f43 -- f44
            var arguments: [[UInt8]] = Array(plain[0..<10])
            arguments.append(Array("-0".utf8))
            arguments += plain[10..<20] + awkward
            arguments.append(Array("--keep-going".utf8))
            arguments += plain[20..<30]
            arguments += [Array("--volume-timeout".utf8), Array("3".utf8)]
            arguments += plain[30..<44]
            arguments += [Array("--".utf8), dashName]
            let inputs = Array(plain[0..<20]) + awkward + Array(plain[20..<45])
            try expectSameAsList("id", arguments: arguments, inputs: inputs, options: ["-0", "--keep-going", "--volume-timeout", "3"], "mixed")
        }
    }

    @Test("id: a missing input in a long list stops the batch where --files-from stops it, and --keep-going goes on alike")
    func missingInputInTheMiddle() throws {
        try withFiles(40) { folder, plain, _ in
            var inputs = plain
            inputs.insert(Array("\(folder)/missing.txt".utf8), at: 25)
            try expectSameAsList("id", arguments: [Array("-0".utf8)] + inputs, inputs: inputs, options: ["-0"], "stops")
            try expectSameAsList(
                "id", arguments: inputs + [Array("-0".utf8), Array("--keep-going".utf8)], inputs: inputs,
                options: ["-0", "--keep-going"], "keeps going")
        }
    }

    @Test("id: after `--` at the end of a long list, a word that starts with '-' is an input, as through --files-from")
    func dashWordAfterTerminator() throws {
        try withFiles(40) { _, plain, _ in
            // Relative, so it names no file here: both forms must report it missing (not take it
            // for an option, which would be a usage error) and go on.
            let dashed = Array("-no-such-file.txt".utf8)
            let arguments = [Array("-0".utf8), Array("--keep-going".utf8)] + plain[0..<20] + [Array("--".utf8)] + plain[20...] + [dashed]
            try expectSameAsList("id", arguments: arguments, inputs: plain + [dashed], options: ["-0", "--keep-going"], "dash")
            let given = try BookmarkTool.run(bytes: [Array("id".utf8)] + arguments)
            #expect(given.status != 64, "taken for an option: \(given.stderr.prefix(300))")
            // One record per input, in order; the missing one's is empty (its error is on stderr).
            #expect(given.stdoutData.filter { $0 == 0 }.count == 41)
        }
    }

    @Test("resolve: 1,000 bookmarks given as arguments, with --json among them, answer in order as through --files-from")
    func resolveManyAsArguments() throws {
        try withFiles(1_000) { folder, plain, _ in
            let made = try BookmarkTool.run(bytes: [Array("make".utf8), Array("--output-dir".utf8), Array("\(folder)/b".utf8)] + plain)
            try #require(made.status == 0, "\(made.stderr.prefix(300))")
            let bookmarks = made.stdout.split(separator: "\n").map { Array($0.utf8) }
            try #require(bookmarks.count == plain.count)
            // Renamed ones resolve by their file IDs, so the records say "moved" for them.
            for index in stride(from: 0, to: plain.count, by: 97) {
                let from = String(decoding: plain[index], as: UTF8.self)
                try FileManager.default.moveItem(atPath: from, toPath: from + ".renamed")
            }
            var arguments = Array(bookmarks[0..<500])
            arguments += [Array("--json".utf8), Array("-0".utf8)]
            arguments += bookmarks[500...]
            try expectSameAsList("resolve", arguments: arguments, inputs: bookmarks, options: ["--json", "-0"], "resolve")
            let given = try BookmarkTool.run(bytes: [Array("resolve".utf8)] + arguments)
            // JSON Lines: one object per line, `-0` or not (JSON holds no raw newline).
            let records = given.stdoutData.split(separator: 0x0A)
            #expect(records.count == 1_000)
            let last = try #require(records.last.flatMap { try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] })
            #expect(last["path"] as? String == String(decoding: plain[999], as: UTF8.self))
            let renamed = try #require(try JSONSerialization.jsonObject(with: Data(records[97])) as? [String: Any])
            #expect((renamed["path"] as? String)?.hasSuffix(".renamed") == true)
        }
    }
}

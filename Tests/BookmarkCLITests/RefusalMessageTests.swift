// SPDX-License-Identifier: Apache-2.0
// The secure layer's refusals said in plain words: what was refused and why, not a syscall
// failure with an errno the kernel never returned ("'statx' failed on 'outlink': Invalid argument
// (errno 22, rejected): rejected: not a regular file (symlink)").
import Foundation
import Testing
import VolumeFixtures

@Suite("bookmark: refusals in plain words")
struct RefusalMessageTests {
    /// A work folder with a file `t.txt`, removed afterwards.
    static func withWork(_ body: (String) throws -> Void) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("refusal-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        #expect(FileManager.default.createFile(atPath: work + "/t.txt", contents: Data("t".utf8)))
        try body(work)
    }

    /// No trace of a failed call: a refusal is a decision.
    static func expectNoSyscall(_ stderr: String) {
        for word in ["errno", "statx", "failed on", "Invalid argument", "Permission denied", "rejected"] {
            #expect(!stderr.contains(word), "\(word): \(stderr)")
        }
    }

    @Test("an output that is a symbolic link: make -o and alias say it is refused and why, exit 1, the link left alone")
    func outputSymlink() throws {
        try Self.withWork { work in
            let link = work + "/outlink"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "elsewhere")
            for arguments in [["make", work + "/t.txt", "-o", link], ["alias", work + "/t.txt", link]] {
                let result = try BookmarkTool.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr == "bookmark: \(link): refused: it is a symbolic link, not a regular file; "
                    + "bookmark writes only regular files, and neither follows nor replaces a link\n")
                Self.expectNoSyscall(result.stderr)
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "elsewhere")
            }
        }
    }

    @Test("a signing key readable by others: make --sign, resolve --verify and refresh --sign say its mode and chmod 600, exit 6")
    func keyMode() throws {
        try Self.withWork { work in
            let key = work + "/k1.key"
            let made = try BookmarkTool.run(["make", "--sign", key, work + "/t.txt", "-o", work + "/s.bookmark"])
            try #require(made.status == 0, "\(made.stderr)")  // the key is created, mode 0600
            try Shell.check(["chmod", "0644", key])
            for arguments in [
                ["make", "--sign", key, work + "/t.txt"], ["resolve", "--verify", key, work + "/s.bookmark"],
                ["refresh", "--sign", key, work + "/s.bookmark"],
            ] {
                let result = try BookmarkTool.run(arguments)
                #expect(result.status == 6, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("bookmark: \(key): refused: its mode is 0644, and a signing key must be readable "
                    + "and writable by its owner alone (chmod 600)"), "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
                Self.expectNoSyscall(result.stderr)
            }
        }
    }
}

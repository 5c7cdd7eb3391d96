// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

/// A bookmarked file behind a directory the process may not search (`EACCES` on its path): the
/// answer is `permissionDenied` (exit 13, Cocoa 257), never `notFound`, and the volume is not
/// searched for it. Before, the refusal was taken for "nothing there": a whole-volume search ran
/// out of its budget and the file was reported deleted.
@Suite("A path a directory refuses: permission denied, not searched", .serialized, .requiresRealVolumes)
struct PathDeniedTests {
    @Test("as uid 65534: one resolution, a batch and a stored library", .requiresUnprivilegedUser)
    func deniedAsUnprivileged() throws {
        let tool = try #require(BookmarkTool.path, "bookmark is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("private/secret.txt")
            try tree.file("open/plain.txt")
            // Made while the user could reach both, as an application would have.
            let secret = volume.path("secret.bookmark")
            let plain = volume.path("plain.bookmark")
            for (target, output) in [("private/secret.txt", secret), ("open/plain.txt", plain)] {
                let made = try BookmarkTool.runUnprivileged(["make", tree.path(target)])
                try #require(made.status == 0, "make failed: \(made.stderr)")
                try made.stdoutData.write(to: URL(fileURLWithPath: output))
            }
            let library = volume.path("library.bookmarks")
            // `make` prints base64; a library holds the raw data back to back.
            func raw(_ file: String) throws -> Data {
                let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                return try #require(Data(base64Encoded: text), "\(file) holds base64")
            }
            try (raw(secret) + raw(plain)).write(to: URL(fileURLWithPath: library))
            // The folder becomes private to its owner (root).
            try tree.dir("private", mode: 0o700)

            let one = try BookmarkTool.runUnprivileged(["resolve", "--json", secret])
            #expect(one.status == 13, "stdout: \(one.stdout) stderr: \(one.stderr)")
            let record = try BookmarkTool.json(one) as? [String: Any]
            #expect(record?["error"] as? String == "permissionDenied", "\(one.stdout)")
            #expect(record?["lastKnownPath"] as? String == tree.path("private/secret.txt"))

            // No search: not one directory of the volume is read.
            if Shell.has("strace") {
                let trace = volume.path("denied.trace")
                let setpriv = ["setpriv", "--reuid=\(Unprivileged.uid)", "--regid=\(Unprivileged.uid)", "--clear-groups", "--"]
                let traced = try Shell.run(["strace", "-f", "-e", "trace=getdents64", "-o", trace] + setpriv + [tool, "resolve", secret])
                #expect(traced.status == 13, "\(traced.stderr)")
                let reads = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("getdents64(") }
                #expect(reads.isEmpty, "\(reads.count) directory reads: a search ran")
            } else {
                print("PathDeniedTests: strace is not installed; the no-search check is skipped")
            }

            // In a batch (the shared walk must not take it) and from a stored library (the quick pass).
            for arguments in [["resolve", "--keep-going", "--json", secret, plain], ["resolve", "--stored", "--keep-going", "--json", library]] {
                let batch = try BookmarkTool.runUnprivileged(arguments)
                #expect(batch.status == 13, "\(arguments): \(batch.stderr)")
                let records = batch.stdout.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                try #require(records.count == 2, "\(arguments): \(batch.stdout)")
                #expect(records[0]["error"] as? String == "permissionDenied", "\(arguments): \(records[0])")
                #expect(records[1]["path"] as? String == tree.path("open/plain.txt"), "\(arguments): \(records[1])")
            }

            // Reachable again: found where it always was.
            try tree.dir("private", mode: 0o755)
            let again = try BookmarkTool.runUnprivileged(["resolve", secret])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout == tree.path("private/secret.txt") + "\n")
        }
    }

    @Test("as root nothing is refused: the same bookmark resolves at its path")
    func rootIsNotDenied() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("private/secret.txt")
            let bookmark = try Bookmark.create(for: FilePath(tree.path("private/secret.txt")))
            try tree.dir("private", mode: 0o700)
            let resolution = try Bookmark(data: bookmark.data()).resolve()
            #expect(resolution.path.string == tree.path("private/secret.txt"))
            #expect(resolution.matchedBy == .path)
        }
    }
}

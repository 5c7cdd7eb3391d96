// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Creations racing with renames of their directories: every creation stage (first meeting,
/// watching, hit) runs while another thread exchanges a directory on the path with another
/// directory, or with a symlink, as fast as it can.
extension AncestorCacheTests {
    /// Per level of `t/a/b/c/doc.txt` and `t/x/b/c/doc.txt`: the inodes either tree has there.
    func candidates(_ tree: Tree) throws -> [Set<Int64?>] {
        let a = try currentIDs(tree.path("a/b/c/doc.txt"))
        let x = try currentIDs(tree.path("x/b/c/doc.txt"))
        return zip(a, x).map { [$0, $1] }
    }

    @Test("racing an exchange of two directory trees: each recorded ID is one the path had; afterwards, exact",
          arguments: [false, true])
    func exchangeRace(withSymlink: Bool) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            try tree.file("x/b/c/doc.txt")
            // `a` is exchanged with `x` (another tree at the same path), or with `s`, a symlink
            // to `x` (the path then goes through a symlink half the time).
            if withSymlink { try tree.symlink("s", to: "x") }
            let path = tree.path("a/b/c/doc.txt")
            let realPaths: Set<[UInt8]> = [Array(path.utf8), Array(tree.path("x/b/c/doc.txt").utf8), Array(tree.path("s/b/c/doc.txt").utf8)]
            let allowed = try candidates(tree)
            let volumes = try MountedVolumes()
            defer { Bookmark.clearAncestorCache() }
            let exchanger = RenameExchanger(tree.root, "a", tree.root, withSymlink ? "s" : "x")
            var made = 0
            var failures: [String] = []
            for round in 0..<3_000 {
                // Every third creation starts over: first meetings, watches and hits all race.
                if round % 3 == 0 { Bookmark.clearAncestorCache() }
                let bookmark: Bookmark
                do throws(BookmarkError) {
                    bookmark = try Bookmark.create(for: FilePath(path), volumes: volumes)
                } catch {
                    // The open-based path can find the target moved away between its open and the
                    // read of its path; that is reported, never guessed.
                    if error.code != .notFound { failures.append("round \(round): \(error)") }
                    continue
                }
                made += 1
                let ids = bookmark.record.fileIDs ?? []
                let recorded = bookmark.path ?? []
                if !realPaths.contains(recorded) {
                    failures.append("round \(round): path \(String(decoding: recorded, as: UTF8.self))")
                }
                if ids.count != allowed.count || !zip(ids, allowed).allSatisfy({ $1.contains($0) }) {
                    failures.append("round \(round): IDs \(ids)")
                }
            }
            let swaps = exchanger.stop()
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            #expect(made > 1_000 && swaps > 100, "made \(made), swaps \(swaps): the race did not happen")
            // Quiet again: whatever the cache kept, every stage records exactly the IDs the path has.
            let now = try currentIDs(path)
            Bookmark.clearAncestorCache()
            for stage in ["first meeting", "watching", "hit"] {
                let after = try Bookmark.create(for: FilePath(path), volumes: volumes)
                #expect(after.path == Array(path.utf8), "\(stage)")
                #expect(after.record.fileIDs == now, "\(stage)")
            }
        }
    }
}

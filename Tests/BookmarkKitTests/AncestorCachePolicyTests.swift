// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import CLinuxShims
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

#if canImport(Glibc)
    import Glibc
#endif

/// When the ancestor cache watches: a directory the first time a creation meets it is examined
/// with one `statx` and not watched; the second time it is watched; from then on creations below
/// it are hits. And whichever of these a creation is, it records the IDs the path has.
extension AncestorCacheTests {
    /// The inotify calls of a trace that concern `root` or a path below it.
    func watches(_ trace: AuditLog, under root: String) -> [SyscallCall] {
        let prefix = Array(root.utf8)
        return trace.calls.filter { $0.name == "inotify_add_watch" && ($0.path?.starts(with: prefix) ?? false) }
    }

    @Test("in a fresh process: the first creation touches no inotify, the second watches, the third is a hit")
    func firstMeetingInFreshProcess() throws {
        let probe = try #require(CreateProbe.path, "create-probe is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            let path = tree.path("a/b/c/doc.txt")
            let output = try Shell.check([probe, "ids", path, path, path, path])
            let lines = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            try #require(lines.count == 4 && lines.allSatisfy { $0.count == 5 }, "\(output)")
            let now = try currentIDs(path).map { $0.map(String.init) ?? "-" }.joined(separator: ",")
            #expect(lines.allSatisfy { $0[2] == now })
            // The `bookmark make` command makes one creation: it never sets up inotify.
            #expect(lines[0][3] == "watches=0" && lines[0][4] == "queue=0", "\(output)")
            // Every directory on the path, `/` included, was met once: all are watched now.
            let depth = path.split(separator: "/").count
            #expect(lines[1][3] == "watches=\(depth)", "\(output)")
            // A parallel suite's mount can void the watches once; one of the next two is a hit.
            #expect(lines[2...3].contains { $0[3] == "watches=0" }, "\(output)")
        }
    }

    @Test("after clearing: a first creation watches nothing of the tree, the second watches its directories")
    func firstMeetingAfterClear() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            let path = tree.path("a/b/c/doc.txt")
            defer { Bookmark.clearAncestorCache() }
            // Another suite may clear the cache between the two creations (the second is then a
            // first meeting again): try a few times.
            var second: AuditLog?
            for _ in 0..<20 where second == nil {
                Bookmark.clearAncestorCache()
                let (bookmark, first) = try create(path)
                #expect(bookmark.record.fileIDs == (try currentIDs(path)))
                #expect(watches(first, under: tree.root).isEmpty, "a first meeting watched the tree")
                // Its directories were examined, each by its own path, none through a symlink.
                let examined = first.calls.filter { $0.name == "statx" && ($0.path?.starts(with: Array(tree.root.utf8)) ?? false) }
                #expect(examined.count >= 4)
                let (again, trace) = try create(path)
                #expect(again.record.fileIDs == (try currentIDs(path)))
                if watches(trace, under: tree.root).count == 4 { second = trace }
            }
            #expect(second != nil, "the second creation never watched t, a, b and c")
            #expect(try createHit(path) != nil)
        }
    }

    @Test("a new directory below watched ones: those come from the cache, only the new one is examined, then watched")
    func newDirectoryBelowWatched() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/doc.txt")
            try tree.file("a/b/new/other.txt")
            let known = tree.path("a/b/doc.txt")
            let path = tree.path("a/b/new/other.txt")
            defer { Bookmark.clearAncestorCache() }
            // A parallel suite's mount or clear between these creations spoils a round: retry.
            var rounds: (AuditLog, AuditLog)?
            for _ in 0..<20 where rounds == nil {
                Bookmark.clearAncestorCache()
                _ = try create(known)
                guard try createHit(known) != nil else { continue }
                let (first, firstTrace) = try create(path)
                let (second, secondTrace) = try create(path)
                #expect(first.record.fileIDs == (try currentIDs(path)))
                #expect(second.record.fileIDs == (try currentIDs(path)))
                // The directories examined by path (the target's own lookup aside).
                let examined = firstTrace.calls.filter {
                    $0.name == "statx" && ($0.path.map { $0.starts(with: Array(tree.root.utf8)) && $0 != Array(path.utf8) } ?? false)
                }
                if examined.map({ $0.path ?? [] }) == [Array(tree.path("a/b/new").utf8)] {
                    rounds = (firstTrace, secondTrace)
                }
            }
            let (first, second) = try #require(rounds, "t, a and b were never taken from the cache")
            #expect(watches(first, under: tree.root).isEmpty)
            #expect(first.calls.filter { $0.name == "epoll_wait" }.count == 1)
            #expect(watches(second, under: tree.root).map { $0.path ?? [] } == [Array(tree.path("a/b/new").utf8)])
        }
    }

    @Test("uncached creation (useAncestorCache: false) examines the path without an open, and touches no inotify")
    func uncachedWalk() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/doc.txt")
            try tree.symlink("link", to: "a")
            let path = tree.path("a/b/doc.txt")
            let (bookmark, trace) = try create(path, cached: false)
            #expect(bookmark.record.fileIDs == (try currentIDs(path)))
            // (The volume's template may open its mount point once, for the volume's own facts.)
            let opened = { (call: SyscallCall) in call.name == "openat" && (call.path?.starts(with: Array(tree.root.utf8)) ?? false) }
            let unwanted = trace.calls.filter { $0.name.hasPrefix("inotify") || $0.name == "readlinkat" || opened($0) }
            #expect(unwanted.isEmpty, "\(unwanted.map { "\($0.name) \(String(decoding: $0.path ?? [], as: UTF8.self))" })")
            // Through a symlink: the walk refuses it, the real path comes from the opened target.
            let (linked, linkedTrace) = try create(tree.path("link/b/doc.txt"), cached: false)
            #expect(linked.path == Array(path.utf8))
            #expect(linked.record.fileIDs == (try currentIDs(path)))
            #expect(linkedTrace.calls.contains { $0.name == "readlinkat" })
        }
    }

    @Test("renames between creations, at every stage (first meeting, watching, hit), give the IDs the path has",
          arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func renamesAtEveryStage(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            let path = tree.path("a/b/c/doc.txt")
            defer { Bookmark.clearAncestorCache() }
            Bookmark.clearAncestorCache()
            func expectCurrent(_ stage: String) throws {
                let (bookmark, _) = try create(path)
                #expect(bookmark.path == Array(path.utf8), "\(kind) \(stage)")
                #expect(bookmark.record.fileIDs == (try currentIDs(path)), "\(kind) \(stage)")
            }
            var before = try currentIDs(path)
            // Removed directories are held open until the end, so that their inode numbers are
            // not reused by the directories made in their place.
            var held: [OwnedDescriptor] = []
            defer { for descriptor in held { try? descriptor.close() } }
            func hold(_ relative: String) throws {
                held.append(try Directory.current.open(FilePath(tree.path(relative)), options: [.pathOnly, .directory]))
            }
            // Each change replaces a directory on the path; each check is made three times, so
            // that the creations go through first meeting, watching and hits in turn.
            let changes: [(String, () throws -> Void)] = [
                ("first meeting", {}),
                ("a renamed away, a new one made", {
                    try tree.move("a", "a.1")
                    try tree.file("a/b/c/doc.txt")
                }),
                ("c removed and made again", {
                    try tree.move("a/b/c/doc.txt", "kept.txt")
                    try hold("a/b/c")
                    try Shell.check(["rmdir", tree.path("a/b/c")])
                    try tree.dir("a/b/c")
                    try tree.move("kept.txt", "a/b/c/doc.txt")
                }),
                ("b replaced by a rename over it", {
                    try tree.file("new/c/doc.txt")
                    try tree.move("a/b/c/doc.txt", "gone.txt")
                    try hold("a/b/c")
                    try hold("a/b")
                    try Shell.check(["rmdir", tree.path("a/b/c")])
                    try Shell.check(["mv", "-T", tree.path("new"), tree.path("a/b")])
                }),
                ("a and a.1 exchanged", {
                    #expect(cls_renameat2(AT_FDCWD, tree.path("a"), AT_FDCWD, tree.path("a.1"), 2) == 0)
                }),
            ]
            for (stage, change) in changes {
                try change()
                let now = try currentIDs(path)
                if stage != "first meeting" { #expect(now != before, "\(kind) \(stage) changed nothing") }
                before = now
                try expectCurrent(stage)
                try expectCurrent(stage + ", again")
                try expectCurrent(stage + ", a third time")
            }
        }
    }
}

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

/// The ancestor cache of bookmark creation: cached and uncached records are equal, and every way
/// of making a directory path name other directories is noticed by the next creation.
///
/// Other suites run in parallel and mount volumes, which clears the cache; so a test that needs a
/// cache hit (rather than a correct answer, which never depends on timing) retries until the pair
/// of creations it watches was not interrupted.
@Suite("Ancestor cache of bookmark creation", .serialized, .requiresRealVolumes)
struct AncestorCacheTests {
    /// The per-component file IDs creation should record now: the inode of every prefix.
    func currentIDs(_ path: String) throws -> [Int64?] {
        try prefixes(of: path).map { Int64(bitPattern: try FileStatus(path: FilePath($0)).inode) }
    }

    /// `path` and every directory above it, `/` excluded.
    func prefixes(of path: String) -> [String] {
        var result: [String] = []
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            result.append(prefix)
        }
        return result
    }

    /// Creates a bookmark, tracing its system calls.
    func create(
        _ path: String, cached: Bool = true, faults: [SyscallFault] = [], volumes: MountedVolumes? = nil
    ) throws -> (Bookmark, AuditLog) {
        // A table of its own (not the process's shared one, whose revalidating poll of mountinfo
        // would show in the trace beside the ancestor cache's own poll).
        let table = try volumes ?? MountedVolumes()
        let trace = AuditLog(level: .calls, faults: faults)
        let bookmark = try SyscallSeam.$observer.withValue(trace) { () throws -> Bookmark in
            try Bookmark.create(for: FilePath(path), volumes: table, useAncestorCache: cached)
        }
        return (bookmark, trace)
    }

    /// Whether a traced creation was answered from the cache: no directory watched, no ancestor
    /// examined (the only path `statx` is the target's own, if any; the mount point's birth time
    /// comes from the shared mounted volumes).
    func wasHit(_ trace: AuditLog, target: String) -> Bool {
        let calls = trace.calls
        let ancestorStats = calls.filter { call in
            call.name == "statx" && (call.path.map { !$0.isEmpty && $0 != Array(target.utf8) } ?? false)
        }
        return !calls.contains { $0.name == "inotify_add_watch" } && ancestorStats.isEmpty
            && calls.filter { $0.name == "epoll_wait" }.count == 1
    }

    /// Creates the bookmark until one creation is a cache hit (a parallel suite's mount clears the
    /// cache between two creations only rarely) and returns that bookmark.
    func createHit(_ path: String) throws -> Bookmark? {
        try createHitTraced(path)?.0
    }

    func createHitTraced(_ path: String) throws -> (Bookmark, AuditLog)? {
        for _ in 0..<20 {
            let volumes = try MountedVolumes()
            _ = try create(path, volumes: volumes)
            let (bookmark, trace) = try create(path, volumes: volumes)
            if wasHit(trace, target: path) { return (bookmark, trace) }
        }
        return nil
    }

    @Test("cached and uncached creation give equal records; a hit makes one poll, no ancestor statx, no open")
    func equalRecords() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/d/doc.txt")
            try tree.dir("a/b/c/d/folder")
            try tree.file("doc-at-root.txt")
            try tree.symlink("link", to: "a/b/c/d/doc.txt")
            for relative in ["a/b/c/d/doc.txt", "a/b/c/d/folder", "a", "doc-at-root.txt", "link"] {
                let path = tree.path(relative)
                let (hit, hitTrace) = try #require(try createHitTraced(path), "never a cache hit for \(relative)")
                let (uncached, trace) = try create(path, cached: false)
                #expect(hit == uncached, "\(relative)")
                #expect(!trace.calls.contains { $0.name == "epoll_wait" || $0.name.hasPrefix("inotify") })
                let real = relative == "link" ? tree.path("a/b/c/d/doc.txt") : path
                #expect(hit.path == Array(real.utf8))
                #expect(hit.record.fileIDs == (try currentIDs(real)))
                // A canonical path is identified by path: no open, no /proc/self/fd. A symlink is
                // followed the open-based way.
                let opened = hitTrace.calls.contains { $0.name == "openat" || $0.name == "readlinkat" }
                #expect(opened == (relative == "link"), "\(relative)")
            }
            let minimal = try Bookmark.create(for: FilePath(tree.path("a/b/c/d/doc.txt")), options: .minimalBookmark)
            #expect(minimal.record.fileIDs == nil)
        }
    }

    /// Makes `t/a/b/c/doc.txt`, caches it, runs `change`, and expects the next creation of
    /// `t/a/b/c/doc.txt` to record the IDs the path has now, different from before. `change` may
    /// return descriptors to hold open until that creation is made.
    func expectNoticed(_ change: (Tree, LoopVolume) throws -> [OwnedDescriptor]) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            let path = tree.path("a/b/c/doc.txt")
            let before = try #require(try createHit(path), "never a cache hit")
            #expect(before.record.fileIDs == (try currentIDs(path)))
            let held = try change(tree, volume)
            let now = try currentIDs(path)
            #expect(now != before.record.fileIDs, "the change did not change the IDs: the test proves nothing")
            let (after, _) = try create(path)
            #expect(after.record.fileIDs == now)
            #expect(after.path == Array(path.utf8))
            for descriptor in held { try descriptor.close() }
        }
    }

    @Test("a chain dropped with the cache is not answered again after another path's creation watched directories anew")
    func lastChainDropped() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            let path = tree.path("a/b/c/doc.txt")
            let before = try #require(try createHit(path), "never a cache hit")
            // The chain's directories replaced; then a creation in a folder met for the first time
            // reads those events (the cache drops every chain), watches the directories above it
            // again, and caches no chain of its own.
            try tree.move("a", "a.old")
            try tree.file("a/b/c/doc.txt")
            try tree.file("x/new.txt")
            _ = try create(tree.path("x/new.txt"))
            let now = try currentIDs(path)
            #expect(now != before.record.fileIDs, "the change did not change the IDs: the test proves nothing")
            let (after, _) = try create(path)
            #expect(after.record.fileIDs == now, "the dropped chain answered")
        }
    }

    @Test("an ancestor renamed away and a new one made in its place")
    func renamedAncestor() throws {
        try expectNoticed { tree, _ in
            try tree.move("a", "a.old")
            try tree.file("a/b/c/doc.txt")
            return []
        }
    }

    @Test("an ancestor removed and made again, while another process holds it open (no IN_DELETE_SELF yet)")
    func removedAncestor() throws {
        try expectNoticed { tree, _ in
            try tree.move("a/b/c/doc.txt", "elsewhere.txt")
            // An open descriptor keeps the removed directory's dentry: its own IN_DELETE_SELF waits
            // for the close, so only its parent's IN_DELETE (with IN_ISDIR) tells the cache at once.
            let held = try Directory.current.open(FilePath(tree.path("a/b/c")), options: [.pathOnly, .directory])
            try Shell.check(["rmdir", tree.path("a/b/c")])
            try tree.dir("a/b/c")
            try tree.move("elsewhere.txt", "a/b/c/doc.txt")
            return [held]
        }
    }

    @Test("an ancestor replaced by a rename over it, its old self held open (only its parent's IN_MOVED_TO arrives at once)")
    func renamedOverAncestor() throws {
        try expectNoticed { tree, _ in
            try tree.file("new/c/doc.txt")
            try tree.move("a/b/c/doc.txt", "elsewhere.txt")
            let held = try Directory.current.open(FilePath(tree.path("a/b/c")), options: [.pathOnly, .directory])
            // rename(2) over the now empty directory (mv would move into it instead).
            try Shell.check(["mv", "-T", tree.path("new/c"), tree.path("a/b/c")])
            return [held]
        }
    }

    @Test("two ancestors exchanged (RENAME_EXCHANGE)")
    func exchangedAncestors() throws {
        try expectNoticed { tree, _ in
            try tree.file("x/b/c/doc.txt")
            // coreutils' mv --exchange is too new to rely on; renameat2 directly.
            let exchanged = cls_renameat2(AT_FDCWD, tree.path("a"), AT_FDCWD, tree.path("x"), 2)
            #expect(exchanged == 0, "renameat2(RENAME_EXCHANGE): errno \(errno)")
            return []
        }
    }

    @Test("a mount over an ancestor, with the bookmarked file's own mount moved under it (its mount id unchanged)")
    func mountOverAncestor() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            // The volume is mounted at D/mnt; later a tmpfs covers D and the volume is moved back
            // under it, so the path and the target's mount are the same but D is another directory.
            let base = volume.directory.appendingPathComponent("D").path
            let parked = volume.directory.appendingPathComponent("parked").path
            try volume.unmount()
            try volume.mount(at: URL(fileURLWithPath: base + "/mnt"))
            try FileManager.default.createDirectory(atPath: parked, withIntermediateDirectories: true)
            let tree = Tree(root: base + "/mnt/t")
            try tree.file("doc.txt")
            let path = tree.path("doc.txt")
            let before = try #require(try createHit(path), "never a cache hit")
            try Shell.check(["mount", "--move", base + "/mnt", parked])
            try Shell.check(["mount", "-t", "tmpfs", "cover", base])
            defer {
                // Put things back so the fixture can unmount and remove its directory.
                _ = try? Shell.run(["mount", "--move", base + "/mnt", parked])
                _ = try? Shell.run(["umount", base])
                _ = try? Shell.run(["mount", "--move", parked, base + "/mnt"])
            }
            try FileManager.default.createDirectory(atPath: base + "/mnt", withIntermediateDirectories: true)
            try Shell.check(["mount", "--move", parked, base + "/mnt"])
            let now = try currentIDs(path)
            #expect(now != before.record.fileIDs)
            let (after, _) = try create(path)
            #expect(after.record.fileIDs == now)
        }
    }

    @Test("a symlink swapped in for an ancestor: the bookmark names the real path and its directories")
    func symlinkedAncestor() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/c/doc.txt")
            try tree.file("other/b/c/doc.txt")
            let path = tree.path("a/b/c/doc.txt")
            _ = try #require(try createHit(path), "never a cache hit")
            try tree.move("a", "a.real")
            try tree.symlink("a", to: "other")
            let real = tree.path("other/b/c/doc.txt")
            let (after, _) = try create(path)
            #expect(after.path == Array(real.utf8))
            #expect(after.record.fileIDs == (try currentIDs(real)))
        }
    }

    @Test("inotify out of watches (ENOSPC injected): correct and uncached for the process until cleared")
    func outOfWatches() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/doc.txt")
            let path = tree.path("a/b/doc.txt")
            defer { Bookmark.clearAncestorCache() }
            // A directory is watched the second time a creation meets it: meet them once, then
            // fail the watches. A suite running in parallel may clear the cache in between (the
            // second creation is then a first meeting again), so this tries a few times.
            var attempt: (Bookmark, AuditLog)?
            for _ in 0..<20 where attempt == nil {
                Bookmark.clearAncestorCache()
                _ = try create(path)
                let traced = try create(path, faults: [SyscallFault(call: "inotify_add_watch", errno: .noSpace)])
                if traced.1.calls.contains(where: { $0.name == "inotify_add_watch" }) { attempt = traced }
            }
            let (first, _) = try #require(attempt, "the second creation never tried to watch")
            #expect(first.record.fileIDs == (try currentIDs(path)))
            // Disabled for the process: no queue calls at all, every ancestor examined.
            let (second, untouched) = try create(path)
            #expect(second.record.fileIDs == (try currentIDs(path)))
            #expect(!untouched.calls.contains { $0.name == "epoll_wait" || $0.name.hasPrefix("inotify") })
            #expect(untouched.calls.filter { $0.name == "statx" && $0.path?.isEmpty == false }.count >= 5)
            Bookmark.clearAncestorCache()
            #expect(try createHit(path) != nil, "clearing did not re-enable the cache")
        }
    }

    @Test("a FUSE file system (exFAT) is never cached: its daemon can change it behind inotify's back",
          .requiresFileSystems(.exfat))
    func fuseUncached() throws {
        try LoopVolume.withVolume(.exfat) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/doc.txt")
            let path = tree.path("a/b/doc.txt")
            let volumes = try MountedVolumes()
            _ = try create(path, volumes: volumes)
            let (again, trace) = try create(path, volumes: volumes)
            #expect(again.record.fileIDs == (try currentIDs(path)))
            let examined = trace.calls.filter { $0.name == "statx" && ($0.path.map { $0.starts(with: Array(volume.path("t").utf8)) } ?? false) }
            #expect(examined.count >= 2, "the directories on the FUSE volume were not examined again")
        }
    }

    @Test("a forked child never reads the parent's inotify queue, and both see a replaced ancestor")
    func fork() throws {
        let probe = try #require(CreateProbe.path, "create-probe is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/doc.txt")
            let output = try Shell.check([probe, "fork", tree.root])
            let lines = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            let now = try currentIDs(tree.path("a/b/doc.txt")).map { $0.map(String.init) ?? "-" }.joined(separator: ",")
            let byRole = Dictionary(lines.map { ($0[0], $0) }, uniquingKeysWith: { first, _ in first })
            #expect(byRole["child"]?[2] == now)
            #expect(byRole["parent"]?[2] == now)
            #expect(byRole["before"]?[2] != now)
            #expect(byRole["child-queue-calls"]?[1] == "0", "the child touched the parent's queue: \(output)")
        }
    }

    @Test("as uid 65534: nothing watched at first, cached from the second creation; a directory it cannot read stays uncached and correct",
          .requiresUnprivilegedUser)
    func unprivileged() throws {
        let probe = try #require(CreateProbe.path, "create-probe is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("open/a/doc.txt")
            try tree.file("private/a/doc.txt")
            try tree.dir("private", mode: 0o711)
            let open = tree.path("open/a/doc.txt")
            let secret = tree.path("private/a/doc.txt")
            // Several creations of the open file: the first meets its directories (no inotify at
            // all), the second watches them, and a later one is a hit. A test running in parallel
            // that changes a watched ancestor (the fixtures' common parent) invalidates the cache
            // now and then, rightly; one of the later creations must still be a hit.
            let result = try Unprivileged.run([probe, "ids", open, open, open, open, open, secret, secret, secret])
            #expect(result.status == 0, "\(result.stderr)")
            let all = result.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            try #require(all.count == 8 && all.allSatisfy { $0.count == 5 }, "\(result.stdout)")
            func ids(_ path: String) throws -> String {
                try currentIDs(path).map { $0.map(String.init) ?? "-" }.joined(separator: ",")
            }
            let openIDs = try ids(open)
            let secretIDs = try ids(secret)
            #expect(all[0...4].allSatisfy { $0[2] == openIDs })
            #expect(all[5...7].allSatisfy { $0[2] == secretIDs })
            #expect(all[0][3] == "watches=0" && all[0][4] == "queue=0", "a first meeting touched inotify: \(result.stdout)")
            #expect(all[1][3] != "watches=0", "the second meeting watched nothing")
            #expect(all[2...4].contains { $0[3] == "watches=0" }, "none of the later creations was a hit: \(result.stdout)")
            // inotify_add_watch needs read permission: `private` (0711) fails once (the second
            // meeting) and is not tried again.
            #expect(all[7][3] == "watches=0")
        }
    }
}

/// The `create-probe` executable built next to the tests.
enum CreateProbe {
    static let path: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        let candidate = directory.appendingPathComponent("create-probe").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()
}

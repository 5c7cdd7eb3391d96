// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

@testable import BookmarkKit

/// File-reference URLs on real volumes: renames, moves and parent moves, resolved in this process
/// (cache, handle, search) and in a new one (the CLI, as root and as uid 65534); deletion and
/// remount give typed errors, never a wrong file.
@Suite("File-reference URLs", .serialized, .requiresRealVolumes)
struct FileReferenceURLTests {
    static let fileSystems: [FixtureFileSystem] = [.ext4, .xfs, .btrfs]

    /// Resolves in-process three ways: whatever is fastest, then with the cache cleared and no
    /// handles (the search), then with the cache cleared and handles (root).
    func expectResolves(
        _ reference: FileReferenceURL, to path: String, handles: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let first = try reference.resolve()
        #expect(first.path == FilePath(path), "\(first.method)", sourceLocation: sourceLocation)
        let cached = try reference.resolve()
        #expect(cached.path == FilePath(path), sourceLocation: sourceLocation)
        #expect(cached.method == .cache, sourceLocation: sourceLocation)
        FileReferenceCache.shared.forget(reference)
        let searched = try reference.resolve(useHandles: false)
        #expect(searched.path == FilePath(path), sourceLocation: sourceLocation)
        #expect(searched.method == .search, sourceLocation: sourceLocation)
        FileReferenceCache.shared.forget(reference)
        let handled = try reference.resolve()
        #expect(handled.path == FilePath(path), sourceLocation: sourceLocation)
        if handles && getuid() == 0 {
            #expect(handled.method == .handle, sourceLocation: sourceLocation)
        }
    }

    /// Resolves through `bookmark ref --resolve` in a new process, as root and as uid 65534 (so
    /// its callers carry `.requiresUnprivilegedUser`).
    func expectCLIResolves(_ url: String, to path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let root = try BookmarkTool.run(["ref", "--resolve", url])
        #expect(root.status == 0, "\(root.stderr)", sourceLocation: sourceLocation)
        #expect(root.stdout == path + "\n", sourceLocation: sourceLocation)
        let nobody = try BookmarkTool.runUnprivileged(["ref", "--resolve", "--json", url])
        #expect(nobody.status == 0, "\(nobody.stderr)", sourceLocation: sourceLocation)
        let json = try BookmarkTool.json(nobody) as? [String: Any]
        #expect(json?["path"] as? String == path, sourceLocation: sourceLocation)
        #expect(json?["method"] as? String == "search", sourceLocation: sourceLocation)
    }

    @Test("the cache is bounded: the least recently used entry goes first")
    func cacheBound() throws {
        let cache = FileReferenceCache(capacity: 2)
        let references = (1...3).map { FileReferenceURL(mountID: UniqueMountID(rawValue: 1), inode: UInt64($0), generation: nil, isDirectory: true) }
        cache.remember(references[0], path: Array("/".utf8), handle: nil, volume: nil)
        cache.remember(references[1], path: Array("/".utf8), handle: nil, volume: nil)
        cache.remember(references[2], path: Array("/".utf8), handle: nil, volume: nil)
        #expect(cache.count == 2)
        #expect(!cache.contains(references[0]))
        #expect(cache.contains(references[1]) && cache.contains(references[2]))
    }

    @Test("URL form: mount.inode.generation, trailing slash for directories, parsing", arguments: fileSystems)
    func form(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/f.txt")
            let file = try FileReferenceURL(for: FilePath(tree.path("a/f.txt")))
            let directory = try FileReferenceURL(for: FilePath(tree.path("a")))
            #expect(file.string.hasPrefix("file:///.file/id="))
            #expect(!file.string.hasSuffix("/"))
            #expect(directory.string.hasSuffix("/"))
            #expect(FileReferenceURL.isFileReferenceURL(file.string))
            #expect(!FileReferenceURL.isFileReferenceURL("file://" + tree.path("a/f.txt")))
            #expect(FileReferenceURL(string: file.string) == file)
            #expect(FileReferenceURL(string: directory.string) == directory)
            #expect(file.generation != nil)
            for bad in ["file:///.file/id=", "file:///.file/id=1", "file:///.file/id=a.b", "file:///.file/id=1.2.3.4",
                        "file:///tmp/x", "file:///.file/id=1.2.99999999999"] {
                #expect(FileReferenceURL(string: bad) == nil, "\(bad)")
            }
            let cli = try BookmarkTool.run(["ref", tree.path("a/f.txt")])
            #expect(cli.stdout == file.string + "\n")
        }
    }

    @Test("follows a rename, a move, a parent rename and a move of a distant ancestor", .requiresUnprivilegedUser,
          arguments: fileSystems)
    func followsMoves(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("p/q/f.txt")
            try tree.dir("elsewhere")
            let file = try FileReferenceURL(for: FilePath(tree.path("p/q/f.txt")))
            let directory = try FileReferenceURL(for: FilePath(tree.path("p/q")))
            try expectResolves(file, to: tree.path("p/q/f.txt"), handles: kind != .btrfs)

            try tree.move("p/q/f.txt", "p/q/g.txt")
            try expectResolves(file, to: tree.path("p/q/g.txt"), handles: kind != .btrfs)
            try expectCLIResolves(file.string, to: tree.path("p/q/g.txt"))

            try tree.move("p/q/g.txt", "elsewhere/g.txt")
            try expectResolves(file, to: tree.path("elsewhere/g.txt"), handles: kind != .btrfs)
            try expectCLIResolves(file.string, to: tree.path("elsewhere/g.txt"))

            try tree.move("elsewhere/g.txt", "p/q/h.txt")
            try tree.move("p/q", "p/r")
            try expectResolves(file, to: tree.path("p/r/h.txt"), handles: kind != .btrfs)
            try expectResolves(directory, to: tree.path("p/r"), handles: kind != .btrfs)
            try expectCLIResolves(file.string, to: tree.path("p/r/h.txt"))
            try expectCLIResolves(directory.string, to: tree.path("p/r"))

            try tree.move("p", "elsewhere/deep/p2")
            try expectResolves(file, to: tree.path("elsewhere/deep/p2/r/h.txt"), handles: kind != .btrfs)
            try expectCLIResolves(file.string, to: tree.path("elsewhere/deep/p2/r/h.txt"))
        }
    }

    @Test("without handles the search starts where the object was last seen: a nearby move is found in a few entries of a large volume")
    func searchGoesOutwardFromLastKnownPath() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("docs/report.txt")
            try tree.shell("mkdir -p big && cd big && seq 0 2999 | xargs touch")
            let reference = try FileReferenceURL(for: FilePath(tree.path("docs/report.txt")))
            #expect(try reference.resolve().method == .cache)

            try tree.move("docs/report.txt", "docs/2024/report final.txt")
            let small = SearchBudget(time: .seconds(2), entries: 50)
            let near = try reference.resolve(budget: small, useHandles: false)
            #expect(near.path == FilePath(tree.path("docs/2024/report final.txt")))
            #expect(near.method == .search)
            #expect(near.entriesSearched < 50, "walked \(near.entriesSearched) entries")

            // Moved far away: the outward walk ends at the mount's root, so the whole mount is covered.
            try tree.move("docs/2024/report final.txt", "big/archive/report.txt")
            let far = try reference.resolve(useHandles: false)
            #expect(far.path == FilePath(tree.path("big/archive/report.txt")))
            #expect(far.entriesSearched > 3000)

            try tree.remove("big/archive/report.txt")
            let outcome = Result { () throws(BookmarkError) in try reference.resolve(useHandles: false) }
            guard case .failure(let error) = outcome else {
                Issue.record("a deleted file resolved: \(outcome)")
                return
            }
            #expect(error.code == .notFound)
            #expect(!error.searchExhausted)
        }
    }

    @Test("a deleted object is notFound, also when another file takes its name", arguments: fileSystems)
    func deleted(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("f.txt")
            let file = try FileReferenceURL(for: FilePath(tree.path("f.txt")))
            try tree.remove("f.txt")
            try tree.file("f.txt", "a new file with the old name")
            let outcome = Result { () throws(BookmarkError) in try file.resolve() }
            guard case .failure(let error) = outcome else {
                Issue.record("a deleted file resolved: \(outcome)")
                return
            }
            #expect(error.code == .notFound)
            #expect(file.filePath == nil)
            let cli = try BookmarkTool.run(["ref", "--resolve", file.string])
            #expect(cli.status == 3, "\(cli.stdout) \(cli.stderr)")
        }
    }

    @Test("a deleted object's stale handle (ESTALE) is notFound at once: no search; without the privilege (EPERM) the search still runs",
          arguments: [FixtureFileSystem.ext4, .xfs])
    func deletedByStaleHandle(kind: FixtureFileSystem) throws {
        try #require(getuid() == 0, "open_by_handle_at needs CAP_DAC_READ_SEARCH")
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            for index in 0..<20 { try tree.file("other/\(index).txt") }
            try tree.file("f.txt")
            try tree.file("g.txt")
            let deleted = try FileReferenceURL(for: FilePath(tree.path("f.txt")))
            let recreated = try FileReferenceURL(for: FilePath(tree.path("g.txt")))
            try tree.remove("f.txt")
            try tree.remove("g.txt")
            try tree.file("g.txt", "a new file at the old path")
            for reference in [deleted, recreated] {
                let log = AuditLog(level: .calls)
                let outcome = SyscallSeam.$observer.withValue(log) { Result { () throws(BookmarkError) in try reference.resolve() } }
                guard case .failure(let error) = outcome else {
                    Issue.record("a deleted file resolved: \(outcome)")
                    continue
                }
                #expect(error.code == .notFound)
                #expect(!error.searchExhausted)
                #expect(log.calls.contains { $0.name == "open_by_handle_at" })
                #expect(!log.calls.contains { $0.name == "getdents64" }, "the volume was searched")
                #expect(reference.filePath == nil)
            }
            // As an unprivileged process sees it: open_by_handle_at fails with EPERM, which says
            // nothing about the file, so the volume is searched (and the file is not there).
            let unprivileged = AuditLog(level: .calls, faults: [SyscallFault(call: "open_by_handle_at", errno: .notPermitted)])
            let outcome = SyscallSeam.$observer.withValue(unprivileged) {
                Result { () throws(BookmarkError) in try deleted.resolve() }
            }
            guard case .failure(let error) = outcome else {
                Issue.record("a deleted file resolved: \(outcome)")
                return
            }
            #expect(error.code == .notFound)
            #expect(unprivileged.calls.contains { $0.name == "getdents64" }, "EPERM must fall back to the search")
        }
    }

    @Test("a cached reference is verified with one statx; a new file that reuses the inode number at the path is refused")
    func cachedVerification() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let path = volume.path("doc.txt")
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            let inode = try FileStatus(path: FilePath(path)).inode
            let reference = try FileReferenceURL(for: FilePath(path))
            _ = try reference.resolve()
            let log = AuditLog()
            let cached = try SyscallSeam.$observer.withValue(log) { try reference.resolve() }
            #expect(cached.method == .cache)
            #expect(log.calls.map(\.name) == ["statx"], "\(log.calls.map(\.name))")
            // The same inode number, a new file: the birth time tells them apart.
            var reused = false
            for _ in 0..<50 {
                try FileManager.default.removeItem(atPath: path)
                usleep(2_000)
                try Data("new".utf8).write(to: URL(fileURLWithPath: path))
                if try FileStatus(path: FilePath(path)).inode == inode {
                    reused = true
                    break
                }
            }
            try #require(reused, "ext4 did not reuse the inode number in 50 tries")
            let outcome = Result { () throws(BookmarkError) in try reference.resolve() }
            guard case .failure(let error) = outcome else {
                Issue.record("the reference resolved to the new file: \(outcome)")
                return
            }
            #expect(error.code == .notFound)
        }
    }

    @Test("after an unmount and a remount the reference is volumeNotMounted", arguments: fileSystems)
    func remount(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("f.txt")
            let file = try FileReferenceURL(for: FilePath(tree.path("f.txt")))
            _ = try file.resolve()
            let point = try #require(volume.mountPoint)
            try volume.unmount()
            let unmounted = Result { () throws(BookmarkError) in try file.resolve() }
            #expect((try? unmounted.get()) == nil)
            if case .failure(let error) = unmounted { #expect(error.code == .volumeNotMounted || error.code == .notFound) }
            try volume.mount(at: point)
            #expect(FileManager.default.fileExists(atPath: tree.path("f.txt")))
            let remounted = Result { () throws(BookmarkError) in try file.resolve() }
            guard case .failure(let error) = remounted else {
                Issue.record("a reference outlived a remount: \(remounted)")
                return
            }
            #expect(error.code == .volumeNotMounted)
            let cli = try BookmarkTool.run(["ref", "--resolve", file.string])
            #expect(cli.status == 4, "\(cli.stdout) \(cli.stderr)")
        }
    }
}

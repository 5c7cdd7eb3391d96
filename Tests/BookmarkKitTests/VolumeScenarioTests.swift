// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Scenarios that need volumes to come and go, special file systems, or special names.
@Suite("Resolution across volumes, names and budgets", .serialized, .requiresRealVolumes)
struct VolumeScenarioTests {
    @Test("unmounted: volumeNotMounted at once, with the attached device when there is one")
    func unmounted() throws {
        try LoopVolume.withVolume(.ext4, label: "data") { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("doc.txt")
            let data = try Bookmark.create(for: FilePath(tree.path("doc.txt"))).data()
            try volume.unmount(keepDevice: true)
            let attached = try #require(throws: BookmarkError.self) { try Bookmark(data: data).resolve() }
            #expect(attached.code == .volumeNotMounted)
            #expect(attached.attachedDevice == volume.loopDevice)
            #expect(attached.volumeName == "data")
            #expect(attached.volumeUUID == volume.uuid.uppercased())
            #expect(attached.lastKnownPath == Array(tree.path("doc.txt").utf8))
            try volume.unmount()
            let detached = try #require(throws: BookmarkError.self) { try Bookmark(data: data).resolve() }
            #expect(detached.code == .volumeNotMounted)
            #expect(detached.attachedDevice == nil)

            var options = ResolutionOptions()
            options.allowMounting = true
            try volume.mount(at: volume.directory.appendingPathComponent("m2"))
            try volume.unmount(keepDevice: true)
            let mounting = try #require(throws: BookmarkError.self) { try Bookmark(data: data).resolve(options) }
            #expect(mounting.code == .volumeNotMounted)
            if !FileManager.default.isExecutableFile(atPath: "/usr/bin/udisksctl") {
                #expect(mounting.message.contains("udisksctl"), "says why it could not mount: \(mounting.message)")
            }
        }
    }

    @Test("remounted elsewhere on another loop device: found at the new mount point, stale", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func remounted(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("doc.txt")
            let data = try Bookmark.create(for: FilePath(tree.path("doc.txt"))).data()
            try volume.unmount()
            let elsewhere = volume.directory.appendingPathComponent("elsewhere")
            try volume.mount(at: elsewhere, newLoopDevice: true)
            let resolution = try Bookmark(data: data).resolve()
            #expect(resolution.path.string == elsewhere.path + "/t/doc.txt")
            #expect(resolution.matchedBy == .path)
            #expect(resolution.changes == [.path, .parent, .volumeMountPoint])
        }
    }

    @Test("btrfs: a snapshot's copy (same inode and generation) is never taken for the deleted original")
    func btrfsSnapshot() throws {
        try LoopVolume.withVolume(.btrfs) { volume in
            try Data("x".utf8).write(to: URL(fileURLWithPath: volume.path("sub/doc.txt")))
            let data = try Bookmark.create(for: FilePath(volume.path("sub/doc.txt"))).data()
            try Shell.check(["btrfs", "subvolume", "snapshot", volume.path("sub"), volume.path("snap")])
            try FileManager.default.createDirectory(atPath: volume.path("sub/deeper"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: volume.path("sub/doc.txt"), toPath: volume.path("sub/deeper/doc.txt"))
            let moved = try Bookmark(data: data).resolve()
            #expect(moved.path.string == volume.path("sub/deeper/doc.txt"))
            try FileManager.default.removeItem(atPath: volume.path("sub/deeper/doc.txt"))
            for useHandles in [true, false] {
                let error = try #require(throws: BookmarkError.self) {
                    try Bookmark(data: data).resolve(ResolutionOptions(useHandles: useHandles))
                }
                #expect(error.code == .notFound)
            }
        }
    }

    @Test("tmpfs: no persistent identity, so path only, and said so")
    func tmpfs() throws {
        try LoopVolume.withVolume(.tmpfs) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("doc.txt")
            let bookmark = try Bookmark.create(for: FilePath(tree.path("doc.txt")))
            #expect(bookmark.record.volume.uuid == nil)
            let resolution = try bookmark.resolve()
            #expect(resolution.matchedBy == .path)
            #expect(resolution.notes.contains { $0.contains("path only") })
            try tree.move("doc.txt", "renamed.txt")
            let error = try #require(throws: BookmarkError.self) { try bookmark.resolve() }
            #expect(error.code == .notFound)
            #expect(error.message.contains("no persistent identity"))
        }
    }

    @Test("moved to another volume: found only with the cross-volume heuristic")
    func crossVolume() throws {
        try LoopVolume.withVolume(.ext4) { source in
            try LoopVolume.withVolume(.xfs) { target in
                let tree = Tree(root: source.path("t"))
                try tree.file("report.pdf", String(repeating: "r", count: 4321))
                let bookmark = try Bookmark.create(for: FilePath(tree.path("report.pdf")))
                try FileManager.default.createDirectory(atPath: target.path("inbox"), withIntermediateDirectories: true)
                try Shell.check(["mv", tree.path("report.pdf"), target.path("inbox/report.pdf")])
                let error = try #require(throws: BookmarkError.self) { try bookmark.resolve() }
                #expect(error.code == .notFound)
                var options = ResolutionOptions()
                options.crossVolumeHeuristic = true
                options.budget = .unlimited
                let resolution = try bookmark.resolve(options)
                #expect(resolution.matchedBy == .heuristic)
                #expect(resolution.path.string == target.path("inbox/report.pdf"))
                #expect(resolution.changes.contains(.volumeMountPoint))
            }
        }
    }

    @Test("hard names round-trip exactly and resolve after the parent is renamed", arguments: hardNames)
    func hardName(label: String, name: [UInt8]) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let parent = Array(volume.path("dir").utf8)
            try FileManager.default.createDirectory(atPath: volume.path("dir"), withIntermediateDirectories: true)
            let full = parent + [UInt8(ascii: "/")] + name
            _ = try Directory.current.createFile(bytes: full)
            let data = try Bookmark.create(for: FilePath(bytes: full)).data()
            let decoded = try Bookmark(data: data)
            #expect(decoded.record.pathComponents?.last?.bytes == name)
            #expect(decoded.path == full)
            #expect(try decoded.resolve().matchedBy == .path)
            try FileManager.default.moveItem(atPath: volume.path("dir"), toPath: volume.path("dir2"))
            let resolution = try decoded.resolve()
            #expect(PathBytes(resolution.path).bytes == Array(volume.path("dir2").utf8) + [UInt8(ascii: "/")] + name)
        }
    }

    @Test("a 60-level deep path resolves after a middle directory is renamed")
    func deepPath() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let components = (0..<60).map { "level\($0)" }
            let deep = volume.path("d/" + components.joined(separator: "/"))
            try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: deep + "/leaf.txt"))
            let bookmark = try Bookmark.create(for: FilePath(deep + "/leaf.txt"))
            #expect(bookmark.record.fileIDs?.count == splitCount(volume.path("")) + 62, "one ID per component: d, 60 levels, leaf")
            let middle = volume.path("d/" + components.prefix(30).joined(separator: "/"))
            try FileManager.default.moveItem(atPath: middle, toPath: middle + "-moved")
            let resolution = try bookmark.resolve(ResolutionOptions(useHandles: false))
            #expect(resolution.path.string.hasSuffix("level29-moved/" + components.suffix(30).joined(separator: "/") + "/leaf.txt"))
            #expect(resolution.matchedBy == .search || resolution.matchedBy == .parent)
        }
    }

    @Test("budgets and cancellation stop a search; an unlimited budget finds the file")
    func budgets() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            // The search starts in a/ (the deepest surviving directory) and must read all of a/'s
            // 3,000 entries before it can leave it: a 1,000-entry budget runs out whatever the
            // directory order (ext4 hashes it with a random per-volume seed).
            try tree.file("a/doc.txt")
            try tree.shell("for j in $(seq 1 3000); do : > a/f$j; done; mkdir -p b/zz")
            let bookmark = try Bookmark.create(for: FilePath(tree.path("a/doc.txt")))
            try tree.move("a/doc.txt", "b/zz/doc.txt")
            var small = ResolutionOptions(useHandles: false)
            small.budget = SearchBudget(time: .seconds(60), entries: 1000)
            let exhausted = try #require(throws: BookmarkError.self) { try bookmark.resolve(small) }
            #expect(exhausted.code == .notFound)
            #expect(exhausted.searchExhausted)

            let flag = CancellationFlag()
            flag.cancel()
            let cancelled = try #require(throws: BookmarkError.self) {
                try bookmark.resolve(ResolutionOptions(useHandles: false, cancellation: flag))
            }
            #expect(cancelled.code == .cancelled)

            var unlimited = ResolutionOptions(useHandles: false)
            unlimited.budget = .unlimited
            let resolution = try bookmark.resolve(unlimited)
            #expect(resolution.path.string == tree.path("b/zz/doc.txt"))
            #expect(resolution.entriesSearched > 1000, "more than the small budget allowed")
        }
    }

    @Test("relative bookmarks: a document folder moved with its files resolves against the new base")
    func relative() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("project/assets/logo.png")
            let bookmark = try Bookmark.create(
                for: FilePath(tree.path("project/assets/logo.png")), relativeTo: FilePath(tree.path("project")))
            #expect(bookmark.record.relativeDirsUp == 0)
            #expect(bookmark.record.relativeDirsDown == 2)
            try tree.move("project", "archive/project-2025")
            var options = ResolutionOptions()
            options.relativeTo = FilePath(tree.path("archive/project-2025"))
            let resolution = try bookmark.resolve(options)
            #expect(resolution.matchedBy == .relative)
            #expect(resolution.path.string == tree.path("archive/project-2025/assets/logo.png"))
            #expect(resolution.isStale)
        }
    }

    @Test("vim with its defaults outside /tmp, and vim with backup: the path wins, never doc.txt~",
          .requiresProgram("vim", installedBy: "Tools/install-deps", requiredInCI: true))
    func vim() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("doc.txt", "line\n")
            let bookmark = try Bookmark.create(for: FilePath(tree.path("doc.txt")))
            let before = try FileID.identify(FilePath(tree.path("doc.txt")))
            try Shell.check(["vim", "-u", "DEFAULTS", "-i", "NONE", "-N", "-n", "-es", "-c", "normal Goadded", "-c", "wq", tree.path("doc.txt")])
            let after = try FileID.identify(FilePath(tree.path("doc.txt")))
            #expect(after != before, "vim with defaults replaces the inode outside /tmp")
            let resolution = try bookmark.resolve()
            #expect(resolution.path.string == tree.path("doc.txt"))
            #expect(resolution.matchedBy == .replacedAtPath)

            let second = try Bookmark.create(for: FilePath(tree.path("doc.txt")))
            try Shell.check(["vim", "-u", "DEFAULTS", "-i", "NONE", "-N", "-n", "-es", "-c", "set backup", "-c", "normal Goagain", "-c", "wq", tree.path("doc.txt")])
            #expect(tree.exists("doc.txt~"), "vim kept the old inode as doc.txt~")
            let again = try second.resolve()
            #expect(again.path.string == tree.path("doc.txt"))
            #expect(again.matchedBy == .replacedAtPath)
        }
    }
}

func splitCount(_ path: String) -> Int { path.split(separator: "/").count }

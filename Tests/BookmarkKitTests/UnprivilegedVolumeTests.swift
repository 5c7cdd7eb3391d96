// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

/// The volume-level scenarios again, resolved by `bookmark resolve` running as uid 65534.
@Suite(
    "Volume scenarios as uid 65534", .serialized,
    .requiresRealVolumes, .requiresUnprivilegedUser)
struct UnprivilegedVolumeTests {
    func resolve(_ bookmark: String, _ extra: [String] = []) throws -> (Int32, [String: Any]) {
        let result = try BookmarkTool.runUnprivileged(["resolve", bookmark, "--json"] + extra)
        let object = (try? BookmarkTool.json(result)) as? [String: Any] ?? [:]
        return (result.status, object)
    }

    @Test("moved, unmounted (exit 4), remounted elsewhere on another loop device (found by search)",
          arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func remount(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.dir("")
            try tree.file("a/doc.txt")
            let mark = volume.directory.appendingPathComponent("doc.bookmark").path
            #expect(try BookmarkTool.run(["make", tree.path("a/doc.txt"), "-o", mark]).status == 0)
            try Shell.check(["chmod", "0644", mark])
            try tree.move("a/doc.txt", "b/c/doc.txt")
            try volume.unmount()
            let (unmounted, failure) = try resolve(mark)
            #expect(unmounted == 4)
            #expect(failure["error"] as? String == "volumeNotMounted")
            let elsewhere = volume.directory.appendingPathComponent("elsewhere")
            try volume.mount(at: elsewhere, newLoopDevice: true)
            let (status, found) = try resolve(mark)
            #expect(status == 0)
            #expect(found["path"] as? String == elsewhere.path + "/t/b/c/doc.txt")
            #expect(found["matchedBy"] as? String == "search" || found["matchedBy"] as? String == "parent")
            #expect((found["changes"] as? [String])?.contains("volumeMountPoint") == true)
        }
    }

    @Test("as root, a file opened by handle after a remount is disconnected: its path comes from the search")
    func disconnectedHandle() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/doc.txt")
            let data = try Bookmark.create(for: FilePath(tree.path("a/doc.txt"))).data()
            try tree.move("a/doc.txt", "z/moved.txt")
            try volume.unmount()
            try volume.mount(at: volume.directory.appendingPathComponent("mnt"), newLoopDevice: true)
            let resolution = try Bookmark(data: data).resolve()
            #expect(resolution.path.string == tree.path("z/moved.txt"))
        }
    }

    @Test("moved to another volume: exit 3, then found with --cross-volume")
    func crossVolume() throws {
        try LoopVolume.withVolume(.ext4) { source in
            try LoopVolume.withVolume(.btrfs) { target in
                let tree = Tree(root: source.path("t"))
                try tree.file("song.flac", String(repeating: "s", count: 999))
                let mark = source.directory.appendingPathComponent("song.bookmark").path
                #expect(try BookmarkTool.run(["make", tree.path("song.flac"), "-o", mark]).status == 0)
                try Shell.check(["chmod", "0644", mark])
                try Shell.check(["mv", tree.path("song.flac"), target.path("song.flac")])
                #expect(try resolve(mark).0 == 3)
                let (status, found) = try resolve(mark, ["--cross-volume", "--budget-ms", "60000"])
                #expect(status == 0)
                #expect(found["matchedBy"] as? String == "heuristic")
                #expect(found["path"] as? String == target.path("song.flac"))
            }
        }
    }

    @Test("tmpfs: path only, as uid 65534 too")
    func tmpfs() throws {
        try LoopVolume.withVolume(.tmpfs) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("scratch.txt")
            let mark = volume.path("scratch.bookmark")
            #expect(try BookmarkTool.run(["make", tree.path("scratch.txt"), "-o", mark]).status == 0)
            try Shell.check(["chmod", "0644", mark])
            let (status, found) = try resolve(mark)
            #expect(status == 0)
            #expect((found["notes"] as? [String])?.first?.contains("path only") == true)
            #expect((found["volume"] as? [String: Any])?["persistent"] as? Bool == false)
        }
    }
}

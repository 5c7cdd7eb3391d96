// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import Testing
import VolumeFixtures

/// Real volumes that refuse writes: a full one and a read-only one. A write fails with a clear
/// error, the old file is left as it was, nothing is left behind, and reading still works.
@Suite("Full and read-only volumes", .serialized, .requiresRealVolumes)
struct VolumeFaultTests {
    @Test("a full volume: make -o and refresh fail with 'no space', the old file is intact, no temporary file is left")
    func fullVolume() throws {
        try LoopVolume.withVolume(.tmpfs) { volume in
            let target = volume.path("target.txt")
            try Data("t".utf8).write(to: URL(fileURLWithPath: target))
            let output = volume.path("saved.bookmark")
            #expect(try BookmarkTool.run(["make", target, "-o", output]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: output))
            // Fill the volume to the last block.
            _ = try? Shell.run(["dd", "if=/dev/zero", "of=" + volume.path("filler"), "bs=1M", "count=64"])
            let made = try BookmarkTool.run(["make", target, "-o", output])
            #expect(made.status != 0)
            #expect(made.stderr.contains("No space left on device"), "\(made.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
            try FileManager.default.moveItem(atPath: target, toPath: volume.path("moved.txt"))
            let refreshed = try BookmarkTool.run(["refresh", output])
            #expect(refreshed.status != 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
            let names = try FileManager.default.contentsOfDirectory(atPath: volume.path(""))
            #expect(!names.contains { $0.contains(".tmp-") }, "\(names)")
            // Reading still works (tmpfs has no persistent identity, so resolution is by path: put the
            // file back where the bookmark says).
            try FileManager.default.moveItem(atPath: volume.path("moved.txt"), toPath: target)
            let resolved = try BookmarkTool.run(["resolve", output])
            #expect(resolved.status == 0)
            #expect(resolved.stdout.contains("target.txt"))
        }
    }

    @Test("a read-only volume: writes fail with 'read-only file system' (old file intact), resolution works")
    func readOnlyVolume() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let target = volume.path("target.txt")
            try Data("t".utf8).write(to: URL(fileURLWithPath: target))
            let output = volume.path("saved.bookmark")
            #expect(try BookmarkTool.run(["make", target, "-o", output]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: output))
            let point = try #require(volume.mountPoint).path
            try Shell.check(["mount", "-o", "remount,ro", point])
            defer { _ = try? Shell.run(["mount", "-o", "remount,rw", point]) }
            let made = try BookmarkTool.run(["make", target, "-o", output])
            #expect(made.status != 0)
            #expect(made.stderr.contains("Read-only file system"), "\(made.stderr)")
            let alias = try BookmarkTool.run(["alias", target, volume.path("alias")])
            #expect(alias.status != 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
            #expect(!FileManager.default.fileExists(atPath: volume.path("alias")))
            let resolved = try BookmarkTool.run(["resolve", output])
            #expect(resolved.status == 0)
            #expect(resolved.stdout.contains("target.txt"))
        }
    }
}

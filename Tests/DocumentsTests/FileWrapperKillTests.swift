// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// A writer process killed with SIGKILL at each step of a save: the package at the name is always
/// the old one or the new one, whole; the next save cleans up and completes.
@Suite("FileWrapper saves killed at each step", .serialized, .requiresRealVolumes)
struct FileWrapperKillTests {
    static let points = ["linkat:1", "openat:3", "fsync:1", "fsync:2", "before-exchange", "after-exchange", "during-cleanup"]

    /// The points where a save whose old tree is removed in the background is killed: during that
    /// removal (the kill switch goes with the job to the background queue), and right after the
    /// save returned.
    static let backgroundPoints = ["during-cleanup", "after-return"]

    @Test("SIGKILL during a save leaves the old or the new package, and the next save completes", arguments: points, saveFileSystems)
    func killed(at point: String, kind: FixtureFileSystem) throws {
        try killedSave(at: point, kind: kind, background: false)
    }

    @Test(
        "SIGKILL while the old tree is removed in the background: the new package is in place, the next save sweeps the rest",
        arguments: backgroundPoints, saveFileSystems)
    func killedInBackground(at point: String, kind: FixtureFileSystem) throws {
        try killedSave(at: point, kind: kind, background: true)
    }

    @Test("a normal exit waits for the background removal: nothing is left beside the package", arguments: saveFileSystems)
    func exitWaits(kind: FixtureFileSystem) throws {
        let probe = try #require(WrapperProbe.path, "wrapper-probe is built with the tests")
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            for index in 0..<2_000 { try fixture.file("Doc.pkg/keep-\(index).txt", "keep") }
            try fixture.file("Doc.pkg/change.txt", "old")
            let run = try Shell.run(["env", "WRAPPER_PROBE_BACKGROUND=1", probe, "edit", fixture.path("Doc.pkg"), "change.txt", "new"])
            #expect(run.stdout == "saved\n", "\(run.stdout) \(run.stderr)")
            #expect(try fixture.names("") == ["Doc.pkg"], "the old tree was removed before the process ended")
            #expect(try fixture.text("Doc.pkg/change.txt") == "new")
            #expect(try fixture.linkCount("Doc.pkg/keep-0.txt") == 1)
        }
    }

    func killedSave(at point: String, kind: FixtureFileSystem, background: Bool) throws {
        let probe = try #require(WrapperProbe.path, "wrapper-probe is built with the tests")
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try fixture.file("Doc.pkg/keep.txt", "keep")
            try fixture.file("Doc.pkg/sub/deep.txt", "deep")
            try fixture.file("Doc.pkg/change.txt", "old")
            let run = try Shell.run([
                "env", "WRAPPER_PROBE_KILL_AT=\(point)", "WRAPPER_PROBE_BACKGROUND=\(background ? 1 : 0)", probe, "edit",
                fixture.path("Doc.pkg"), "change.txt", "new",
            ])
            // In the background case the save may have returned and printed before the kill.
            #expect(run.status != 0 && (background || run.stdout.isEmpty), "the probe died at \(point): \(run.status) \(run.stdout)")

            let state = try fixture.text("Doc.pkg/change.txt")
            #expect(state == "old" || state == "new", "a whole package is at the name")
            if background { #expect(state == "new", "the save returned (or reached its removal) with the new package in place") }
            #expect(try fixture.names("Doc.pkg") == ["change.txt", "keep.txt", "sub"])
            #expect(try fixture.text("Doc.pkg/keep.txt") == "keep")
            #expect(try fixture.text("Doc.pkg/sub/deep.txt") == "deep")

            let next = try Shell.run([probe, "edit", fixture.path("Doc.pkg"), "change.txt", "newer"])
            #expect(next.stdout == "saved\n", "\(next.stdout) \(next.stderr)")
            #expect(try fixture.names("") == ["Doc.pkg"], "the dead writer's leftovers were swept")
            #expect(try fixture.text("Doc.pkg/change.txt") == "newer")
            #expect(try fixture.linkCount("Doc.pkg/keep.txt") == 1)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// The `wrapper-probe` executable built next to the tests: a process that edits one child of a
/// package and saves it.
enum WrapperProbe {
    static let path: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        let candidate = directory.appendingPathComponent("wrapper-probe").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()
}

/// Saving as uid 65534: its own package keeps the inodes of unchanged files; in a package whose
/// files root owns, `protected_hardlinks` refuses the links and the save copies them instead.
@Suite("FileWrapper saving as an unprivileged user", .serialized, .requiresRealVolumes, .requiresUnprivilegedUser)
struct FileWrapperUnprivilegedTests {
    @Test("its own package: unchanged files linked, as root does", arguments: saveFileSystems)
    func ownPackage(kind: FixtureFileSystem) throws {
        let probe = try #require(WrapperProbe.path, "wrapper-probe is built with the tests")
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("home"))
            try fixture.file("Doc.pkg/keep.txt", "keep")
            try fixture.file("Doc.pkg/change.txt", "old")
            try Shell.check(["chown", "-R", "65534:65534", fixture.root])
            let kept = try fixture.inode("Doc.pkg/keep.txt")
            let result = try Unprivileged.run([probe, "edit", fixture.path("Doc.pkg"), "change.txt", "new"])
            #expect(result.stdout == "saved\n", "\(result.stdout) \(result.stderr)")
            #expect(try fixture.inode("Doc.pkg/keep.txt") == kept)
            #expect(try fixture.text("Doc.pkg/change.txt") == "new")
            #expect(try fixture.names("") == ["Doc.pkg"])
        }
    }

    @Test("root's files in a directory uid 65534 may write: links are refused (protected_hardlinks), so they are copied", arguments: saveFileSystems)
    func othersFilesAreCopied(kind: FixtureFileSystem) throws {
        let probe = try #require(WrapperProbe.path, "wrapper-probe is built with the tests")
        let protected = (try? String(contentsOfFile: "/proc/sys/fs/protected_hardlinks", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("shared"))
            try fixture.file("Doc.pkg/keep.txt", "keep")
            try fixture.file("Doc.pkg/change.txt", "old")
            try Shell.check(["chmod", "0644", fixture.path("Doc.pkg/keep.txt"), fixture.path("Doc.pkg/change.txt")])
            try Shell.check(["chown", "65534:65534", fixture.root, fixture.path("Doc.pkg")])
            let kept = try fixture.inode("Doc.pkg/keep.txt")
            let result = try Unprivileged.run([probe, "edit", fixture.path("Doc.pkg"), "change.txt", "new"])
            #expect(result.stdout == "saved\n", "\(result.stdout) \(result.stderr)")
            #expect(try fixture.text("Doc.pkg/keep.txt") == "keep")
            #expect(try fixture.text("Doc.pkg/change.txt") == "new")
            if protected == "1" {
                #expect(try fixture.inode("Doc.pkg/keep.txt") != kept, "a copy, not a link")
                let owner = try FileManager.default.attributesOfItem(atPath: fixture.path("Doc.pkg/keep.txt"))[.ownerAccountID] as? NSNumber
                #expect(owner?.intValue == 65534)
            } else {
                print("protected_hardlinks is \(protected ?? "unknown"): the link is allowed, so only the save is checked")
            }
        }
    }
}

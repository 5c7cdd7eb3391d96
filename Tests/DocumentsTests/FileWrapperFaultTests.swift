// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import SecureFiles
import Testing
import VolumeFixtures

/// Saves that fail or are cut short: the original is untouched, nothing is left behind, a file
/// system without `RENAME_EXCHANGE` takes the fallback, and a dead writer's leftovers are cleaned
/// up (or its set-aside package put back) by the next save.
@Suite("FileWrapper saves that fail", .serialized, .requiresRealVolumes)
struct FileWrapperFaultTests {
    func package(at fixture: PackageFixture) throws -> FileWrapper {
        try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
        try fixture.file("Doc.pkg/a.txt", "a")
        try fixture.file("Doc.pkg/b.txt", "b")
        return try FileWrapper(url: fixture.url("Doc.pkg"), options: .immediate)
    }

    /// A pid that names no running process, and a name a writer with that pid would have used.
    func deadWritersName(_ name: String, marker: String) throws -> String {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        return ".\(name)\(marker)\(child.processIdentifier)-12345-abc"
    }

    @Test("a save failing at each step leaves the original package and no staging directory", arguments: ["linkat", "openat", "fsync", "renameat2"], saveFileSystems)
    func failureLeavesOriginal(call: String, kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            let wrapper = try package(at: fixture)
            wrapper.addRegularFile(withContents: Data("c".utf8), preferredFilename: "c.txt")
            let inode = try fixture.inode("Doc.pkg")
            let log = AuditLog()
            // openat: the creation of the new child; the others: their first call.
            log.inject(SyscallFault(call: call, pathSuffix: call == "openat" ? Array("c.txt".utf8) : nil, errno: .ioError, times: 1))
            let outcome = Result {
                try SyscallSeam.$observer.withValue(log) {
                    try wrapper.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
                }
            }
            guard case .failure(let error) = outcome else {
                Issue.record("the save succeeded despite the fault in \(call)")
                return
            }
            #expect(error is CocoaError)
            #expect(try fixture.inode("Doc.pkg") == inode)
            #expect(try fixture.names("Doc.pkg") == ["a.txt", "b.txt"])
            let left = try fixture.names("")
            #expect(left == ["Doc.pkg"], "no staging directory left")
        }
    }

    @Test("without RENAME_EXCHANGE the save sets the old package aside, renames the new one in, and removes the old", arguments: saveFileSystems)
    func noExchangeFallback(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            let wrapper = try package(at: fixture)
            wrapper.addRegularFile(withContents: Data("c".utf8), preferredFilename: "c.txt")
            let log = AuditLog()
            log.inject(SyscallFault(call: "renameat2", errno: .invalidArgument, times: 1, requiredFlags: 2))
            try SyscallSeam.$observer.withValue(log) {
                try wrapper.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
            }
            #expect(try fixture.names("Doc.pkg") == ["a.txt", "b.txt", "c.txt"])
            #expect(try fixture.names("") == ["Doc.pkg"])
            #expect(log.effects(named: "renameat2").count >= 4, "exchange refused, then aside, in, and the old tree renamed for removal")
        }
    }

    @Test("a dead writer's half-built package is removed by the next save; a live one's is not", arguments: saveFileSystems)
    func deadStagingSwept(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            let wrapper = try package(at: fixture)
            let dead = try deadWritersName("Doc.pkg", marker: ".saving-")
            try fixture.file("\(dead)/half.txt", "half")
            let live = OwnedName.make(for: Array("Doc.pkg".utf8), marker: ".saving-")
            let liveName = String(decoding: live, as: UTF8.self)
            try FileManager.default.createDirectory(atPath: fixture.path(liveName), withIntermediateDirectories: false)
            try wrapper.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
            #expect(try fixture.names("") == [liveName, "Doc.pkg"].sorted())
        }
    }

    @Test("a dead writer that set the old package aside and died before renaming the new one in: the next save puts it back first", arguments: saveFileSystems)
    func deadBackupRestored(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            let wrapper = try package(at: fixture)
            let backup = try deadWritersName("Doc.pkg", marker: ".backup-")
            try FileManager.default.moveItem(atPath: fixture.path("Doc.pkg"), toPath: fixture.path(backup))
            let inode = try fixture.inode(backup)
            // Another save of the same package: the old one is restored, then replaced by the new.
            wrapper.addRegularFile(withContents: Data("c".utf8), preferredFilename: "c.txt")
            try wrapper.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
            #expect(try fixture.names("") == ["Doc.pkg"])
            #expect(try fixture.names("Doc.pkg") == ["a.txt", "b.txt", "c.txt"])
            #expect(try fixture.inode("Doc.pkg") != inode)
        }
    }
}

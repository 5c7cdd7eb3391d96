// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// `bookmark volumes` and `bookmark id`, run as a user would, on real volumes, as root and unprivileged.
@Suite("bookmark volumes / id", .serialized, .requiresRealVolumes)
struct IdentityCommandTests {
    typealias Object = [String: Any]

    func volumes(_ result: CommandResult) throws -> [Object] {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try #require(try BookmarkTool.json(result) as? [Object])
    }

    func identity(_ result: CommandResult) throws -> Object {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try #require(try BookmarkTool.json(result) as? Object)
    }

    @Test("volumes --json reports the UUID given to mkfs.ext4 -U, and the new mount point after a remount")
    func volumesAcrossRemount() throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(.ext4, uuid: uuid, label: "clitest") { fixture in
            let first = try volumes(BookmarkTool.run(["volumes", "--json"])).filter { $0["uuid"] as? String == uuid }
            #expect(first.count == 1)
            #expect(first.first?["mountPoint"] as? String == fixture.mountPoint?.path)
            #expect(first.first?["uuidSource"] as? String == "FS_IOC_GETFSUUID")
            #expect(first.first?["label"] as? String == "clitest")
            #expect(first.first?["fsType"] as? String == "ext4")
            #expect(first.first?["device"] as? String == fixture.loopDevice)
            for key in ["mountPoint", "fsType", "device", "uuid", "uuidSource", "label"] {
                #expect(first.first?.keys.contains(key) == true, "key \(key) is always present")
            }

            let file = fixture.path("doc.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let before = try identity(BookmarkTool.run(["id", file, "--json"]))

            try fixture.unmount()
            let elsewhere = fixture.directory.appendingPathComponent("elsewhere")
            try fixture.mount(at: elsewhere, newLoopDevice: true)
            let second = try volumes(BookmarkTool.run(["volumes", "--json"])).filter { $0["uuid"] as? String == uuid }
            #expect(second.count == 1)
            #expect(second.first?["mountPoint"] as? String == elsewhere.path)

            let after = try identity(BookmarkTool.run(["id", fixture.path("doc.txt"), "--json"]))
            for key in ["inode", "generation", "birthTime", "handle", "identity"] {
                #expect(String(describing: before[key] ?? "nil") == String(describing: after[key] ?? "nil"), "\(key)")
            }
            let volume = try #require(after["volume"] as? Object)
            #expect(volume["uuid"] as? String == uuid)
            #expect(volume["uuidSource"] as? String == "FS_IOC_GETFSUUID")
            #expect(volume["mountPoint"] as? String == elsewhere.path)
        }
    }

    @Test("id: a new file reusing a deleted file's inode number has a different identity")
    func inodeReuse() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            let old = fixture.path("old.txt")
            try Data("1".utf8).write(to: URL(fileURLWithPath: old))
            let before = try identity(BookmarkTool.run(["id", old, "--json"]))
            try FileManager.default.removeItem(atPath: old)
            let new = fixture.path("new.txt")
            try Data("2".utf8).write(to: URL(fileURLWithPath: new))
            let after = try identity(BookmarkTool.run(["id", new, "--json"]))
            try #require(after["inode"] as? Int == before["inode"] as? Int, "ext4 hands out a freed inode at once")
            #expect(after["identity"] as? String != before["identity"] as? String)
            #expect(after["generation"] as? Int != before["generation"] as? Int)
        }
    }

    @Test(
        "unprivileged (setpriv uid 65534): the same identities and UUID sources as root",
        .requiresUnprivilegedUser, arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func unprivileged(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            let file = fixture.path("shared.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            try Shell.check(["chmod", "0600", file])  // unreadable for uid 65534, but identifiable
            let asRoot = try identity(BookmarkTool.run(["id", file, "--json"]))
            let asNobody = try identity(BookmarkTool.runUnprivileged(["id", file, "--json"]))
            for key in ["inode", "generation", "birthTime", "handle", "identity", "subvolume"] {
                #expect(String(describing: asRoot[key] ?? "nil") == String(describing: asNobody[key] ?? "nil"), "\(key)")
            }
            let rootVolume = try #require(asRoot["volume"] as? Object)
            let nobodyVolume = try #require(asNobody["volume"] as? Object)
            #expect(nobodyVolume["uuid"] as? String == fixture.uuid)
            #expect(nobodyVolume["uuidSource"] as? String == rootVolume["uuidSource"] as? String)
        }
    }

    @Test("unprivileged on exFAT: the device cannot be read, libblkid's cache answers, flagged unverified",
          .requiresUnprivilegedUser, .requiresFileSystems(.exfat))
    func unreadableBlockDevice() throws {
        try LoopVolume.withVolume(.exfat, label: "cached") { fixture in
            let device = try #require(fixture.loopDevice)
            // A root run of blkid fills /run/blkid/blkid.tab, as on a normal system.
            try Shell.check(["blkid", device])
            let probe = try Unprivileged.run(["sh", "-c", "test -r \(device) && echo readable || echo unreadable"])
            #expect(probe.stdout.contains("unreadable"), "uid 65534 must not be able to read \(device)")
            let listed = try volumes(BookmarkTool.runUnprivileged(["volumes", "--json"]))
            let entry = try #require(listed.first { $0["mountPoint"] as? String == fixture.mountPoint?.path })
            #expect(entry["uuid"] as? String == fixture.uuid)
            #expect(entry["uuidSource"] as? String == "blkid-cache")
            #expect(entry["uuidVerified"] as? Bool == false)

            let asRoot = try volumes(BookmarkTool.run(["volumes", "--json"]))
            let rootEntry = try #require(asRoot.first { $0["mountPoint"] as? String == fixture.mountPoint?.path })
            #expect(rootEntry["uuidSource"] as? String == "blkid")
            #expect(rootEntry["uuidVerified"] as? Bool == true)
        }
    }
}

/// Exit codes and error messages, which need no volume.
@Suite("bookmark exit codes")
struct ExitCodeTests {
    @Test("a missing path exits 3 with the path and reason on stderr")
    func notFound() throws {
        let result = try BookmarkTool.run(["id", "/nonexistent/file", "--json"])
        #expect(result.status == 3)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("/nonexistent/file"))
        #expect(result.stderr.contains("No such file or directory"))
    }

    @Test("usage errors exit 64", arguments: [["id"], ["frobnicate"], ["volumes", "--bogus"]])
    func usage(arguments: [String]) throws {
        #expect(try BookmarkTool.run(arguments).status == 64)
    }

    @Test("--help lists the exit-code table")
    func help() throws {
        let result = try BookmarkTool.run(["--help"])
        #expect(result.status == 0)
        for line in ["3   not found", "4   volume not mounted", "5   unreadable or corrupt data", "64  usage error"] {
            #expect(result.stdout.contains(line), "\(line)")
        }
    }

    @Test("permission denied exits 13", .requiresUnprivilegedUser)
    func permissionDenied() throws {
        let result = try BookmarkTool.runUnprivileged(["id", "/root/.", "--json"])
        #expect(result.status == 13, "stderr: \(result.stderr)")
    }

    @Test("id on the root file system names its UUID source")
    func rootFileSystem() throws {
        let result = try BookmarkTool.run(["id", "/", "--json"])
        #expect(result.status == 0)
        let object = try #require(try BookmarkTool.json(result) as? [String: Any])
        let volume = try #require(object["volume"] as? [String: Any])
        #expect(volume["uuid"] is String)
        #expect(volume["uuidSource"] as? String != "source")
    }
}

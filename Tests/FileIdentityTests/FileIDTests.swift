// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// File identity on real volumes: equality survives remounts, never trusts (st_dev, st_ino).
@Suite("File identity on real volumes", .serialized, .requiresRealVolumes)
struct FileIDTests {
    @Test("identity fields per file system", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs])
    func fields(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            let path = fixture.path("file.txt")
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            let id = try FileID.identify(FilePath(path))
            #expect(id.kind == .regular)
            #expect(id.size == 5)
            #expect(id.handle != nil, "name_to_handle_at works on \(kind)")
            #expect(id.generation != nil, "the generation is decoded from the handle on \(kind)")
            #expect(id.birthTime != nil, "statx reports a birth time on \(kind)")
            #expect(id.uniqueMountID != nil, "statx reports the unique mount id (Linux 6.8+)")
            #expect(id.mountID == id.volume.mountID, "the reusable id is the mount's, as mountinfo lists it")
            #expect(id.volume.mountPointPath.string == fixture.mountPoint?.path)
            #expect((id.subvolume != nil) == (kind == .btrfs))
            let stat = try FileStatus(path: FilePath(path))
            #expect(id.inode == stat.inode)
            if kind != .btrfs, kind != .tmpfs, let generation = id.generation {
                // Cross-check the decoded generation against FS_IOC_GETVERSION on an open file.
                let file = try Directory.current.open(FilePath(path))
                #expect(try file.generation() == generation)
            }
        }
    }

    @Test("equal identities before and after unmount and remount elsewhere", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func remount(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            try Data("x".utf8).write(to: URL(fileURLWithPath: fixture.path("keep.txt")))
            let before = try FileID.identify(FilePath(fixture.path("keep.txt")))
            try fixture.unmount()
            try fixture.mount(at: fixture.directory.appendingPathComponent("moved"), newLoopDevice: true)
            let after = try FileID.identify(FilePath(fixture.path("keep.txt")))
            #expect(after == before)
            #expect(after.hashValue == before.hashValue)
            #expect(before.uniqueMountID != nil)
            #expect(after.uniqueMountID != before.uniqueMountID, "the unique mount id changes with every mount")
            if kind != .btrfs { #expect(after.device != before.device, "st_dev follows the loop device") }
        }
    }

    @Test("a new file that reuses a deleted file's inode number is a different file", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func inodeReuse(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            let first = fixture.path("first.txt")
            try Data("1".utf8).write(to: URL(fileURLWithPath: first))
            let old = try FileID.identify(FilePath(first))
            try FileManager.default.removeItem(atPath: first)
            // Create files until the file system hands out the old inode number again.
            var reused: FileID?
            for attempt in 0..<200 {
                let path = fixture.path("new-\(attempt).txt")
                try Data("2".utf8).write(to: URL(fileURLWithPath: path))
                let candidate = try FileID.identify(FilePath(path))
                if candidate.inode == old.inode {
                    reused = candidate
                    break
                }
                try FileManager.default.removeItem(atPath: path)
                if kind == .btrfs && attempt == 0 {
                    // btrfs reuses the highest freed objectid only after a remount.
                    try fixture.unmount()
                    try fixture.mount(at: fixture.directory.appendingPathComponent("mnt"))
                }
            }
            let new = try #require(reused, "\(kind) did not reuse inode \(old.inode)")
            #expect(new.inode == old.inode)
            #expect(new.volume.key == old.volume.key)
            #expect(new != old)
            #expect(new.generation != old.generation || new.birthTime != old.birthTime)
        }
    }

    @Test("btrfs subvolumes repeat inode numbers; identities stay distinct")
    func btrfsSubvolumes() throws {
        try LoopVolume.withVolume(.btrfs) { fixture in
            try Data("top".utf8).write(to: URL(fileURLWithPath: fixture.path("f.txt")))
            try Data("sub".utf8).write(to: URL(fileURLWithPath: fixture.path("sub/f.txt")))
            let top = try FileID.identify(FilePath(fixture.path("f.txt")))
            let sub = try FileID.identify(FilePath(fixture.path("sub/f.txt")))
            #expect(top.inode == sub.inode, "the first file of each subvolume gets objectid 257")
            #expect(top.volume.uuid == sub.volume.uuid)
            #expect(top.subvolume == 5)
            #expect(sub.subvolume != nil && sub.subvolume != 5)
            #expect(top.device != sub.device, "each subvolume has its own anonymous st_dev")
            #expect(top != sub)
        }
    }

    @Test("a snapshot's copy has the same inode and generation, but another subvolume")
    func btrfsSnapshot() throws {
        try LoopVolume.withVolume(.btrfs) { fixture in
            try Data("data".utf8).write(to: URL(fileURLWithPath: fixture.path("sub/doc.txt")))
            try Shell.check(["btrfs", "subvolume", "snapshot", fixture.path("sub"), fixture.path("snap")])
            let original = try FileID.identify(FilePath(fixture.path("sub/doc.txt")))
            let copy = try FileID.identify(FilePath(fixture.path("snap/doc.txt")))
            #expect(copy.inode == original.inode)
            #expect(copy.generation == original.generation)
            #expect(copy != original)
        }
    }

    @Test("renaming keeps the identity; an atomic save (temp + rename) replaces it")
    func renameAndAtomicSave() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            let path = fixture.path("doc.txt")
            try Data("v1".utf8).write(to: URL(fileURLWithPath: path))
            let original = try FileID.identify(FilePath(path))
            try FileManager.default.createDirectory(atPath: fixture.path("dir"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: path, toPath: fixture.path("dir/renamed.txt"))
            #expect(try FileID.identify(FilePath(fixture.path("dir/renamed.txt"))) == original)
            try Data("v2".utf8).write(to: URL(fileURLWithPath: fixture.path("dir/renamed.txt")), options: .atomic)
            #expect(try FileID.identify(FilePath(fixture.path("dir/renamed.txt"))) != original)
        }
    }

    @Test("a file the caller cannot read still has an identity (O_PATH + handle)")
    func unreadableFile() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            let path = fixture.path("secret")
            try Data("s".utf8).write(to: URL(fileURLWithPath: path))
            try Shell.check(["chmod", "000", path])
            let id = try FileID.identify(FilePath(path))
            #expect(id.generation != nil)
            #expect(id.mode & 0o777 == 0)
        }
    }

    @Test("symlinks: followed by default, identified themselves with followSymlinks: false")
    func symlinks() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            try Data("t".utf8).write(to: URL(fileURLWithPath: fixture.path("target")))
            try FileManager.default.createSymbolicLink(atPath: fixture.path("link"), withDestinationPath: "target")
            let target = try FileID.identify(FilePath(fixture.path("target")))
            #expect(try FileID.identify(FilePath(fixture.path("link"))) == target)
            let link = try FileID.identify(FilePath(fixture.path("link")), followSymlinks: false)
            #expect(link.kind == .symlink)
            #expect(link != target)
        }
    }

    @Test("a descriptor whose mount was detached (umount -l) fails with notInMountTable, no invented errno")
    func detachedMount() throws {
        try LoopVolume.withVolume(.tmpfs) { fixture in
            try Data("d".utf8).write(to: URL(fileURLWithPath: fixture.path("f")))
            let descriptor = try Directory.current.open(FilePath(fixture.path("f")), options: [.pathOnly])
            defer { try? descriptor.close() }
            let mounted = try MountedVolumes()
            #expect(try FileID.identify(descriptor, volumes: mounted).kind == .regular)
            try Shell.check(["umount", "-l", try #require(fixture.mountPoint).path])
            let error = try #require(throws: FileIdentityError.self) { try FileID.identify(descriptor) }
            #expect(error.code == .notInMountTable)
            #expect(error.cause == nil, "no call failed: the mount is simply not in the table")
            #expect(error.path == FilePath(fixture.path("f")))
        }
    }

    @Test("a FIFO is identified without blocking")
    func fifo() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            try Shell.check(["mkfifo", fixture.path("pipe")])
            let id = try FileID.identify(FilePath(fixture.path("pipe")))
            #expect(id.kind == .fifo)
        }
    }
}

/// Identity on the machine's own root file system, where libblkid cannot open the device.
@Suite("File identity on the root file system")
struct RootFileSystemTests {
    @Test("the root file system gets a volume identity with its source named")
    func rootVolume() throws {
        let id = try FileID.identify("/")
        #expect(id.volume.uuid != nil)
        #expect(id.volume.isPersistent)
        #expect(id.volume.uuid != "00000000-0000-0000-0000-000000000000")
        #expect(UUIDSource.allCases.contains(id.volume.uuidSource))
        #expect(id.volume.uuidSource != .sourceAndType)
    }

    @Test("a missing path throws FileIdentityError whose cause has the call, errno and path")
    func missing() throws {
        let error = try #require(throws: FileIdentityError.self) { try FileID.identify("/nonexistent/swift-bookmarks") }
        #expect(error.code == .fileSystem)
        #expect(error.path == "/nonexistent/swift-bookmarks")
        let cause = try #require(error.cause)
        #expect(cause.code == .notFound)
        #expect(cause.errno == .noSuchFileOrDirectory)
        #expect(cause.syscall == "openat")
        #expect(cause.path == "/nonexistent/swift-bookmarks")
        #expect(error.description == cause.description, "a failed call is described as the call")
    }

    @Test("every call goes through the seam: statx, name_to_handle_at and the mountinfo read are traced")
    func traced() throws {
        let trace = AuditLog(level: .calls)
        // A table made inside the trace, so its mountinfo read is traced too (the shared table
        // would already be read).
        _ = try SyscallSeam.$observer.withValue(trace) { try FileID.identify("/", volumes: MountedVolumes()) }
        let names = Set(trace.calls.map(\.name))
        #expect(names.isSuperset(of: ["openat", "statx", "name_to_handle_at", "read", "close", "fstatfs"]))
        #expect(trace.calls.contains { $0.path == Array("/proc/self/mountinfo".utf8) })
    }
}

/// FileIdentity's own I/O is visible in the secure layer's audit log, in context.
@Suite("File identity in the audit log", .requiresRealVolumes)
struct FileIdentityAuditTests {
    @Test("identifying a file on ext4 records the intent, then statx, name_to_handle_at and the mountinfo read with identities")
    func audited() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let path = volume.path("f")
            FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            let log = AuditLog()
            // A table made inside the trace: the shared one may have been re-read already by a
            // suite running in parallel, and then identification reads no mountinfo.
            let id = try SyscallSeam.$observer.withValue(log) { try FileID.identify(FilePath(path), volumes: MountedVolumes()) }
            // The table's own read of mountinfo comes first; then the identification.
            #expect(log.intents.first?.operation == "Directory.readFile")
            #expect(log.intents.dropFirst().first?.operation == "FileID.identify")
            #expect(log.intents.dropFirst().first?.path == Array(path.utf8))
            let names = Set(log.effects.map(\.call.name))
            #expect(names.isSuperset(of: ["openat", "statx", "name_to_handle_at", "read"]))
            let open = try #require(log.effects(named: "openat").first { $0.call.path == Array(path.utf8) })
            #expect(open.identities.result?.inode == id.inode)
            #expect(log.effects(named: "statx").contains { $0.identities.directory?.inode == id.inode })
            #expect(log.jsonLines().contains("\"operation\":\"FileID.identify\""))
            // Its absolute paths are the caller's own path, /proc, and the mount point the mount
            // table names (volume identification opens it to ask for the UUID): nothing else.
            let mountPoint = Array((volume.mountPoint?.path ?? "").utf8)
            let pathBased = log.pathBasedEffects().compactMap(\.call.path).filter { $0 != Array(path.utf8) && $0 != mountPoint }
            #expect(log.pathBasedEffects().contains { $0.call.path == mountPoint })
            #expect(pathBased.isEmpty, "\(pathBased.map { String(decoding: $0, as: UTF8.self) })")
        }
    }
}

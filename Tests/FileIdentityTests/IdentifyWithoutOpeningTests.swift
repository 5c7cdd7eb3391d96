// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// `FileID.identifyWithoutOpening`: two path lookups (statx, name_to_handle_at) that must agree
/// with the open-based identity, and must refuse to answer when they saw two different objects.
@Suite("Identity from two path lookups", .serialized, .requiresRealVolumes)
struct IdentifyWithoutOpeningTests {
    @Test("same identity and facts as the open-based identify", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs])
    func agrees(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            let path = fixture.path("file.txt")
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            let volumes = try MountedVolumes()
            let opened = try FileID.identify(FilePath(path), volumes: volumes)
            let quick = try #require(try FileID.identifyWithoutOpening(Array(path.utf8), volumes: volumes))
            #expect(quick == opened)
            #expect(quick.generation == opened.generation)
            #expect(quick.handle == opened.handle)
            #expect(quick.birthTime == opened.birthTime)
            #expect(quick.volume == opened.volume)
            #expect(quick.size == 5 && quick.kind == .regular)
        }
    }

    @Test("a trailing symlink is identified itself when not followed")
    func symlink() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            try Data("t".utf8).write(to: URL(fileURLWithPath: fixture.path("target")))
            try FileManager.default.createSymbolicLink(atPath: fixture.path("link"), withDestinationPath: "target")
            let volumes = try MountedVolumes()
            let link = Array(fixture.path("link").utf8)
            let followed = try #require(try FileID.identifyWithoutOpening(link, volumes: volumes))
            let itself = try #require(try FileID.identifyWithoutOpening(link, followSymlinks: false, volumes: volumes))
            #expect(followed == (try FileID.identify(FilePath(fixture.path("target")), volumes: volumes)))
            #expect(itself.kind == .symlink)
            #expect(itself != followed)
        }
    }

    @Test("a name that is not UTF-8 works; a NUL inside the path is refused, not truncated")
    func rawBytes() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            let directory = Array(fixture.path("").utf8)
            let name: [UInt8] = [0x66, 0xFF, 0xFE, 0x2E, 0x74]  // "f\xFF\xFE.t"
            let path = directory + name
            let fd = path.map { CChar(bitPattern: $0) }.withUnsafeBufferPointer { buffer -> CInt in
                var terminated = Array(buffer)
                terminated.append(0)
                return open(terminated, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
            }
            #expect(fd >= 0)
            close(fd)
            let volumes = try MountedVolumes()
            let id = try #require(try FileID.identifyWithoutOpening(path, volumes: volumes))
            #expect(id == (try FileID.identify(FilePath(bytes: path), volumes: volumes)))
            // "dir/" + NUL + "f\xFF…": truncating at the NUL would name the directory.
            let error = try #require(throws: FileIdentityError.self) {
                try FileID.identifyWithoutOpening(directory + [0] + name, volumes: volumes)
            }
            #expect(error.cause?.errno == .invalidArgument)
            #expect(error.cause?.syscall == "statx")
        }
    }

    @Test("a volume by reusable mount id: the file's volume, and nil for a mount id that does not exist")
    func volumeByMountID() throws {
        let volumes = try MountedVolumes()
        let handle = try FileHandleData(path: "/")
        #expect(volumes.volume(mountID: handle.mountID) == (try FileID.identify("/", volumes: volumes)).volume)
        #expect(volumes.volume(mountID: MountID(rawValue: .max)) == nil)
    }

    @Test("a missing path throws statx's ENOENT with the path")
    func missing() throws {
        let volumes = try MountedVolumes()
        let error = try #require(throws: FileIdentityError.self) {
            try FileID.identifyWithoutOpening(Array("/nonexistent/swift-bookmarks".utf8), volumes: volumes)
        }
        #expect(error.code == .fileSystem)
        #expect(error.cause?.errno == .noSuchFileOrDirectory)
        #expect(error.cause?.syscall == "statx")
        #expect(error.path == "/nonexistent/swift-bookmarks")
    }

    @Test("exactly statx and name_to_handle_at by path: nothing is opened; an object seen before needs its statx only")
    func twoCalls() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            let path = fixture.path("f")
            FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            let volumes = try MountedVolumes()
            let other = fixture.path("warm-up")
            FileManager.default.createFile(atPath: other, contents: nil)
            _ = try FileID.identifyWithoutOpening(Array(other.utf8), volumes: volumes)  // identifies the volume once
            func traced() throws -> (FileID?, [String]) {
                let trace = AuditLog(level: .calls)
                let id = try SyscallSeam.$observer.withValue(trace) {
                    try FileID.identifyWithoutOpening(Array(path.utf8), volumes: volumes)
                }
                #expect(trace.calls.allSatisfy { $0.path == Array(path.utf8) && $0.descriptor == -100 })
                return (id, trace.calls.map(\.name))
            }
            let (first, firstCalls) = try traced()
            #expect(first != nil)
            #expect(firstCalls == ["statx", "name_to_handle_at"])
            // The same object again: its handle is known (same mount, inode and birth time).
            let (again, againCalls) = try traced()
            #expect(againCalls == ["statx"])
            #expect(again?.handle == first?.handle && again?.generation == first?.generation && again?.inode == first?.inode)
            // Another object at the path (even if it got the same inode number, its birth time is
            // new): the handle is asked for again.
            try FileManager.default.removeItem(atPath: path)
            FileManager.default.createFile(atPath: path, contents: nil)
            let (replaced, replacedCalls) = try traced()
            #expect(replacedCalls == ["statx", "name_to_handle_at"])
            #expect(replaced?.birthTime != first?.birthTime || replaced?.inode != first?.inode)
        }
    }

    @Test("exFAT through FUSE: the FUSE handle layout agrees with the open-based identity")
    func fuse() throws {
        try LoopVolume.withVolume(.exfat) { fixture in
            let path = fixture.path("f")
            FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            let volumes = try MountedVolumes()
            let opened = try FileID.identify(FilePath(path), volumes: volumes)
            let quick = try #require(try FileID.identifyWithoutOpening(Array(path.utf8), volumes: volumes))
            #expect(quick == opened)
            #expect(quick.handle == opened.handle)
        }
    }

    @Test("a handle of an unknown layout gets nil, so callers open instead")
    func unknownLayout() throws {
        // procfs gives no handle at all (EOPNOTSUPP): the same path as an unknown layout.
        let volumes = try MountedVolumes()
        #expect(try FileID.identifyWithoutOpening(Array("/proc/self/status".utf8), volumes: volumes) == nil)
    }

    @Test("the path replaced between the two lookups: nil, never a mix of two files", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func replacedBetweenLookups(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            let path = fixture.path("doc")
            let replacement = fixture.path("doc.new")
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            try Data("new".utf8).write(to: URL(fileURLWithPath: replacement))
            let volumes = try MountedVolumes()
            // Runs the atomic save at the exact moment between statx and name_to_handle_at.
            let swap = SwapBeforeHandle { rename(replacement, path) == 0 }
            let id = try SyscallSeam.$observer.withValue(swap) {
                try FileID.identifyWithoutOpening(Array(path.utf8), volumes: volumes)
            }
            #expect(swap.swapped, "the rename ran between the two lookups")
            #expect(id == nil)
            let now = try FileID.identify(FilePath(path), volumes: volumes)
            #expect((try String(contentsOfFile: path, encoding: .utf8)) == "new")
            #expect(now.size == 3)
        }
    }
}

/// An observer that runs `swap` once, just before the first `name_to_handle_at`, and injects nothing.
final class SwapBeforeHandle: SyscallObserver {
    private let done = Guarded(false)
    private let swap: @Sendable () -> Bool

    init(_ swap: @escaping @Sendable () -> Bool) { self.swap = swap }

    var swapped: Bool { done.withLock { $0 } }

    func fault(for call: SyscallCall) -> Errno? {
        guard call.name == "name_to_handle_at" else { return nil }
        let first = done.withLock { already -> Bool in
            defer { already = true }
            return !already
        }
        if first, !swap() { done.withLock { $0 = false } }
        return nil
    }

    func record(_ call: SyscallCall, outcome: SyscallOutcome) {}
}

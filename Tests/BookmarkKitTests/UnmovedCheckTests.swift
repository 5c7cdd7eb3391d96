// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// The unmoved-file check is one `statx` when the bookmark recorded the inode and the birth time
/// (FileID.lookUpKnown). These tests pin down what that single call must still tell apart.
@Suite("The one-statx unmoved check", .serialized, .requiresRealVolumes)
struct UnmovedCheckTests {
    @Test("an unmoved file resolves by path with one statx and no name_to_handle_at, on every kind", arguments: [
        FixtureFileSystem.ext4, .xfs, .btrfs,
    ])
    func oneCall(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let path = volume.path("d/e/file.txt")
            try FileManager.default.createDirectory(atPath: volume.path("d/e"), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            let bookmark = try Bookmark.create(for: FilePath(path))
            _ = try bookmark.resolve()  // warm the shared table
            // Other suites mount and unmount loop volumes in parallel; when one does so between
            // the calls, the shared table's poll rightly reports a change and the call re-reads
            // mountinfo and re-identifies the volume (its own openat/read/statx). Measure a call
            // that saw no such change: try again, a bounded number of times, until one did not.
            var measured: (resolution: Resolution, calls: [String])?
            for _ in 0..<20 {
                let log = AuditLog()
                let resolution = try SyscallSeam.$observer.withValue(log) { try bookmark.resolve() }
                let calls = log.calls.map(\.name)
                if !calls.contains("read") {
                    measured = (resolution, calls)
                    break
                }
            }
            let (resolution, calls) = try #require(measured, "the mount table changed during each of 20 calls")
            #expect(resolution.matchedBy == .path)
            #expect(!resolution.isStale)
            #expect(calls.filter { $0 == "statx" }.count == 1, "\(calls)")
            #expect(!calls.contains("name_to_handle_at"), "\(calls)")
            // The identity it reports is the full one: the recorded generation and handle.
            let full = try FileID.identify(FilePath(path))
            #expect(resolution.fileID.generation == full.generation)
            #expect(resolution.fileID.handle?.bytes == full.handle?.bytes)
            #expect(resolution.fileID.mountID == full.mountID)
        }
    }

    @Test("a new file at the same path that reuses the inode number is a replacement, not the recorded file")
    func reusedInodeAtThePath() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let path = volume.path("doc.txt")
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            let oldInode = try FileStatus(path: FilePath(path)).inode
            let bookmark = try Bookmark.create(for: FilePath(path))
            try replaceReusingInode(at: path, oldInode)
            let resolution = try bookmark.resolve()
            #expect(resolution.matchedBy == .replacedAtPath)
            #expect(resolution.changes.contains(.fileIdentity))
        }
    }
}

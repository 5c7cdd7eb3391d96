// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

#if canImport(Glibc)
    import Glibc
#endif

/// The handle step of a resolution (root only: `open_by_handle_at` needs `CAP_DAC_READ_SEARCH`).
@Suite("The handle step", .serialized, .requiresRealVolumes)
struct HandleStepTests {
    /// The system calls of one resolution that saw no change of the mount table (another suite
    /// may mount a volume meanwhile; the call then re-reads mountinfo, with its own calls).
    func traced(_ bytes: [UInt8]) throws -> (Resolution, [String]) {
        var measured: (Resolution, [String])?
        for _ in 0..<20 where measured == nil {
            let log = AuditLog()
            let resolution = try SyscallSeam.$observer.withValue(log) { try Bookmark(data: bytes).resolve() }
            let calls = log.calls.map(\.name)
            if !calls.contains("read") { measured = (resolution, calls) }
        }
        return try #require(measured, "the mount table changed during each of 20 calls")
    }

    @Test(
        "a moved file found by handle: one statx of the kernel's path with a birth time; without one, the descriptor's too",
        .enabled(if: geteuid() == 0, "open_by_handle_at needs CAP_DAC_READ_SEARCH: run as root"),
        arguments: [FixtureFileSystem.ext4, .xfs, .btrfs])
    func byHandle(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path(kind == .btrfs ? "sub/t" : "t"))
            try tree.file("a/doc.txt", "x")
            try tree.dir("b/c")
            let data = try Bookmark.create(for: FilePath(tree.path("a/doc.txt"))).data()
            var record = try BookmarkRecord(decoding: data)
            var facts = record.linux
            #expect(facts.birthTime != nil && facts.handle != nil)
            facts.birthTime = nil
            try record.setLinuxFacts(facts)
            let withoutBirthTime = try record.encoded()
            try tree.move("a/doc.txt", "b/c/doc.txt")
            _ = try Bookmark(data: data).resolve()  // the shared table, read once

            let (known, knownCalls) = try traced(data)
            #expect(known.matchedBy == .handle)
            #expect(known.path.string == tree.path("b/c/doc.txt"))
            let afterOpen = knownCalls.drop { $0 != "open_by_handle_at" }.dropFirst()
            #expect(afterOpen.filter { $0 == "statx" }.count == 1, "\(knownCalls)")
            #expect(!afterOpen.contains("name_to_handle_at"), "\(knownCalls)")
            #expect(afterOpen.contains("readlinkat"), "\(knownCalls)")

            let (examined, examinedCalls) = try traced(withoutBirthTime)
            #expect(examined.matchedBy == .handle)
            #expect(examined.path.string == tree.path("b/c/doc.txt"))
            // The descriptor's own statx, then the path's.
            #expect(examinedCalls.drop { $0 != "open_by_handle_at" }.filter { $0 == "statx" }.count == 2, "\(examinedCalls)")
            #expect(examined.fileID.inode == known.fileID.inode)
            #expect(examined.changes == known.changes)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Bookmarks keep every Linux fact in one compact item (issue 14, item 4), and bookmarks in the
/// 0.1 layout (nine string keys) still resolve.
@Suite("Compact Linux facts on real volumes", .serialized, .requiresRealVolumes)
struct CompactFactsTests {
    /// Runs `body` with a volume remounted at `/var/tmp/bm<pid>`, three components from `/`, so that a
    /// file two levels down has a 5-component path (the fixture's own mount point is five deep).
    func withShallowVolume(_ kind: FixtureFileSystem, _ body: (LoopVolume) throws -> Void) throws {
        let point = URL(fileURLWithPath: "/var/tmp/bm\(getpid())")
        defer { try? FileManager.default.removeItem(at: point) }
        try LoopVolume.withVolume(kind) { volume in
            try volume.unmount()
            try volume.mount(at: point)
            try body(volume)
        }
    }

    /// The facts `FileID` gives for `path`, as a bookmark of it should store them.
    func expectedFacts(_ path: String, mountRelative: String) throws -> LinuxFileFacts {
        let id = try FileID.identify(FilePath(path))
        let source: VolumeUUIDSource? = switch id.volume.uuidSource {
        case .fsIocGetFSUUID: .fsUUIDIoctl
        case .ext4Ioctl: .ext4Ioctl
        case .btrfsIoctl: .btrfsIoctl
        case .blkidProbe, .blkidCache: .blkid
        case .fsid: .fsid
        case .sourceAndType: nil
        }
        return LinuxFileFacts(
            generation: id.generation.map(UInt64.init), handleType: id.handle?.type, handle: id.handle?.bytes,
            birthTime: id.birthTime.map { LinuxTimestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds) },
            subvolumeID: id.subvolume, volumeUUIDSource: source, mountRelativePath: ByteString(mountRelative),
            fsType: id.volume.fsType, fsid: id.volume.fsid.map { LinuxFSID($0.val0, $0.val1) })
    }

    @Test("a bookmark of a 5-component path is at most 900 bytes and keeps every Linux fact",
          arguments: [FixtureFileSystem.btrfs, .ext4, .xfs])
    func smallWithEveryFact(kind: FixtureFileSystem) throws {
        try withShallowVolume(kind) { volume in
            // In btrfs's subvolume `sub`, so that the subvolume id is a fact too.
            let relative = kind == .btrfs ? "sub/report.txt" : "docs/report.txt"
            let tree = Tree(root: volume.path(""))
            try tree.file(relative, "quarterly numbers")
            let path = volume.path(relative)
            let bookmark = try Bookmark.create(for: FilePath(path))
            let data = try bookmark.data()
            #expect(bookmark.record.pathComponents?.count == 5)
            print("compact facts: a bookmark of \(path) on \(kind) is \(data.count) bytes")
            #expect(data.count <= 900, "\(data.count) bytes")

            let facts = try Bookmark(data: data).record.linux
            #expect(facts == (try expectedFacts(path, mountRelative: "/" + relative)))
            let present: [Bool] = [
                facts.generation != nil, facts.handleType != nil, facts.handle != nil, facts.birthTime != nil,
                facts.volumeUUIDSource != nil, facts.mountRelativePath != nil, facts.fsType != nil, facts.fsid != nil,
            ]
            #expect(present.allSatisfy { $0 }, "\(facts)")
            if kind == .btrfs { #expect(facts.subvolumeID == 256) }
            // One item, none of 0.1's keys.
            let record = try Bookmark(data: data).record
            #expect(record[LinuxKeys.compact] != nil)
            for key in LinuxKeys.legacy { #expect(record[key] == nil) }
        }
    }

    enum Layout: String, CaseIterable, CustomStringConvertible {
        case compact, legacy
        var description: String { rawValue }
    }

    /// `record` with its Linux facts in the 0.1 layout: the compact item replaced by the nine
    /// keys, with the item types 0.1 wrote (Docs/FORMAT.md §3.2).
    func legacyLayout(_ record: BookmarkRecord) throws -> BookmarkRecord {
        let facts = record.linux
        var document = record.document
        document[LinuxKeys.compact] = nil
        document[LinuxKeys.generation] = facts.generation.map { .int64(Int64(bitPattern: $0)) }
        document[LinuxKeys.handleType] = facts.handleType.map(BookmarkItem.int32)
        document[LinuxKeys.handle] = facts.handle.map(BookmarkItem.data)
        let birth = try facts.birthTime.map { (time: LinuxTimestamp) throws -> BookmarkItem in .int64(try #require(time.totalNanoseconds)) }
        document[LinuxKeys.birthTime] = birth
        document[LinuxKeys.subvolumeID] = facts.subvolumeID.map { .int64(Int64(bitPattern: $0)) }
        document[LinuxKeys.volumeUUIDSource] = facts.volumeUUIDSource.map { .string(ByteString($0.rawValue)) }
        document[LinuxKeys.mountRelativePath] = facts.mountRelativePath.map(BookmarkItem.string)
        document[LinuxKeys.fsType] = facts.fsType.map { .string(ByteString($0)) }
        document[LinuxKeys.fsid] = facts.fsid.map { .data($0.bytes) }
        return BookmarkRecord(document: document)
    }

    @Test("bookmarks of either layout resolve a real file: unmoved, on a volume mounted elsewhere, moved",
          arguments: [FixtureFileSystem.btrfs, .ext4], Layout.allCases)
    func bothLayoutsResolve(kind: FixtureFileSystem, layout: Layout) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path(kind == .btrfs ? "sub" : "t"))
            try tree.file("a/doc.txt")
            let created = try Bookmark.create(for: FilePath(tree.path("a/doc.txt")))
            let record = layout == .legacy ? try legacyLayout(created.record) : created.record
            let data = try record.encoded()
            let decoded = try BookmarkRecord(decoding: data)
            #expect((decoded[LinuxKeys.compact] != nil) == (layout == .compact))
            #expect(decoded[LinuxKeys.generation] != nil || layout == .compact)
            #expect(decoded.linux == created.record.linux)
            #expect(decoded.linux.generation != nil && decoded.linux.handle != nil && decoded.linux.mountRelativePath != nil)
            if kind == .btrfs { #expect(decoded.linux.subvolumeID != nil) }

            let unmoved = try Bookmark(data: data).resolve()
            #expect(unmoved.path.string == tree.path("a/doc.txt"))
            #expect(unmoved.matchedBy == .path && unmoved.changes.isEmpty)

            // Found under the new mount point through the mount-relative path.
            try volume.unmount()
            let elsewhere = volume.directory.appendingPathComponent("elsewhere")
            try volume.mount(at: elsewhere)
            let moved = Tree(root: volume.path(kind == .btrfs ? "sub" : "t"))
            let remounted = try Bookmark(data: data).resolve()
            #expect(remounted.path.string == moved.path("a/doc.txt"))
            #expect(remounted.matchedBy == .path)
            #expect(remounted.changes.contains(.volumeMountPoint))

            // Moved to another folder (its old parent still there): found by the recorded handle,
            // confirmed by the recorded generation and birth time.
            try moved.move("a/doc.txt", "b/c/doc.txt")
            let byHandle = try Bookmark(data: data).resolve()
            #expect(byHandle.path.string == moved.path("b/c/doc.txt"))
            #expect(byHandle.matchedBy == .handle)
            #expect(byHandle.changes.contains(.path))
        }
    }
}

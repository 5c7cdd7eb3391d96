// SPDX-License-Identifier: Apache-2.0
@testable import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Bookmarking the same unchanged file again hands back the bytes its template's plan last wrote
/// (`WrittenMemo`). These tests pin down that those bytes are always the ones a whole write
/// gives for what the creation found: the record filled from the same creation, then encoded.
@Suite("The written bytes' memo", .serialized, .requiresRealVolumes)
struct WrittenMemoTests {
    /// A new bookmark of `path` (the shared table, the ancestor cache), its bytes, and the bytes
    /// the record's way gives for the same creation.
    private func create(_ path: String) throws -> (bookmark: Bookmark, bytes: [UInt8], whole: [UInt8]) {
        let bookmark = try Bookmark.create(for: FilePath(path))
        let bytes = try bookmark.data()
        let whole = try Bookmark(record: bookmark.record).data()
        return (bookmark, bytes, whole)
    }

    /// Whether two bookmarks' bytes are equal (a `Bool`, so a failure does not print both in full).
    private func same(_ a: [UInt8], _ b: [UInt8]) -> Bool { a == b }

    /// Whether the memo of `bookmark`'s template holds bytes.
    private func memoHoldsBytes(_ bookmark: Bookmark) throws -> Bool {
        try #require(bookmark.pendingCreation, "the creation was not written by a plan").template.memo.holdsBytes
    }

    @Test("the same file again: the kept bytes, equal to a whole write's", arguments: [
        FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs,
    ])
    func sameFile(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind, label: "written") { volume in
            try FileManager.default.createDirectory(atPath: volume.path("Books/a"), withIntermediateDirectories: true)
            let path = volume.path("Books/a/novel.epub")
            try Data("once upon".utf8).write(to: URL(fileURLWithPath: path))
            let first = try create(path)
            #expect(same(first.bytes, first.whole))
            // The first creation of a path only notes it; the second keeps its bytes.
            #expect(try !memoHoldsBytes(first.bookmark))
            let second = try create(path)
            #expect(try memoHoldsBytes(second.bookmark))
            let third = try create(path)
            #expect(same(second.bytes, first.bytes) && same(third.bytes, first.bytes))
            #expect(same(third.bytes, third.whole))
            let decoded = try Bookmark(data: third.bytes)
            #expect(decoded.record.pathBytes?.bytes == Array(path.utf8))
        }
    }

    /// What happens to the file or its folder between a creation whose bytes were kept and the next.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case grown, touched, modeChanged, replacedAtPath, replacedReusingInode, folderReplaced
        var testDescription: String { rawValue }
    }

    @Test("a change between two creations: the new creation's bytes are written, equal to a whole write's",
          arguments: Change.allCases)
    func changeBetween(change: Change) throws {
        try LoopVolume.withVolume(.ext4, label: "written") { volume in
            try FileManager.default.createDirectory(atPath: volume.path("Books/a"), withIntermediateDirectories: true)
            let path = volume.path("Books/a/novel.epub")
            try Data("once upon".utf8).write(to: URL(fileURLWithPath: path))
            _ = try create(path)
            let kept = try create(path)
            try #require(try memoHoldsBytes(kept.bookmark))
            let inode = try FileStatus(path: FilePath(path)).inode
            // Whether the change shows in the bytes (the mode is not recorded; the rest is).
            var shows = true
            switch change {
            case .grown:
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(" a time".utf8))
                try handle.close()
            case .touched:
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: path)
            case .modeChanged:
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
                shows = false
            case .replacedAtPath:
                try Data("once upon".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            case .replacedReusingInode:
                try replaceReusingInode(at: path, inode)
            case .folderReplaced:
                // The same path, the same file, another folder on it: only the folder's inode differs.
                try FileManager.default.moveItem(atPath: volume.path("Books/a"), toPath: volume.path("Books/a-old"))
                try FileManager.default.createDirectory(atPath: volume.path("Books/a"), withIntermediateDirectories: false)
                try FileManager.default.moveItem(atPath: volume.path("Books/a-old/novel.epub"), toPath: path)
            }
            let after = try create(path)
            #expect(same(after.bytes, after.whole), "the bytes after \(change) are not a whole write's")
            if shows { #expect(!same(after.bytes, kept.bytes), "the bytes after \(change) are the kept ones") }
            // The new creation's bytes are kept from its next creation on, and answer again.
            let again = try create(path)
            #expect(same(again.bytes, after.bytes))
        }
    }

    @Test("one file per template: another file in between drops the kept bytes, and each file's bytes stay its own")
    func anotherFileBetween() throws {
        try LoopVolume.withVolume(.ext4, label: "written") { volume in
            let one = volume.path("one.txt")
            let two = volume.path("two.txt")
            try Data("1".utf8).write(to: URL(fileURLWithPath: one))
            try Data("2".utf8).write(to: URL(fileURLWithPath: two))
            _ = try create(one)
            let kept = try create(one)
            try #require(try memoHoldsBytes(kept.bookmark))
            let other = try create(two)
            #expect(try !memoHoldsBytes(other.bookmark))
            #expect(same(other.bytes, other.whole) && !same(other.bytes, kept.bytes))
            let back = try create(one)
            #expect(same(back.bytes, kept.bytes) && same(back.bytes, back.whole))
        }
    }

    /// Each stored field of `FileID`, changed.
    static let fieldChanges: [(String, @Sendable (inout FileID) -> Void)] = [
        ("inode", { $0.inode &+= 1 }),
        ("generation", { $0.generation = ($0.generation ?? 0) &+ 1 }),
        ("subvolume", { $0.subvolume = ($0.subvolume ?? 0) &+ 1 }),
        ("handle", { $0.handle = FileHandleData(type: 1, bytes: [1, 2, 3], mountID: $0.mountID) }),
        ("birthTime", { $0.birthTime = Timestamp(seconds: 1, nanoseconds: 2) }),
        ("size", { $0.size &+= 1 }),
        ("kind", { $0.kind = $0.kind == .directory ? .regular : .directory }),
        ("mode", { $0.mode ^= 0o1 }),
        ("uid", { $0.uid &+= 1 }),
        ("gid", { $0.gid &+= 1 }),
        ("mountID", { $0.mountID = MountID(rawValue: $0.mountID.rawValue &+ 1) }),
        ("uniqueMountID", { $0.uniqueMountID = UniqueMountID(rawValue: ($0.uniqueMountID?.rawValue ?? 0) &+ 1) }),
        ("device", { $0.device = DeviceNumber(major: $0.device.major &+ 1, minor: $0.device.minor) }),
        ("modificationTime", { $0.modificationTime = Timestamp(seconds: $0.modificationTime.seconds &+ 1, nanoseconds: 0) }),
    ]

    @Test("every stored field of FileID takes part in the comparison")
    func everyFieldCompared() throws {
        try LoopVolume.withVolume(.ext4, label: "written") { volume in
            let path = volume.path("f.txt")
            try Data("f".utf8).write(to: URL(fileURLWithPath: path))
            let id = try FileID.identify(FilePath(path))
            // A field added to FileID must be added to `hasSameFields(as:)` and to this table.
            #expect(Mirror(reflecting: id).children.count == FileID.comparedFieldCount)
            #expect(Self.fieldChanges.count + 1 == FileID.comparedFieldCount)  // the volume, below
            #expect(id.hasSameFields(as: id))
            for (name, change) in Self.fieldChanges {
                var changed = id
                change(&changed)
                #expect(!id.hasSameFields(as: changed), "a changed \(name) compared equal")
            }
            var elsewhere = id
            elsewhere.volume = try FileID.identify(FilePath("/")).volume
            #expect(elsewhere.volume != id.volume)
            #expect(!id.hasSameFields(as: elsewhere), "a changed volume compared equal")
        }
    }
}

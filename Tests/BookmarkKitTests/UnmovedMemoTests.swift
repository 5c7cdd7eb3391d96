// SPDX-License-Identifier: Apache-2.0
@testable import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// A bookmark found unmoved keeps what that resolution learnt from the mount table
/// (`UnmovedMemo`), so the next resolution against the same table is one `statx`. These tests pin
/// down that the memo answers only what a whole resolution would answer the same way.
@Suite("The unmoved resolution's memo", .serialized, .requiresRealVolumes)
struct UnmovedMemoTests {
    /// Resolves `bookmark` against `table`, then again, and returns both results and the memo
    /// kept between them.
    private func twice(_ bookmark: Bookmark, _ table: MountedVolumes) throws -> (Resolution, Resolution, UnmovedMemo?) {
        let first = try bookmark.resolve(volumes: table)
        let memo = try bookmark.keptMemo()
        let second = try bookmark.resolve(volumes: table)
        return (first, second, memo)
    }

    @Test("the memo's result is the whole resolution's, field by field, and follows the file's status", arguments: [
        FixtureFileSystem.ext4, .xfs, .btrfs,
    ])
    func sameResult(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind, label: "memo") { volume in
            let path = volume.path("Music/a/song.flac")
            try FileManager.default.createDirectory(atPath: volume.path("Music/a"), withIntermediateDirectories: true)
            try Data("la".utf8).write(to: URL(fileURLWithPath: path))
            let bookmark = try Bookmark.create(for: FilePath(path))
            let table = try MountedVolumes()
            let (first, second, memo) = try twice(bookmark, table)
            let kept = try #require(memo, "an unmoved resolution kept no memo")
            #expect(kept.tableSerial == table.serial)
            #expect(first.matchedBy == .path && second.matchedBy == .path)
            #expect(second.path == first.path)
            #expect(second.changes == first.changes)
            #expect(second.isInTrash == first.isInTrash)
            #expect(second.volume == first.volume)
            #expect(second.fileID.inode == first.fileID.inode)
            #expect(second.fileID.generation == first.fileID.generation)
            #expect(second.fileID.birthTime == first.fileID.birthTime)
            #expect(second.fileID.handle?.bytes == first.fileID.handle?.bytes)
            #expect(second.fileID.handle?.mountID == first.fileID.handle?.mountID)
            #expect(second.fileID.mountID == first.fileID.mountID)
            #expect(second.fileID.uniqueMountID == first.fileID.uniqueMountID)
            #expect(second.fileID.device == first.fileID.device)
            #expect(second.fileID.subvolume == first.fileID.subvolume)
            #expect(second.fileID.volume == first.fileID.volume)
            #expect(second.notes == first.notes)
            #expect(second.entriesSearched == 0)

            // What the file's status says now, not what it said when the memo was made.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 7, count: 4096))
            try handle.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
            let grown = try bookmark.resolve(volumes: table)
            let status = try FileStatus(path: FilePath(path))
            #expect(grown.matchedBy == .path)
            #expect(grown.fileID.size == status.size && grown.fileID.size == 4098)
            #expect(grown.fileID.mode == status.mode)
            #expect(grown.fileID.modificationTime == status.modificationTime)
            // The memo answered (the same one is still kept).
            #expect(try bookmark.keptMemo() === kept)
        }
    }

    /// What happens to the file between a resolution that kept a memo and the next one, and what
    /// that next one must report.
    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case replacedAtPath, renamed, deleted, replacedReusingInode
        var testDescription: String { rawValue }
    }

    @Test("a change between two resolutions is reported as a whole resolution reports it", arguments: Event.allCases)
    func changeBetween(change: Event) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let path = volume.path("doc.txt")
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            let bookmark = try Bookmark.create(for: FilePath(path))
            let table = try MountedVolumes()
            #expect(try bookmark.resolve(volumes: table).matchedBy == .path)
            try #require(try bookmark.keptMemo() != nil)
            let oldInode = try FileStatus(path: FilePath(path)).inode
            switch change {
            case .replacedAtPath:
                try Data("new".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                let resolution = try bookmark.resolve(volumes: table)
                #expect(resolution.matchedBy == .replacedAtPath)
                #expect(resolution.changes.contains(.fileIdentity))
            case .renamed:
                try FileManager.default.moveItem(atPath: path, toPath: volume.path("renamed.txt"))
                let resolution = try bookmark.resolve(volumes: table)
                #expect(resolution.path == FilePath(volume.path("renamed.txt")))
                #expect(resolution.fileID.inode == oldInode)
                #expect(resolution.changes.isSuperset(of: [.path, .name]))
            case .deleted:
                try FileManager.default.removeItem(atPath: path)
                let outcome = Result { () throws(BookmarkError) in try bookmark.resolve(volumes: table) }
                guard case .failure(let error) = outcome else {
                    Issue.record("a deleted file resolved: \(outcome)")
                    return
                }
                #expect(error.code == .notFound)
            case .replacedReusingInode:
                try replaceReusingInode(at: path, oldInode)
                let resolution = try bookmark.resolve(volumes: table)
                #expect(resolution.matchedBy == .replacedAtPath)
                #expect(resolution.changes.contains(.fileIdentity))
            }
        }
    }

    @Test("a memo answers only for the table it was learnt from; another table resolves in full and keeps its own")
    func otherTable() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (path, bookmark) = try newDocument(on: volume)
            let first = try MountedVolumes()
            _ = try bookmark.resolve(volumes: first)
            let memo = try #require(try bookmark.keptMemo())
            let second = try MountedVolumes()
            #expect(second.serial != first.serial)
            let (recorded, _) = try bookmark.recordedCache.recordedAndMemo(for: bookmark.record)
            #expect(memo.unmoved(recorded, tableSerial: second.serial) == nil)
            #expect(memo.unmoved(recorded, tableSerial: first.serial) != nil)
            #expect(try bookmark.resolve(volumes: second).matchedBy == .path)
            let replaced = try #require(try bookmark.keptMemo())
            #expect(replaced.tableSerial == second.serial)
        }
    }

    @Test("the same volume mounted elsewhere: the new table's path, reported as a moved mount point")
    func remountedElsewhere() throws {
        try LoopVolume.withVolume(.ext4, label: "moving") { volume in
            let file = volume.path("doc.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let bookmark = try Bookmark.create(for: FilePath(file))
            _ = try bookmark.resolve()
            try #require(try bookmark.keptMemo() != nil)
            let point = try #require(volume.mountPoint)
            let elsewhere = point.path + "-elsewhere"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }
            try volume.unmount(keepDevice: true)
            try volume.mount(at: URL(fileURLWithPath: elsewhere))
            let resolution = try bookmark.resolve()
            #expect(resolution.path == FilePath(elsewhere + "/doc.txt"))
            #expect(resolution.changes.contains(.volumeMountPoint))
            try volume.unmount(keepDevice: true)
            try volume.mount(at: point)
        }
    }

    @Test("a cancelled resolution is cancelled, memo or not")
    func cancelled() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (path, bookmark) = try newDocument(on: volume)
            _ = try bookmark.resolve()
            try #require(try bookmark.keptMemo() != nil)
            let flag = CancellationFlag()
            flag.cancel()
            let outcome = Result { () throws(BookmarkError) in try bookmark.resolve(ResolutionOptions(cancellation: flag)) }
            guard case .failure(let error) = outcome else {
                Issue.record("a cancelled resolution succeeded")
                return
            }
            #expect(error.code == .cancelled)
        }
    }

    @Test("useMemo: false takes every step and keeps no memo; the answer is the same")
    func withoutMemo() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (path, bookmark) = try newDocument(on: volume)
            let table = try MountedVolumes()
            let every = try bookmark.resolve(ResolutionOptions(useMemo: false), volumes: table)
            #expect(try bookmark.keptMemo() == nil)
            let remembered = try bookmark.resolve(volumes: table)
            let kept = try #require(try bookmark.keptMemo())
            let again = try bookmark.resolve(ResolutionOptions(useMemo: false), volumes: table)
            #expect(try bookmark.keptMemo() === kept)
            for resolution in [remembered, again] {
                #expect(resolution.path == every.path)
                #expect(resolution.matchedBy == every.matchedBy)
                #expect(resolution.changes == every.changes)
                #expect(resolution.fileID.inode == every.fileID.inode)
                #expect(resolution.volume == every.volume)
            }
        }
    }

    @Test("editing the record drops the memo; copies made before the edit keep theirs")
    func editDropsIt() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let path = volume.path("doc.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            try Data("y".utf8).write(to: URL(fileURLWithPath: volume.path("other.txt")))
            var bookmark = try Bookmark.create(for: FilePath(path))
            _ = try bookmark.resolve()
            let copy = bookmark
            try #require(try bookmark.keptMemo() != nil)
            // Point the record at the other file: a resolution must look there, not where the memo says.
            let other = try Bookmark.create(for: FilePath(volume.path("other.txt")))
            bookmark.record = other.record
            #expect(try bookmark.keptMemo() == nil)
            #expect(try bookmark.resolve().path == FilePath(volume.path("other.txt")))
            #expect(try copy.resolve().path == FilePath(path))
        }
    }
}

/// A file `doc.txt` on `volume`, and a new bookmark of it.
private func newDocument(on volume: LoopVolume) throws -> (path: String, bookmark: Bookmark) {
    let path = volume.path("doc.txt")
    try Data("x".utf8).write(to: URL(fileURLWithPath: path))
    return (path, try Bookmark.create(for: FilePath(path)))
}

extension Bookmark {
    /// The memo its last unmoved resolution kept, if any.
    fileprivate func keptMemo() throws -> UnmovedMemo? {
        try recordedCache.recordedAndMemo(for: record).unmoved
    }
}

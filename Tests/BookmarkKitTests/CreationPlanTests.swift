// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import FileIdentity
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

/// A new bookmark's `data()` writes a plain creation's bytes straight
/// from the file's facts through its template's `CreationPlan`. Those bytes must be the ones the
/// record's way gives (the record filled, then encoded), byte for byte, whatever the object, its
/// names, the options and the state of the ancestor cache: same item order, same shared items,
/// same table.
@Suite("Creation plans write the record's bytes", .serialized, .requiresRealVolumes)
struct CreationPlanTests {
    /// Names chosen to make items equal across the record: a component equal to the volume's
    /// name ("fixture", the label), one equal to a string key's name (its name item is shared,
    /// which puts that key's word out of order in the table), a hidden file, repeated components.
    static let objects = [
        "dir/sub/file.txt", "dir/sub", "dir/empty", "dir/.hidden", "fixture/inner", "fixture",
        "dir/NSURLFileSizeKey", "NSURLContentModificationDateKey/dir/dir/dir", "org.swift-bookmarks.linux",
    ]

    static let optionSets: [BookmarkCreationOptions] = [
        [], .minimalBookmark, .suitableForBookmarkFile, [.withSecurityScope, .securityScopeAllowOnlyReadAccess],
    ]

    func makeTree(_ fixture: LoopVolume) throws {
        let manager = FileManager.default
        for directory in ["dir/sub", "fixture", "NSURLContentModificationDateKey/dir/dir/dir"] {
            try manager.createDirectory(atPath: fixture.path(directory), withIntermediateDirectories: true)
        }
        try Data("content".utf8).write(to: URL(fileURLWithPath: fixture.path("dir/sub/file.txt")))
        for empty in ["dir/empty", "dir/.hidden", "fixture/inner", "dir/NSURLFileSizeKey", "org.swift-bookmarks.linux"] {
            #expect(manager.createFile(atPath: fixture.path(empty), contents: Data()))
        }
    }

    /// Both ways, for one object and option set; `true` when the plan wrote it.
    func compare(_ path: String, options: BookmarkCreationOptions, volumes: MountedVolumes, cache: Bool) throws -> Bool {
        let bytes = Array(path.utf8)
        let created = try Bookmark.create(pathBytes: bytes, options: options, volumes: volumes, useAncestorCache: cache)
        let direct = try created.data()
        // The record's way: the record filled (a new bookmark fills it when asked), then encoded.
        let recorded = try Bookmark(record: created.record).data()
        let common = min(direct.count, recorded.count)
        let difference = (0..<common).first { direct[$0] != recorded[$0] } ?? (direct.count == recorded.count ? nil : common)
        #expect(
            difference == nil,
            "\(path) with options \(options.rawValue), cache \(cache): \(direct.count) against \(recorded.count) bytes, first difference at \(difference ?? -1)")
        // And they decode: an equal record, the object's name.
        let decoded = try Bookmark(data: direct)
        // A new bookmark answers its path without filling its record: the same path.
        #expect(created.path == decoded.record.pathBytes?.bytes)
        #expect(decoded.record.fileName?.bytes == Array((path.split(separator: "/").last.map(String.init) ?? "").utf8))
        return try Bookmark.writesDirectly(pathBytes: bytes, options: options, volumes: volumes)
    }

    @Test("every object and option set, cold, warming and warm ancestor cache, and without it",
          arguments: [FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs, .exfat])
    func sameBytes(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            try makeTree(fixture)
            let volumes = try MountedVolumes()
            var planned = 0
            var total = 0
            for options in Self.optionSets {
                Bookmark.clearAncestorCache()
                // Three rounds: the cache meets each directory, then watches it, then answers.
                for round in 0..<3 {
                    for object in Self.objects {
                        total += 1
                        if try compare(fixture.path(object), options: options, volumes: volumes, cache: true) { planned += 1 }
                    }
                    _ = round
                }
                for object in Self.objects {
                    _ = try compare(fixture.path(object), options: options, volumes: volumes, cache: false)
                }
            }
            // The plan must be the way taken: otherwise both sides are the record's and the
            // comparison above cannot fail.
            #expect(planned == total, "\(planned) of \(total) creations on \(kind) were planned")
        }
    }

    @Test("the mount point itself, and a file on the root volume")
    func mountPointAndRoot() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            let volumes = try MountedVolumes()
            let point = try #require(fixture.mountPoint).path
            #expect(try compare(point, options: [], volumes: volumes, cache: true))
            #expect(try compare(point, options: .minimalBookmark, volumes: volumes, cache: false))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("root-volume.txt")
        try Data("x".utf8).write(to: file)
        let volumes = try MountedVolumes()
        #expect(try compare(file.path, options: [], volumes: volumes, cache: true))
    }

    @Test("resource keys and a base directory go the record's way; a symlink's object is written by the plan")
    func recordWay() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            try makeTree(fixture)
            try FileManager.default.createSymbolicLink(atPath: fixture.path("link"), withDestinationPath: "dir/sub/file.txt")
            let volumes = try MountedVolumes()
            let file = Array(fixture.path("dir/sub/file.txt").utf8)
            let keyed = try Bookmark.create(pathBytes: file, resourceKeys: [.name, .isHidden], volumes: volumes).data()
            let keyedRecord = try Bookmark.create(for: FilePath(fixture.path("dir/sub/file.txt")), resourceKeys: [.name, .isHidden], volumes: volumes)
            #expect(keyed == (try Bookmark(record: keyedRecord.record).data()))
            #expect(try Bookmark(data: keyed).record[.string(ByteString("NSURLNameKey"))] != nil)
            let base = FilePath(fixture.path("dir"))
            let relative = try Bookmark.create(pathBytes: file, relativeTo: base, volumes: volumes).data()
            #expect(try Bookmark(data: relative).record.createdWithRelativeURL == true)
            // Through a symlink: the object is found by opening it, and its real path recorded.
            let linked = try Bookmark.create(pathBytes: Array(fixture.path("link").utf8), volumes: volumes).data()
            #expect(try Bookmark(data: linked).path == file)
            let linkedRecord = try Bookmark.create(for: FilePath(fixture.path("link")), volumes: volumes).record
            #expect(linked == (try Bookmark(record: linkedRecord).data()))
        }
    }

    @Test("createData (bytes without a bookmark) gives create's bytes: plain, through a symlink, with keys or a base, and create's errors")
    func createDataIsCreate() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            try makeTree(fixture)
            try FileManager.default.createSymbolicLink(atPath: fixture.path("link"), withDestinationPath: "dir/sub/file.txt")
            let volumes = try MountedVolumes()
            let base = FilePath(fixture.path("dir"))
            let cases: [(String, BookmarkCreationOptions, [ResourceKey], FilePath?)] = [
                ("dir/sub/file.txt", [], [], nil), ("dir/sub", .minimalBookmark, [], nil), ("dir/.hidden", [], [], nil),
                ("link", [], [], nil), ("dir/sub/file.txt", [], [.name, .isHidden], nil), ("dir/sub/file.txt", [], [], base),
                ("fixture", .suitableForBookmarkFile, [], nil),
            ]
            for (object, options, keys, relative) in cases {
                let path = Array(fixture.path(object).utf8)
                // Twice: the second is the written memo's answer when the plan wrote the first.
                for _ in 0..<2 {
                    let direct = try Bookmark.createData(
                        pathBytes: path, options: options, resourceKeys: keys, relativeTo: relative, volumes: volumes) { Array($0) }
                    let created = try Bookmark.create(
                        pathBytes: path, options: options, resourceKeys: keys, relativeTo: relative, volumes: volumes)
                    let same = direct == (try Bookmark(record: created.record).data())
                    #expect(same, "\(object), options \(options.rawValue), keys \(keys.count), base \(relative != nil)")
                }
            }
            let missing = Array(fixture.path("dir/none").utf8)
            let error = #expect(throws: BookmarkError.self) {
                _ = try Bookmark.createData(pathBytes: missing, volumes: volumes) { $0.count }
            }
            #expect(error?.code == .notFound)
            #expect(error?.lastKnownPath == missing)
        }
    }

    @Test("a path that is not there is the record way's error")
    func missing() throws {
        let path = Array("/nonexistent-\(getpid())/file".utf8)
        let error = #expect(throws: BookmarkError.self) {
            _ = try Bookmark.create(pathBytes: path)
        }
        #expect(error?.code == .notFound)
    }
    @Test("a new bookmark's record, filled when asked, is the record the bytes decode to; edits and copies behave as for any record")
    func pendingRecord() throws {
        try LoopVolume.withVolume(.ext4) { fixture in
            try makeTree(fixture)
            let volumes = try MountedVolumes()
            let path = FilePath(fixture.path("dir/sub/file.txt"))
            #expect(try Bookmark.writesDirectly(pathBytes: Array(fixture.path("dir/sub/file.txt").utf8), volumes: volumes))
            let created = try Bookmark.create(for: path, volumes: volumes)
            let bytes = try created.data()
            // Asked after the bytes were written: the same record as they decode to.
            #expect(created.record == (try Bookmark(data: bytes).record))
            #expect(created == (try Bookmark(data: bytes)))
            #expect(created.hashValue == (try Bookmark(data: bytes)).hashValue)
            #expect(created.path == Array(fixture.path("dir/sub/file.txt").utf8))
            #expect(created.creationOptions == [])
            // Edited before anything read its record: filled for the edit, the edit kept.
            var fresh = try Bookmark.create(for: path, volumes: volumes)
            fresh.record.fileName = ByteString("fresh.txt")
            #expect(fresh.record.fileName == ByteString("fresh.txt"))
            #expect(try Bookmark(data: try fresh.data()).record.fileName == ByteString("fresh.txt"))
            #expect(fresh.record.pathComponents == created.record.pathComponents)
            // An edit in place changes that bookmark only, and its bytes follow the record.
            var edited = created
            edited.record.fileName = ByteString("renamed.txt")
            #expect(try Bookmark(data: try edited.data()).record.fileName == ByteString("renamed.txt"))
            #expect(created.record.fileName == ByteString("file.txt"))
            #expect(try created.data() == bytes)
            // Replaced whole, too.
            var replaced = created
            replaced.record = BookmarkRecord()
            #expect(replaced.record.pathComponents == nil)
            #expect(try created.data() == bytes)
            // Resolution of a new bookmark: the record is filled for it.
            let resolution = try created.resolve(volumes: volumes)
            #expect(resolution.path == path)
            #expect(!resolution.isStale)
        }
    }
}

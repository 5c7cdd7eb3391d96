// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import FileIdentity
import Foundation
import GRDB
import SystemPackage
import Testing
import VolumeFixtures

/// The file systems catalog scans run on.
let catalogFileSystems: [FixtureFileSystem] = [.ext4, .xfs, .btrfs]

/// Scanning real volumes, re-scanning after moves, renames, edits and deletions, and what the
/// catalog then says changed.
@Suite("Catalog scans on real volumes", .serialized, .requiresRealVolumes)
struct CatalogScanTests {
    @Test("a first scan records every entry with its identity and volume", arguments: catalogFileSystems)
    func firstScan(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind, label: "Archive") { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            try fixture.file("notes/a.txt", "alpha")
            try fixture.file("notes/b.txt", "beta!")
            try fixture.directory("empty")
            try FileManager.default.createSymbolicLink(atPath: fixture.path("link"), withDestinationPath: "../outside")
            let catalog = try Catalog(path: volume.path("catalog.sqlite"))
            let summary = try catalog.scan(root: fixture.root)
            #expect(summary.entries == 6, "data, notes, a.txt, b.txt, empty, link")
            #expect(!summary.isRescan && !summary.resumed && summary.errors == 0)

            let snapshot = try #require(try catalog.snapshots().first)
            #expect(snapshot.volume.label == "Archive")
            #expect(snapshot.volume.fsType == kind.rawValue)
            #expect(snapshot.volume.uuid != nil && snapshot.volume.isPersistent)
            let byPath = Dictionary(uniqueKeysWithValues: snapshot.entries.map { (String(decoding: $0.path, as: UTF8.self), $0) })
            let a = try #require(byPath[fixture.path("notes/a.txt")])
            var status = stat()
            #expect(lstat(fixture.path("notes/a.txt"), &status) == 0)
            #expect(a.inode == UInt64(status.st_ino) && a.size == 5 && a.kind == .file)
            #expect(a.bornNanoseconds != nil, "\(kind) records birth times")
            // The generation from the file handle, as FileIdentity reads it for the same file.
            let identified = try FileID.identify(FilePath(fixture.path("notes/a.txt")))
            #expect(a.generation != nil && a.generation == identified.generation, "\(String(describing: a.generation)) vs \(String(describing: identified.generation))")
            #expect(byPath[fixture.path("link")]?.linkTarget == Array("../outside".utf8))
            #expect(byPath[fixture.path("link")]?.kind == .symlink)
            #expect(byPath[fixture.path("empty")]?.kind == .directory)
            #expect(snapshot.entries.first?.path == Array(fixture.root.utf8), "the root first")
        }
    }

    @Test(
        "re-scan after moves and renames: exactly those moves, a renamed folder of 1,000 files is one move, edits and deletions reported",
        arguments: catalogFileSystems)
    func rescanReportsMoves(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            for index in 0..<1_000 { try fixture.file("Photos/2024/img-\(index).jpg", "\(index)") }
            try fixture.file("docs/report.txt", "v1")
            try fixture.file("docs/old.txt", "old")
            try fixture.file("docs/keep.txt", "keep")
            try fixture.file("gone/x.txt", "x")
            try fixture.file("gone/y.txt", "y")
            let catalog = try Catalog(path: volume.path("catalog.sqlite"))
            try catalog.scan(root: fixture.root)

            try fixture.move("Photos/2024", "Photos/Holidays 2024")  // a folder renamed
            try fixture.move("docs/old.txt", "archive-old.txt")  // a file moved up and renamed
            try fixture.file("docs/report.txt", "version 2")  // edited in place
            try FileManager.default.removeItem(atPath: fixture.path("gone"))  // a folder deleted
            try fixture.file("docs/new.txt", "new")  // added

            let summary = try catalog.scan(root: fixture.root)
            #expect(summary.isRescan)
            let changes = try catalog.changes(inScan: summary.scanID)
            let text = Set(changes.map(\.description))
            #expect(
                text == [
                    "moved \(fixture.path("Photos/2024")) -> \(fixture.path("Photos/Holidays 2024"))",
                    "moved \(fixture.path("docs/old.txt")) -> \(fixture.path("archive-old.txt"))",
                    "modified \(fixture.path("docs/report.txt"))",
                    "deleted \(fixture.path("gone")) (and 2 inside)",
                    "added \(fixture.path("docs/new.txt"))",
                ], "\(changes.map(\.description))")
            #expect(summary.moved == 2 && summary.modified == 1 && summary.added == 1 && summary.deleted == 3)

            // The moved folder's files kept their rows and now have the new path.
            let snapshot = try #require(try catalog.snapshots().first)
            let paths = Set(snapshot.entries.map { String(decoding: $0.path, as: UTF8.self) })
            #expect(paths.contains(fixture.path("Photos/Holidays 2024/img-999.jpg")))
            #expect(!paths.contains(fixture.path("Photos/2024/img-999.jpg")))
            #expect(!paths.contains(fixture.path("gone/x.txt")))

            // A third scan with nothing changed reports nothing.
            let quiet = try catalog.scan(root: fixture.root)
            #expect(try catalog.changes(inScan: quiet.scanID).isEmpty)
        }
    }

    @Test("a deleted file whose inode number is reused by a new file is a deletion and an addition, not a move", arguments: catalogFileSystems)
    func reusedInode(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            try fixture.file("a/first.txt", "1")
            let catalog = try Catalog(path: volume.path("catalog.sqlite"))
            try catalog.scan(root: fixture.root)
            var before = stat()
            _ = lstat(fixture.path("a/first.txt"), &before)
            try FileManager.default.removeItem(atPath: fixture.path("a/first.txt"))
            // Create files until one gets the freed inode number (ext4 and XFS reuse it at once).
            var reused: String?
            for index in 0..<200 {
                let name = "b/new-\(index).txt"
                try fixture.file(name, "n")
                var status = stat()
                _ = lstat(fixture.path(name), &status)
                if status.st_ino == before.st_ino {
                    reused = name
                    break
                }
            }
            let summary = try catalog.scan(root: fixture.root)
            let changes = try catalog.changes(inScan: summary.scanID)
            #expect(!changes.contains { $0.kind == .moved }, "\(changes.map(\.description))")
            #expect(changes.contains { $0.kind == .deleted && $0.path == Array(fixture.path("a/first.txt").utf8) })
            if let reused {
                #expect(changes.contains { $0.kind == .added && $0.path == Array(fixture.path(reused).utf8) })
            } else {
                print("\(kind): the inode number was not reused by 200 new files; the deletion alone was checked")
            }
        }
    }

    @Test("a catalog kept inside the tree it scans leaves its own files out: re-scans report nothing", arguments: [FixtureFileSystem.ext4])
    func catalogInsideRoot(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("home"))
            try fixture.file("notes.txt", "n")
            let catalog = try Catalog(path: fixture.path("home.catalog"))
            try catalog.scan(root: fixture.root)
            for _ in 0..<3 {
                let summary = try catalog.scan(root: fixture.root)
                #expect(try catalog.changes(inScan: summary.scanID).isEmpty)
                #expect(summary.entries == 2, "home and notes.txt; no home.catalog, -wal or -shm")
            }
            #expect(FileManager.default.fileExists(atPath: fixture.path("home.catalog-wal")), "the WAL was there to be left out")
        }
    }

    @Test("hard links are two entries that stay put across scans", arguments: catalogFileSystems)
    func hardLinks(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            try fixture.file("one/file.txt", "shared")
            try fixture.directory("two")
            #expect(link(fixture.path("one/file.txt"), fixture.path("two/same.txt")) == 0)
            let catalog = try Catalog(path: volume.path("catalog.sqlite"))
            try catalog.scan(root: fixture.root)
            for _ in 0..<2 {
                let summary = try catalog.scan(root: fixture.root)
                #expect(try catalog.changes(inScan: summary.scanID).isEmpty)
            }
            let entries = try #require(try catalog.snapshots().first).entries
            #expect(entries.filter { $0.kind == .file }.count == 2)
        }
    }

    @Test("a re-scan that finds an entry unchanged only marks it seen; a change of mode, owner or ctime alone is still recorded", arguments: [FixtureFileSystem.ext4])
    func rescanKeepsUnchangedAndRecordsMetadata(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            try fixture.file("same.txt", "same")
            try fixture.file("chmod.txt", "mode")
            try fixture.file("chown.txt", "owner")
            let catalog = try Catalog(path: volume.path("catalog.sqlite"))
            try catalog.scan(root: fixture.root, options: ScanOptions(hashing: true))
            let before = Dictionary(uniqueKeysWithValues: try #require(try catalog.snapshots().first).entries.map {
                (String(decoding: $0.name, as: UTF8.self), $0)
            })
            #expect(chmod(fixture.path("chmod.txt"), 0o600) == 0)
            let asRoot = geteuid() == 0
            if asRoot { #expect(chown(fixture.path("chown.txt"), 65534, 65534) == 0) }
            let rescan = try catalog.scan(root: fixture.root, options: ScanOptions(hashing: true))
            #expect(try catalog.changes(inScan: rescan.scanID).isEmpty, "neither contents nor places changed")
            let after = Dictionary(uniqueKeysWithValues: try #require(try catalog.snapshots().first).entries.map {
                (String(decoding: $0.name, as: UTF8.self), $0)
            })
            let same = try #require(after["same.txt"])
            let sameBefore = try #require(before["same.txt"])
            #expect(same.id == sameBefore.id && same.sha256 != nil && same.sha256 == sameBefore.sha256, "kept, hash included")
            #expect(same.lastSeen > sameBefore.lastSeen, "seen by the re-scan")
            #expect(same.changedNanoseconds == sameBefore.changedNanoseconds && same.mode == sameBefore.mode)
            let changed = try #require(after["chmod.txt"])
            #expect(changed.mode & 0o777 == 0o600, "the new mode is recorded")
            #expect(changed.changedNanoseconds != before["chmod.txt"]?.changedNanoseconds, "and the new ctime")
            #expect(changed.lastSeen > sameBefore.lastSeen)
            if asRoot {
                #expect(after["chown.txt"]?.uid == 65534 && after["chown.txt"]?.gid == 65534, "the new owner is recorded")
            } else {
                print("rescanKeepsUnchangedAndRecordsMetadata: not root, so the owner change is not tried")
            }
            // A third scan after the file is deleted still finds it gone: being marked seen counts.
            #expect(unlink(fixture.path("same.txt")) == 0)
            let third = try catalog.scan(root: fixture.root)
            #expect(third.deleted == 1)
        }
    }

    @Test("an unreadable directory is an error in the catalog, and what was known under it is kept", arguments: [FixtureFileSystem.ext4])
    func unreadableDirectory(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            try fixture.file("open/a.txt", "a")
            try fixture.file("closed/secret.txt", "s")
            try Shell.check(["chown", "-R", "65534:65534", fixture.root, volume.path("")])
            let catalogPath = volume.path("catalog.sqlite")
            let scan = ["scan", fixture.root, "-o", catalogPath, "--json"]
            let first = try Unprivileged.run([try CatalogCLI.binary()] + ["catalog"] + scan)
            #expect(first.status == 0, "\(first.stderr)")
            try Shell.check(["chmod", "000", fixture.path("closed")])
            let second = try Unprivileged.run([try CatalogCLI.binary()] + ["catalog"] + scan)
            #expect(second.status == 0, "\(second.stderr)")
            let catalog = try Catalog(path: catalogPath, create: false)
            let latest = try #require(try catalog.latestScans().first)
            #expect(try catalog.changes(inScan: latest.scanID).isEmpty, "nothing under the unreadable folder is deleted")
            let errors = try DatabaseQueue(path: catalogPath).read { db in
                try Row.fetchAll(db, sql: "SELECT path, syscall, errno FROM scan_error WHERE scan_id = ?", arguments: [latest.scanID])
            }
            #expect(errors.count == 1)
            #expect(errors.first.map { String(decoding: $0["path"] as Data, as: UTF8.self) } == fixture.path("closed"))
            #expect(errors.first?["errno"] == Int64(EACCES))
        }
    }
}

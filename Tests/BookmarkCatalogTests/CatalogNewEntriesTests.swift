// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Synchronization
import Testing

@testable import BookmarkCatalog

/// A first scan inserts its new entries several rows per statement, with their row ids counted
/// on from the table's largest before the rows exist (`NewEntryInserts`). These check the tree it
/// stores against the one on disk at every boundary (a statement's rows, a transaction's), after
/// other volumes' rows, near the largest id SQLite counts on from, and that a catalog that gives
/// other ids than counted fails the scan without keeping the batch.
@Suite("Catalog first scan: several rows per insert")
struct CatalogNewEntriesTests {
    /// A tree whose directories and files fall on every side of the 16-row statements: nested
    /// folders of 1 to 40 entries, 9 levels at the deepest, 312 entries with the root.
    private func makeTree(_ fixture: CatalogFixture) throws {
        for folder in 0..<12 {
            for file in 0..<(folder * 3 + 1) { try fixture.file("f\(folder)/file-\(file)", "\(folder)-\(file)") }
        }
        var deep = "deep"
        for level in 0..<9 {
            try fixture.file("\(deep)/leaf-\(level)")
            deep += "/d\(level)"
        }
        for file in 0..<80 { try fixture.file("flat/\(file)") }
    }

    /// Every object under the root, by path, with its inode: what the catalog must hold.
    private func onDisk(_ fixture: CatalogFixture) throws -> [String: UInt64] {
        var found: [String: UInt64] = [:]
        var status = stat()
        guard lstat(fixture.root, &status) == 0 else { throw CatalogError(.rootUnavailable, "no root") }
        found[fixture.root] = UInt64(status.st_ino)
        let enumerator = try #require(FileManager.default.enumerator(atPath: fixture.root))
        while let relative = enumerator.nextObject() as? String {
            let path = fixture.path(relative)
            guard lstat(path, &status) == 0 else { continue }
            found[path] = UInt64(status.st_ino)
        }
        return found
    }

    /// The catalog's entries under the fixture's root, by path, with their inodes.
    private func catalogued(_ catalog: Catalog, _ fixture: CatalogFixture) throws -> [String: UInt64] {
        let snapshot = try #require(try catalog.snapshots().first { $0.rootPath == Array(fixture.root.utf8) })
        var found: [String: UInt64] = [:]
        for entry in snapshot.entries {
            let path = String(decoding: entry.path, as: UTF8.self)
            #expect(found[path] == nil, "\(path) catalogued twice")
            found[path] = entry.inode
        }
        return found
    }

    /// Rows of another volume, so that the table's ids start at `firstID`.
    private func addForeignRows(_ catalog: Catalog, firstID: Int64) throws {
        try catalog.database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO volume (id, key, uuid_source, fs_type, source, mount_point, persistent)
                        VALUES (900, 'other-volume', 'none', 'ext4', '/dev/other', X'2F6F74686572', 1);
                    INSERT INTO root (id, volume_id, path_in_volume, path) VALUES (900, 900, X'2F', X'2F6F74686572');
                    INSERT INTO scan (id, root_id, started, finished, mount_point, hashed, cross_mounts)
                        VALUES (900, 900, 0, 1, X'2F6F74686572', 0, 0);
                    """)
            for id in [firstID - 2, firstID - 1] {
                try db.execute(
                    sql: """
                        INSERT INTO entry (id, volume_id, root_id, name, kind, size, mode, uid, gid, mtime, ctime, inode, first_seen, last_seen)
                            VALUES (?, 900, 900, X'78', 0, 0, 33188, 0, 0, 0, 0, ?, 900, 900)
                        """, arguments: [id, id])
            }
        }
    }

    @Test(
        "the stored tree is the tree on disk, with transactions of 1, 7, 16, 17 and 5,000 entries",
        arguments: [1, 7, 16, 17, 5_000])
    func treeAtEveryBoundary(batchSize: Int) throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-rows")
        defer { cleanUp() }
        try makeTree(fixture)
        let catalog = try Catalog(path: folder + "/scan.catalog")
        let summary = try catalog.scan(root: fixture.root, options: ScanOptions(batchSize: batchSize))
        let expected = try onDisk(fixture)
        #expect(summary.entries == expected.count && summary.errors == 0)
        #expect(try catalogued(catalog, fixture) == expected)
        let (problems, largest) = try catalog.database.read { db in
            (try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count, try Int64.fetchOne(db, sql: "SELECT max(id) FROM entry"))
        }
        #expect(problems == 0)
        // Ids run on from 1 without a gap: what was counted is what SQLite gave.
        #expect(largest == Int64(expected.count))
        // A re-scan of the unchanged tree matches every entry (its look-ups see the stored rows).
        let again = try catalog.scan(root: fixture.root, options: ScanOptions(batchSize: batchSize))
        #expect(again.isRescan && again.added == 0 && again.deleted == 0 && again.moved == 0 && again.modified == 0)
    }

    @Test("two first scans into one catalog at once, from two connections: their transactions take turns, and each stores its tree exactly")
    func twoScansAtOnce() throws {
        let (first, folder, cleanUp) = CatalogFixture.temporary("catalog-rows")
        defer { cleanUp() }
        let second = CatalogFixture(root: folder + "/second")
        try makeTree(first)
        try makeTree(second)
        let path = folder + "/shared.catalog"
        _ = try Catalog(path: path)
        let failures = Mutex<[String]>([])
        let started = DispatchGroup()
        for fixture in [first, second] {
            started.enter()
            Thread.detachNewThread {
                defer { started.leave() }
                do {
                    // Small transactions, so that the two scans' transactions interleave.
                    _ = try Catalog(path: path).scan(root: fixture.root, options: ScanOptions(batchSize: 20))
                } catch {
                    failures.withLock { $0.append("\(fixture.root): \(error)") }
                }
            }
        }
        started.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let catalog = try Catalog(path: path)
        #expect(try catalogued(catalog, first) == (try onDisk(first)))
        #expect(try catalogued(catalog, second) == (try onDisk(second)))
        let problems = try catalog.database.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count }
        #expect(problems == 0)
    }

    @Test("after another volume's rows, ids go on from the largest; near Int64.max the scan writes a row at a time, and is as right")
    func idsAfterOtherRows() throws {
        for firstID: Int64 in [1_000, Int64.max - 1] {
            let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-rows")
            defer { cleanUp() }
            try makeTree(fixture)
            let catalog = try Catalog(path: folder + "/scan.catalog")
            try addForeignRows(catalog, firstID: firstID)
            let summary = try catalog.scan(root: fixture.root, options: ScanOptions(batchSize: 50))
            let expected = try onDisk(fixture)
            #expect(summary.entries == expected.count && summary.errors == 0, "first id \(firstID)")
            #expect(try catalogued(catalog, fixture) == expected, "first id \(firstID)")
            let (problems, ours) = try catalog.database.read { db in
                (
                    try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
                    try Int64.fetchAll(db, sql: "SELECT id FROM entry WHERE volume_id <> 900 ORDER BY id")
                )
            }
            #expect(problems == 0)
            if firstID == 1_000 {
                #expect(ours == Array(1_000..<(1_000 + Int64(expected.count))), "counted on from the largest id")
            } else {
                // Past Int64.max SQLite picks free ids at random: each row its own, all distinct.
                #expect(ours.count == expected.count && Set(ours).count == ours.count)
            }
        }
    }

    @Test("a catalog that gives other row ids than counted (a trigger adds rows) fails the scan, and keeps nothing of the batch")
    func unexpectedIDsFailTheScan() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-rows")
        defer { cleanUp() }
        try makeTree(fixture)
        let catalog = try Catalog(path: folder + "/scan.catalog")
        try addForeignRows(catalog, firstID: 10)
        // Each file named "file-3" brings a second row with it, as no catalog of ours does.
        try catalog.database.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER extra AFTER INSERT ON entry WHEN NEW.name = X'66696C652D33' BEGIN
                        INSERT INTO entry (volume_id, root_id, name, kind, size, mode, uid, gid, mtime, ctime, inode, first_seen, last_seen)
                            VALUES (900, 900, X'79', 0, 0, 33188, 0, 0, 0, 0, 1, 900, 900);
                    END
                    """)
        }
        var thrown: CatalogError?
        do {
            _ = try catalog.scan(root: fixture.root, options: ScanOptions(batchSize: 100_000))
        } catch {
            thrown = error
        }
        let error = try #require(thrown, "the scan must fail")
        #expect(error.code == .database)
        #expect(error.description.contains("other row ids than expected"), "\(error)")
        let (tree, all) = try catalog.database.read { db in
            (
                try Int64.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE volume_id <> 900"),
                try Int64.fetchOne(db, sql: "SELECT count(*) FROM entry")
            )
        }
        // One transaction of 100,000 entries: none of the tree's rows, and no trigger row, stayed.
        #expect(tree == 0 && all == 2)
    }
}

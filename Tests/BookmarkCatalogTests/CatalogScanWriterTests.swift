// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing

@testable import BookmarkCatalog

/// The scan's writer: what it keeps per scan (its statements, its page cache, the directories'
/// row ids) and that it gives the connection back as it found it.
@Suite("Catalog scan writer")
struct CatalogScanWriterTests {
    @Test("row ids by walk key: unset, negative and cleared keys have none; keys may come in any order")
    func directoryRowIDs() {
        var ids = DirectoryRowIDs()
        #expect(ids[0] == nil && ids[5] == nil && ids[-1] == nil)
        ids[7] = 70
        ids[2] = 20
        ids[-3] = 99  // ignored: the walker's keys are never negative
        #expect(ids[7] == 70 && ids[2] == 20)
        #expect(ids[3] == nil && ids[8] == nil && ids[-3] == nil)
        ids[7] = nil
        #expect(ids[7] == nil && ids[2] == 20)
        ids[1_000] = nil  // clearing beyond the end neither grows nor traps
        #expect(ids[1_000] == nil)
    }

    @Test("a scan runs with its own page cache, and the connection has its own size again afterwards, as a re-scan")
    func pageCacheRestored() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-writer")
        defer { cleanUp() }
        for index in 0..<50 { try fixture.file("dir-\(index % 5)/file-\(index).txt", "\(index)") }
        let catalog = try Catalog(path: folder + "/scan.catalog")
        let cacheSize = { try catalog.database.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } }
        let before = try cacheSize()
        #expect(before != CatalogScanner.scanCacheSize, "the test needs a connection whose size differs from the scan's")
        let first = try catalog.scan(root: fixture.root)
        #expect(first.entries == 56, "data, 5 folders, 50 files")
        #expect(try cacheSize() == before)
        try fixture.move("dir-0/file-0.txt", "dir-1/moved.txt")
        let again = try catalog.scan(root: fixture.root)
        #expect(again.isRescan && again.moved == 1 && again.added == 0 && again.deleted == 0)
        #expect(try cacheSize() == before)
    }
}

/// The times the `bookmark` command prints (`catalog find`, `resolve`'s sightings, `package`):
/// written without a formatter per call, as `ISO8601DateFormatter()` writes them.
@Suite("ISO 8601 to the second")
struct ISO8601SecondsTests {
    @Test("the same text as ISO8601DateFormatter: fractions, times before 1970, leap days, the Julian years before 1583, years past 9999")
    func sameAsFormatter() {
        let formatter = ISO8601DateFormatter()
        var dates: [Double] = [
            0, 0.5, 0.999_999, -0.5, -1, -1.5, 1_000_000_000.999, 1_764_222_036.123, 951_782_400 /* 2000-02-29 */,
            -62_135_596_800 /* 0001-01-01 */, -12_219_292_800 /* 1582-10-15 */, -12_212_553_600 /* 1583-01-01 */,
            253_402_300_798.9996, 253_402_300_799.5 /* 9999-12-31T23:59:59.5 */, 4_102_444_800 /* 2100-01-01 */, 1_000.0005,
            -1_000.0005, 86_399.9995,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { dates.append(Double.random(in: -62_135_596_800..<253_402_300_800, using: &generator)) }
        for _ in 0..<2_000 { dates.append(Double.random(in: 0..<4_102_444_800, using: &generator)) }
        for seconds in dates {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ExportText.iso8601Seconds(date) == formatter.string(from: date), "\(seconds)")
        }
        // Outside years 1 to 9999, and not finite: whatever the formatter says, never a trap.
        for seconds in [-62_135_596_801.0, 253_402_300_800, 1e300, -.infinity, .nan] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ExportText.iso8601Seconds(date) == formatter.string(from: date), "\(seconds)")
        }
    }
}

/// Building hits' paths for a search: only directories are remembered, an entry's own row is
/// not looked up again, and paths sort by their bytes.
@Suite("Catalog search paths")
struct CatalogSearchPathTests {
    @Test("paths from the caller's row; only the root and directories remembered, however many files are asked for")
    func onlyDirectoriesRemembered() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-paths")
        defer { cleanUp() }
        for index in 0..<30 { try fixture.file("d\(index % 3)/sub/f\(index).txt", "") }
        let catalog = try Catalog(path: folder + "/paths.catalog")
        try catalog.scan(root: fixture.root)
        try catalog.database.read { db in
            var resolver = try PathResolver(db)
            let files = try Row.fetchAll(db, sql: "SELECT id, parent_id, name FROM entry WHERE kind = 0")
            #expect(files.count == 30)
            for row in files {
                let name = row.bytes("name")
                let path = try #require(try resolver.path(of: row["id"], parent: row["parent_id"], name: name, db))
                let text = String(decoding: path, as: UTF8.self)
                #expect(text.hasPrefix(fixture.root + "/d") && text.hasSuffix("/sub/" + String(decoding: name, as: UTF8.self)), "\(text)")
            }
            #expect(resolver.rememberedPaths == 7, "the root, d0…d2 and their sub folders; no file")
            // The entry itself is never read: a row id the table does not have still gets its path.
            let parent: Int64 = try #require(try Int64.fetchOne(db, sql: "SELECT parent_id FROM entry WHERE kind = 0 LIMIT 1"))
            let made = try resolver.path(of: 999_999, parent: parent, name: Array("made-up".utf8), db)
            #expect(made.map { String(decoding: $0, as: UTF8.self).hasSuffix("/sub/made-up") } == true)
            #expect(try resolver.path(of: 999_998, parent: nil, name: Array("orphan".utf8), db) == nil, "no parent, not a root")
        }
    }

    @Test("byte order of paths is lexicographic order, bytes over 0x7F and prefixes included")
    func pathOrder() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x2F, 0x41, 0x61, 0x7F, 0x80, 0xC3, 0xFF, 0x00]
        func random() -> [UInt8] { (0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 } }
        for _ in 0..<5_000 {
            let a = random()
            let b = Bool.random(using: &generator) ? a + random() : random()
            #expect(PathOrder.precedes(a, b) == a.lexicographicallyPrecedes(b), "\(a) \(b)")
            #expect(PathOrder.precedes(b, a) == b.lexicographicallyPrecedes(a), "\(b) \(a)")
        }
    }
}

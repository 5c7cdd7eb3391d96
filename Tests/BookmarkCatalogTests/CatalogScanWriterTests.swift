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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-writer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = CatalogFixture(root: folder + "/data")
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

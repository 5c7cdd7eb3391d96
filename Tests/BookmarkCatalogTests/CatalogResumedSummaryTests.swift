// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import GRDB
import Testing

/// A resumed scan's summary counts what the killed part of it found, as `diff` shows it.
@Suite("Catalog resumed scan summaries")
struct CatalogResumedSummaryTests {
    @Test("a re-scan killed after it recorded a move and an addition: the scan that finishes it counts them")
    func resumedCounts() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-resumed")
        defer { cleanUp() }
        for index in 0..<20 { try fixture.file("album/t\(index)") }
        try fixture.file("notes.txt", "n")
        let path = folder + "/c.catalog"
        let catalog = try Catalog(path: path)
        try catalog.scan(root: fixture.root)
        try fixture.move("album", "album (live)")
        try fixture.file("new.txt")
        let rescan = try catalog.scan(root: fixture.root)
        #expect(rescan.moved == 1 && rescan.added == 1)
        // As if it had been killed after its last batch was committed, before it was marked
        // finished: its changes are recorded under its id.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE scan SET finished = NULL WHERE id = ?", arguments: [rescan.scanID])
        }
        let resumed = try catalog.scan(root: fixture.root)
        #expect(resumed.resumed && resumed.scanID == rescan.scanID)
        #expect(resumed.moved == 1, "the move that diff shows")
        #expect(resumed.added == 1)
        #expect(resumed.deleted == 0 && resumed.modified == 0)
        #expect(try catalog.changes(inScan: resumed.scanID).count == 2)
    }
}

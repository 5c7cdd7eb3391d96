// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// A deleted entry's path and a moved entry's old path are where it was before the scan, with
/// every ancestor at its place then: before, an ancestor that did not move itself in the scan
/// (or moved later) contributed its current path, printing paths that never existed.
@Suite("Catalog paths before a scan")
struct CatalogEarlierPathsTests {
    @Test("diff, find --deleted and export --deleted: old paths under an ancestor that moved (in that scan, and later)")
    func ancestorMoved() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-earlier")
        defer { cleanUp() }
        try fixture.file("music/album/t1", "1")
        try fixture.file("music/album/t2", "22")
        let path = folder + "/T.catalog"
        let catalog = try Catalog(path: path)
        try catalog.scan(root: fixture.root)
        try fixture.directory("archive")
        try fixture.move("music", "archive/music")
        try fixture.move("archive/music/album/t1", "archive/music/album/t1-renamed")
        try FileManager.default.removeItem(atPath: fixture.path("archive/music/album/t2"))
        let second = try catalog.scan(root: fixture.root)
        let root = fixture.root

        func described(_ scan: Int64) throws -> Set<String> { Set(try catalog.changes(inScan: scan).map(\.description)) }
        let expected: Set<String> = [
            "added \(root)/archive",
            "moved \(root)/music -> \(root)/archive/music",
            "moved \(root)/music/album/t1 -> \(root)/archive/music/album/t1-renamed",
            "deleted \(root)/music/album/t2",
        ]
        #expect(try described(second.scanID) == expected)
        let cli = try CatalogCLI.run(["diff", path])
        #expect(Set(cli.stdout.split(separator: "\n").map(String.init)) == expected, "\(cli.stdout)")

        func deletedPaths() throws -> (found: [String], exported: [String]) {
            let found = try catalog.find(CatalogQuery(pattern: .glob("t2"), includingDeleted: true)).map {
                String(decoding: $0.entry.path, as: UTF8.self)
            }
            let exported = try catalog.snapshots(includingDeleted: true).flatMap(\.entries).filter { $0.deleted != nil }.map {
                String(decoding: $0.path, as: UTF8.self)
            }
            return (found, exported)
        }
        var deleted = try deletedPaths()
        #expect(deleted.found == ["\(root)/music/album/t2"])
        #expect(deleted.exported == ["\(root)/music/album/t2"])
        let export = try CatalogCLI.run(["export", path, "--tsv", "--deleted", "--include", "t2"])
        #expect(export.stdout.contains("\(root)/music/album/t2\t"), "\(export.stdout)")
        #expect(!export.stdout.contains("archive/music/album/t2"), "\(export.stdout)")

        // An ancestor that moves in a later scan does not move what an earlier scan found gone,
        // nor the earlier scan's paths.
        try fixture.move("archive", "attic")
        let third = try catalog.scan(root: fixture.root)
        #expect(try described(third.scanID) == ["moved \(root)/archive -> \(root)/attic"])
        #expect(try described(second.scanID) == expected)
        deleted = try deletedPaths()
        #expect(deleted.found == ["\(root)/music/album/t2"])
        #expect(deleted.exported == ["\(root)/music/album/t2"])
    }
}

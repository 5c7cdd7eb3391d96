// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// `export --deleted` says which row is the deleted one (the `deleted` column), and lists what any
/// scan found gone, as `find --deleted` does.
@Suite("Catalog exports of deleted entries")
struct CatalogDeletedExportTests {
    @Test("an atomic replace's old object has a deleted date, its replacement none; an earlier scan's deletion stays listed")
    func deletedColumn() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-deleted")
        defer { cleanUp() }
        try fixture.file("doc.txt", "one")
        try fixture.file("gone.txt", "g")
        let catalog = folder + "/c.catalog"
        #expect(try CatalogCLI.run(["scan", fixture.root, "-o", catalog]).status == 0)
        // An atomic save: a new inode renamed over the name.
        try fixture.file("doc.txt.tmp", "two, longer")
        try Shell.check(["mv", fixture.path("doc.txt.tmp"), fixture.path("doc.txt")])
        try FileManager.default.removeItem(atPath: fixture.path("gone.txt"))
        #expect(try CatalogCLI.run(["scan", fixture.root, "-o", catalog]).status == 0)
        // A third scan finds nothing new gone: gone.txt was found gone by the second.
        #expect(try CatalogCLI.run(["scan", fixture.root, "-o", catalog]).status == 0)

        let export = try CatalogCLI.run(["export", catalog, "--csv", "--deleted", "--columns", "path,size,deleted"])
        #expect(export.status == 0, "\(export.stderr)")
        // CSV lines end in CRLF (RFC 4180).
        let rows = export.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows.first == ["path", "size", "deleted"])
        let doc = rows.filter { $0.first == fixture.path("doc.txt") }
        #expect(doc.count == 2, "\(export.stdout)")
        #expect(doc.contains { $0[1] == "3" && !$0[2].isEmpty }, "the replaced object: deleted, with a date")
        #expect(doc.contains { $0[1] == "11" && $0[2].isEmpty }, "its replacement: still there")
        let gone = rows.filter { $0.first == fixture.path("gone.txt") }
        #expect(gone.count == 1 && gone.first?[2].isEmpty == false, "found gone by the second scan, not the last: \(export.stdout)")

        // Without --columns, --deleted adds the column to the default ones.
        let plain = try CatalogCLI.run(["export", catalog, "--tsv", "--deleted"])
        #expect(plain.stdout.hasPrefix("path\tkind\tsize\tmodified\tvolume\tdeleted\n"), "\(plain.stdout)")
        // find --deleted answers the same entries.
        let found = try CatalogCLI.run(["find", catalog, "--deleted", "gone.txt"])
        #expect(found.status == 0 && found.stdout.contains("\tdeleted "), "\(found.stdout)")
        // The JSON export writes null for an entry still there.
        let json = try CatalogCLI.run(["export", catalog, "--json", "--deleted", "--columns", "path,deleted"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.filter { $0["deleted"] is String }.count == 2)
        #expect(entries.contains { $0["deleted"] is NSNull })
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Scans across mounts: each entry is recorded under the volume of the file system it is on.
/// Before, every entry below the root was recorded under the root's volume (its UUID on every
/// hit, two file systems' inode numbers in one identity space, no "last catalogued" for a
/// bookmark on the inner volume).
@Suite("Catalog scans across mounts", .serialized, .requiresRealVolumes)
struct CatalogCrossMountsTests {
    @Test("an XFS or btrfs volume mounted below an ext4 root: its own volume row, moves on it, and resolve --catalog", arguments: [FixtureFileSystem.xfs, .btrfs])
    func innerVolume(kind: FixtureFileSystem) throws {
        let bookmarkTool = try CatalogCLI.binary()
        let scratch = "/var/tmp/catalog-xdev-\(getpid())-\(kind)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try LoopVolume.withVolume(.ext4, label: "Outer") { outer in
            let fixture = CatalogFixture(root: outer.path("root"))
            try fixture.file("top.txt", "t")
            let inner = try LoopVolume(kind, label: "Inner")
            defer { try? inner.destroy() }
            try inner.unmount()
            try inner.mount(at: URL(fileURLWithPath: fixture.path("inner")))
            try fixture.file("inner/x/file.txt", "f")
            try fixture.file("inner/x/other.txt", "o")
            try Shell.check([bookmarkTool, "make", fixture.path("inner/x/file.txt"), "-o", scratch + "/file.bookmark"])
            let catalog = try Catalog(path: scratch + "/drives.catalog")
            let options = ScanOptions(crossingMounts: true)
            let first = try catalog.scan(root: fixture.root, options: options)
            // The root, top.txt, inner, x and two files; the btrfs fixture also has its subvolume `sub`.
            #expect(first.entries == (kind == .btrfs ? 7 : 6) && first.errors == 0, "\(first)")

            let volumes = try catalog.volumes()
            #expect(Set(volumes.compactMap { $0.uuid?.lowercased() }) == [outer.uuid.lowercased(), inner.uuid.lowercased()])
            func volumeUUID(of relative: String) throws -> String? {
                let hits = try catalog.find(CatalogQuery()).filter { $0.entry.path == Array(fixture.path(relative).utf8) }
                return hits.count == 1 ? hits[0].volume.uuid?.lowercased() : nil
            }
            #expect(try volumeUUID(of: "") == outer.uuid.lowercased())
            #expect(try volumeUUID(of: "top.txt") == outer.uuid.lowercased())
            for relative in ["inner", "inner/x", "inner/x/file.txt"] {
                #expect(try volumeUUID(of: relative) == inner.uuid.lowercased(), "\(relative)")
            }
            let again = try catalog.scan(root: fixture.root, options: options)
            #expect(again.added == 0 && again.deleted == 0 && again.moved == 0 && again.modified == 0)

            // A move on the inner volume is one move, matched by its identity there.
            try fixture.move("inner/x/file.txt", "inner/moved.txt")
            let moved = try catalog.scan(root: fixture.root, options: options)
            #expect(moved.moved == 1 && moved.added == 0 && moved.deleted == 0, "\(moved)")
            #expect(try volumeUUID(of: "inner/moved.txt") == inner.uuid.lowercased())

            // Resolution through the catalog on the inner volume: its place inside that volume.
            let bookmark = try Bookmark(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch + "/file.bookmark"))))
            var hinted = ResolutionOptions(search: false, useHandles: false)
            hinted.locationHints = CatalogHints([catalog])
            let resolution = try bookmark.resolve(hinted)
            #expect(resolution.matchedBy == .catalog)
            #expect(PathBytes(resolution.path).bytes == Array(fixture.path("inner/moved.txt").utf8))

            try inner.unmount()
            let run = try Shell.run([bookmarkTool, "resolve", "--catalog", scratch + "/drives.catalog", scratch + "/file.bookmark"])
            #expect(run.status == 4, "\(run.stderr)")
            #expect(run.stderr.contains("last catalogued at \(fixture.path("inner/moved.txt"))"), "\(run.stderr)")
            #expect(run.stderr.contains("on drive Inner"), "\(run.stderr)")
        }
    }

    @Test("two tmpfs mounts below a root: two volumes, so their inode numbers never match each other")
    func twoTmpfs() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-xdev-tmpfs")
        defer { cleanUp() }
        try fixture.directory("")
        let first = try LoopVolume(.tmpfs, label: "first")
        defer { try? first.destroy() }
        let second = try LoopVolume(.tmpfs, label: "second")
        defer { try? second.destroy() }
        try first.unmount()
        try second.unmount()
        try first.mount(at: URL(fileURLWithPath: fixture.path("a")))
        try second.mount(at: URL(fileURLWithPath: fixture.path("b")))
        // The same inode numbers on both: each tmpfs counts from the same start.
        try fixture.file("a/one", "1")
        try fixture.file("b/one", "1")
        let catalog = try Catalog(path: folder + "/t.catalog")
        let options = ScanOptions(crossingMounts: true)
        let scan = try catalog.scan(root: fixture.root, options: options)
        #expect(scan.entries == 5)
        let sources = Set(try catalog.volumes().map(\.source))
        #expect(sources.isSuperset(of: ["tmpfs-first", "tmpfs-second"]), "\(sources)")
        let hits = try catalog.find(CatalogQuery(pattern: .glob("one")))
        #expect(hits.count == 2 && Set(hits.map(\.volume.id)).count == 2)
        let again = try catalog.scan(root: fixture.root, options: options)
        #expect(again.added == 0 && again.deleted == 0 && again.moved == 0 && again.modified == 0, "\(again)")
        #expect(try catalog.find(CatalogQuery(pattern: .glob("one"))).count == 2)
    }
}

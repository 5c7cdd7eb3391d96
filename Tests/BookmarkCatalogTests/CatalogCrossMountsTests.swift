// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// Crossing mounts is refused until each entry records its own file system's volume: the scan
/// recorded every entry below the root under the root's volume.
@Suite("Catalog scans refuse to cross mounts")
struct CatalogCrossMountsTests {
    @Test("ScanOptions.crossingMounts fails with `unsupported` before the catalog is touched")
    func library() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-xdev")
        defer { cleanUp() }
        try fixture.file("a/b.txt", "b")
        let catalog = try Catalog(path: folder + "/x.catalog")
        do {
            try catalog.scan(root: fixture.root, options: ScanOptions(crossingMounts: true))
            Issue.record("a scan crossing mounts was accepted")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.description.contains("scan each mounted file system as a root of its own"))
        }
        #expect(try catalog.roots().isEmpty && catalog.volumes().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.catalog-lock"))
    }

    @Test("`bookmark catalog scan --cross-mounts` exits 64 and says why, making no catalog")
    func command() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-xdev")
        defer { cleanUp() }
        try fixture.file("a/b.txt", "b")
        let run = try CatalogCLI.run(["scan", "--cross-mounts", fixture.root, "-o", folder + "/x.catalog"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--cross-mounts is not supported"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.catalog"))
    }
}

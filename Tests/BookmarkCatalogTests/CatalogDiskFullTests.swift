// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// A scan into a catalog on a full file system is a failed write (1, as Docs/CLI.md says), not a
/// ROOT or catalog that cannot be opened (66).
@Suite("Catalog scans on a full disk", .serialized, .requiresRealVolumes)
struct CatalogDiskFullTests {
    @Test("a catalog on a full tmpfs: the scan exits 1 and says the catalog could not be written")
    func diskFull() throws {
        let (fixture, _, cleanUp) = CatalogFixture.temporary("catalog-full")
        defer { cleanUp() }
        for index in 0..<2000 { try fixture.file("d\(index % 20)/file-\(index)") }
        try LoopVolume.withVolume(.tmpfs) { volume in
            let catalog = volume.path("c.catalog")
            let first = try CatalogCLI.run(["scan", fixture.path("d0"), "-o", catalog])
            #expect(first.status == 0, "\(first.stderr)")
            // Every block taken: dd stops at ENOSPC.
            _ = try Shell.run(["dd", "if=/dev/zero", "of=" + volume.path("fill"), "bs=64k"])
            for room in [0, 40 * 1024] {
                // No room at all (the -shm cannot grow when the catalog is opened), then a little
                // (the batch's commit fails).
                if room > 0 { try Shell.check(["truncate", "-s", "-\(room)", volume.path("fill")]) }
                let scan = try CatalogCLI.run(["scan", fixture.root, "-o", catalog])
                #expect(scan.status == 1, "room \(room): \(scan.stderr)")
                #expect(scan.stderr.contains("could not be written"), "\(scan.stderr)")
            }
        }
    }
}

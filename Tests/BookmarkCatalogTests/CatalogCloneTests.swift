// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// A cloned drive (same UUID, another device) mounted beside its original cannot be told apart
/// by the catalog; a scan at least says so.
@Suite("Catalog scans of a cloned drive", .serialized, .requiresRealVolumes)
struct CatalogCloneTests {
    @Test("two ext4 volumes with one UUID mounted at once: the scan warns on stderr and in --json")
    func cloneWarns() throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(.ext4, uuid: uuid) { original in
            try LoopVolume.withVolume(.ext4, uuid: uuid) { clone in
                let catalog = FileManager.default.temporaryDirectory.appendingPathComponent("clone-\(UUID().uuidString).catalog").path
                defer {
                    for suffix in ["", "-wal", "-shm", "-lock"] { try? FileManager.default.removeItem(atPath: catalog + suffix) }
                }
                let root = original.path("")
                let scan = try CatalogCLI.run(["scan", root, "-o", catalog])
                #expect(scan.status == 0, "\(scan.stderr)")
                let mountPoint = URL(fileURLWithPath: clone.path("")).standardizedFileURL.path
                #expect(scan.stderr.contains("mounted at two places at once"), "\(scan.stderr)")
                #expect(scan.stderr.contains(mountPoint), "\(scan.stderr)")
                let json = try CatalogCLI.run(["scan", root, "-o", catalog, "--json"])
                let summary = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
                let others = summary?.first?["sameUUIDMountedAt"] as? [String]
                #expect(others?.count == 1, "\(json.stdout)")
            }
        }
    }

    @Test("one volume alone: no warning")
    func noClone() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let catalog = volume.path("c.catalog")
            let scan = try CatalogCLI.run(["scan", volume.path(""), "-o", catalog])
            #expect(scan.status == 0 && !scan.stderr.contains("warning"), "\(scan.stderr)")
        }
    }
}

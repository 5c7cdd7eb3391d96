// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import GRDB
import Synchronization
import Testing
import VolumeFixtures

/// Scans killed midway, and scans of trees that change while they are read: the catalog is
/// always a consistent database, and the next scan completes it.
@Suite("Catalog scans killed or raced", .serialized, .requiresRealVolumes)
struct CatalogRobustnessTests {
    /// The database's own checks, and the catalog's: every live entry's parent is a live entry.
    func checkConsistent(_ path: String) throws {
        let database = try DatabaseQueue(path: path)
        try database.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            let orphans = try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM entry c WHERE c.deleted_in IS NULL AND c.parent_id IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM entry p WHERE p.id = c.parent_id AND p.deleted_in IS NULL)
                    """)
            #expect(orphans == 0, "live entries under a deleted or missing parent")
        }
    }

    /// The live entries, as paths relative to the root, and what `find` sees on disk.
    func compare(_ catalogPath: String, root: String) throws {
        let catalog = try Catalog(path: catalogPath, create: false)
        let snapshot = try #require(try catalog.snapshots().first)
        let catalogued = Set(snapshot.entries.map { String(decoding: $0.path, as: UTF8.self) })
        let onDisk = Set(try Shell.run(["find", root, "-xdev"]).stdout.split(separator: "\n").map(String.init))
        #expect(catalogued == onDisk, "only in the catalog: \(catalogued.subtracting(onDisk).prefix(5)); only on disk: \(onDisk.subtracting(catalogued).prefix(5))")
    }

    @Test("SIGKILL during a scan: the catalog opens, is consistent, and a re-scan completes it", arguments: catalogFileSystems)
    func killedScan(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("tree"))
            try Shell.check([
                "sh", "-c", "cd '\(volume.path(""))' && mkdir tree && cd tree && for d in $(seq 1 50); do mkdir d$d; (cd d$d && touch $(seq -f f%g 1 100)); done",
            ])
            let catalogPath = volume.path("tree.catalog")
            var killedMidway = 0
            for attempt in 0..<3 {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: try CatalogCLI.binary())
                process.arguments = ["catalog", "scan", fixture.root, "-o", catalogPath, "--batch-size", "100"]
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                // Kill it once a batch is committed and before it finishes.
                let deadline = Date().addingTimeInterval(20)
                var killed = false
                while process.isRunning, Date() < deadline {
                    let state: Row?? = try? DatabaseQueue(path: catalogPath).read { db in
                        try Row.fetchOne(db, sql: "SELECT entries, finished FROM scan ORDER BY id DESC LIMIT 1")
                    }
                    if let found = state, let state = found, (state["entries"] as Int? ?? 0) > 0, (state["finished"] as Double?) == nil {
                        kill(process.processIdentifier, SIGKILL)
                        killed = true
                        break
                    }
                    usleep(2_000)
                }
                process.waitUntilExit()
                if killed, process.terminationReason == .uncaughtSignal { killedMidway += 1 }
                try checkConsistent(catalogPath)
                print("\(kind) attempt \(attempt): killed midway \(killed)")
            }
            #expect(killedMidway > 0, "at least one scan was killed between its first commit and its end")
            let catalog = try Catalog(path: catalogPath)
            #expect(try catalog.roots().first?.hasUnfinishedScan == true)
            let summary = try catalog.scan(root: fixture.root)
            #expect(summary.resumed, "the re-scan finished the killed one")
            #expect(summary.entries == 5_051)
            #expect(try catalog.roots().first?.hasUnfinishedScan == false)
            try checkConsistent(catalogPath)
            try compare(catalogPath, root: fixture.root)
        }
    }

    @Test("the catalog's volume full during a scan: a `database` error, no crash, the catalog as of its last commit; with room again a scan completes it", arguments: [FixtureFileSystem.ext4, .xfs])
    func volumeFullDuringScan(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("tree"))
            try Shell.check([
                "sh", "-c", "cd '\(volume.path(""))' && mkdir tree && cd tree && for d in $(seq 1 50); do mkdir d$d; (cd d$d && touch $(seq -f f%g 1 100)); done",
            ])
            let catalogPath = volume.path("tree.catalog")
            let filler = volume.path("filler")
            do {
                let catalog = try Catalog(path: catalogPath)
                // Everything but about 64 KiB taken (as root, ext4's reserve too): the bulk allocated,
                // the rest written until the volume refuses, then 64 KiB given back. 5,051 entries
                // need far more.
                var space = statvfs()
                #expect(statvfs(volume.path(""), &space) == 0)
                let free = Int64(space.f_bfree) * Int64(space.f_frsize)
                try Shell.check(["fallocate", "-l", "\(max(free - (4 << 20), 4096))", filler])
                _ = try Shell.run(["dd", "if=/dev/zero", "of=\(filler)-rest", "bs=64K"])
                try Shell.check(["sync", "-f", filler])
                try Shell.check(["truncate", "-s", "-64K", "\(filler)-rest"])
                var thrown: CatalogError?
                do throws(CatalogError) {
                    _ = try catalog.scan(root: fixture.root, options: ScanOptions(batchSize: 100))
                } catch {
                    thrown = error
                }
                let error = try #require(thrown, "a scan into a full volume must fail")
                #expect(error.code == .database, "\(error)")
                print("\(kind): \(error)")
            }
            try FileManager.default.removeItem(atPath: filler)
            try FileManager.default.removeItem(atPath: filler + "-rest")
            try checkConsistent(catalogPath)
            let catalog = try Catalog(path: catalogPath)
            let summary = try catalog.scan(root: fixture.root)
            #expect(summary.entries == 5_051 && summary.errors == 0)
            #expect(try catalog.roots().first?.hasUnfinishedScan == false)
            try checkConsistent(catalogPath)
            try compare(catalogPath, root: fixture.root)
        }
    }

    @Test("files created, renamed and deleted during scans: no crash, a consistent catalog, and a quiet scan matches the disk", arguments: catalogFileSystems)
    func racingScan(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("tree"))
            for directory in 0..<20 {
                for file in 0..<50 { try fixture.file("d\(directory)/f\(file)", "x") }
            }
            let catalogPath = volume.path("tree.catalog")
            let stop = Atomic<Bool>(false)
            let churn = Thread {
                var counter = 0
                while !stop.load(ordering: .relaxed) {
                    counter += 1
                    let directory = fixture.path("d\(counter % 20)")
                    let name = directory + "/churn-\(counter)"
                    _ = FileManager.default.createFile(atPath: name, contents: Data("c".utf8))
                    if counter % 3 == 0 { _ = rename(name, directory + "/renamed-\(counter)") }
                    if counter % 5 == 0 { unlink(directory + "/renamed-\(counter - 2)") }
                    if counter % 50 == 0 {
                        _ = mkdir(fixture.path("new-\(counter)"), 0o755)
                        _ = rename(fixture.path("d\(counter % 20)"), fixture.path("moved-\(counter)"))
                        _ = rename(fixture.path("moved-\(counter)"), fixture.path("d\(counter % 20)"))
                    }
                }
            }
            churn.start()
            let catalog = try Catalog(path: catalogPath)
            for _ in 0..<4 {
                let summary = try catalog.scan(root: fixture.root, options: ScanOptions(batchSize: 200))
                #expect(summary.entries > 1_000)
                try checkConsistent(catalogPath)
            }
            stop.store(true, ordering: .relaxed)
            usleep(100_000)
            try catalog.scan(root: fixture.root)
            try checkConsistent(catalogPath)
            try compare(catalogPath, root: fixture.root)
        }
    }
}

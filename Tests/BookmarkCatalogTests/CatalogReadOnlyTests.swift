// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// Reading a catalog that this process could not write: in a read-only folder, on a read-only
/// mount, or another user's catalog in a shared folder. Before, SQLite failed (error 8 or 14), or
/// the read left `-wal` and `-shm` owned by the reader, which stopped the owner's next scan.
@Suite("Catalogs read where they cannot be written", .serialized, .requiresRealVolumes)
struct CatalogReadOnlyTests {
    /// find, diff and export of `catalog`, run by `run`; each must exit 0.
    private func readAll(_ catalog: String, _ run: ([String]) throws -> CommandResult, expecting file: String) throws {
        let tool = try CatalogCLI.binary()
        let find = try run([tool, "catalog", "find", catalog, "*.txt"])
        #expect(find.status == 0, "find: \(find.stderr)")
        #expect(find.stdout.contains(file), "\(find.stdout)")
        let diff = try run([tool, "catalog", "diff", catalog])
        #expect(diff.status == 0, "diff: \(diff.stderr)")
        let export = try run([tool, "catalog", "export", catalog, "--csv"])
        #expect(export.status == 0 && export.stdout.contains(file), "export: \(export.stderr)")
    }

    private func journalFiles(_ catalog: String) -> [String] {
        ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: catalog + $0) }
    }

    @Test("a read-only folder, as uid 65534: find, diff and export work, and make no -wal or -shm")
    func readOnlyFolder() throws {
        try #require(Unprivileged.unavailableReason == nil, "\(Unprivileged.unavailableReason ?? "")")
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-ro")
        defer { cleanUp() }
        try fixture.file("a/notes.txt", "n")
        try Shell.check(["mkdir", "-p", folder + "/ro"])
        let catalog = folder + "/ro/c.catalog"
        let scan = try CatalogCLI.run(["scan", fixture.root, "-o", catalog])
        #expect(scan.status == 0, "\(scan.stderr)")
        try Shell.check(["chmod", "755", folder, folder + "/ro"])
        try readAll(catalog, { try Unprivileged.run($0) }, expecting: fixture.path("a/notes.txt"))
        #expect(journalFiles(catalog).isEmpty)
        // A -wal that holds something and no -shm: not readable without making one; said plainly.
        try Data("not merged".utf8).write(to: URL(fileURLWithPath: catalog + "-wal"))
        let refused = try Unprivileged.run([try CatalogCLI.binary(), "catalog", "find", catalog, "*.txt"])
        #expect(refused.status == 66)
        #expect(refused.stderr.contains("not yet merged") && !refused.stderr.contains("SQLite error"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: catalog + "-shm"))
    }

    @Test("another user reads a catalog in a shared folder: no -wal or -shm of theirs is left, and the owner's next scan works")
    func otherUsersRead() throws {
        try #require(Unprivileged.unavailableReason == nil, "\(Unprivileged.unavailableReason ?? "")")
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-shared")
        defer { cleanUp() }
        try fixture.file("a/notes.txt", "n")
        try Shell.check(["mkdir", "-p", folder + "/shared"])
        try Shell.check(["chmod", "1777", folder + "/shared"])
        try Shell.check(["chmod", "755", folder])
        try Shell.check(["chown", "-R", "65534:65534", fixture.root])
        let catalog = folder + "/shared/c.catalog"
        // The owner is uid 65534; the other user is 65533.
        let first = try Unprivileged.run([try CatalogCLI.binary(), "catalog", "scan", fixture.root, "-o", catalog])
        #expect(first.status == 0, "\(first.stderr)")
        let other: ([String]) throws -> CommandResult = { arguments in
            try Shell.run(["setpriv", "--reuid=65533", "--regid=65533", "--clear-groups", "--inh-caps=-all", "--"] + arguments)
        }
        try readAll(catalog, other, expecting: fixture.path("a/notes.txt"))
        #expect(journalFiles(catalog).isEmpty, "the reader left \(journalFiles(catalog))")
        try fixture.file("a/more.txt", "m")
        try Shell.check(["chown", "65534:65534", fixture.path("a/more.txt")])
        let again = try Unprivileged.run([try CatalogCLI.binary(), "catalog", "scan", fixture.root, "-o", catalog])
        #expect(again.status == 0, "the owner's scan after another user's read: \(again.stderr)")
        #expect(again.stdout.contains("1 added"), "\(again.stdout)")
    }

    @Test("a read-only tmpfs mount, as root: find, diff and export work")
    func readOnlyMount() throws {
        let (fixture, _, cleanUp) = CatalogFixture.temporary("catalog-romount")
        defer { cleanUp() }
        try fixture.file("a/notes.txt", "n")
        try LoopVolume.withVolume(.tmpfs) { volume in
            let catalog = volume.path("c.catalog")
            let scan = try CatalogCLI.run(["scan", fixture.root, "-o", catalog])
            #expect(scan.status == 0, "\(scan.stderr)")
            try Shell.check(["mount", "-o", "remount,ro", volume.path("")])
            try readAll(catalog, { try Shell.run($0) }, expecting: fixture.path("a/notes.txt"))
            // A scan into it still fails, with the catalog's error rather than a crash.
            let refused = try CatalogCLI.run(["scan", fixture.root, "-o", catalog])
            #expect(refused.status != 0)
        }
    }
}

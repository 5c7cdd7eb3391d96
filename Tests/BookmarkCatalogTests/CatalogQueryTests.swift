// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// Comparing two catalogs, and searching catalogs offline (library and CLI).
@Suite("Catalog diff and find", .serialized, .requiresRealVolumes)
struct CatalogQueryTests {
    @Test("diff OLD NEW: moves by identity (a folder is one move), edits, additions and deletions, in text and JSON Lines", arguments: catalogFileSystems)
    func twoCatalogs(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("disk"))
            for index in 0..<300 { try fixture.file("Music/Album/track-\(index).flac", "\(index)") }
            try fixture.file("a.txt", "a")
            try fixture.file("old/x", "x")
            let before = volume.path("before.catalog")
            let after = volume.path("after.catalog")
            #expect(try CatalogCLI.run(["scan", fixture.root, "-o", before]).status == 0)
            try fixture.move("Music/Album", "Album (2019)")
            try fixture.file("a.txt", "changed")
            try FileManager.default.removeItem(atPath: fixture.path("old"))
            try fixture.file("new/y", "y")
            #expect(try CatalogCLI.run(["scan", fixture.root, "-o", after]).status == 0)

            let changes = try CatalogDiff.changes(from: Catalog(path: before, create: false), to: Catalog(path: after, create: false))
            #expect(
                Set(changes.map(\.description)) == [
                    "moved \(fixture.path("Music/Album")) -> \(fixture.path("Album (2019)"))",
                    "modified \(fixture.path("a.txt"))",
                    "deleted \(fixture.path("old")) (and 1 inside)",
                    "added \(fixture.path("new")) (and 1 inside)",
                ], "\(changes.map(\.description))")

            let text = try CatalogCLI.run(["diff", before, after])
            #expect(text.status == 0)
            #expect(text.stdout.contains("moved \(fixture.path("Music/Album")) -> \(fixture.path("Album (2019)"))\n"))
            let lines = try CatalogCLI.run(["diff", before, after, "--jsonl"]).stdout.split(separator: "\n")
            #expect(lines.count == 4)
            let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.contains { $0?["kind"] as? String == "moved" && $0?["oldPath"] as? String == fixture.path("Music/Album") })
            #expect(objects.contains { $0?["kind"] as? String == "deleted" && $0?["descendants"] as? Int == 1 })
        }
    }

    @Test("find across two catalogs: glob, regex, size, type, deleted, hash and duplicates, with drive and last-seen", arguments: [FixtureFileSystem.ext4])
    func find(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind, label: "Backup") { backup in
            try LoopVolume.withVolume(.xfs, label: "Laptop") { laptop in
                let first = CatalogFixture(root: backup.path("files"))
                let second = CatalogFixture(root: laptop.path("home"))
                try first.file("photos/IMG_0001.JPG", String(repeating: "p", count: 2_048))
                try first.file("docs/thesis.pdf", "thesis v1")
                try first.file("docs/gone.pdf", "soon gone")
                try second.file("Desktop/thesis copy.pdf", "thesis v1")
                try second.file("Desktop/same size.pdf", "thesis v2")
                let one = backup.path("backup.catalog")
                let two = laptop.path("laptop.catalog")
                #expect(try CatalogCLI.run(["scan", first.root, "-o", one, "--hash"]).status == 0)
                try FileManager.default.removeItem(atPath: first.path("docs/gone.pdf"))
                #expect(try CatalogCLI.run(["scan", first.root, "-o", one, "--hash"]).status == 0)
                #expect(try CatalogCLI.run(["scan", second.root, "-o", two, "--hash"]).status == 0)

                let pdfs = try CatalogCLI.run(["find", one, two, "*.pdf"])
                #expect(pdfs.status == 0)
                let lines = pdfs.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
                #expect(lines.map { $0[0] }.sorted() == [first.path("docs/thesis.pdf"), second.path("Desktop/same size.pdf"), second.path("Desktop/thesis copy.pdf")].sorted())
                #expect(lines.first { $0[0] == first.path("docs/thesis.pdf") }?[1] == "Backup", "the drive")
                #expect(lines.allSatisfy { $0.count == 3 && $0[2].hasPrefix("20") }, "last seen")

                #expect(try CatalogCLI.run(["find", one, two, "-i", "img_*.jpg"]).stdout.hasPrefix(first.path("photos/IMG_0001.JPG")))
                #expect(try CatalogCLI.run(["find", one, two, "--regex", "Desktop/.*copy"]).stdout.hasPrefix(second.path("Desktop/thesis copy.pdf")))
                #expect(try CatalogCLI.run(["find", one, "*", "--size", "+2k", "--type", "f"]).stdout.split(separator: "\n").count == 1)
                #expect(try CatalogCLI.run(["find", one, "*", "--type", "d"]).stdout.split(separator: "\n").count == 3)
                #expect(try CatalogCLI.run(["find", one, "gone.pdf"]).status == 3, "deleted: not found by default")
                let gone = try CatalogCLI.run(["find", one, "gone.pdf", "--deleted"])
                #expect(gone.status == 0)
                let fields = gone.stdout.split(separator: "\n").first.map { $0.split(separator: "\t", omittingEmptySubsequences: false) } ?? []
                #expect(fields.count == 4 && fields.last?.hasPrefix("deleted 20") == true, "a deleted hit says so: \(gone.stdout)")
                let live = try CatalogCLI.run(["find", one, "*.pdf", "--deleted"]).stdout.split(separator: "\n")
                #expect(live.filter { $0.split(separator: "\t").count == 3 }.count == live.count - 1, "only the deleted hit has a fourth field")
                #expect(try CatalogCLI.run(["find", one, "--regex", "("]).status == 64)

                let duplicates = try CatalogCLI.run(["find", one, two, "--duplicates", "--json"])
                let groups = try JSONSerialization.jsonObject(with: Data(duplicates.stdout.utf8)) as? [[String: Any]]
                let same = try #require(groups?.first { $0["evidence"] as? String == "same-hash" })
                let members = (same["members"] as? [[String: Any]])?.compactMap { $0["path"] as? String }.sorted()
                #expect(members == [first.path("docs/thesis.pdf"), second.path("Desktop/thesis copy.pdf")].sorted())
                let hash = try #require(same["sha256"] as? String)
                let byHash = try CatalogCLI.run(["find", one, two, "*", "--hash", String(hash.prefix(8))])
                #expect(byHash.stdout.split(separator: "\n").count == 2)
                #expect(!(groups ?? []).contains { ($0["members"] as? [[String: Any]])?.contains { $0["path"] as? String == second.path("Desktop/same size.pdf") } == true }, "same size, other hash: not a duplicate")

                let missing = try CatalogCLI.run(["find", backup.path("nope.catalog"), "*"])
                #expect(missing.status == 66)
                // SQLite takes paths as UTF-8: a catalog path that is not is refused, not renamed.
                let latin1 = try Shell.run(["sh", "-c", "\"$0\" catalog scan '\(first.root)' -o \"$(printf '\(backup.path(""))/cat\\377.db')\"", try CatalogCLI.binary()])
                #expect(latin1.status == 64, "\(latin1.stderr)")
                #expect(latin1.stderr.contains("must be UTF-8"))
                #expect(try FileManager.default.contentsOfDirectory(atPath: backup.path("")).allSatisfy { !$0.hasPrefix("cat") })
            }
        }
    }
}

/// The default catalog (`$XDG_DATA_HOME/swift-bookmarks/volumes.catalog`): `scan` writes it without
/// `-o`, and `find`, `diff` and `export` read it without a CATALOG, as `bookmark catalog --help`
/// says.
@Suite("Catalog default location")
struct CatalogDefaultLocationTests {
    @Test("scan without -o, then find PATTERN, find --duplicates, diff and export with no catalog named")
    func defaultCatalog() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-default")
        defer { cleanUp() }
        try fixture.file("photos/one.jpg", "same")
        try fixture.file("photos/two.jpg", "same")
        try fixture.file("docs/notes.txt", "notes")
        let data = folder + "/xdg"
        func run(_ arguments: [String]) throws -> CommandResult {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = data
            return try Shell.run([try CatalogCLI.binary(), "catalog"] + arguments, environment: environment)
        }
        // Nothing scanned yet: the default catalog is missing, and find says which path it tried.
        let before = try run(["find", "*.jpg"])
        #expect(before.status == 66 && before.stderr.contains(data + "/swift-bookmarks/volumes.catalog"), "\(before.stderr)")

        #expect(try run(["scan", fixture.root]).status == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/swift-bookmarks/volumes.catalog"))
        let found = try run(["find", "*.jpg"])
        #expect(found.status == 0)
        #expect(found.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted() == [fixture.path("photos/one.jpg"), fixture.path("photos/two.jpg")])
        #expect(try run(["find", "nothing-like-this"]).status == 3)
        #expect(try run(["find"]).status == 64, "no PATTERN")
        let duplicates = try run(["find", "--duplicates"])
        #expect(duplicates.status == 0 && duplicates.stdout.contains(fixture.path("photos/one.jpg")), "\(duplicates.stdout)")
        let mistyped = try run(["find", "--duplicates", folder + "/no-such.catalog"])
        #expect(mistyped.status == 66 && mistyped.stderr.contains("no-such.catalog"), "a lone argument is a catalog: \(mistyped.stderr)")

        try fixture.move("docs/notes.txt", "photos/notes.txt")
        #expect(try run(["scan", fixture.root]).status == 0)
        let diff = try run(["diff"])
        #expect(diff.status == 0)
        #expect(diff.stdout == "moved \(fixture.path("docs/notes.txt")) -> \(fixture.path("photos/notes.txt"))\n", "\(diff.stdout)")
        let export = try run(["export", "--csv", "--columns", "path"])
        #expect(export.status == 0 && export.stdout.contains(fixture.path("photos/notes.txt")), "\(export.stdout)")
        #expect(try run(["diff", "a", "b", "c"]).status == 64)
    }
}

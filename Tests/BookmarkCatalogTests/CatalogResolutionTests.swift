// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import BookmarkKit
import SecureFiles
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

/// Catalogs helping resolution: a moved file's catalogued place tried before any search, and an
/// unmounted volume answered with where and when the file was last catalogued.
@Suite("Catalogs help resolution", .serialized, .requiresRealVolumes)
struct CatalogResolutionTests {
    @Test("moved far: the catalog's later place is tried and verified before any search", arguments: catalogFileSystems)
    func movedFar(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("data"))
            try fixture.file("inbox/report.pdf", "pdf")
            for index in 0..<50 { try fixture.file("deep/\(index)/filler.txt", "x") }
            let bookmark = try Bookmark.create(for: FilePath(fixture.path("inbox/report.pdf")))
            let catalog = try Catalog(path: "/var/tmp/catalog-\(getpid())-\(kind).sqlite")
            defer { try? FileManager.default.removeItem(atPath: catalog.path) }
            try catalog.scan(root: fixture.root)
            try fixture.move("inbox/report.pdf", "deep/49/report (final).pdf")
            try catalog.scan(root: fixture.root)

            // No handles and no search: only the catalog can find it.
            let bare = ResolutionOptions(search: false, useHandles: false)
            #expect(throws: BookmarkError.self) { try bookmark.resolve(bare) }
            var hinted = bare
            hinted.locationHints = CatalogHints([catalog])
            let resolution = try bookmark.resolve(hinted)
            #expect(resolution.matchedBy == .catalog)
            #expect(PathBytes(resolution.path).bytes == Array(fixture.path("deep/49/report (final).pdf").utf8))
            #expect(resolution.isStale)
            // A batch asks the catalog as one resolution does (before, it never did).
            for result in Bookmark.resolveAll([bookmark, bookmark], options: hinted) {
                let batched = try result.get()
                #expect(batched.matchedBy == .catalog)
                #expect(PathBytes(batched.path).bytes == PathBytes(resolution.path).bytes)
            }

            // A catalogued place that now holds another file is not taken.
            try fixture.move("deep/49/report (final).pdf", "elsewhere.pdf")
            try fixture.file("deep/49/report (final).pdf", "an impostor")
            #expect(throws: BookmarkError.self) { try bookmark.resolve(hinted) }
        }
    }

    @Test("the volume unmounted: resolve --catalog exits 4 and says where and when the file was last catalogued", arguments: [FixtureFileSystem.ext4])
    func unmounted(kind: FixtureFileSystem) throws {
        let bookmarkTool = try CatalogCLI.binary()
        let scratch = "/var/tmp/catalog-unmounted-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try LoopVolume.withVolume(kind, label: "Holidays") { volume in
            let fixture = CatalogFixture(root: volume.path("photos"))
            try fixture.file("2024/beach.jpg", "jpg")
            try Shell.check([bookmarkTool, "make", fixture.path("2024/beach.jpg"), "-o", scratch + "/beach.bookmark"])
            try fixture.move("2024", "Summer 2024")
            let scan = try CatalogCLI.run(["scan", fixture.root, "-o", scratch + "/drives.catalog"])
            #expect(scan.status == 0, "\(scan.stderr)")
            try volume.unmount()

            let plain = try Shell.run([bookmarkTool, "resolve", scratch + "/beach.bookmark"])
            #expect(plain.status == 4)
            #expect(!plain.stderr.contains("last catalogued"))
            let run = try Shell.run([bookmarkTool, "resolve", "--catalog", scratch + "/drives.catalog", scratch + "/beach.bookmark"])
            #expect(run.status == 4, "\(run.stderr)")
            #expect(run.stderr.contains("last catalogued at \(fixture.path("Summer 2024/beach.jpg"))"), "\(run.stderr)")
            #expect(run.stderr.contains("on drive Holidays"))
            let json = try Shell.run([
                bookmarkTool, "resolve", "--json", "--catalog", scratch + "/drives.catalog", scratch + "/beach.bookmark",
            ])
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let sighting = object?["lastCatalogued"] as? [String: Any]
            #expect(sighting?["path"] as? String == fixture.path("Summer 2024/beach.jpg"))
            #expect(sighting?["volumeLabel"] as? String == "Holidays")
            #expect((sighting?["seen"] as? String)?.hasPrefix("20") == true)
        }
    }

    @Test("as uid 65534 (no file handles): resolve --catalog finds a moved file without a search", arguments: [FixtureFileSystem.ext4])
    func unprivileged(kind: FixtureFileSystem) throws {
        try #require(Unprivileged.unavailableReason == nil, "\(Unprivileged.unavailableReason ?? "")")
        let bookmarkTool = try CatalogCLI.binary()
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("home"))
            try fixture.file("a/notes.txt", "n")
            try Shell.check(["chown", "-R", "65534:65534", fixture.root, volume.path("")])
            let mark = volume.path("notes.bookmark")
            let catalog = volume.path("home.catalog")
            for command in [
                ["make", fixture.path("a/notes.txt"), "-o", mark], ["catalog", "scan", fixture.root, "-o", catalog],
                ["mv", fixture.path("a"), fixture.path("b")], ["catalog", "scan", fixture.root, "-o", catalog],
            ] {
                let result = try Unprivileged.run(command.first == "mv" ? command : [bookmarkTool] + command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            let without = try Unprivileged.run([bookmarkTool, "resolve", "--no-search", mark])
            #expect(without.status == 3, "no handle and no search: not found")
            let with = try Unprivileged.run([bookmarkTool, "resolve", "--no-search", "--json", "--catalog", catalog, mark])
            #expect(with.status == 0, "\(with.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(with.stdout.utf8)) as? [String: Any]
            #expect(object?["matchedBy"] as? String == "catalog")
            #expect(object?["path"] as? String == fixture.path("b/notes.txt"))
        }
    }
    @Test("a batch (two SOURCEs, --files-from) with --catalog: an unmounted volume's errors say where each file was last catalogued", arguments: [FixtureFileSystem.ext4])
    func unmountedBatch(kind: FixtureFileSystem) throws {
        let bookmarkTool = try CatalogCLI.binary()
        let scratch = "/var/tmp/catalog-unmounted-batch-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try LoopVolume.withVolume(kind, label: "Alpha") { volume in
            let fixture = CatalogFixture(root: volume.path("photos"))
            try fixture.file("2024/beach.jpg", "jpg")
            try fixture.file("2024/dunes.jpg", "jpeg")
            for name in ["beach", "dunes"] {
                try Shell.check([bookmarkTool, "make", fixture.path("2024/\(name).jpg"), "-o", scratch + "/\(name).bookmark"])
            }
            try fixture.move("2024", "Summer 2024")
            let scan = try CatalogCLI.run(["scan", fixture.root, "-o", scratch + "/cat1.catalog"])
            #expect(scan.status == 0, "\(scan.stderr)")
            try volume.unmount()
            try Data((scratch + "/beach.bookmark\n").utf8).write(to: URL(fileURLWithPath: scratch + "/list"))

            let catalog = ["--catalog", scratch + "/cat1.catalog"]
            let two = try Shell.run([bookmarkTool, "resolve", "--keep-going"] + catalog + [scratch + "/beach.bookmark", scratch + "/dunes.bookmark"])
            #expect(two.status == 4, "\(two.stderr)")
            for name in ["beach", "dunes"] {
                #expect(two.stderr.contains("last catalogued at \(fixture.path("Summer 2024/\(name).jpg"))"), "\(two.stderr)")
            }
            #expect(two.stderr.contains("on drive Alpha (\(scratch)/cat1.catalog)"), "\(two.stderr)")
            let listed = try Shell.run([bookmarkTool, "resolve"] + catalog + ["--files-from", scratch + "/list"])
            #expect(listed.status == 4, "\(listed.stderr)")
            #expect(listed.stderr.contains("last catalogued at \(fixture.path("Summer 2024/beach.jpg"))"), "\(listed.stderr)")
            let json = try Shell.run(
                [bookmarkTool, "resolve", "--json", "--keep-going"] + catalog + [scratch + "/beach.bookmark", scratch + "/dunes.bookmark"])
            let records = json.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(records.count == 2, "\(json.stdout)")
            for (record, name) in zip(records, ["beach", "dunes"]) {
                let sighting = record["lastCatalogued"] as? [String: Any]
                #expect(sighting?["path"] as? String == fixture.path("Summer 2024/\(name).jpg"), "\(record)")
                #expect(sighting?["volumeLabel"] as? String == "Alpha")
            }
        }
    }

    @Test("as uid 65534, a batch (two SOURCEs, --files-from) with --catalog --no-search finds moved files through the catalog", arguments: [FixtureFileSystem.ext4])
    func unprivilegedBatch(kind: FixtureFileSystem) throws {
        try #require(Unprivileged.unavailableReason == nil, "\(Unprivileged.unavailableReason ?? "")")
        let bookmarkTool = try CatalogCLI.binary()
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("home"))
            try fixture.file("a/notes.txt", "n")
            try fixture.file("a/todo.txt", "t")
            try Shell.check(["chown", "-R", "65534:65534", fixture.root, volume.path("")])
            let marks = [volume.path("notes.bookmark"), volume.path("todo.bookmark")]
            let catalog = volume.path("home.catalog")
            for command in [
                ["make", fixture.path("a/notes.txt"), "-o", marks[0]], ["make", fixture.path("a/todo.txt"), "-o", marks[1]],
                ["catalog", "scan", fixture.root, "-o", catalog], ["mv", fixture.path("a"), fixture.path("b")],
                ["catalog", "scan", fixture.root, "-o", catalog],
            ] {
                let result = try Unprivileged.run(command.first == "mv" ? command : [bookmarkTool] + command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            let list = volume.path("list")
            try Data((marks[1] + "\n").utf8).write(to: URL(fileURLWithPath: list))
            try Shell.check(["chown", "65534:65534", list])
            for (arguments, expected) in [(marks, ["b/notes.txt", "b/todo.txt"]), (["--files-from", list], ["b/todo.txt"])] {
                let run = try Unprivileged.run([bookmarkTool, "resolve", "--no-search", "--json", "--catalog", catalog] + arguments)
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
                let records = run.stdout.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                #expect(records.map { $0["matchedBy"] as? String } == expected.map { _ in "catalog" }, "\(run.stdout)")
                #expect(records.map { $0["path"] as? String } == expected.map { fixture.path($0) })
            }
        }
    }
}

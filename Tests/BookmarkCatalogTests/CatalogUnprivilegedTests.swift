// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// The whole catalog job as uid 65534 through the CLI: scan (with root's unreadable folder in the
/// tree), move, re-scan, diff, find and export, on each file system.
@Suite("Catalogs as an unprivileged user", .serialized, .requiresRealVolumes, .requiresUnprivilegedUser)
struct CatalogUnprivilegedTests {
    @Test("scan, move, re-scan, diff, find and export as uid 65534", arguments: catalogFileSystems)
    func wholeJob(kind: FixtureFileSystem) throws {
        let tool = try CatalogCLI.binary()
        try LoopVolume.withVolume(kind) { volume in
            let fixture = CatalogFixture(root: volume.path("home"))
            for index in 0..<20 { try fixture.file("Music/Album/track-\(index).ogg", "\(index)") }
            try fixture.file("notes.txt", "n")
            try fixture.file("root-only/secret.txt", "s")
            try Shell.check(["chown", "-R", "65534:65534", fixture.root, volume.path("")])
            try Shell.check(["chown", "-R", "0:0", fixture.path("root-only")])
            try Shell.check(["chmod", "700", fixture.path("root-only")])
            let catalog = volume.path("home.catalog")
            func run(_ arguments: [String]) throws -> CommandResult { try Unprivileged.run([tool, "catalog"] + arguments) }

            let first = try run(["scan", fixture.root, "-o", catalog, "--hash", "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [[String: Any]]
            #expect(summary?.first?["errors"] as? Int == 1, "root-only/ cannot be listed: one error, not a failure")
            #expect(summary?.first?["entries"] as? Int == 25, "home, Music, Album, 20 tracks, notes.txt, root-only")
            // Which path could not be read, not only how many: the JSON lists it with its syscall and errno.
            let unreadable = summary?.first?["unreadable"] as? [[String: Any]]
            #expect(unreadable?.count == 1)
            #expect(unreadable?.first?["path"] as? String == fixture.path("root-only"), "\(first.stdout)")
            #expect(unreadable?.first?["errno"] as? Int == Int(EACCES))
            #expect((unreadable?.first?["syscall"] as? String)?.isEmpty == false)

            #expect(try Unprivileged.run(["mv", fixture.path("Music/Album"), fixture.path("Album (live)")]).status == 0)
            let rescan = try run(["scan", fixture.root, "-o", catalog])
            #expect(rescan.status == 0)
            // The text summary names it on stderr.
            #expect(rescan.stderr.contains("cannot read \(fixture.path("root-only")): "), "\(rescan.stderr)")
            #expect(rescan.stderr.contains("(errno 13)"), "\(rescan.stderr)")
            let diff = try run(["diff", catalog])
            #expect(diff.stdout == "moved \(fixture.path("Music/Album")) -> \(fixture.path("Album (live)"))\n", "\(diff.stdout)\(diff.stderr)")

            let find = try run(["find", catalog, "track-1?.ogg", "-0"])
            #expect(find.status == 0)
            #expect(find.stdout.split(separator: "\0").count == 10)

            let page = volume.path("home.html")
            let export = try run(["export", catalog, "--html", page])
            #expect(export.status == 0, "\(export.stderr)")
            let html = try String(contentsOfFile: page, encoding: .utf8)
            #expect(html.contains("Album (live)") && html.contains("Content-Security-Policy"))
            var status = stat()
            #expect(stat(page, &status) == 0 && status.st_uid == 65534, "written by the user who ran it")
        }
    }
}

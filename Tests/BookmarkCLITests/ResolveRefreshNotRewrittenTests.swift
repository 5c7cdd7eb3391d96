// SPDX-License-Identifier: Apache-2.0
// `bookmark resolve --refresh` of a stale SOURCE that cannot be rewritten: the file found is still
// printed (it printed nothing and failed, and put SOURCE's own path in `lastKnownPath`).
import Foundation
import Testing
import VolumeFixtures

@Suite("bookmark resolve --refresh: a SOURCE that cannot be rewritten")
struct ResolveRefreshNotRewrittenTests {
    typealias Object = [String: Any]

    /// A work folder (traversable by uid 65534) holding `files/f.txt`, its bookmark
    /// `real.bookmark`, and the file renamed to `files/g.txt` (so the bookmark is stale).
    static func staleBookmark(_ body: (_ work: String, _ bookmark: String, _ now: String) throws -> Void) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-kept-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work + "/files", withIntermediateDirectories: true)
        try Shell.check(["chmod", "0755", work, work + "/files"])
        #expect(FileManager.default.createFile(atPath: work + "/files/f.txt", contents: Data([1, 2, 3])))
        let made = try BookmarkTool.run(["make", work + "/files/f.txt", "-o", work + "/real.bookmark"])
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.moveItem(atPath: work + "/files/f.txt", toPath: work + "/files/g.txt")
        try body(work, work + "/real.bookmark", work + "/files/g.txt")
    }

    /// Checks one resolution record: found at `now`, not refreshed, and why; SOURCE's path nowhere
    /// as a last known path.
    static func expectKept(_ record: Object?, now: String, why: String) {
        #expect(record?["path"] as? String == now)
        #expect(record?["stale"] as? Bool == true)
        #expect(record?["refreshed"] as? Bool == false)
        #expect((record?["notRefreshed"] as? String)?.contains(why) == true, "\(String(describing: record))")
        #expect(record?["lastKnownPath"] == nil)
        #expect(record?["error"] == nil)
    }

    @Test("a symlinked SOURCE: the path is printed, exit 0, one message; JSON says refreshed false and why; the link and its target are left alone")
    func symlinkedSource() throws {
        try Self.staleBookmark { work, bookmark, now in
            let link = work + "/link.bm"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.bookmark")
            let before = try Data(contentsOf: URL(fileURLWithPath: bookmark))

            let plain = try BookmarkTool.run(["resolve", "--refresh", link])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout == now + "\n")
            #expect(plain.stderr.contains("\(link): not refreshed"), "\(plain.stderr)")
            #expect(plain.stderr.contains("symbolic link"), "\(plain.stderr)")
            #expect(plain.stderr.split(separator: "\n").count == 1, "one message: \(plain.stderr)")

            let json = try BookmarkTool.run(["resolve", "--refresh", "--json", link])
            #expect(json.status == 0, "\(json.stderr)")
            Self.expectKept(try BookmarkTool.json(json) as? Object, now: now, why: "symbolic link")
            #expect(!json.stdout.contains("link.bm"), "SOURCE's path is not the bookmarked file's: \(json.stdout)")

            // --strict: it stays stale, so 10, as for any stale bookmark.
            #expect(try BookmarkTool.run(["resolve", "--refresh", "--strict", link]).status == 10)

            // In a batch (with a SOURCE that can be rewritten): both printed, in order, exit 0.
            let second = work + "/second.bookmark"
            try FileManager.default.copyItem(atPath: bookmark, toPath: second)
            let batch = try BookmarkTool.run(["resolve", "--refresh", "--json", link, second])
            #expect(batch.status == 0, "\(batch.stderr)")
            let records = batch.stdout.split(separator: "\n").map {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? Object
            }
            #expect(records.count == 2)
            Self.expectKept(records.first ?? nil, now: now, why: "symbolic link")
            #expect(records.first??["exitStatus"] as? Int == 0)
            #expect(records.last??["refreshed"] as? Bool == true)
            #expect(records.last??["notRefreshed"] == nil)

            #expect(try Data(contentsOf: URL(fileURLWithPath: bookmark)) == before, "never written through the link")
            let kind = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
            #expect(kind == .typeSymbolicLink)
        }
    }

    @Test("a SOURCE in a folder the user may not write (uid 65534): the path is printed, exit 0, stderr says why; alone and in a batch",
          .requiresUnprivilegedUser)
    func readOnlyFolder() throws {
        try Self.staleBookmark { work, bookmark, now in
            let folder = work + "/ro"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let ledger = folder + "/ledger.bookmark"
            try FileManager.default.copyItem(atPath: bookmark, toPath: ledger)
            try Shell.check(["chmod", "0444", ledger])
            try Shell.check(["chmod", "0555", folder])
            let before = try Data(contentsOf: URL(fileURLWithPath: ledger))

            let plain = try BookmarkTool.runUnprivileged(["resolve", "--refresh", ledger])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout == now + "\n")
            #expect(plain.stderr.contains("\(ledger): not refreshed"), "\(plain.stderr)")
            #expect(plain.stderr.contains("Permission denied"), "\(plain.stderr)")
            #expect(!plain.stderr.contains("last known path"), "\(plain.stderr)")

            let json = try BookmarkTool.runUnprivileged(["resolve", "--refresh", "--json", ledger])
            #expect(json.status == 0, "\(json.stderr)")
            Self.expectKept(try BookmarkTool.json(json) as? Object, now: now, why: "Permission denied")

            // A batch: records held back and folders synced as usual; the unwritable one is kept.
            let batch = try BookmarkTool.runUnprivileged(["resolve", "--refresh", "--json", ledger, ledger])
            #expect(batch.status == 0, "\(batch.stderr)")
            let records = batch.stdout.split(separator: "\n").map {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? Object
            }
            #expect(records.count == 2)
            for record in records { Self.expectKept(record, now: now, why: "Permission denied") }

            #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == before)
            // `bookmark refresh`, whose purpose is the rewrite, still fails.
            #expect(try BookmarkTool.runUnprivileged(["refresh", ledger]).status == 13)
        }
    }
}

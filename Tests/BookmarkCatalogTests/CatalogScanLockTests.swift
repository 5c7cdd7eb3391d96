// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Synchronization
import Testing
import VolumeFixtures

@testable import BookmarkCatalog

/// Two scans of the same root into one catalog at once: the second waits for the first
/// (`CatalogScanLock`), then re-scans. Before, it took the running scan for a killed one, resumed
/// it, and both inserted the same entries.
@Suite("Catalog scans at once: one at a time", .serialized)
struct CatalogScanLockTests {
    /// 20 folders of 1,000 empty files: a first scan long enough (well over the 100 ms before its
    /// first progress report, in a debug build) for a second to start while it runs.
    private func makeTree(_ fixture: CatalogFixture) throws {
        try fixture.directory("")
        try Shell.check([
            "sh", "-c",
            "cd '\(fixture.root)' && for d in $(seq 1 20); do mkdir d$d; (cd d$d && seq 1 1000 | sed 's/^/f/' | xargs touch); done",
        ])
    }

    /// Live rows, distinct live inodes, and how many `find` sees.
    private func counts(_ catalogPath: String, _ fixture: CatalogFixture) throws -> (rows: Int, inodes: Int, onDisk: Int) {
        let (rows, inodes) = try DatabaseQueue(path: catalogPath).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE deleted_in IS NULL") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(DISTINCT inode) FROM entry WHERE deleted_in IS NULL") ?? -1
            )
        }
        let onDisk = try Shell.run(["find", fixture.root]).stdout.split(separator: "\n").count
        return (rows, inodes, onDisk)
    }

    @Test("two threads scan one root into one catalog at once: each entry once, the later scan a re-scan with no changes")
    func twoThreads() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-lock")
        defer { cleanUp() }
        try makeTree(fixture)
        let path = folder + "/two.catalog"
        let running = DispatchSemaphore(value: 0)
        let firstDone = Mutex(false)
        let summaries = Mutex<[String: ScanSummary]>([:])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        func start(_ label: String, progress: (@Sendable (ScanProgress) -> Void)?) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let summary = try Catalog(path: path).scan(root: fixture.root, options: ScanOptions(batchSize: 500), progress: progress)
                    summaries.withLock { $0[label] = summary }
                } catch {
                    failures.withLock { $0.append("\(label): \(error)") }
                }
                if label == "first" { firstDone.withLock { $0 = true } }
            }
        }
        start("first") { _ in running.signal() }
        running.wait()
        let overlapped = !firstDone.withLock { $0 }
        start("second", progress: nil)
        group.wait()
        #expect(overlapped, "the second scan started while the first ran")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let first = try #require(summaries.withLock { $0["first"] })
        let second = try #require(summaries.withLock { $0["second"] })
        #expect(!first.resumed && !first.isRescan)
        #expect(!second.resumed, "the second scan did not take the running one for a killed one")
        #expect(second.isRescan && second.scanID != first.scanID)
        #expect(second.added == 0 && second.deleted == 0 && second.moved == 0 && second.modified == 0)
        let (rows, inodes, onDisk) = try counts(path, fixture)
        #expect(rows == inodes && rows == onDisk, "live rows \(rows), distinct inodes \(inodes), on disk \(onDisk)")
        let third = try Catalog(path: path).scan(root: fixture.root)
        #expect(third.added == 0 && third.deleted == 0 && third.moved == 0 && third.modified == 0)
    }

    @Test("two `bookmark catalog scan` processes of one root at once: each entry once; the later one waits, then re-scans")
    func twoProcesses() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-lock")
        defer { cleanUp() }
        try makeTree(fixture)
        let path = folder + "/two.catalog"
        let first = Process()
        first.executableURL = URL(fileURLWithPath: try CatalogCLI.binary())
        first.arguments = ["catalog", "scan", fixture.root, "-o", path, "--batch-size", "500", "--json"]
        let firstOutput = Pipe()
        first.standardOutput = firstOutput
        try first.run()
        // Once the first has committed a batch, and before it has finished.
        let deadline = Date().addingTimeInterval(60)
        var midway = false
        while first.isRunning, Date() < deadline {
            let state: Row?? = try? DatabaseQueue(path: path).read { db in
                try Row.fetchOne(db, sql: "SELECT entries, finished FROM scan ORDER BY id DESC LIMIT 1")
            }
            if let found = state, let state = found, (state["entries"] as Int? ?? 0) > 0, (state["finished"] as Double?) == nil {
                midway = true
                break
            }
            usleep(2_000)
        }
        #expect(midway, "the second scan started while the first ran")
        let second = try CatalogCLI.run(["scan", fixture.root, "-o", path, "--json"])
        let firstJSON = String(decoding: firstOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0 && second.status == 0, "\(second.stderr)")
        func summary(_ text: String) -> [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]])?.first ?? [:]
        }
        let (one, two) = (summary(firstJSON), summary(second.stdout))
        #expect(one["resumed"] as? Bool == false && one["rescan"] as? Bool == false && one["scanID"] as? Int == 1, "\(firstJSON)")
        #expect(two["resumed"] as? Bool == false && two["rescan"] as? Bool == true && two["scanID"] as? Int == 2, "\(second.stdout)")
        #expect(two["added"] as? Int == 0 && two["deleted"] as? Int == 0 && two["moved"] as? Int == 0, "\(second.stdout)")
        let (rows, inodes, onDisk) = try counts(path, fixture)
        #expect(rows == inodes && rows == onDisk, "live rows \(rows), distinct inodes \(inodes), on disk \(onDisk)")
        // The lock file is left out of a scan of the folder that holds it.
        #expect(FileManager.default.fileExists(atPath: path + "-lock"))
    }
}

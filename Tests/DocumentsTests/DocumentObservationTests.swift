// SPDX-License-Identifier: Apache-2.0
@testable import Documents
import Foundation
import Synchronization
import Testing
import VolumeFixtures

/// An open document told, without asking, that another process moved, edited or deleted it; never
/// about its own saves. Every observation of the process shares one inotify instance and thread.
@Suite("DocumentController observing its file", .serialized, .requiresRealVolumes)
struct DocumentObservationTests {
    /// What the handler was told.
    final class Reports: Sendable {
        let changes = Mutex<[ExternalChange]>([])
        var all: [ExternalChange] { changes.withLock { $0 } }
    }

    /// Waits up to 5 s for `count` reports.
    func wait(for count: Int, in reports: Reports) -> [ExternalChange] {
        for _ in 0..<500 {
            let now = reports.all
            if now.count >= count { return now }
            usleep(10_000)
        }
        return reports.all
    }

    @Test("moved, then edited, then saved by us (silent), then deleted: each reported once, in order", arguments: saveFileSystems)
    func reports(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            _ = try DocumentController(
                creating: NotesDocument(notes: ["a.txt": "alpha"]), at: fixture.url("Week.notes"), contentType: NotesDocument.notesType)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            let reports = Reports()
            let observation = try controller.observeExternalChanges { change in reports.changes.withLock { $0.append(change) } }
            defer { observation.cancel() }

            // Another process's rename (through the shell, so it is not this process).
            try Shell.check(["mv", fixture.path("Week.notes"), fixture.path("Week 12.notes")])
            let moved = URL(fileURLWithPath: fixture.path("Week 12.notes"), isDirectory: true)
            #expect(wait(for: 1, in: reports) == [.moved(to: moved)])
            #expect(controller.fileURL == moved)

            try Shell.check(["sh", "-c", "echo edited > '\(fixture.path("Week 12.notes/a.txt"))'"])
            #expect(wait(for: 2, in: reports).last == .modified(moved))

            // Our own save after a revert is not reported.
            try controller.revert()
            controller.document.edit("a.txt", "ours")
            try controller.save()
            usleep(500_000)
            #expect(reports.all.count == 2, "\(reports.all)")

            try Shell.check(["rm", "-r", fixture.path("Week 12.notes")])
            #expect(wait(for: 3, in: reports).last == .deleted(lastKnown: moved))
        }
    }

    /// The inotify instances this process holds (`/proc/self/fd` links to `anon_inode:inotify`).
    func inotifyInstances() -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify" }.count
    }

    /// Waits up to 5 s for `condition`.
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test("200 documents observed at once share one inotify instance (the per-user limit is 128); each is told only of its own change; all cancelled, the instance goes")
    func manyDocuments() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            let before = inotifyInstances()
            var controllers: [DocumentController<NotesDocument>] = []
            var reports: [Reports] = []
            var observations: [DocumentObservation] = []
            for index in 0..<200 {
                // Ten folders of twenty: documents in one folder share its watch.
                let url = fixture.url("f\(index % 10)/Doc \(index).notes")
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                _ = try DocumentController(creating: NotesDocument(notes: ["a.txt": "\(index)"]), at: url, contentType: NotesDocument.notesType)
                let controller = try DocumentController<NotesDocument>(contentsOf: url)
                let report = Reports()
                observations.append(try controller.observeExternalChanges { change in report.changes.withLock { $0.append(change) } })
                controllers.append(controller)
                reports.append(report)
            }
            #expect(inotifyInstances() == before + 1)
            let usage = DocumentWatcher.shared.usage
            #expect(usage.instances == 1 && usage.observations == 200)
            #expect(usage.watches == 210, "200 documents and 10 shared folders: \(usage)")

            try Shell.check(["mv", fixture.path("f7/Doc 147.notes"), fixture.path("f7/Doc 147 renamed.notes")])
            let moved = URL(fileURLWithPath: fixture.path("f7/Doc 147 renamed.notes"), isDirectory: true)
            #expect(wait(for: 1, in: reports[147]) == [.moved(to: moved)])
            #expect(controllers[147].fileURL == moved)
            usleep(300_000)
            #expect(reports.enumerated().allSatisfy { $0.offset == 147 || $0.element.all.isEmpty }, "only the moved one is told")

            for observation in observations { observation.cancel() }
            #expect(DocumentWatcher.shared.usage.observations == 0)
            #expect(eventually { inotifyInstances() == before }, "the instance is closed once nothing is observed")
        }
    }

    @Test("two documents in one folder: cancelling one keeps the folder watched for the other; a cancelled one is never told again")
    func sharedFolderWatch() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            var controllers: [DocumentController<NotesDocument>] = []
            for name in ["A.notes", "B.notes"] {
                _ = try DocumentController(creating: NotesDocument(notes: ["a.txt": name]), at: fixture.url(name), contentType: NotesDocument.notesType)
                controllers.append(try DocumentController<NotesDocument>(contentsOf: fixture.url(name)))
            }
            let a = Reports()
            let b = Reports()
            let observeA = try controllers[0].observeExternalChanges { change in a.changes.withLock { $0.append(change) } }
            let observeB = try controllers[1].observeExternalChanges { change in b.changes.withLock { $0.append(change) } }
            #expect(DocumentWatcher.shared.usage.watches == 3, "A, B and their folder once")
            observeA.cancel()
            #expect(DocumentWatcher.shared.usage.watches == 2, "B and the folder it still needs")
            try Shell.check(["mv", fixture.path("A.notes"), fixture.path("A2.notes")])
            try Shell.check(["mv", fixture.path("B.notes"), fixture.path("B2.notes")])
            #expect(wait(for: 1, in: b) == [.moved(to: URL(fileURLWithPath: fixture.path("B2.notes"), isDirectory: true))])
            usleep(300_000)
            #expect(a.all.isEmpty, "cancelled before the move: \(a.all)")
            observeB.cancel()
            #expect(DocumentWatcher.shared.usage.watches == 0)
        }
    }

    @Test("a handler may cancel its own observation (no deadlock), and a new observation after that works")
    func cancelFromHandler() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            _ = try DocumentController(creating: NotesDocument(notes: ["a.txt": "a"]), at: fixture.url("A.notes"), contentType: NotesDocument.notesType)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("A.notes"))
            let reports = Reports()
            let holder = Mutex<DocumentObservation?>(nil)
            let observation = try controller.observeExternalChanges { change in
                reports.changes.withLock { $0.append(change) }
                holder.withLock { $0 }?.cancel()
            }
            holder.withLock { $0 = observation }
            try Shell.check(["mv", fixture.path("A.notes"), fixture.path("A2.notes")])
            #expect(wait(for: 1, in: reports).count == 1)
            #expect(eventually { DocumentWatcher.shared.usage.observations == 0 })
            try Shell.check(["mv", fixture.path("A2.notes"), fixture.path("A3.notes")])
            usleep(300_000)
            #expect(reports.all.count == 1, "told again after cancelling itself: \(reports.all)")
            // Observing again starts a new instance and thread.
            let again = Reports()
            let second = try controller.observeExternalChanges { change in again.changes.withLock { $0.append(change) } }
            defer { second.cancel() }
            try Shell.check(["mv", fixture.path("A3.notes"), fixture.path("A4.notes")])
            #expect(wait(for: 1, in: again).last == .moved(to: URL(fileURLWithPath: fixture.path("A4.notes"), isDirectory: true)))
        }
    }
}

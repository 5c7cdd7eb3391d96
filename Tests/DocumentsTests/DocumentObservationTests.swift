// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Synchronization
import Testing
import VolumeFixtures

/// An open document told, without asking, that another process moved, edited or deleted it; never
/// about its own saves.
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
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import Foundation
import SecureFiles
import Synchronization
import SystemPackage
import Testing
import VolumeFixtures

/// A library file's stale bookmarks rewritten in place (`Bookmark.refreshAll(storedIn:)`), on a
/// real volume, with the library of ``StoredBatchTests`` (moves near and far, deletions, atomic
/// saves).
@Suite("Refreshing a library file", .serialized, .requiresRealVolumes)
struct StoredRefreshTests {
    /// The records of a library file, split by the lengths their headers give.
    static func records(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var at = 0
        while at + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[at + 4 + $1]) << (8 * $1) }
            guard length >= 8, at + length <= bytes.count else { break }
            out.append(Array(bytes[at..<at + length]))
            at += length
        }
        return out
    }

    static func contents(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// What another writer does to the library: `bytes` appended (outside the library's seam).
    static func append(_ bytes: [UInt8], to path: String) {
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data(bytes))
        handle.closeFile()
    }

    @Test("only the stale bookmarks are rewritten, fresh and signed; every other record stays byte for byte; the mode is kept")
    func refreshesStaleOnly() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (_, data, file) = try StoredBatchTests.library(on: volume, folders: 4, files: 120)
            try Shell.check(["chmod", "0640", file])
            let before = try Bookmark.resolveAll(storedIn: FilePath(file))
            let stale = before.indices.filter { (try? before[$0].get())?.isStale == true }
            try #require(stale.count > 40, "the library has moved files")
            let key = SigningKey(bytes: (0..<32).map { UInt8($0) })

            let refresh = try Bookmark.refreshAll(storedIn: FilePath(file), signingKey: key)
            #expect(refresh.refreshed == stale)
            #expect(refresh.notRefreshed.isEmpty)
            #expect(refresh.results.map(StoredBatchTests.Outcome.init) == before.map(StoredBatchTests.Outcome.init))
            // Printed for a log: a summary, and one line per resolution (not every field's bytes).
            let resolved = before.filter { (try? $0.get()) != nil }.count
            #expect(
                refresh.description
                    == "\(data.count) bookmarks: \(resolved) resolved, \(data.count - resolved) failed; \(stale.count) rewritten")
            let first = try before[stale[0]].get()
            let changes = Change.allCases.filter(first.changes.contains).map(\.rawValue).joined(separator: ", ")
            #expect(first.description == "\(first.path.string) (matched by \(first.matchedBy.rawValue); stale: \(changes))")

            let records = Self.records(try Self.contents(file))
            try #require(records.count == data.count)
            for (index, record) in records.enumerated() {
                if stale.contains(index) {
                    let fresh = try Bookmark(data: record)
                    let resolution = try fresh.resolve()
                    #expect(!resolution.isStale, "record \(index): \(resolution.changes)")
                    #expect(resolution.path == (try before[index].get()).path)
                    _ = try key.verify(record)
                } else {
                    #expect(record == data[index], "record \(index) was not stale and must not change")
                }
            }
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o640)

            // Nothing is stale now; a second refresh does not replace the file.
            let inode = try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int
            let again = try Bookmark.refreshAll(storedIn: FilePath(file))
            #expect(!again.rewritten)
            #expect(again.results.allSatisfy { (try? $0.get())?.isStale != true })
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int == inode)
        }
    }

    @Test("a library that another writer appends to while it is refreshed is left as that writer left it")
    func concurrentAppendIsKept() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (tree, _, file) = try StoredBatchTests.library(on: volume, folders: 2, files: 60)
            try tree.file("late.txt")
            let late = try Bookmark.create(for: FilePath(tree.path("late.txt"))).data()
            let original = try Self.contents(file)
            // The progress callback runs during the batch: the other writer appends there, once.
            let appended = Mutex(false)
            do throws(BookmarkError) {
                _ = try Bookmark.refreshAll(storedIn: FilePath(file)) { _ in
                    let first = appended.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { Self.append(late, to: file) }
                }
                Issue.record("a library changed while it was refreshed was rewritten")
            } catch {
                #expect(error.code == .fileSystem)
                #expect(error.message.contains("changed while"), "\(error.message)")
            }
            #expect(try Self.contents(file) == original + late, "the other writer's record is kept")
        }
    }

    /// Runs `change` once, at the first `write` through the seam: the refresh's first write to
    /// the new file, after its last check before writing.
    final class ChangeAtFirstWrite: SyscallObserver, @unchecked Sendable {
        let change: @Sendable () -> Void
        let fired = Atomic<Bool>(false)

        init(change: @escaping @Sendable () -> Void) { self.change = change }

        func fault(for call: SyscallCall) -> Errno? {
            if call.name == "write", !fired.exchange(true, ordering: .relaxed) { change() }
            return nil
        }

        func record(_ call: SyscallCall, outcome: SyscallOutcome) {}
    }

    @Test("a library that another writer appends to while its new file is written is left as that writer left it, and no temporary file stays")
    func appendDuringWriteIsKept() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (tree, _, file) = try StoredBatchTests.library(on: volume, folders: 2, files: 60)
            try tree.file("late.txt")
            let late = try Bookmark.create(for: FilePath(tree.path("late.txt"))).data()
            let original = try Self.contents(file)
            let inode = try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int
            let folder = try FileManager.default.contentsOfDirectory(atPath: volume.path(""))
            let appender = ChangeAtFirstWrite { Self.append(late, to: file) }
            let outcome = SyscallSeam.$observer.withValue(appender) {
                Result { () throws(BookmarkError) in try Bookmark.refreshAll(storedIn: FilePath(file)) }
            }
            switch outcome {
            case .success: Issue.record("a library changed while its new file was written was replaced")
            case .failure(let error):
                #expect(error.code == .fileSystem)
                #expect(error.message.contains("changed while"), "\(error.message)")
            }
            let fired = appender.fired.load(ordering: .relaxed)
            #expect(fired, "the other writer ran during the write")
            #expect(try Self.contents(file) == original + late, "the other writer's record is kept")
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int == inode)
            #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path("")).sorted() == folder.sorted())
        }
    }

    @Test("a stale bookmark whose object is gone before its fresh data is made is reported and kept as it was")
    func vanishedBeforeRefresh() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("lib"))
            for name in ["a", "b"] { try tree.file("\(name).txt") }
            let file = volume.path("library.bookmarks")
            let library = try Bookmark.create(for: FilePath(tree.path("a.txt"))).data()
                + (try Bookmark.create(for: FilePath(tree.path("b.txt"))).data())
            try Data(library).write(to: URL(fileURLWithPath: file))
            try tree.move("a.txt", "a-renamed.txt")
            // Once the batch has found it (stale), the file goes: its fresh data cannot be made.
            let removed = Mutex(false)
            let gone = tree.path("a-renamed.txt")
            let refresh = try Bookmark.refreshAll(storedIn: FilePath(file)) { _ in
                let first = removed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { try? FileManager.default.removeItem(atPath: gone) }
            }
            #expect((try refresh.results[0].get()).isStale)
            #expect(refresh.refreshed.isEmpty)
            #expect(refresh.notRefreshed[0]?.code == .notFound, "\(refresh.notRefreshed)")
            #expect(!refresh.rewritten)
            #expect(try Self.contents(file) == library, "nothing refreshed, nothing written")
        }
    }

    @Test("a symlink, a directory or a broken library is refused, and nothing is written")
    func refusals() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (tree, _, file) = try StoredBatchTests.library(on: volume, folders: 1, files: 20)
            let original = try Self.contents(file)
            let link = volume.path("link.bookmarks")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
            let cut = volume.path("cut.bookmarks")
            try Data(original.prefix(original.count - 3)).write(to: URL(fileURLWithPath: cut))
            for (path, code) in [(link, BookmarkError.Code.fileSystem), (tree.root, .fileSystem), (cut, .corruptData)] {
                do throws(BookmarkError) {
                    _ = try Bookmark.refreshAll(storedIn: FilePath(path))
                    Issue.record("\(path) was refreshed")
                } catch {
                    #expect(error.code == code, "\(path): \(error)")
                }
            }
            #expect(try Self.contents(file) == original)
            #expect(try Self.contents(cut) == Array(original.prefix(original.count - 3)))
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import SecureFiles
import Foundation
import Synchronization
import SystemPackage
import Testing
import VolumeFixtures

/// A stored library's shared walk, split over threads by subtree: deep trees (below the levels
/// read on the calling thread, so the parts really run), hard links, and the shared budget.
@Suite("A library's walk split over threads", .serialized, .requiresRealVolumes)
struct SplitWalkTests {
    /// `lib/a*/b*/c*/f*`: 4 × 4 × 3 × `files` files, four levels under the mount point, so the
    /// walk's parts (below the third level) hold every file. A tenth of them move to other deep
    /// folders, a hundredth are deleted, and one moved file gets a second name elsewhere.
    static func deepLibrary(on volume: LoopVolume, files: Int) throws -> (tree: Tree, data: [[UInt8]], file: String, moved: [Int: String]) {
        let tree = Tree(root: volume.path("lib"))
        try tree.dir("")
        try tree.shell(
            "for a in 0 1 2 3; do for b in 0 1 2 3; do for c in 0 1 2; do mkdir -p a$a/b$b/c$c; "
                + "(cd a$a/b$b/c$c && for f in $(seq 0 \(files - 1)); do : > f$f; done); done; done; done")
        var names: [String] = []
        for a in 0..<4 { for b in 0..<4 { for c in 0..<3 { for f in 0..<files { names.append("a\(a)/b\(b)/c\(c)/f\(f)") } } } }
        let data = try names.map { try Bookmark.create(for: FilePath(tree.path($0))).data() }
        let file = volume.directory.appendingPathComponent("deep.bookmarks").path
        _ = FileManager.default.createFile(atPath: file, contents: Data(data.joined()))
        var moved: [Int: String] = [:]
        for (index, name) in names.enumerated() {
            if index % 10 == 3 {
                // Into another subtree of another part: a3 ↔ a0 and so on.
                let target = "a\((index / 7) % 4)/b\((index / 3) % 4)/c\(index % 3)/moved-\(index)"
                try tree.move(name, target)
                moved[index] = tree.path(target)
            } else if index % 100 == 57 {
                try tree.remove(name)
            }
        }
        return (tree, data, file, moved)
    }

    /// Checks a batch whose walk may have run out of its budget: what it reports found is right,
    /// nothing unmoved is lost, and every failure is a moved or deleted file not found. Returns how
    /// many failures say the search ran out.
    static func checkBudgeted(_ results: [Result<Resolution, BookmarkError>], moved: [Int: String]) -> Int {
        var exhausted = 0
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let resolution):
                if let target = moved[index] {
                    #expect(resolution.path == FilePath(target), "#\(index)")
                } else {
                    #expect(resolution.matchedBy == .path, "#\(index)")
                }
            case .failure(let error):
                #expect(moved[index] != nil || index % 100 == 57, "#\(index): \(error)")
                #expect(error.code == .notFound, "#\(index): \(error)")
                if error.searchExhausted { exhausted += 1 }
            }
        }
        return exhausted
    }

    @Test("deep moves found by every part, the same results on 1, 2 and 5 threads as alone", arguments: [1, 2, 5])
    func deepMoves(threads: Int) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (tree, data, file, moved) = try Self.deepLibrary(on: volume, files: 40)
            // A hard link: the moved object has a second name in another part; it is found once.
            let linked = try #require(moved[13])
            try tree.shell("ln '\(linked)' a0/b0/c0/second-name")
            let options = ResolutionOptions(useHandles: false, batchThreads: threads)
            let walks = Mutex((count: 0, entries: 0))
            let stored = try Bookmark.resolveAll(storedIn: FilePath(file), options: options) { progress in
                guard progress.volume != nil else { return }
                walks.withLock { walks in
                    if progress.entriesWalked == 0 { walks.count += 1 }
                    walks.entries = max(walks.entries, progress.entriesWalked)
                }
            }
            #expect(stored.count == data.count)
            var found = 0
            for (index, result) in stored.enumerated() {
                switch result {
                case .success(let resolution):
                    if let target = moved[index] {
                        // Either name of the linked object is its place; which one a walk meets
                        // first depends on the order its parts ran in.
                        let names = index == 13 ? [target, tree.path("a0/b0/c0/second-name")] : [target]
                        #expect(names.contains(resolution.path.string), "#\(index)")
                        #expect(resolution.matchedBy == .search)
                        found += 1
                    } else {
                        #expect(index % 100 != 57 && resolution.matchedBy == .path, "#\(index)")
                    }
                case .failure(let error):
                    #expect(index % 100 == 57 && error.code == .notFound, "#\(index): \(error)")
                }
            }
            #expect(found == moved.count)
            // One walk for all the moved files, and it read the parts below the third level.
            let (walkCount, walkEntries) = walks.withLock { ($0.count, $0.entries) }
            let files = 4 * 4 * 3 * 40
            #expect(walkCount == 1)
            #expect(walkEntries > files / 2)
            let alone = data.map { bytes in
                StoredBatchTests.Outcome(Result { () throws(BookmarkError) in try Bookmark(data: bytes).resolve(options) })
            }
            let differences = zip(stored.map(StoredBatchTests.Outcome.init), alone).enumerated().filter { index, pair in
                // The linked object: the same inode, whichever name.
                index == 13 ? pair.0.inode != pair.1.inode : pair.0 != pair.1
            }
            #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3).map { "#\($0.0): stored \($0.1.0), alone \($0.1.1)" })")
        }
    }

    @Test("the parts share one budget: a small one ends them all; what they did not find takes the usual steps")
    func sharedBudget() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (_, data, file, moved) = try Self.deepLibrary(on: volume, files: 60)
            // About 2,950 entries under lib; one budget of 1,500 for all the parts (were each
            // part given its own, every part would finish its small subtree: the whole tree).
            let budget = SearchBudget(time: .seconds(60), entries: 1_500)
            let options = ResolutionOptions(budget: budget, useHandles: false, batchThreads: 2)
            let entries = Mutex(0)
            let stored = try Bookmark.resolveAll(storedIn: FilePath(file), options: options) { progress in
                if progress.volume != nil { entries.withLock { $0 = max($0, progress.entriesWalked) } }
            }
            #expect(stored.count == data.count)
            // Each part counts a directory's entries when it has read it (at most 60 here), and
            // no part starts once the budget is spent, so the walk ends within one directory per
            // thread of the budget.
            let walked: Int = entries.withLock { $0 }
            #expect(walked >= 1_500 && walked <= 1_500 + 2 * 64, "walked \(walked)")
            // Whatever is reported found is right; nothing unmoved is lost.
            _ = Self.checkBudgeted(stored, moved: moved)
        }
    }

    @Test("decoded bookmarks (resolveAll(_:)) share the split walk: the same results on 1 and 2 threads as alone", arguments: [1, 2])
    func decodedBatch(threads: Int) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (_, data, _, moved) = try Self.deepLibrary(on: volume, files: 40)
            let bookmarks = try data.map { try Bookmark(data: $0) }
            let options = ResolutionOptions(useHandles: false, batchThreads: threads)
            let walks = Mutex((count: 0, entries: 0))
            let batch = Bookmark.resolveAll(bookmarks, options: options) { progress in
                guard progress.volume != nil else { return }
                walks.withLock { walks in
                    if progress.entriesWalked == 0 { walks.count += 1 }
                    walks.entries = max(walks.entries, progress.entriesWalked)
                }
            }
            #expect(batch.count == bookmarks.count)
            let alone = bookmarks.map { bookmark in
                StoredBatchTests.Outcome(Result { () throws(BookmarkError) in try bookmark.resolve(options) })
            }
            let differences = zip(batch.map(StoredBatchTests.Outcome.init), alone).enumerated().filter { $0.1.0 != $0.1.1 }
            #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3).map { "#\($0.0): batch \($0.1.0), alone \($0.1.1)" })")
            let foundMoved = moved.filter { index, target in (try? batch[index].get())?.path == FilePath(target) }
            #expect(foundMoved.count == moved.count)
            let (walkCount, walkEntries) = walks.withLock { ($0.count, $0.entries) }
            #expect(walkCount == 1)
            #expect(walkEntries > 4 * 4 * 3 * 40 / 2)
        }
    }

    @Test("decoded bookmarks: one small budget ends every part; the moved ones not found say the search ran out")
    func decodedBatchBudget() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (_, data, _, moved) = try Self.deepLibrary(on: volume, files: 60)
            let bookmarks = try data.map { try Bookmark(data: $0) }
            let budget = SearchBudget(time: .seconds(60), entries: 1_500)
            let options = ResolutionOptions(budget: budget, useHandles: false, batchThreads: 2)
            let entries = Mutex(0)
            let batch = Bookmark.resolveAll(bookmarks, options: options) { progress in
                if progress.volume != nil { entries.withLock { $0 = max($0, progress.entriesWalked) } }
            }
            let walked: Int = entries.withLock { $0 }
            #expect(walked >= 1_500 && walked <= 1_500 + 2 * 64, "walked \(walked)")
            // The walk stopped at about half the tree: some moved files were not reached.
            #expect(Self.checkBudgeted(batch, moved: moved) > 0)
        }
    }

    @Test("a wide tree: the parts open their directories one at a time; an audit log sees every thread's calls")
    func wideTree() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            // 31 folders of 100 folders, one file in each: the third level has 3,100 directories.
            let tree = Tree(root: volume.path("lib"))
            try tree.dir("")
            try tree.shell("for w in $(seq 0 30); do for x in $(seq 0 99); do mkdir -p w$w/x$x && : > w$w/x$x/f; done; done")
            var names: [String] = []
            for w in 0..<31 { for x in 0..<100 { names.append("w\(w)/x\(x)/f") } }
            let data = try names.map { try Bookmark.create(for: FilePath(tree.path($0))).data() }
            let file = volume.directory.appendingPathComponent("wide.bookmarks").path
            _ = FileManager.default.createFile(atPath: file, contents: Data(data.joined()))
            var moved: [Int: String] = [:]
            for index in stride(from: 7, to: names.count, by: 10) {
                let target = "w\((index * 7) % 31)/x\((index * 3) % 100)/moved-\(index)"
                try tree.move(names[index], target)
                moved[index] = tree.path(target)
            }
            let options = ResolutionOptions(useHandles: false, batchThreads: 2)
            let log = AuditLog(level: .calls)
            let stored = try SyscallSeam.$observer.withValue(log) {
                try Bookmark.resolveAll(storedIn: FilePath(file), options: options)
            }
            for (index, result) in stored.enumerated() {
                let path = try result.get().path.string
                #expect(path == moved[index] ?? tree.path(names[index]), "#\(index)")
            }
            // Every unmoved check is a statx, on whichever thread made it.
            let statx = log.calls.filter { $0.name == "statx" }.count
            #expect(statx >= names.count, "\(statx) statx calls logged for \(names.count) bookmarks")
            #expect(log.calls.filter { $0.name == "getdents64" }.count > 3_100, "the parts' reads were logged")
            // The most descriptors the batch held open at once.
            var open = Set<CInt>()
            var most = 0
            for effect in log.effects {
                switch (effect.call.name, effect.outcome) {
                case ("openat", .returned(let fd)), ("openat2", .returned(let fd)), ("open_by_handle_at", .returned(let fd)):
                    open.insert(CInt(fd))
                    most = max(most, open.count)
                case ("close", _):
                    if let fd = effect.call.descriptor { open.remove(fd) }
                default: break
                }
            }
            #expect(most < 100, "\(most) descriptors open at once")
        }
    }
}

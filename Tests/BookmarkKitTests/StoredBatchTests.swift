// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

/// A library's launch: bookmark data stored back to back in one file, resolved in one batch
/// (`Bookmark.resolveAll(storedIn:)`, `resolveAll(data:)`), against the same bookmarks resolved one
/// at a time.
@Suite("Stored bookmark batches", .serialized, .requiresRealVolumes)
struct StoredBatchTests {
    /// What must agree between a batch result and a single resolution.
    struct Outcome: Equatable, CustomStringConvertible {
        var path: String?
        var matchedBy: MatchKind?
        var changes: Set<Change> = []
        var inode: UInt64?
        var error: BookmarkError.Code?

        init(_ result: Result<Resolution, BookmarkError>) {
            switch result {
            case .success(let resolution):
                path = resolution.path.string
                matchedBy = resolution.matchedBy
                changes = resolution.changes
                inode = resolution.fileID.inode
            case .failure(let failure):
                error = failure.code
            }
        }

        var description: String { "\(path ?? "-") \(matchedBy?.rawValue ?? "-") \(changes.map(\.rawValue).sorted()) \(error.map { "\($0)" } ?? "")" }
    }

    /// Makes `folders` × `files` files, bookmarks them, stores the data in one file, then moves a
    /// tenth (most within their folder, some far), deletes a hundredth and replaces two by atomic
    /// saves.
    static func library(on volume: LoopVolume, folders: Int, files: Int) throws -> (tree: Tree, data: [[UInt8]], file: String) {
        let tree = Tree(root: volume.path("lib"))
        try tree.dir("")
        try tree.shell(
            "mkdir -p far && for d in $(seq 0 \(folders - 1)); do mkdir -p d$d; (cd d$d && for f in $(seq 0 \(files - 1)); do : > f$f; done); done")
        var data: [[UInt8]] = []
        for d in 0..<folders {
            for f in 0..<files { data.append(try Bookmark.create(for: FilePath(tree.path("d\(d)/f\(f)"))).data()) }
        }
        let file = volume.directory.appendingPathComponent("library.bookmarks").path
        _ = FileManager.default.createFile(atPath: file, contents: Data(data.joined()))
        for d in 0..<folders {
            for f in 0..<files where f % 10 == 3 {
                try tree.move("d\(d)/f\(f)", f % 100 == 3 ? "far/\(d)-\(f)" : "d\(d)/moved-\(f)")
            }
            for f in 0..<files where f % 100 == 57 { try tree.remove("d\(d)/f\(f)") }
        }
        // Atomic saves: a new file renamed over the old one.
        for f in [1, 2] {
            try tree.file("d0/new-\(f)", "saved")
            try tree.move("d0/new-\(f)", "d0/f\(f)")
        }
        return (tree, data, file)
    }

    static let kinds: [FixtureFileSystem] = [.ext4, .xfs, .btrfs]

    @Test("a stored library resolves as each bookmark does alone: unmoved, moved, deleted, replaced", arguments: kinds)
    func sameAsOneAtATime(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            // 4,200 bookmarks: more than the 4,096 that turn the threaded check on, and a file of
            // several read chunks.
            let (tree, data, file) = try Self.library(on: volume, folders: 3, files: 1400)
            for options in [ResolutionOptions(useHandles: false), ResolutionOptions()] {
                let singles = data.map { bytes in
                    Outcome(Result { () throws(BookmarkError) in try Bookmark(data: bytes).resolve(options) })
                }
                let stored = try Bookmark.resolveAll(storedIn: FilePath(file), options: options).map(Outcome.init)
                let given = Bookmark.resolveAll(data: data, options: options).map(Outcome.init)
                #expect(stored.count == data.count)
                #expect(given.count == data.count)
                let differences = zip(zip(singles, stored), given).enumerated().filter { $0.1.0.0 != $0.1.0.1 || $0.1.0.0 != $0.1.1 }
                #expect(differences.isEmpty, "first: \(differences.first.map { "#\($0.0): alone \($0.1.0.0), stored \($0.1.0.1), given \($0.1.1)" } ?? "")")
                // The cases are really there.
                #expect(singles[3].matchedBy == (options.useHandles ? .handle : .search) && singles[3].changes.contains(.name))
                #expect(singles[57].error == .notFound)
                #expect(singles[1].matchedBy == .replacedAtPath)
                #expect(singles[4].matchedBy == .path && singles[4].changes.isEmpty)
                #expect(stored[103].path == tree.path("far/0-103"))
            }
        }
    }

    @Test("one thread or several: the same results", arguments: [1, 2, 5])
    func threads(count: Int) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (_, data, file) = try Self.library(on: volume, folders: 2, files: 600)
            let options = ResolutionOptions(useHandles: false, batchThreads: count)
            let stored = try Bookmark.resolveAll(storedIn: FilePath(file), options: options).map(Outcome.init)
            let reference = data.map { bytes in
                Outcome(Result { () throws(BookmarkError) in try Bookmark(data: bytes).resolve(options) })
            }
            #expect(stored == reference)
        }
    }

    @Test(
        "objects reached through another mount of their volume (a bind mount over a folder): proved on that mount, as alone",
        arguments: [1, 2])
    func bindMountedFolder(threads: Int) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (tree, data, _) = try Self.library(on: volume, folders: 3, files: 40)
            // Folder d1 reached through a bind mount of itself: its objects are the recorded ones,
            // at their paths, but on another mount than the one the batch located the volume by
            // (and learned from d0's objects, in the same run of records).
            try tree.shell("mount --bind d1 d1")
            defer { _ = try? tree.shell("umount d1") }
            let options = ResolutionOptions(useHandles: false, batchThreads: threads)
            let batch = Bookmark.resolveAll(data: data, options: options)
            let alone = data.map { bytes in
                Result { () throws(BookmarkError) in try Bookmark(data: bytes).resolve(options) }
            }
            #expect(batch.map(Outcome.init) == alone.map(Outcome.init))
            // Decoded bookmarks take the batch's other path (the first steps, then one shared walk).
            let bookmarks = try data.map { bytes throws(BookmarkError) in try Bookmark(data: bytes) }
            #expect(Bookmark.resolveAll(bookmarks, options: options).map(Outcome.init) == alone.map(Outcome.init))
            let batchMounts = batch.map { try? $0.get().fileID.mountID }
            let aloneMounts = alone.map { try? $0.get().fileID.mountID }
            #expect(batchMounts == aloneMounts)
            // d0's f0 and d1's f0 (both unmoved) on two different mounts.
            let first = try #require(batchMounts[0])
            let bound = try #require(batchMounts[40])
            #expect(first != bound)
        }
    }

    @Test("a volume mounted elsewhere: paths re-rooted, the mount point reported changed, as alone")
    func remounted() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (_, data, _) = try Self.library(on: volume, folders: 1, files: 200)
            try volume.unmount()
            try volume.mount(at: volume.directory.appendingPathComponent("elsewhere"))
            let batch = Bookmark.resolveAll(data: data, options: ResolutionOptions(useHandles: false)).map(Outcome.init)
            let alone = data.map { bytes in
                Outcome(Result { () throws(BookmarkError) in try Bookmark(data: bytes).resolve(ResolutionOptions(useHandles: false)) })
            }
            #expect(batch == alone)
            #expect(batch[0].path == volume.path("lib/d0/f0"))
            #expect(batch[0].changes.contains(.volumeMountPoint))
        }
    }

    @Test("framing: a bad header, a cut record, an absurd length throw corruptData with the offset; an empty file is no bookmarks")
    func framing() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            try Tree(root: volume.path("")).file("a")
            let one = try Bookmark.create(for: FilePath(volume.path("a"))).data()
            let dir = volume.directory.path
            func write(_ name: String, _ bytes: [UInt8]) -> FilePath {
                _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes))
                return FilePath(dir + "/" + name)
            }
            var huge = one
            huge[4] = 0xFF; huge[5] = 0xFF; huge[6] = 0xFF; huge[7] = 0x7F
            let cases: [(String, [UInt8], Int)] = [
                ("garbage after one record", one + Array("not a bookmark at all".utf8), one.count),
                ("cut short", one + one.prefix(one.count - 1), one.count),
                ("a few stray bytes", one + [1, 2, 3], one.count),
                ("absurd length", one + huge, one.count),
            ]
            for (name, bytes, offset) in cases {
                do throws(BookmarkError) {
                    _ = try Bookmark.resolveAll(storedIn: write("case", bytes))
                    Issue.record("\(name): no error")
                } catch {
                    #expect(error.code == .corruptData, "\(name)")
                    #expect(error.message.contains("byte offset \(offset)"), "\(name): \(error.message)")
                }
            }
            #expect(try Bookmark.resolveAll(storedIn: write("empty", [])).isEmpty)
            #expect(try Bookmark.resolveAll(storedIn: write("two", one + one)).count == 2)
            do throws(BookmarkError) {
                _ = try Bookmark.resolveAll(storedIn: FilePath(dir + "/missing"))
                Issue.record("a missing file gave results")
            } catch {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test("a record that is framed but does not decode fails alone; its neighbours resolve")
    func corruptRecord() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path(""))
            try tree.file("a")
            try tree.file("b")
            let a = try Bookmark.create(for: FilePath(tree.path("a"))).data()
            let b = try Bookmark.create(for: FilePath(tree.path("b"))).data()
            var broken = a
            // The data section's first-TOC offset, pointed past the end.
            let header = Int(broken[12]) | Int(broken[13]) << 8
            broken[header] = 0xF0; broken[header + 1] = 0xFF
            let results = Bookmark.resolveAll(data: [a, broken, b])
            #expect((try? results[0].get())?.path.string == tree.path("a"))
            #expect((try? results[2].get())?.path.string == tree.path("b"))
            guard case .failure(let error) = results[1] else {
                Issue.record("a record with a broken TOC offset resolved")
                return
            }
            #expect(error.code == .corruptData)
        }
    }

    @Test("hostile bytes: 2,000 mutated records never trap, and any that resolves finds the file it was made for")
    func mutations() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path(""))
            try tree.file("target")
            try tree.file("other")
            let original = try Bookmark.create(for: FilePath(tree.path("target"))).data()
            var random = SplitMix(seed: 14)
            var records: [[UInt8]] = []
            for _ in 0..<2000 {
                var bytes = original
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    let at = Int(random.next() % UInt64(bytes.count))
                    bytes[at] = UInt8(truncatingIfNeeded: random.next())
                }
                records.append(bytes)
            }
            let results = Bookmark.resolveAll(data: records, options: ResolutionOptions(useHandles: false))
            #expect(results.count == records.count)
            var resolved = 0
            for result in results {
                if case .success(let resolution) = result {
                    #expect(resolution.path.string == tree.path("target"))
                    resolved += 1
                }
            }
            // Most mutations hit bytes resolution never reads; some must break it.
            #expect(resolved > 0 && resolved < records.count, "\(resolved) of \(records.count) resolved")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import Synchronization
import SystemPackage
import Testing
import VolumeFixtures

/// Many tasks resolving and creating at once while another volume is mounted and unmounted and
/// the ancestor cache is invalidated: every result right, nothing crashes. Run under
/// ThreadSanitizer by `Tools/sanitizers` (part of `Tools/test`), which fails on any data race.
@Suite("Concurrency stress", .serialized, .requiresRealVolumes)
struct ConcurrencyStressTests {
    @Test("8 tasks × 10,000 resolutions and creations, with a concurrent mount and unmount and cache invalidations")
    func stress() async throws {
        let volume = try LoopVolume(.ext4)
        defer { try? volume.destroy() }
        do {
            let tree = Tree(root: volume.path("t"))
            for index in 0..<8 { try tree.file("d\(index)/sub/doc\(index).txt", "\(index)") }
            let bookmarks = try (0..<8).map { try Bookmark.create(for: FilePath(tree.path("d\($0)/sub/doc\($0).txt"))) }
            let shared = try MountedVolumes()
            let other = try LoopVolume(.tmpfs, label: "churn")
            defer { try? other.destroy() }
            let state = StressState()
            // The churn: the other volume goes and comes back; the ancestor cache is cleared.
            let churn = Task.detached {
                var rounds = 0
                while !state.stop.load(ordering: .relaxed) {
                    try? other.unmount()
                    try? other.mount(at: other.directory.appendingPathComponent("mnt"))
                    Bookmark.clearAncestorCache()
                    rounds += 1
                }
                return rounds
            }
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let expected = FilePath(tree.path("d\(index)/sub/doc\(index).txt"))
                        for round in 0..<10_000 {
                            let volumes = round % 3 == 0 ? nil : shared
                            do {
                                let resolution = try bookmarks[index].resolve(volumes: volumes)
                                if resolution.path != expected || resolution.isStale {
                                    state.failures.withLock { $0.append("task \(index) round \(round): \(resolution.path)") }
                                }
                                if round % 100 == 0 {
                                    _ = try Bookmark.create(for: expected, volumes: volumes)
                                }
                            } catch {
                                state.failures.withLock { $0.append("task \(index) round \(round): \(error)") }
                            }
                        }
                    }
                }
            }
            state.stop.store(true, ordering: .relaxed)
            let rounds = await churn.value
            let found = state.failures.withLock { $0 }
            #expect(found.isEmpty, "\(found.prefix(5))")
            print("concurrency stress: 80,000 resolutions, 800 creations, \(rounds) unmount/mount/cache-clear rounds meanwhile")
        }
    }

    @Test("one new bookmark, its record not yet filled, read by 8 tasks at once: one record, one set of bytes")
    func sharedNewBookmark() async throws {
        let fixture = try LoopVolume(.ext4)
        defer { try? fixture.destroy() }
        do {
            let tree = Tree(root: fixture.path("t"))
            try tree.file("a/b/c/doc.txt", "shared")
            let path = FilePath(tree.path("a/b/c/doc.txt"))
            for _ in 0..<200 {
                Bookmark.clearAncestorCache()
                // New each round: its record is filled by whichever task reads it first.
                let created = try Bookmark.create(for: path)
                let outcomes = await withTaskGroup(of: (BookmarkRecord, [UInt8]?, FilePath?).self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            switch index % 4 {
                            case 0: return (created.record, nil, nil)
                            case 1: return (created.record, try? created.data(), nil)
                            case 2: return (created.record, nil, try? created.resolve().path)
                            default: return (created.record, try? created.data(), try? created.resolve().path)
                            }
                        }
                    }
                    var all: [(BookmarkRecord, [UInt8]?, FilePath?)] = []
                    for await outcome in group { all.append(outcome) }
                    return all
                }
                let bytes = try created.data()
                let decoded = try Bookmark(data: bytes).record
                #expect(outcomes.count == 8)
                #expect(outcomes.allSatisfy { $0.0 == decoded })
                #expect(outcomes.compactMap(\.1).allSatisfy { $0 == bytes })
                #expect(outcomes.compactMap(\.2).allSatisfy { $0 == path })
            }
        }
    }

    @Test("one bookmark resolved by 8 tasks while its file is renamed away and back: its memo never answers wrongly")
    func memoUnderRenames() async throws {
        let fixture = try LoopVolume(.ext4)
        defer { try? fixture.destroy() }
        do {
            let tree = Tree(root: fixture.path("t"))
            try tree.file("a/b/doc.txt", "memo")
            let here = FilePath(tree.path("a/b/doc.txt"))
            let away = FilePath(tree.path("a/b/doc-moved.txt"))
            let inode = try FileStatus(path: here).inode
            let bookmark = try Bookmark.create(for: here)
            #expect(try bookmark.resolve().matchedBy == .path)  // the memo is kept from here on
            let state = StressState()
            let churn = Task.detached {
                var rounds = 0
                while !state.stop.load(ordering: .relaxed) {
                    _ = rename(here.string, away.string)
                    _ = rename(away.string, here.string)
                    rounds += 1
                }
                return rounds
            }
            // Without handles, so a moved file is found by the search of its folder.
            let options = ResolutionOptions(useHandles: false)
            let counts = await withTaskGroup(of: (atPath: Int, moved: Int, missed: Int).self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var counts = (atPath: 0, moved: 0, missed: 0)
                        for round in 0..<500 {
                            do throws(BookmarkError) {
                                let resolution = try bookmark.resolve(options)
                                // At the recorded path (by the memo, the path step or a search that met
                                // it renamed back): not stale. At the other name: stale.
                                let right = resolution.fileID.inode == inode
                                    && (resolution.path == here ? !resolution.isStale : resolution.path == away && resolution.isStale)
                                if !right {
                                    state.failures.withLock {
                                        $0.append("task \(index) round \(round): \(resolution.path) by \(resolution.matchedBy)")
                                    }
                                }
                                if resolution.path == here { counts.atPath += 1 } else { counts.moved += 1 }
                            } catch {
                                // A search can miss a name renamed while it reads the folder; never a wrong answer.
                                if error.code != .notFound {
                                    state.failures.withLock { $0.append("task \(index) round \(round): \(error)") }
                                }
                                counts.missed += 1
                            }
                        }
                        return counts
                    }
                }
                var total = (atPath: 0, moved: 0, missed: 0)
                for await c in group {
                    total.atPath += c.atPath
                    total.moved += c.moved
                    total.missed += c.missed
                }
                return total
            }
            state.stop.store(true, ordering: .relaxed)
            let rounds = await churn.value
            let found = state.failures.withLock { $0 }
            #expect(found.isEmpty, "\(found.prefix(5))")
            print("memo under renames: \(counts.atPath) at the path, \(counts.moved) moved, \(counts.missed) missed, \(rounds) rename pairs meanwhile")
        }
    }
}

extension ConcurrencyStressTests {
    @Test("one file bookmarked by 8 tasks while its modification time flips: every creation's bytes are a whole write's")
    func writtenMemoUnderChanges() async throws {
        let fixture = try LoopVolume(.ext4)
        defer { try? fixture.destroy() }
        do {
            let tree = Tree(root: fixture.path("t"))
            try tree.file("a/b/doc.txt", "written")
            let path = tree.path("a/b/doc.txt")
            let state = StressState()
            // Two modification times in turn: the kept bytes go stale and come right again.
            let churn = Task.detached {
                var rounds = 0
                while !state.stop.load(ordering: .relaxed) {
                    let second = 1_000_000_000 + rounds % 2
                    var times = [timespec(tv_sec: second, tv_nsec: 0), timespec(tv_sec: second, tv_nsec: 0)]
                    _ = utimensat(AT_FDCWD, path, &times, 0)
                    rounds += 1
                }
                return rounds
            }
            let distinct = await withTaskGroup(of: Set<[UInt8]>.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var seen = Set<[UInt8]>()
                        for round in 0..<400 {
                            do throws(BookmarkError) {
                                let bookmark = try Bookmark.create(for: FilePath(path))
                                let bytes = try bookmark.data()
                                // The record's way, from the same creation: what the bytes must be.
                                let whole = try Bookmark(record: bookmark.record).data()
                                if bytes != whole {
                                    state.failures.withLock { $0.append("task \(index) round \(round): not a whole write's bytes") }
                                }
                                seen.insert(bytes)
                            } catch {
                                state.failures.withLock { $0.append("task \(index) round \(round): \(error)") }
                            }
                        }
                        return seen
                    }
                }
                var all = Set<[UInt8]>()
                for await seen in group { all.formUnion(seen) }
                return all
            }
            state.stop.store(true, ordering: .relaxed)
            let rounds = await churn.value
            let found = state.failures.withLock { $0 }
            #expect(found.isEmpty, "\(found.prefix(5))")
            // Creations met the file in more than one state (else nothing was tested).
            #expect(distinct.count >= 2, "every creation saw one modification time; \(rounds) changes meanwhile")
            print("written memo under changes: \(distinct.count) distinct bookmarks, \(rounds) time changes meanwhile")
        }
    }
}

/// What the stress test's tasks share.
final class StressState: Sendable {
    let stop = Atomic<Bool>(false)
    let failures = Guarded<[String]>([])
}

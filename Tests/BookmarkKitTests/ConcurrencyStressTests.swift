// SPDX-License-Identifier: Apache-2.0
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
}

/// What the stress test's tasks share.
final class StressState: Sendable {
    let stop = Atomic<Bool>(false)
    let failures = Guarded<[String]>([])
}

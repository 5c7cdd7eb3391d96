// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

@Suite("Batch resolution", .serialized, .requiresRealVolumes)
struct BatchTests {
    @Test("10,000 bookmarks, 1,000 moved: one shared walk finds every moved one")
    func tenThousand() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.dir("")
            try tree.shell("for d in $(seq 0 99); do mkdir -p p/$d; (cd p/$d && for f in $(seq 0 99); do : > f$f; done); done; mkdir -p moved")
            let volumes = try MountedVolumes()
            var bookmarks: [Bookmark] = []
            for d in 0..<100 {
                for f in 0..<100 {
                    bookmarks.append(try Bookmark.create(for: FilePath(tree.path("p/\(d)/f\(f)")), volumes: volumes))
                }
            }
            // Move every tenth file into one far directory.
            try tree.shell("for d in $(seq 0 99); do for f in $(seq 0 10 99); do mv p/$d/f$f moved/$d-$f; done; done")
            let reports = Guarded<[BatchProgress]>([])
            var options = ResolutionOptions(useHandles: false)
            options.budget = .unlimited
            let results = Bookmark.resolveAll(bookmarks, options: options) { progress in
                reports.withLock { $0.append(progress) }
            }
            #expect(results.count == 10_000)
            var stale = 0
            for (index, result) in results.enumerated() {
                let (d, f) = (index / 100, index % 100)
                let resolution = try result.get()
                if f % 10 == 0 {
                    #expect(resolution.path.string == tree.path("moved/\(d)-\(f)"))
                    #expect(resolution.matchedBy == .search)
                    stale += 1
                } else {
                    #expect(resolution.matchedBy == .path)
                    #expect(!resolution.isStale)
                }
            }
            #expect(stale == 1000)
            let progress = reports.withLock { $0 }
            // Every 4,096 bookmarks of the first phase, then its end (9,000 settled without a search),
            // then before and after the walk (naming the volume), then the end.
            #expect(Array(progress.prefix(3).map(\.settled)) == [4096, 8192, 9000])
            #expect(progress.contains { $0.volume != nil && $0.entriesWalked == 0 }, "the walk's volume is named before it starts")
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.settled <= $1.settled })
            #expect(progress.last?.settled == 10_000)
            #expect((progress.last?.entriesWalked ?? .max) <= 10_200, "one walk, not one per bookmark")
        }
    }

    @Test("a batch reports cancellation for the bookmarks still waiting for the walk")
    func cancelled() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.dir("")
            try tree.shell("mkdir -p a b && for f in $(seq 1 3000); do : > b/f$f; done && : > a/x && : > a/y")
            let bookmarks = try ["a/x", "a/y"].map { try Bookmark.create(for: FilePath(tree.path($0))) }
            try tree.move("a/x", "b/zz/x")
            let flag = CancellationFlag()
            let options = ResolutionOptions(useHandles: false, cancellation: flag)
            let results = Bookmark.resolveAll(bookmarks, options: options) { progress in
                if progress.settled == 1 { flag.cancel() }
            }
            #expect((try? results[1].get())?.matchedBy == .path)
            guard case .failure(let error) = results[0] else {
                Issue.record("the moved bookmark resolved although the walk was cancelled")
                return
            }
            #expect(error.code == .cancelled)
        }
    }
}

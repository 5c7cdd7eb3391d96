// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// `URL(resolvingBookmarkData:)` keeps recently decoded bookmarks by their bytes (a quarter of an
/// unmoved resolution was decoding). It must keep only the decoding, never an answer.
@Suite("Apple's API: the same data resolved again", .serialized, .requiresRealVolumes)
struct RepeatedResolutionTests {
    @Test("the same Data resolved after each of three moves finds the file where it is now, stale each time")
    func followsEveryMove() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let first = URL(fileURLWithPath: volume.path("a.txt"))
            try Data("a".utf8).write(to: first)
            let data = try first.bookmarkData()
            var isStale = true
            #expect(try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale).path == first.path)
            #expect(!isStale)
            var now = first
            for name in ["b.txt", "c.txt", "d.txt"] {
                let next = URL(fileURLWithPath: volume.path(name))
                try FileManager.default.moveItem(at: now, to: next)
                now = next
                #expect(try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale).path == now.path)
                #expect(isStale)
            }
            try FileManager.default.removeItem(at: now)
            #expect(throws: CocoaError.self) { try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale) }
        }
    }

    @Test("more distinct bookmarks than the cache holds (300) each resolve to their own file, twice")
    func manyDistinct() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            var pairs: [(Data, String)] = []
            for index in 0..<300 {
                let url = URL(fileURLWithPath: volume.path("f\(index)"))
                try Data().write(to: url)
                pairs.append((try url.bookmarkData(), url.path))
            }
            for _ in 0..<2 {
                for (data, path) in pairs {
                    var isStale = false
                    #expect(try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale).path == path)
                }
            }
        }
    }
}

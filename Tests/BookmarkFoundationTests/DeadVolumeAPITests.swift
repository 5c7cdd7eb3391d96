// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// Apple's resolution call, written as on macOS, with a FUSE volume that stopped answering: it
/// throws within the timeout given in its options instead of hanging as Apple's can.
@Suite(
    "Apple's API and a dead volume", .serialized,
    .requires(requiredInCI: true) { StallingFileSystem.unavailableReason })
struct DeadVolumeAPITests {
    @Test("URL(resolvingBookmarkData:) throws fileReadUnknown with volumeNotResponding beneath, within its timeout option")
    func resolvingTimesOut() throws {
        let fuse = try StallingFileSystem()
        defer { fuse.destroy() }
        let url = URL(fileURLWithPath: try fuse.makeFile("song.mp3", contents: Data("song".utf8)))
        let data = try url.bookmarkData(options: [], includingResourceValuesForKeys: nil, relativeTo: nil)
        try fuse.stall()
        defer { fuse.resume() }

        let options: URL.BookmarkResolutionOptions = [.withoutUI, .volumeResponseTimeout(seconds: 0.5)]
        #expect(options.volumeResponseTimeout == .milliseconds(500))
        #expect(options.contains(.withoutUI))
        var isStale = false
        let start = ContinuousClock.now
        do {
            _ = try URL(resolvingBookmarkData: data, options: options, relativeTo: nil, bookmarkDataIsStale: &isStale)
            Issue.record("resolved on a dead volume")
        } catch let error as CocoaError {
            #expect(error.code == .fileReadUnknown)
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? BookmarkError
            #expect(underlying?.code == .volumeNotResponding)
            #expect(underlying?.mountPoint == Array(fuse.mountPoint.utf8))
            #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        }
        #expect(ContinuousClock.now - start < .seconds(15))
        #expect(!isStale)
        fuse.resume()
        var stale = true
        // The probe child left by the first call is reaped once the volume answers.
        var resolved: URL?
        for _ in 0..<50 where resolved == nil {
            resolved = try? URL(resolvingBookmarkData: data, options: options, relativeTo: nil, bookmarkDataIsStale: &stale)
            if resolved == nil { usleep(100_000) }
        }
        #expect(resolved?.path == url.path)
    }

    @Test("the timeout option keeps Apple's bits and round-trips")
    func optionBits() {
        #expect(URL.BookmarkResolutionOptions.volumeResponseTimeout(seconds: 2).volumeResponseTimeout == .seconds(2))
        #expect(URL.BookmarkResolutionOptions.volumeResponseTimeout(seconds: 0.01).volumeResponseTimeout == .milliseconds(100))
        #expect(URL.BookmarkResolutionOptions.volumeResponseTimeout(seconds: 1e9).volumeResponseTimeout == .milliseconds(6_553_500))
        #expect(URL.BookmarkResolutionOptions([.withoutUI, .withoutMounting]).volumeResponseTimeout == nil)
        let combined: URL.BookmarkResolutionOptions = [.withoutMounting, .volumeResponseTimeout(seconds: 3)]
        #expect(combined.rawValue & 0xFFFF_FFFF == URL.BookmarkResolutionOptions.withoutMounting.rawValue)
    }
}

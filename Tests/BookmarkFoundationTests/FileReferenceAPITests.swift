// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// Apple's `NSURL.fileReferenceURL()` / `isFileReferenceURL()` on a real ext4 volume.
@Suite("Apple's file-reference URL API", .serialized, .requiresRealVolumes)
struct FileReferenceAPITests {
    @Test("fileReferenceURL() names the file across a rename; isFileReferenceURL() tells them apart")
    func fileReference() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("a.txt"))
            try Data("a".utf8).write(to: file)
            let reference = try #require((file as NSURL).fileReferenceURL())
            #expect((reference as NSURL).isFileReferenceURL() == false, "bridging to NSURL drops the reference, as on macOS")
            #expect(!(file as NSURL).isFileReferenceURL())
            #expect(try #require(reference.baseURL).absoluteString.hasPrefix("file:///.file/id="))
            let renamed = URL(fileURLWithPath: volume.path("b.txt"))
            try FileManager.default.moveItem(at: file, to: renamed)
            let base = try #require(reference.baseURL)
            let parsed = try #require(FileReferenceURL(string: base.absoluteString))
            #expect(try parsed.resolve().path.string == renamed.path)
            #expect((URL(fileURLWithPath: volume.path("missing")) as NSURL).fileReferenceURL() == nil)
            #expect((URL(string: "https://example.com/")! as NSURL).fileReferenceURL() == nil)
        }
    }

    @Test("as on macOS, where Swift's URL turns a reference into the path: path, fileExists, resourceValues, reachability, standardizedFileURL")
    func pathSemantics() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            try FileManager.default.createDirectory(atPath: volume.path("docs"), withIntermediateDirectories: true)
            let file = URL(fileURLWithPath: volume.path("docs/report 1.txt"))
            try Data("12345".utf8).write(to: file)
            let reference = try #require((file as NSURL).fileReferenceURL())
            #expect(reference.path == file.path)
            #expect(reference.absoluteString == file.absoluteString)
            #expect(FileManager.default.fileExists(atPath: reference.path))
            #expect(try reference.checkResourceIsReachable())
            #expect(try reference.resourceValues(forKeys: [.fileSizeKey]).fileSize == 5)
            #expect(reference.standardizedFileURL.path == file.path)
            #expect(try Data(contentsOf: reference) == Data("12345".utf8))
            let folder = try #require((URL(fileURLWithPath: volume.path("docs")) as NSURL).fileReferenceURL())
            #expect(folder.hasDirectoryPath)

            // After a move, the reference still follows the file in this module's calls.
            try FileManager.default.moveItem(atPath: volume.path("docs"), toPath: volume.path("old docs"))
            let moved = volume.path("old docs/report 1.txt")
            #expect(
                (reference as NSURL).fileReferenceURL() == nil,
                "bridged to NSURL, the value is the old path URL, which names nothing now (as on macOS)")
            let base = try #require(reference.baseURL)
            let parsed = try #require(FileReferenceURL(string: base.absoluteString))
            #expect(try parsed.resolve().path.string == moved)
            let data = try reference.bookmarkData()
            var isStale = false
            #expect(try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale).path == moved, "bookmarkData() of a reference bookmarks the file where it is now")
            let refNSURL = try #require(NSURL(string: base.absoluteString))
            #expect(refNSURL.isFileReferenceURL())
            #expect(refNSURL.checkResourceIsReachableAndReturnError(nil))
            let current = try #require(refNSURL.fileReferenceURL())
            #expect(current.path == moved, "a reference NSURL gives the current path URL")
        }
    }
}

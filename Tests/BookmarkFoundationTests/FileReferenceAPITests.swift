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

/// What macOS code asks of a reference kept as an `NSURL` (`fileReferenceURL() as NSURL?`,
/// `CFURLCreateFileReferenceURL`): every member answers, none traps, and the location ones follow
/// the file.
@Suite("A file reference kept as an NSURL, as macOS code keeps one", .serialized, .requiresRealVolumes)
struct FileReferenceNSURLTests {
    @Test("url.fileReferenceURL() as NSURL? keeps the reference; path, filePathURL, bridging and resource calls follow the file")
    func keptAsNSURL() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("kept.txt"))
            try Data("kept".utf8).write(to: file)
            let reference = try #require((file as NSURL).fileReferenceURL() as NSURL?)
            #expect(reference.isFileReferenceURL())
            #expect(reference.relativeString.hasPrefix("file:///.file/id="))
            #expect(reference.description == reference.relativeString)
            #expect(reference.isFileURL)
            #expect(reference.scheme == "file")
            #expect(reference.path == file.path)
            // Without the cast, Swift picks the URL-returning method, as on macOS.
            let plain = (file as NSURL).fileReferenceURL()
            #expect(type(of: plain) == URL?.self)

            try FileManager.default.createDirectory(atPath: volume.path("moved"), withIntermediateDirectories: true)
            let moved = volume.path("moved/kept renamed.txt")
            try FileManager.default.moveItem(atPath: file.path, toPath: moved)
            #expect(reference.path == moved)
            #expect(reference.filePathURL?.path == moved)
            #expect(reference.absoluteURL?.path == moved)
            #expect(reference.standardized?.path == moved)
            #expect(reference.lastPathComponent == "kept renamed.txt")
            #expect((reference as URL).path == moved)
            #expect(FileManager.default.fileExists(atPath: try #require(reference.path)))
            #expect(try reference.checkResourceIsReachable())
            let size = try reference.resourceValues(forKeys: [.fileSizeKey])[.fileSizeKey] as? NSNumber
            #expect(size?.intValue == 4)
            #expect(reference.isEqual(reference.copy()))
            _ = reference.hash
            // The module's own calls follow it too.
            #expect(try Data(contentsOf: reference as URL) == Data("kept".utf8))
            let bookmark = try reference.bookmarkData(options: [], includingResourceValuesForKeys: nil, relativeTo: nil)
            var stale = false
            #expect(try URL(resolvingBookmarkData: bookmark, bookmarkDataIsStale: &stale).path == moved)
            #expect(reference.fileReferenceURL() as NSURL? === reference)

            try FileManager.default.removeItem(atPath: moved)
            #expect(reference.path == nil)
            #expect(reference.filePathURL == nil)
            #expect(reference.isFileReferenceURL())
            #expect(reference.description.hasPrefix("file:///.file/id="))
            #expect(throws: (any Error).self) { try reference.checkResourceIsReachable() }
        }
    }

    @Test("a URL that is not a file URL, or names nothing, has no NSURL reference")
    func noReference() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            #expect((URL(fileURLWithPath: volume.path("missing")) as NSURL).fileReferenceURL() as NSURL? == nil)
            #expect((URL(string: "https://example.com/")! as NSURL).fileReferenceURL() as NSURL? == nil)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// The Apple-style code in AppleStyleBookmarks.swift, run against a real loop-mounted ext4 volume.
@Suite("Apple's bookmark API on a real ext4 volume", .serialized, .requiresRealVolumes)
struct AppleAPIVolumeTests {
    @Test("make, store, move, resolve stale, re-create, resolve fresh")
    func moveAndRefresh() throws {
        try LoopVolume.withVolume(.ext4, label: "docs") { volume in
            let original = try makeFile(volume, "Documents/Report.txt", "quarterly numbers")
            let store = RecentDocuments(storeURL: try storeURL(volume))
            try store.remember(original)

            let before = try #require(store.lastKnown())
            #expect(before.name == "Report.txt")
            #expect(before.path == original.path)
            #expect(before.size == 17)

            let moved = try move(volume, "Documents/Report.txt", to: "Archive/2026/Report-final.txt")
            let first = try store.recall()
            #expect(first.url.path == moved.path)
            #expect(first.wasStale)

            // The stale bookmark was replaced by a fresh one: resolving it again is not stale.
            let second = try store.recall()
            #expect(second.url.path == moved.path)
            #expect(!second.wasStale)
            let after = try #require(store.lastKnown())
            #expect(after.name == "Report-final.txt")
            #expect(after.path == moved.path)
            #expect(try String(contentsOf: second.url, encoding: .utf8) == "quarterly numbers")
        }
    }

    @Test("an unmoved file resolves to itself, not stale")
    func unmoved() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = try makeFile(volume, "notes.txt", "hello")
            let store = RecentDocuments(storeURL: try storeURL(volume))
            try store.remember(file)
            let recalled = try store.recall()
            #expect(recalled.url.path == file.path)
            #expect(!recalled.wasStale)
            #expect(store.recallOrExplain() == "found at \(file.path)")
        }
    }

    @Test("a deleted file throws CocoaError.fileNoSuchFile; the last known path is still readable")
    func deleted() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = try makeFile(volume, "Documents/Draft.txt", "draft")
            let store = RecentDocuments(storeURL: try storeURL(volume))
            try store.remember(file)
            try FileManager.default.removeItem(at: file)

            let error = try #require(throws: CocoaError.self) { try store.recall() }
            #expect(error.code == .fileNoSuchFile)
            #expect((error.underlying as? BookmarkError)?.code == .notFound)
            #expect(error.userInfo[NSFilePathErrorKey] as? String == file.path)
            #expect(store.recallOrExplain() == "gone (last seen at \(file.path))")
            #expect(store.lastKnown()?.name == "Draft.txt")
        }
    }

    @Test("an atomic save (write a temporary file, rename it over) resolves to the path, stale")
    func atomicSave() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = try makeFile(volume, "Documents/Letter.txt", "v1")
            let store = RecentDocuments(storeURL: try storeURL(volume))
            try store.remember(file)
            try Data("v2".utf8).write(to: file, options: .atomic)  // temporary file + rename: a new inode
            let recalled = try store.recall()
            #expect(recalled.url.path == file.path)
            #expect(recalled.wasStale)
            #expect(try String(contentsOf: recalled.url, encoding: .utf8) == "v2")
        }
    }

    @Test("Apple's helper functions: a minimal bookmark follows a rename; a directory URL keeps its slash")
    func helpers() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = try makeFile(volume, "Photos/IMG_0001.jpg", "jpeg")
            let data = try #require(bookmarkForURL(file))
            let renamed = try move(volume, "Photos/IMG_0001.jpg", to: "Photos/Holiday.jpg")
            #expect(urlForBookmark(data)?.path == renamed.path)

            let folder = URL(fileURLWithPath: volume.path("Photos"), isDirectory: true)
            let folderData = try #require(bookmarkForURL(folder))
            let movedFolder = try move(volume, "Photos", to: "Pictures")
            let resolved = try #require(urlForBookmark(folderData))
            #expect(resolved.path == movedFolder.path)
            #expect(resolved.hasDirectoryPath)
            #expect(urlForBookmark(Data("junk".utf8)) == nil)
        }
    }

    @Test("a document-relative bookmark follows a copy of the document's folder")
    func relative() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let document = try makeFile(volume, "Project/project.doc", "doc")
            let asset = try makeFile(volume, "Project/assets/logo.png", "png")
            let data = try relativeBookmark(to: asset, from: document)

            // A copy (new inodes) under another name, the original gone: only the relative path finds it.
            try Shell.check(["cp", "-a", volume.path("Project"), volume.path("Project copy")])
            try FileManager.default.removeItem(atPath: volume.path("Project"))
            let newDocument = URL(fileURLWithPath: volume.path("Project copy/project.doc"))
            let (url, isStale) = try resolveRelativeBookmark(data, from: newDocument)
            #expect(url.path == volume.path("Project copy/assets/logo.png"))
            #expect(isStale)
        }
    }

    @Test("a folder URL (directory path) is the base itself")
    func relativeToFolder() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let page = try makeFile(volume, "Site/pages/index.html", "<html>")
            let site = URL(fileURLWithPath: volume.path("Site"), isDirectory: true)
            let data = try page.bookmarkData(relativeTo: site)
            try Shell.check(["cp", "-a", volume.path("Site"), volume.path("Site v2")])
            try FileManager.default.removeItem(atPath: volume.path("Site"))
            var isStale = false
            let url = try URL(
                resolvingBookmarkData: data, relativeTo: URL(fileURLWithPath: volume.path("Site v2"), isDirectory: true),
                bookmarkDataIsStale: &isStale)
            #expect(url.path == volume.path("Site v2/pages/index.html"))
            #expect(isStale)
        }
    }

    @Test("a remount at another place on another loop device resolves, stale")
    func remounted() throws {
        try LoopVolume.withVolume(.ext4, label: "media") { volume in
            let file = try makeFile(volume, "Music/song.flac", "audio")
            let data = try file.bookmarkData()
            try volume.unmount()
            try volume.mount(at: volume.directory.appendingPathComponent("elsewhere"), newLoopDevice: true)
            var isStale = false
            let url = try URL(resolvingBookmarkData: data, options: .withoutMounting, bookmarkDataIsStale: &isStale)
            #expect(url.path == volume.path("Music/song.flac"))
            #expect(url.path != file.path)
            #expect(isStale)
        }
    }

    @Test("an unmounted volume fails at once with CocoaError.fileNoSuchFile (volumeNotMounted underneath)")
    func unmounted() throws {
        try LoopVolume.withVolume(.ext4, label: "external") { volume in
            let file = try makeFile(volume, "film.mov", "frames")
            let data = try file.bookmarkData()
            try volume.unmount()
            let started = ContinuousClock.now
            let error = try #require(throws: CocoaError.self) {
                var isStale = false
                _ = try URL(resolvingBookmarkData: data, options: .withoutMounting, bookmarkDataIsStale: &isStale)
            }
            // "At once": no search and no waiting for the device. The bound only catches a hang: probing
            // the attached block devices for the UUID takes longer on a loaded machine with many loops.
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(error.code == .fileNoSuchFile)
            let underlying = try #require(error.underlying as? BookmarkError)
            #expect(underlying.code == .volumeNotMounted)
            #expect(underlying.volumeName == "external")
            #expect(underlying.attachedDevice == nil)
            // The offline values still say where it was.
            let values = try #require(URL.resourceValues(forKeys: [.pathKey, .volumeNameKey], fromBookmarkData: data))
            #expect(values.path == file.path)
            #expect(values.volumeName == "external")
        }
    }

    @Test("a name that is not UTF-8 round-trips as a percent-encoded file URL")
    func nonUTF8Name() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)  // Latin-1 "café.txt"
            try FileManager.default.createDirectory(atPath: volume.path("Inbox"), withIntermediateDirectories: true)
            #expect(rawCreate(Array(volume.path("Inbox").utf8) + [UInt8(ascii: "/")] + name))
            // Foundation on Linux cannot hold these bytes in `path`; a percent-encoded URL keeps them.
            let url = try #require(URL(string: "file://\(volume.path("Inbox"))/caf%E9.txt"))
            let data = try url.bookmarkData()
            try FileManager.default.moveItem(atPath: volume.path("Inbox"), toPath: volume.path("Moved"))
            var isStale = false
            let resolved = try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale)
            #expect(resolved.absoluteString == "file://\(volume.path("Moved"))/caf%E9.txt")
            #expect(isStale)
            // And the resolved URL makes bookmark data for the same file.
            let again = try URL(resolvingBookmarkData: try resolved.bookmarkData(), bookmarkDataIsStale: &isStale)
            #expect(again == resolved)
            #expect(!isStale)
        }
    }

    // MARK: - Helpers

    func makeFile(_ volume: LoopVolume, _ relative: String, _ contents: String) throws -> URL {
        let url = URL(fileURLWithPath: volume.path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
        return url
    }

    func move(_ volume: LoopVolume, _ from: String, to: String) throws -> URL {
        let destination = URL(fileURLWithPath: volume.path(to))
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: URL(fileURLWithPath: volume.path(from)), to: destination)
        return destination
    }

    func storeURL(_ volume: LoopVolume) throws -> URL {
        let directory = URL(fileURLWithPath: volume.path("App Support"), isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("recent.bookmark")
    }

    func rawCreate(_ bytes: [UInt8]) -> Bool {
        let fd = (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            open($0.baseAddress!, O_CREAT | O_WRONLY | O_EXCL, 0o644)
        }
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}

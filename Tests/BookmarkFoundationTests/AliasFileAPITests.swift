// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// Apple's alias-file calls, written as on macOS, against a real ext4 volume and the macOS fixtures.
@Suite("Apple's alias-file API", .serialized)
struct AliasFileAPITests {
    @Test("writeBookmarkData, bookmarkData(withContentsOf:), URL(resolvingAliasFileAt:) after a move",
          .requiresRealVolumes)
    func roundTrip() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let target = URL(fileURLWithPath: volume.path("Photos/cat.jpg"))
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("meow".utf8).write(to: target)
            let aliasURL = URL(fileURLWithPath: volume.path("cat alias"))

            let data = try target.bookmarkData(options: .suitableForBookmarkFile)
            try URL.writeBookmarkData(data, to: aliasURL)
            let read = try URL.bookmarkData(withContentsOf: aliasURL)
            var stale = false
            #expect(try URL(resolvingBookmarkData: read, bookmarkDataIsStale: &stale).path == target.path)

            let moved = URL(fileURLWithPath: volume.path("Archive/cat.jpg"))
            try FileManager.default.createDirectory(at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: target, to: moved)
            #expect(try URL(resolvingAliasFileAt: aliasURL).path == moved.path)
            // Not an alias: returned as it is.
            #expect(try URL(resolvingAliasFileAt: moved) == moved)
            // Data without suitableForBookmarkFile is refused, as on macOS.
            let plain = try moved.bookmarkData()
            #expect(throws: CocoaError.self) { try URL.writeBookmarkData(plain, to: aliasURL) }
            try FileManager.default.removeItem(at: moved)
            #expect(throws: CocoaError.self) { try URL(resolvingAliasFileAt: aliasURL) }
        }
    }

    @Test("URL(resolvingAliasFileAt:) throws for a URL that cannot be reached (missing, dangling symlink), as Apple documents; an existing plain file comes back as it is")
    func unreachable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alias-unreachable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.txt")
        try Data("text".utf8).write(to: plain)
        #expect(try URL(resolvingAliasFileAt: plain) == plain)
        let dangling = folder.appendingPathComponent("dangling")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: folder.appendingPathComponent("gone").path)
        for missing in [folder.appendingPathComponent("nothing"), dangling, folder.appendingPathComponent("nothing/deeper")] {
            do {
                let url = try URL(resolvingAliasFileAt: missing)
                Issue.record("a missing path came back: \(url)")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadNoSuchFile, "\(missing.path): \(error)")
                #expect(error.userInfo[NSURLErrorKey] as? URL == missing)
                #expect(error.userInfo[NSFilePathErrorKey] as? String == missing.path)
                #expect(error.underlying != nil)
            }
            #expect(throws: CocoaError.self) { try NSURL(resolvingAliasFileAt: missing) }
        }
    }

    @Test("bookmarkData(withContentsOf:) of a folder says it is a directory (it said \"'openat' failed: Invalid argument\")")
    func folderGivenAsAliasFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alias-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try URL.bookmarkData(withContentsOf: folder)
            Issue.record("a folder read as an alias file")
        } catch let error as CocoaError {
            let underlying = String(describing: error.underlying.map { $0 } as Any)
            #expect(underlying.contains("Is a directory"), "\(error)")
            #expect(!underlying.contains("Invalid argument"), "\(error)")
        }
    }

    @Test("a macOS Finder alias reads as bookmark data with its recorded path")
    func macOSAlias() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/apple/perl-folder.alias")
        try #require(FileManager.default.fileExists(atPath: fixture.path))
        let data = try URL.bookmarkData(withContentsOf: fixture)
        #expect(data.prefix(4) == Data("book".utf8))
        let values = try #require(URL.resourceValues(forKeys: [.pathKey], fromBookmarkData: data))
        #expect(values.path == "/System/Library/Perl")
        do {
            _ = try URL(resolvingAliasFileAt: fixture)
            Issue.record("a macOS alias resolved on Linux")
        } catch let error as CocoaError {
            #expect(error.code == .fileNoSuchFile)
        }
    }
}

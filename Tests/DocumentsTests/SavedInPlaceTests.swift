// SPDX-License-Identifier: Apache-2.0
import BookmarkFoundation
import BookmarkKit
import Documents
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// A bookmark made before an atomic save of a package still resolves to it afterwards, and is not
/// stale because of that save: the new package records which ones it replaced.
@Suite("Bookmarks across our own saves", .serialized, .requiresRealVolumes)
struct SavedInPlaceTests {
    @Test("after three saves, a bookmark made before the first resolves at the path, savedInPlace, not stale", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs])
    func bookmarkSurvivesSaves(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try fixture.file("Doc.pkg/a.txt", "a")
            let url = fixture.url("Doc.pkg")
            let bookmark = try Bookmark.create(for: FilePath(url.path))
            let appleData = try url.bookmarkData()
            let package = try FileWrapper(url: url)
            // Inode and birth time: ext4 may give a later save's package the first one's freed
            // inode number (the old tree is removed in the background), so the number alone
            // cannot tell a new package from the first.
            func identity() throws -> (UInt64, Timestamp?) {
                let status = try Directory.current.status(of: FilePath(url.path))
                return (status.inode, status.birthTime)
            }
            let first = try identity()
            for version in 1...3 {
                if let old = package.fileWrappers?["a.txt"] { package.removeFileWrapper(old) }
                package.addRegularFile(withContents: Data("a\(version)".utf8), preferredFilename: "a.txt")
                try package.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)
            }
            let last = try identity()
            #expect(last.0 != first.0 || last.1 != first.1, "every save made a new package")
            let resolution = try bookmark.resolve()
            #expect(resolution.path == FilePath(url.path))
            #expect(resolution.matchedBy == .savedInPlace)
            #expect(!resolution.isStale, "\(resolution.changes)")
            var stale = true
            let resolved = try URL(resolvingBookmarkData: appleData, bookmarkDataIsStale: &stale)
            #expect(resolved.path == url.path && !stale, "Apple's API: not stale either")
        }
    }

    @Test("a different package moved in at the path is still a replacement: stale", arguments: saveFileSystems)
    func strangerIsStillAReplacement(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try fixture.file("Doc.pkg/a.txt", "a")
            try fixture.file("Other.pkg/a.txt", "other")
            let url = fixture.url("Doc.pkg")
            let bookmark = try Bookmark.create(for: FilePath(url.path))
            // The stranger even carries a record, but of other packages.
            let other = try FileWrapper(url: fixture.url("Other.pkg"))
            try other.write(to: fixture.url("Other.pkg"), options: .atomic, originalContentsURL: fixture.url("Other.pkg"))
            try FileManager.default.removeItem(atPath: fixture.path("Doc.pkg"))
            try FileManager.default.moveItem(atPath: fixture.path("Other.pkg"), toPath: fixture.path("Doc.pkg"))
            let resolution = try bookmark.resolve()
            #expect(resolution.matchedBy == .replacedAtPath)
            #expect(resolution.isStale)
        }
    }
}

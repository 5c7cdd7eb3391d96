// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import FileIdentity
import Foundation
import SystemPackage
import Testing
import VolumeFixtures

/// Creation starts from a per-volume template holding placeholders for the keys every creation
/// sets; none may survive into a bookmark, whatever the object and options.
@Suite("Creation templates leave no placeholder behind", .serialized, .requiresRealVolumes)
struct CreationTemplateTests {
    /// Every item of every TOC, nested items included, that is `.null`.
    func nulls(in record: BookmarkRecord) -> [BookmarkKey] {
        record.document.tocs.flatMap { toc in toc.entries.filter { $0.value == .null }.map(\.key) }
    }

    @Test("file, directory, empty file, a file through a symlink; normal and minimal; ext4 and exFAT through FUSE",
          arguments: [FixtureFileSystem.ext4, .exfat])
    func noPlaceholders(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { fixture in
            try FileManager.default.createDirectory(atPath: fixture.path("dir/sub"), withIntermediateDirectories: true)
            try Data("content".utf8).write(to: URL(fileURLWithPath: fixture.path("dir/sub/file.txt")))
            FileManager.default.createFile(atPath: fixture.path("dir/empty"), contents: Data())
            let symlinks = kind != .exfat  // exFAT has no symlinks
            if symlinks {
                try FileManager.default.createSymbolicLink(atPath: fixture.path("dir/link"), withDestinationPath: "sub/file.txt")
            }
            let volumes = try MountedVolumes()
            for relative in ["dir/sub/file.txt", "dir/sub", "dir/empty"] + (symlinks ? ["dir/link"] : []) {
                for options in [BookmarkCreationOptions(), .minimalBookmark] {
                    let bookmark = try Bookmark.create(for: FilePath(fixture.path(relative)), options: options, volumes: volumes)
                    #expect(nulls(in: bookmark.record).isEmpty, "\(relative) \(options) on \(kind)")
                    // The same record as one built without a template (every key set on an empty record
                    // in one pass) would have: the bytes decode to an equal record.
                    let decoded = try Bookmark(data: try bookmark.data())
                    #expect(decoded.record == bookmark.record)
                    let name = relative == "dir/link" ? "file.txt" : String(relative.split(separator: "/").last ?? "")
                    #expect(decoded.record.fileName?.bytes == Array(name.utf8))
                    let isRegular = relative != "dir/sub"
                    #expect((decoded.record[.string(ByteString("NSURLFileSizeKey"))] != nil) == (isRegular && options.isEmpty))
                }
            }
        }
    }
}

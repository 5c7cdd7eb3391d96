// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import Foundation
import SystemPackage
import Testing

/// What resolution derives from a bookmark's record is dropped when the record changes, for the
/// bookmark edited and never for a copy made before the edit.
@Suite("Editing a bookmark's record")
struct RecordEditTests {
    @Test("a changed file ID stops the path match, in the edited bookmark only; a copy keeps its own")
    func editDropsDerivedFacts() throws {
        let directory = "/var/tmp/swift-bookmarks-edit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/file.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let options = ResolutionOptions(search: false, useHandles: false)
        let made = try Bookmark.create(for: FilePath(path))

        // Shared cache: resolve, copy, edit the copy.
        #expect(try made.resolve(options).matchedBy == .path)
        var copy = made
        copy.record.fileID = 1
        copy.record.fileIDs = (copy.record.fileIDs ?? []).dropLast() + [1]
        #expect((try? copy.resolve(options))?.matchedBy != .path)
        #expect(try made.resolve(options).matchedBy == .path, "the original keeps its derived facts")

        // A freshly decoded bookmark owns its cache alone: edited in place, then emptied.
        var decoded = try Bookmark(data: try made.data())
        #expect(try decoded.resolve(options).matchedBy == .path)
        decoded.record.fileID = 1
        decoded.record.fileIDs = (decoded.record.fileIDs ?? []).dropLast() + [1]
        #expect((try? decoded.resolve(options))?.matchedBy != .path)
        // And back: the derived facts follow the record again.
        decoded.record = made.record
        #expect(try decoded.resolve(options).matchedBy == .path)
    }
}

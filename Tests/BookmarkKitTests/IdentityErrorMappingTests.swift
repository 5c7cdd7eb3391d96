// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

@testable import BookmarkKit

/// FileIdentity's errors become the `BookmarkError` codes they were before FileIdentity had its own
/// error type (the CLI's exit codes follow from these).
@Suite("FileIdentityError into BookmarkError")
struct IdentityErrorMappingTests {
    @Test("a failed call maps as its FileSystemError: a missing path is notFound, with the cause kept")
    func failedCall() throws {
        let error = try #require(throws: FileIdentityError.self) { try FileID.identify("/nonexistent/swift-bookmarks") }
        let mapped = BookmarkError(error, lastKnownPath: Array("/nonexistent/swift-bookmarks".utf8))
        #expect(mapped.code == .notFound)
        #expect(mapped.fileSystemError == error.cause)
        #expect(mapped.message == error.cause?.description)
    }

    @Test("a malformed mount table is a file-system failure naming the line")
    func malformedTable() throws {
        let error = try #require(throws: FileIdentityError.self) { try MountTable(parsing: Array("garbage\n".utf8)) }
        let mapped = BookmarkError(error)
        #expect(mapped.code == .fileSystem)
        #expect(mapped.message.contains("mountinfo line 1"))
        #expect(mapped.fileSystemError == nil)
    }

    @Test("creating a bookmark for a missing path still throws notFound")
    func creation() throws {
        let error = try #require(throws: BookmarkError.self) { try Bookmark.create(for: "/nonexistent/swift-bookmarks") }
        #expect(error.code == .notFound)
        #expect(error.fileSystemError?.errno == .noSuchFileOrDirectory)
    }

    @Test("a mount gone from the table is notFound", .requiresRealVolumes)
    func detachedMount() throws {
        try LoopVolume.withVolume(.tmpfs) { fixture in
            try Data("d".utf8).write(to: URL(fileURLWithPath: fixture.path("f")))
            let descriptor = try Directory.current.open(FilePath(fixture.path("f")), options: [.pathOnly])
            defer { try? descriptor.close() }
            try Shell.check(["umount", "-l", try #require(fixture.mountPoint).path])
            let error = try #require(throws: FileIdentityError.self) { try FileID.identify(descriptor) }
            #expect(BookmarkError(error).code == .notFound)
        }
    }
}

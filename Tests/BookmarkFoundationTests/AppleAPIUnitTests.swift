// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing

@testable import BookmarkFoundation

@Suite("Option bit values are Apple's")
struct OptionValueTests {
    @Test("creation options")
    func creation() {
        #expect(URL.BookmarkCreationOptions.minimalBookmark.rawValue == 0x200)
        #expect(URL.BookmarkCreationOptions.suitableForBookmarkFile.rawValue == 0x400)
        #expect(URL.BookmarkCreationOptions.withSecurityScope.rawValue == 0x800)
        #expect(URL.BookmarkCreationOptions.securityScopeAllowOnlyReadAccess.rawValue == 0x1000)
        #expect(URL.BookmarkCreationOptions.withoutImplicitSecurityScope.rawValue == 0x2000_0000)
        #expect(URL.BookmarkCreationOptions(rawValue: 1 << 8).rawValue == 0x100)  // preferFileIDResolution (deprecated)
        // The same bits BookmarkKit records.
        let pairs: [(URL.BookmarkCreationOptions, BookmarkKit.BookmarkCreationOptions)] = [
            (.minimalBookmark, .minimalBookmark), (.suitableForBookmarkFile, .suitableForBookmarkFile),
            (.withSecurityScope, .withSecurityScope),
            (.securityScopeAllowOnlyReadAccess, .securityScopeAllowOnlyReadAccess),
            (.withoutImplicitSecurityScope, .withoutImplicitSecurityScope),
        ]
        for (apple, kit) in pairs { #expect(apple.rawValue == UInt(kit.rawValue)) }
    }

    @Test("resolution options")
    func resolution() {
        #expect(URL.BookmarkResolutionOptions.withoutUI.rawValue == 0x100)
        #expect(URL.BookmarkResolutionOptions.withoutMounting.rawValue == 0x200)
        #expect(URL.BookmarkResolutionOptions.withSecurityScope.rawValue == 0x400)
        #expect(URL.BookmarkResolutionOptions.withoutImplicitStartAccessing.rawValue == 0x8000)
        let all: URL.BookmarkResolutionOptions = [.withoutUI, .withoutMounting, .withSecurityScope, .withoutImplicitStartAccessing]
        #expect(all.rawValue == 0x8700)
    }

    @Test("creation options are stored in the data as Apple stores them (key 0xD010)")
    func recorded() throws {
        try withTemporaryFile { file in
            let options: URL.BookmarkCreationOptions = [.suitableForBookmarkFile, .withoutImplicitSecurityScope]
            let data = try file.bookmarkData(options: options)
            let bookmark = try Bookmark(data: [UInt8](data))
            #expect(UInt(bookmark.creationOptions.rawValue) == options.rawValue)
            #expect(UInt(bookmark.storedValues.creationOptions) == 0x2000_0400)
        }
    }

    @Test("a minimal bookmark is smaller and stores no resource values")
    func minimal() throws {
        try withTemporaryFile { file in
            let full = try file.bookmarkData(includingResourceValuesForKeys: [.fileSizeKey])
            let minimal = try file.bookmarkData(options: .minimalBookmark, includingResourceValuesForKeys: [.fileSizeKey])
            #expect(minimal.count < full.count)
            #expect(URL.resourceValues(forKeys: [.fileSizeKey], fromBookmarkData: minimal)?.fileSize == nil)
            #expect(URL.resourceValues(forKeys: [.fileSizeKey], fromBookmarkData: full)?.fileSize == 5)
        }
    }
}

@Suite("Errors are Foundation's")
struct ErrorMappingTests {
    @Test("every BookmarkError code maps to Apple's Cocoa code", arguments: [
        (BookmarkError.Code.notFound, CocoaError.Code.fileReadNoSuchFile, CocoaError.Code.fileNoSuchFile),
        (.volumeNotMounted, .fileReadNoSuchFile, .fileNoSuchFile),
        (.corruptData, .fileReadCorruptFile, .fileReadCorruptFile),
        (.permissionDenied, .fileReadNoPermission, .fileReadNoPermission),
        (.cancelled, .userCancelled, .userCancelled),
        (.fileSystem, .fileReadUnknown, .fileReadUnknown),
    ])
    func table(code: BookmarkError.Code, creating: CocoaError.Code, resolving: CocoaError.Code) {
        #expect(cocoaCode(for: code, .creating) == creating)
        #expect(cocoaCode(for: code, .resolving) == resolving)
    }

    @Test("bytes that are not bookmark data: fileReadCorruptFile (259), and no offline values")
    func corrupt() throws {
        let junk = Data("this is not bookmark data".utf8)
        let error = try #require(throws: CocoaError.self) {
            var isStale = false
            _ = try URL(resolvingBookmarkData: junk, bookmarkDataIsStale: &isStale)
        }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.code.rawValue == 259)
        #expect((error as NSError).domain == NSCocoaErrorDomain)
        let underlying = try #require(error.underlying as? BookmarkError)
        #expect(underlying.code == .corruptData)
        #expect(error.userInfo[NSDebugDescriptionErrorKey] as? String == underlying.description)
        #expect(URL.resourceValues(forKeys: [.pathKey], fromBookmarkData: junk) == nil)
    }

    @Test("a bookmark for a missing file: fileReadNoSuchFile (260) naming the URL")
    func missing() throws {
        let url = URL(fileURLWithPath: "/var/tmp/no-such-directory-\(UUID().uuidString)/file.txt")
        let error = try #require(throws: CocoaError.self) { try url.bookmarkData() }
        #expect(error.code == .fileReadNoSuchFile)
        #expect(error.code.rawValue == 260)
        #expect(error.userInfo[NSURLErrorKey] as? URL == url)
        #expect(error.filePath == url.path)
        #expect((error.underlying as? BookmarkError)?.code == .notFound)
    }

    @Test("a URL that is not a file URL: fileReadUnsupportedScheme")
    func scheme() throws {
        let url = try #require(URL(string: "https://example.com/file.txt"))
        let error = try #require(throws: CocoaError.self) { try url.bookmarkData() }
        #expect(error.code == .fileReadUnsupportedScheme)
    }

    @Test("a file URL whose path holds %00: fileReadInvalidFileName, and no bookmark of the path before the NUL")
    func nulByte() throws {
        try withTemporaryFile { file in
            // The path up to the NUL names a real file: the call must not make a bookmark of it.
            let url = try #require(URL(string: file.absoluteString + "%00.txt"))
            let error = try #require(throws: CocoaError.self) { try url.bookmarkData() }
            #expect(error.code == .fileReadInvalidFileName)
            #expect(error.userInfo[NSURLErrorKey] as? URL == url)
        }
    }

    @Test("a file URL spelled with // and a trailing / records the path as the kernel spells it")
    func unnormalSpelling() throws {
        try withTemporaryFile { file in
            let folder = file.deletingLastPathComponent().path
            let spelled = try #require(URL(string: "file://" + folder.replacingOccurrences(of: "/", with: "//") + "/hello.txt/"))
            let bookmark = try Bookmark(data: [UInt8](try spelled.bookmarkData()))
            #expect(bookmark.path == Array(file.path.utf8))
            let plain = try Bookmark(data: [UInt8](try file.bookmarkData()))
            #expect(plain.path == Array(file.path.utf8))
        }
    }

    @Test("resolving after the file is deleted: fileNoSuchFile (4) with the last known path")
    func deleted() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("gone.txt")
        try Data("bytes".utf8).write(to: file)
        let data = try file.bookmarkData()
        try FileManager.default.removeItem(at: file)
        let error = try #require(throws: CocoaError.self) {
            var isStale = false
            _ = try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale)
        }
        #expect(error.code == .fileNoSuchFile)
        #expect(error.code.rawValue == 4)
        #expect(error.filePath == file.path)
        #expect((error.underlying as? BookmarkError)?.lastKnownPath == Array(file.path.utf8))
    }
}

@Suite("Resource values read offline from bookmark data")
struct OfflineValueTests {
    @Test("this Foundation's URLResourceValues layout is the one we fill (else only settable keys come back)")
    func layout() {
        #expect(BookmarkResourceValues.canFillAllKeys)
    }

    @Test("stored and recorded values, typed as Foundation types them")
    func values() throws {
        try withTemporaryFile { file in
            let data = try file.bookmarkData(includingResourceValuesForKeys: [.nameKey, .fileSizeKey, .creationDateKey])
            let keys: Set<URLResourceKey> = [
                .nameKey, .pathKey, .fileSizeKey, .isDirectoryKey, .isRegularFileKey, .isSymbolicLinkKey,
                .fileResourceTypeKey, .contentModificationDateKey, .volumeURLKey, .volumeNameKey,
            ]
            let values = try #require(URL.resourceValues(forKeys: keys, fromBookmarkData: data))
            let real = try file.resourceValues(forKeys: [.contentModificationDateKey])
            #expect(values.name == file.lastPathComponent)
            #expect(values.path == file.path)
            #expect(values.fileSize == 5)
            #expect(values.isDirectory == false)
            #expect(values.isRegularFile == true)
            #expect(values.isSymbolicLink == false)
            #expect(values.fileResourceType == .regular)
            #expect(values.volume?.hasDirectoryPath == true)
            #expect(values.volumeName != nil)
            let stored = try #require(values.contentModificationDate?.timeIntervalSince1970)
            let actual = try #require(real.contentModificationDate?.timeIntervalSince1970)
            #expect(abs(stored - actual) < 0.001)
            // Only what was asked for.
            #expect(Set(values.allValues.keys).isSubset(of: keys))
            #expect(values.allValues[.volumeUUIDStringKey] == nil)
        }
    }

    @Test("a directory's values")
    func directory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try directory.bookmarkData()
        let values = try #require(URL.resourceValues(forKeys: [.isDirectoryKey, .nameKey], fromBookmarkData: data))
        #expect(values.isDirectory == true)
        #expect(values.name == directory.lastPathComponent)
    }

    @Test("the fallback fills the settable properties only")
    func settable() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let values = BookmarkResourceValues.settableOnly([
            .nameKey: "a.txt", .pathKey: "/x/a.txt", .creationDateKey: date, .isHiddenKey: NSNumber(value: true),
        ])
        #expect(values.name == "a.txt")
        #expect(values.creationDate == date)
        #expect(values.isHidden == true)
        #expect(values.path == nil)
    }
}

// MARK: - Helpers

func temporaryDirectory() throws -> URL {
    let directory = URL(fileURLWithPath: "/var/tmp/bookmark-foundation-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// A five-byte file in a fresh directory, removed afterwards.
func withTemporaryFile(_ body: (URL) throws -> Void) throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("hello.txt")
    try Data("hello".utf8).write(to: file)
    try body(file)
}

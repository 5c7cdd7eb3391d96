// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// The NSURL and Core Foundation code in AppleStyleNSURLAndCF.swift on a real ext4 volume:
/// bookmark, persist, move, resolve stale, alias files, file references, delete, errors.
@Suite("Apple's NSURL and Core Foundation spellings on a real volume", .serialized, .requiresRealVolumes)
struct NSURLAndCFTests {
    @Test("NSURL: bookmark with an array of keys, resolve with an ObjCBool stale flag, offline values, after a move and a delete")
    func nsurlFlow() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = NSURL(fileURLWithPath: volume.path("Inbox/letter.txt"))
            try FileManager.default.createDirectory(atPath: volume.path("Inbox"), withIntermediateDirectories: true)
            try Data("dear".utf8).write(to: file as URL)
            let data = try NSURLBookmarks.bookmark(for: file)
            let unmoved = try NSURLBookmarks.resolve(data)
            #expect(unmoved.url.path == file.path && !unmoved.isStale)

            try FileManager.default.createDirectory(atPath: volume.path("Filed"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: volume.path("Inbox/letter.txt"), toPath: volume.path("Filed/letter-1.txt"))
            let moved = try NSURLBookmarks.resolve(data)
            #expect(moved.url.path == volume.path("Filed/letter-1.txt"))
            #expect(moved.isStale)
            #expect(NSURLBookmarks.lastKnownName(data) == "letter.txt")
            #expect(NSURL.resourceValues(forKeys: [.fileSizeKey], fromBookmarkData: data)?[.fileSizeKey] as? Int == 4)
            #expect(NSURL.resourceValues(forKeys: [.nameKey], fromBookmarkData: Data("junk".utf8)) == nil)
            #expect(NSURLBookmarks.isReachable(moved.url))

            try FileManager.default.removeItem(atPath: volume.path("Filed/letter-1.txt"))
            do {
                _ = try NSURLBookmarks.resolve(data)
                Issue.record("a deleted file resolved")
            } catch let error as CocoaError {
                #expect(error.code == .fileNoSuchFile)
                #expect(error.userInfo[NSFilePathErrorKey] as? String == volume.path("Inbox/letter.txt"))
            }
            var failure: NSError?
            #expect(!NSURL(fileURLWithPath: volume.path("Filed/letter-1.txt")).checkResourceIsReachableAndReturnError(&failure))
            #expect(failure?.domain == NSCocoaErrorDomain && failure?.code == CocoaError.Code.fileReadNoSuchFile.rawValue)
            do {
                _ = try NSURLBookmarks.resolve(Data("not a bookmark".utf8))
                Issue.record("junk resolved")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadCorruptFile)
            }
        }
    }

    @Test("NSURL alias files: writeBookmarkData(_:to:options:), bookmarkData(withContentsOf:), NSURL(resolvingAliasFileAt:)")
    func nsurlAliases() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let target = NSURL(fileURLWithPath: volume.path("target.txt"))
            try Data("t".utf8).write(to: target as URL)
            let alias = URL(fileURLWithPath: volume.path("target alias"))
            try NSURLBookmarks.makeAlias(of: target, at: alias)
            try FileManager.default.moveItem(atPath: volume.path("target.txt"), toPath: volume.path("renamed.txt"))
            #expect(try NSURLBookmarks.followAlias(at: alias).path == volume.path("renamed.txt"))
            // Not an alias: the URL itself, as on macOS.
            let plain = URL(fileURLWithPath: volume.path("renamed.txt"))
            #expect(try NSURL(resolvingAliasFileAt: plain, options: []).path == plain.path)
        }
    }

    @Test("Core Foundation: create, resolve with a DarwinBoolean, stored properties, alias files, after a move and a delete")
    func coreFoundationFlow() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("photos/IMG_0001.jpg"))
            try FileManager.default.createDirectory(atPath: volume.path("photos"), withIntermediateDirectories: true)
            try Data(repeating: 0xFF, count: 123).write(to: file)
            let data = try CFBookmarks.bookmark(for: file)
            #expect(try Bookmark(data: [UInt8](data)).creationOptions.contains(.suitableForBookmarkFile))
            #expect(CFBookmarks.storedName(data) == "IMG_0001.jpg")
            let values = try #require(CFBookmarks.storedValues(data))
            #expect(values[kCFURLPathKey as String] as? String == file.path)
            #expect((values[kCFURLFileSizeKey as String] as? NSNumber)?.intValue == 123)

            try FileManager.default.moveItem(atPath: volume.path("photos"), toPath: volume.path("Photos 2026"))
            let moved = try CFBookmarks.resolve(data)
            #expect(moved.url.path == volume.path("Photos 2026/IMG_0001.jpg"))
            #expect(moved.isStale)

            let alias = URL(fileURLWithPath: volume.path("latest photo"))
            try CFBookmarks.writeAlias(data, to: alias)
            #expect(try CFBookmarks.resolve(try CFBookmarks.readAlias(alias)).url.path == moved.url.path)

            try FileManager.default.removeItem(at: moved.url)
            do {
                _ = try CFBookmarks.resolve(data)
                Issue.record("a deleted file resolved")
            } catch let failure as CFBookmarks.Failure {
                let error = failure.underlying as NSError
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == CocoaError.Code.fileNoSuchFile.rawValue)
                #expect(error.userInfo[NSFilePathErrorKey] as? String == file.path)
            }
            do {
                _ = try CFBookmarks.bookmark(for: URL(fileURLWithPath: volume.path("missing")))
                Issue.record("a bookmark of a missing file was made")
            } catch let failure as CFBookmarks.Failure {
                #expect((failure.underlying as NSError).code == CocoaError.Code.fileReadNoSuchFile.rawValue)
            }
            #expect(CFBookmarks.storedName(Data("junk".utf8)) == nil)
        }
    }

    @Test("CFURLCreateFileReferenceURL and CFURLCreateFilePathURL follow the file; a deleted file gives nil and fileNoSuchFile")
    func coreFoundationFileReferences() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("ref.txt"))
            try Data("r".utf8).write(to: file)
            let reference = try #require(CFBookmarks.fileReference(file as CFURL))
            #expect(reference.relativeString.hasPrefix("file:///.file/id="))
            #expect(reference.description.hasPrefix("file:///.file/id="))
            #expect(CFBookmarks.currentPath(of: reference) == file.path)
            try FileManager.default.createDirectory(atPath: volume.path("sub"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: file.path, toPath: volume.path("sub/moved.txt"))
            #expect(CFBookmarks.currentPath(of: reference) == volume.path("sub/moved.txt"))
            // As on macOS, the reference's path and its bridge to URL answer for where the file is now.
            #expect(reference.path == volume.path("sub/moved.txt"))
            #expect((reference as URL).path == volume.path("sub/moved.txt"))
            #expect(NSURL(string: reference.relativeString)!.checkResourceIsReachableAndReturnError(nil))
            // A file path URL is copied as it is; a reference to a reference is itself.
            #expect(CFBookmarks.currentPath(of: file as CFURL) == nil, "not a file-reference URL")
            #expect(CFURLCreateFilePathURL(kCFAllocatorDefault, file as CFURL, nil)?.takeRetainedValue().path == file.path)
            #expect(CFBookmarks.fileReference(reference) === reference)

            try FileManager.default.removeItem(atPath: volume.path("sub/moved.txt"))
            var error: Unmanaged<CFError>?
            #expect(CFURLCreateFilePathURL(kCFAllocatorDefault, reference, &error) == nil)
            #expect(error?.takeRetainedValue().code == CocoaError.Code.fileNoSuchFile.rawValue)
            #expect(reference.path == nil)
            var unreachable: NSError?
            #expect(!NSURL(string: reference.relativeString)!.checkResourceIsReachableAndReturnError(&unreachable))
            #expect(unreachable != nil)
            #expect(CFBookmarks.fileReference(URL(fileURLWithPath: volume.path("missing")) as CFURL) == nil)
        }
    }

    @Test("CFURLCreateBookmarkDataFromAliasRecord: a legacy Alias Manager record becomes bookmark data that resolves")
    func aliasRecord() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("legacy.txt")
            try Data("l".utf8).write(to: URL(fileURLWithPath: file))
            var alias = AliasRecord(version: 2, kind: 0)
            alias.volumeName = Array("Fixture".utf8)
            alias.targetName = Array("legacy.txt".utf8)
            alias.parentCNID = 0xFFFF_FFFF
            alias.targetCNID = 0xFFFF_FFFF
            alias.setTag(AliasRecord.TagNumber.posixPath, Array("/legacy.txt".utf8))
            alias.setTag(AliasRecord.TagNumber.posixMountPoint, Array(volume.path("").utf8))
            let record = Data(try alias.encoded())
            let data = try #require(CFURLCreateBookmarkDataFromAliasRecord(kCFAllocatorDefault, record as CFData)?.takeRetainedValue() as Data?)
            #expect(try CFBookmarks.resolve(data).url.path == file)
            #expect(CFURLCreateBookmarkDataFromAliasRecord(kCFAllocatorDefault, Data("junk".utf8) as CFData) == nil)
        }
    }

    @Test("a bookmark made through CF resolves through URL and NSURL, and the other way round (one format)")
    func crossSpellings() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("x.txt"))
            try Data("x".utf8).write(to: file)
            let fromCF = try CFBookmarks.bookmark(for: file)
            var isStale = false
            #expect(try URL(resolvingBookmarkData: fromCF, relativeTo: nil, bookmarkDataIsStale: &isStale).path == file.path)
            #expect(try NSURLBookmarks.resolve(fromCF).url.path == file.path)
            let fromURL = try file.bookmarkData()
            #expect(try CFBookmarks.resolve(fromURL).url.path == file.path)
            // Security scope through CF: signed, and verified on resolution.
            var error: Unmanaged<CFError>?
            _ = ScopeTestKeys.directory
            let scoped = try #require(
                CFURLCreateBookmarkData(nil, file as CFURL, .withSecurityScope, nil, nil, &error)?.takeRetainedValue() as Data?)
            var stale: DarwinBoolean = false
            let resolved = try #require(
                CFURLCreateByResolvingBookmarkData(nil, scoped as CFData, .cfurlBookmarkResolutionWithSecurityScope, nil, nil, &stale, &error)?
                    .takeRetainedValue())
            #expect(CFURLStartAccessingSecurityScopedResource(resolved))
            CFURLStopAccessingSecurityScopedResource(resolved)
            #expect(
                CFURLCreateByResolvingBookmarkData(nil, fromCF as CFData, .cfurlBookmarkResolutionWithSecurityScope, nil, nil, &stale, &error)
                    == nil, "unsigned data with the scope option")
            #expect(error?.takeRetainedValue().code == CocoaError.Code.fileReadCorruptFile.rawValue)
        }
    }
}

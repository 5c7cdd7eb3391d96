// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import SecureFiles
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    @testable import BookmarkFoundation
#endif

/// The signing key of this test process lives in a scratch directory, not in the user's home:
/// `XDG_DATA_HOME` is set before the first security-scoped call.
enum ScopeTestKeys {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "/swift-bookmarks-scope-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        setenv("XDG_DATA_HOME", path, 1)
        return path
    }()
}

/// Security-scoped bookmarks in this process: Apple-style code (AppleStyleSecurityScope.swift),
/// signatures, the start/stop registry and read-only scopes, on a real ext4 volume.
@Suite("Security scope: Apple-style code in one process", .serialized, .requiresRealVolumes)
struct SecurityScopeTests {
    init() { _ = ScopeTestKeys.directory }

    @Test("a folder remembered with .withSecurityScope reopens after a move, stale once, with access balanced")
    func folderStore() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let folder = URL(fileURLWithPath: volume.path("Projects/Alpha"), isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            let store = FolderAccessStore(storeURL: URL(fileURLWithPath: volume.path("access.bookmark")))
            try store.remember(folder)

            try FileManager.default.moveItem(atPath: volume.path("Projects"), toPath: volume.path("Old Projects"))
            let first = try store.withAccess { url -> (String, Int) in
                (url.path, SecurityScope.accessCount(of: url))
            }
            #expect(first.value.0 == volume.path("Old Projects/Alpha"))
            #expect(first.value.1 == 1, "access is started inside the body")
            #expect(first.wasStale)
            let second = try store.withAccess { url in
                try String(contentsOf: url.appendingPathComponent("notes.txt"), encoding: .utf8)
            }
            #expect(second.value == "notes")
            #expect(!second.wasStale, "the stale bookmark was re-created, signed again")
            let resolved = URL(fileURLWithPath: volume.path("Old Projects/Alpha"), isDirectory: true)
            #expect(SecurityScope.accessCount(of: resolved) == 0, "every start was balanced")
        }
    }

    @Test("unsigned data, and data signed with another key, fail .withSecurityScope with fileReadCorruptFile (259)")
    func refused() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("a.txt"))
            try Data("a".utf8).write(to: file)
            let unsigned = try file.bookmarkData(options: [], includingResourceValuesForKeys: nil, relativeTo: nil)
            var isStale = false
            #expect(throws: CocoaError.self) {
                _ = try URL(resolvingBookmarkData: unsigned, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
            }
            do {
                _ = try URL(resolvingBookmarkData: unsigned, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
            } catch let error as CocoaError {
                #expect(error.code == .fileReadCorruptFile)
                #expect((error.userInfo[NSUnderlyingErrorKey] as? SecurityScopeError)?.code == .unsigned)
            }
            // Without the option, unsigned data resolves, and its URL has no scope to start.
            let plain = try URL(resolvingBookmarkData: unsigned, options: [], relativeTo: nil, bookmarkDataIsStale: &isStale)
            #expect(!plain.startAccessingSecurityScopedResource())

            // Signed with a key that is not this application's.
            let other = try SigningKey(bytes: Array(repeating: 7, count: 32)).sign(Bookmark.create(for: .init(file.path))).data()
            do {
                _ = try URL(resolvingBookmarkData: Data(other), options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
                Issue.record("data signed with another key resolved with .withSecurityScope")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadCorruptFile)
                #expect((error.userInfo[NSUnderlyingErrorKey] as? SecurityScopeError)?.code == .signatureMismatch)
            }
            // Our own signed data resolves, and starts.
            let signed = try file.bookmarkData(options: .withSecurityScope, includingResourceValuesForKeys: nil, relativeTo: nil)
            let url = try URL(resolvingBookmarkData: signed, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
            #expect(url.startAccessingSecurityScopedResource())
            url.stopAccessingSecurityScopedResource()
            // The same signed data resolves without the option too, as on macOS, but unscoped.
            let unscoped = try URL(resolvingBookmarkData: signed, options: [], relativeTo: nil, bookmarkDataIsStale: &isStale)
            #expect(unscoped.path == file.path)
        }
    }

    @Test("every single-byte change of scoped data is refused (three changes at each offset)")
    func everyByte() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("dir/a.txt"))
            try FileManager.default.createDirectory(atPath: volume.path("dir"), withIntermediateDirectories: true)
            try Data("a".utf8).write(to: file)
            let data = try file.bookmarkData(
                options: [.withSecurityScope, .securityScopeAllowOnlyReadAccess], includingResourceValuesForKeys: [.nameKey],
                relativeTo: nil)
            var accepted: [Int] = []
            var otherCodes: Set<Int> = []
            for offset in data.indices {
                for change: UInt8 in [0x01, 0x80, 0xFF] {
                    var changed = data
                    changed[offset] ^= change
                    var isStale = false
                    do {
                        _ = try URL(resolvingBookmarkData: changed, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
                        accepted.append(offset)
                    } catch let error as CocoaError {
                        if error.code != .fileReadCorruptFile { otherCodes.insert(error.code.rawValue) }
                    }
                }
            }
            #expect(accepted.isEmpty, "changed bytes accepted at offsets \(accepted.prefix(20))")
            #expect(otherCodes.isEmpty, "refused with other codes: \(otherCodes)")
            #expect(data.count > 500)
        }
    }

    @Test("start/stop: true only for scoped URLs, counted per URL, balanced across 64 tasks, stop without start harmless")
    func balancedAcrossTasks() async throws {
        let volume = try LoopVolume(.ext4)
        defer { try? volume.destroy() }
        let file = URL(fileURLWithPath: volume.path("b.txt"))
        try Data("b".utf8).write(to: file)
        let data = try file.bookmarkData(options: .withSecurityScope, includingResourceValuesForKeys: nil, relativeTo: nil)
        var isStale = false
        let url = try URL(resolvingBookmarkData: data, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
        #expect(!file.appendingPathComponent("x").startAccessingSecurityScopedResource())
        #expect(!URL(string: "https://example.com/")!.startAccessingSecurityScopedResource())
        url.stopAccessingSecurityScopedResource()  // no start yet: harmless
        #expect(SecurityScope.accessCount(of: url) == 0)

        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    var ok = true
                    for _ in 0..<200 {
                        ok = ok && url.startAccessingSecurityScopedResource()
                        url.stopAccessingSecurityScopedResource()
                    }
                    return ok && url.startAccessingSecurityScopedResource()  // one left started per task
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
        #expect(SecurityScope.accessCount(of: url) == 64)
        #expect((url as NSURL).startAccessingSecurityScopedResource(), "the NSURL spelling counts the same URL")
        #expect(SecurityScope.accessCount(of: url) == 65)
        for _ in 0..<65 { (url as NSURL).stopAccessingSecurityScopedResource() }
        #expect(SecurityScope.accessCount(of: url) == 0)
        for _ in 0..<3 { url.stopAccessingSecurityScopedResource() }
        #expect(SecurityScope.accessCount(of: url) == 0, "extra stops do not go below zero")
        #expect(url.startAccessingSecurityScopedResource(), "and the URL still starts afterwards")
        url.stopAccessingSecurityScopedResource()
    }

    @Test("the registry is keyed by the resolved URL's string: an equal URL value is scoped and shares the count; the same file spelled otherwise is not")
    func keyedByString() throws {
        let volume = try LoopVolume(.ext4)
        defer { try? volume.destroy() }
        let file = URL(fileURLWithPath: volume.path("c.txt"))
        try Data("c".utf8).write(to: file)
        try FileManager.default.createSymbolicLink(atPath: volume.path("link"), withDestinationPath: volume.path(""))
        let data = try file.bookmarkData(options: .withSecurityScope, includingResourceValuesForKeys: nil, relativeTo: nil)
        var isStale = false
        let url = try URL(resolvingBookmarkData: data, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
        // URL is a value: one built from the same path is equal and cannot be told apart.
        let samePath = URL(fileURLWithPath: url.path)
        #expect(samePath == url)
        #expect(samePath.startAccessingSecurityScopedResource())
        #expect(SecurityScope.accessCount(of: url) == 1, "one count per URL string")
        #expect(!URL(fileURLWithPath: volume.path("link/c.txt")).startAccessingSecurityScopedResource(), "another path to the file")
        url.stopAccessingSecurityScopedResource()
        #expect(SecurityScope.accessCount(of: samePath) == 0)
    }

    @Test("a read-only scope refuses writing through the library; reading works; no start, no access; a swapped file is refused")
    func readOnlyScope() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("c.txt"))
            try Data("original".utf8).write(to: file)
            let data = try file.bookmarkData(
                options: [.withSecurityScope, .securityScopeAllowOnlyReadAccess], includingResourceValuesForKeys: nil,
                relativeTo: nil)
            var isStale = false
            let url = try URL(resolvingBookmarkData: data, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
            do {
                _ = try FileHandle(forSecurityScopedURL: url, access: .reading)
                Issue.record("opened before access was started")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadNoPermission)
            }
            #expect(url.startAccessingSecurityScopedResource())
            defer { url.stopAccessingSecurityScopedResource() }
            let reader = try FileHandle(forSecurityScopedURL: url, access: .reading)
            #expect(try reader.readToEnd() == Data("original".utf8))
            for access in [SecurityScope.Access.writing, .readingAndWriting] {
                do {
                    _ = try FileHandle(forSecurityScopedURL: url, access: access)
                    Issue.record("a read-only scope opened for \(access)")
                } catch let error as CocoaError {
                    #expect(error.code == .fileWriteNoPermission)
                }
            }
            #expect(try String(contentsOf: file, encoding: .utf8) == "original", "the target is unmodified")

            // An atomic save put another file at the path: the scope was for the old one.
            try Data("replacement".utf8).write(to: file, options: .atomic)
            do {
                _ = try FileHandle(forSecurityScopedURL: url, access: .reading)
                Issue.record("a file swapped in at the path opened under the old scope")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadNoPermission)
            }
        }
    }

    @Test("a writable scope opens for writing through the library")
    func writableScope() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("d.txt"))
            try Data("old".utf8).write(to: file)
            let data = try file.bookmarkData(options: .withSecurityScope, includingResourceValuesForKeys: nil, relativeTo: nil)
            let url = try #require(resolveSecurityScoped(data), "the NSURL helper resolves and starts") as URL
            defer { url.stopAccessingSecurityScopedResource() }
            let writer = try FileHandle(forSecurityScopedURL: url, access: .writing)
            try writer.write(contentsOf: Data("new".utf8))
            try writer.close()
            #expect(try String(contentsOf: file, encoding: .utf8) == "new")
        }
    }

    @Test("a document-scoped bookmark (relativeTo: with .withSecurityScope) follows a copy of the document's folder")
    func documentScoped() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            try FileManager.default.createDirectory(atPath: volume.path("Project/media"), withIntermediateDirectories: true)
            let document = URL(fileURLWithPath: volume.path("Project/story.doc"))
            try Data("doc".utf8).write(to: document)
            let image = URL(fileURLWithPath: volume.path("Project/media/cover.png"))
            try Data("png".utf8).write(to: image)
            let data = try image.bookmarkData(options: .withSecurityScope, includingResourceValuesForKeys: nil, relativeTo: document)
            // A copy (new inodes) under another name, the original gone: only the base finds it.
            try FileManager.default.copyItem(atPath: volume.path("Project"), toPath: volume.path("Project copy"))
            try FileManager.default.removeItem(atPath: volume.path("Project"))
            var isStale = false
            let copyDocument = URL(fileURLWithPath: volume.path("Project copy/story.doc"))
            let url = try URL(resolvingBookmarkData: data, options: .withSecurityScope, relativeTo: copyDocument, bookmarkDataIsStale: &isStale)
            #expect(url.path == volume.path("Project copy/media/cover.png"))
            #expect(isStale)
            #expect(url.startAccessingSecurityScopedResource())
            url.stopAccessingSecurityScopedResource()
        }
    }

    @Test("the registry is bounded: the oldest URL with no access started is dropped; started ones never are")
    func registryBound() throws {
        let registry = ScopeRegistry(capacity: 3)
        let device = DeviceNumber(major: 0, minor: 0)
        let urls = (0..<5).map { URL(fileURLWithPath: "/scoped/\($0)") }
        for url in urls.prefix(3) {
            #expect(registry.register(url, path: Array(url.path.utf8), device: device, inode: 1, readOnly: false))
        }
        #expect(registry.start(urls[0]))
        #expect(registry.register(urls[3], path: [], device: device, inode: 1, readOnly: false))
        #expect(registry.count == 3)
        #expect(registry.entry(for: urls[0]) != nil, "started: kept")
        #expect(registry.entry(for: urls[1]) == nil, "the oldest idle one was dropped")
        #expect(!registry.start(urls[1]), "a dropped URL no longer starts")
        #expect(registry.start(urls[2]) && registry.start(urls[3]))
        #expect(!registry.register(urls[4], path: [], device: device, inode: 1, readOnly: false), "full of started URLs")
        #expect(!registry.start(urls[4]))
        registry.stop(urls[2])
        #expect(registry.register(urls[4], path: [], device: device, inode: 1, readOnly: false), "room again once one stops")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Signed (security-scoped) bookmarks: the key file, signing, every way verification must fail,
/// and confinement beneath root directories.
@Suite("Signed bookmarks", .serialized)
struct SignedBookmarkTests {
    /// A fresh directory under /var/tmp (a real disk file system), removed afterwards.
    static func withDirectory<T>(_ body: (Tree) throws -> T) throws -> T {
        let url = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("signed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Shell.check(["chmod", "0755", url.path])
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(Tree(root: url.path))
    }

    /// The refusal's code, `nil` when `body` succeeded, `.resolution` for any other error.
    static func refusal(_ body: () throws -> Void) -> SecurityScopeError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? SecurityScopeError)?.code ?? .resolution
        }
    }

    @Test("the key file: created exclusively with mode 0600 in a 0700 directory, loaded again unchanged")
    func keyFile() throws {
        try Self.withDirectory { tree in
            let path = FilePath(tree.path("data/com.example.app/bookmark-signing.key"))
            let (key, created) = try SigningKey.loadOrCreate(at: path)
            #expect(created)
            let status = try FileStatus(path: path)
            #expect(status.permissions == 0o600)
            #expect(status.size == 32)
            #expect(status.uid == geteuid())
            #expect(try FileStatus(path: FilePath(tree.path("data/com.example.app"))).permissions == 0o700)
            let (again, createdAgain) = try SigningKey.loadOrCreate(at: path)
            #expect(!createdAgain)
            let target = tree.path("t.txt")
            try tree.file("t.txt")
            let signed = try key.sign(try Bookmark.create(for: FilePath(target)))
            _ = try again.verify(try signed.data())
            // No temporary files left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: tree.path("data/com.example.app")) == ["bookmark-signing.key"])
            // The XDG location.
            setenv("XDG_DATA_HOME", tree.path("xdg"), 1)
            #expect(SigningKey.defaultLocation(applicationID: "com.example.app")
                == FilePath(tree.path("xdg/com.example.app/bookmark-signing.key")))
            #expect(SigningKey.defaultLocation(applicationID: "../evil") == nil)
            let appKey = try SigningKey.forApplication("com.example.app")
            #expect(appKey.path == FilePath(tree.path("xdg/com.example.app/bookmark-signing.key")))
            #expect(try FileStatus(path: FilePath(tree.path("xdg/com.example.app/bookmark-signing.key"))).permissions == 0o600)
            #expect(Self.refusal { _ = try SigningKey.forApplication("a/b") } == .keyRejected)
            unsetenv("XDG_DATA_HOME")
        }
    }

    @Test("valid, unsigned, wrong key, re-signed by another key, read-only scope")
    func verification() throws {
        try Self.withDirectory { tree in
            try tree.file("doc.txt")
            let key = try SigningKey.loadOrCreate(at: FilePath(tree.path("k/key"))).key
            let other = try SigningKey.loadOrCreate(at: FilePath(tree.path("k/other"))).key
            let plain = try Bookmark.create(for: FilePath(tree.path("doc.txt")), options: [.withSecurityScope])
            let signed = try key.sign(plain)
            let data = try signed.data()
            let scoped = try key.resolve(data)
            #expect(scoped.resolution.path == FilePath(tree.path("doc.txt")))
            #expect(!scoped.readOnly)
            #expect(signed.creationOptions.contains(.withSecurityScope))

            #expect(Self.refusal { _ = try key.verify(try! plain.data()) } == .unsigned)
            #expect(Self.refusal { _ = try other.verify(data) } == .signatureMismatch)
            // Someone who holds the data re-points it and signs it with their own key.
            var forged = signed
            forged.record.pathComponents = ["etc", "shadow"].map { ByteString($0) }
            let reSigned = try other.sign(forged)
            #expect(Self.refusal { _ = try key.verify(try reSigned.data()) } == .signatureMismatch)
            // Or edits it and keeps the old signature.
            #expect(Self.refusal { _ = try key.verify(try forged.data()) } == .signatureMismatch)

            let readOnly = try key.sign(try Bookmark.create(
                for: FilePath(tree.path("doc.txt")), options: [.withSecurityScope, .securityScopeAllowOnlyReadAccess]))
            let readOnlyScope = try key.resolve(try readOnly.data())
            #expect(readOnlyScope.readOnly)
            // Enforced when opened through the library: reading yes, writing no.
            #expect(String(decoding: try readOnlyScope.open().readToEnd(), as: UTF8.self) == "data")
            for write: OwnedDescriptor.OpenOptions in [.readWrite, .writeOnly, [.writeOnly, .append]] {
                #expect(Self.refusal { _ = try readOnlyScope.open(write) } == .readOnlyScope)
            }
            // A read-write scope opens for writing, through the verified descriptor.
            let writable = try scoped.open(.readWrite)
            try writable.writeAll(Array("!".utf8))
            #expect(try String(contentsOfFile: tree.path("doc.txt"), encoding: .utf8) == "!ata")
        }
    }

    @Test("refreshing signed data re-signs it with the key given, and leaves it unsigned without one")
    func refreshSigned() throws {
        try Self.withDirectory { tree in
            try tree.file("a/doc.txt")
            let key = SigningKey(bytes: [UInt8](repeating: 9, count: 32))
            let file = tree.path("saved.book")
            try Data(try key.sign(try Bookmark.create(for: FilePath(tree.path("a/doc.txt")))).data())
                .write(to: URL(fileURLWithPath: file))
            try tree.move("a/doc.txt", "b/doc.txt")
            let refreshed = try Bookmark.refreshFile(at: FilePath(file), signingKey: key)
            #expect(refreshed.rewritten)
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let scoped = try key.resolve(data)
            #expect(scoped.resolution.path == FilePath(tree.path("b/doc.txt")))
            #expect(!scoped.resolution.isStale)
            try tree.move("b/doc.txt", "c/doc.txt")
            _ = try Bookmark.refreshFile(at: FilePath(file))
            let unsigned = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(Self.refusal { _ = try key.verify(unsigned) } == .unsigned)
        }
    }

    @Test("refreshing a library file (bookmarks stored back to back) is refused before anything is resolved; the file is untouched")
    func refreshLibraryRefused() throws {
        try Self.withDirectory { tree in
            try tree.file("a/doc.txt")
            try tree.file("a/other.txt")
            let file = tree.path("library.book")
            let library = try Bookmark.create(for: FilePath(tree.path("a/doc.txt"))).data()
                + (try Bookmark.create(for: FilePath(tree.path("a/other.txt"))).data())
            try Data(library).write(to: URL(fileURLWithPath: file))
            try tree.move("a/doc.txt", "b/doc.txt")
            do throws(BookmarkError) {
                _ = try Bookmark.refreshFile(at: FilePath(file))
                Issue.record("a library file was refreshed")
            } catch {
                #expect(error.code == .corruptData)
                #expect(error.message.contains("2 bookmarks stored back to back"), "\(error.message)")
            }
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))) == library)
        }
    }

    @Test("tampering: every byte flipped in turn is refused")
    func everyByteFlipped() throws {
        try Self.withDirectory { tree in
            try tree.file("doc.txt")
            let key = SigningKey(bytes: (0..<32).map { UInt8($0) })
            let data = try key.sign(try Bookmark.create(for: FilePath(tree.path("doc.txt")))).data()
            _ = try key.verify(data)
            var refused: [SecurityScopeError.Code: Int] = [:]
            for index in data.indices {
                var tampered = data
                tampered[index] ^= 0xFF
                let code = Self.refusal { _ = try key.verify(tampered) }
                #expect(code != nil, "flipping byte \(index) was accepted")
                if let code { refused[code, default: 0] += 1 }
                // And one bit, for good measure.
                tampered = data
                tampered[index] ^= 0x01
                #expect(Self.refusal { _ = try key.verify(tampered) } != nil, "flipping bit 0 of byte \(index) was accepted")
            }
            print("signed bookmarks: \(data.count) flipped bytes refused: \(refused)")
            // Truncated and extended data too.
            #expect(Self.refusal { _ = try key.verify(Array(data.dropLast())) } != nil)
            #expect(Self.refusal { _ = try key.verify(data + [0]) } != nil)
        }
    }

    @Test("key files that are not ours, too open, a symlink, the wrong size: rejected")
    func keyFileRejected() throws {
        try Self.withDirectory { tree in
            try tree.dir("k", mode: 0o700)
            let path = tree.path("k/key")
            _ = try SigningKey.loadOrCreate(at: FilePath(path))
            for mode in ["0640", "0604", "0644", "0660", "0666"] {
                try Shell.check(["chmod", mode, path])
                #expect(Self.refusal { _ = try SigningKey.load(from: FilePath(path)) } == .keyRejected, "mode \(mode)")
                #expect(Self.refusal { _ = try SigningKey.loadOrCreate(at: FilePath(path)) } == .keyRejected)
            }
            try Shell.check(["chmod", "0600", path])
            _ = try SigningKey.load(from: FilePath(path))
            try Shell.check(["chmod", "0400", path])
            _ = try SigningKey.load(from: FilePath(path))
            if getuid() == 0 {
                try Shell.check(["chown", "65534:65534", path])
                let code = Self.refusal { _ = try SigningKey.load(from: FilePath(path)) }
                #expect(code == .keyRejected)
                try Shell.check(["chown", "0:0", path])
            }
            try tree.symlink("k/link", to: path)
            #expect(Self.refusal { _ = try SigningKey.load(from: FilePath(tree.path("k/link"))) } == .keyRejected)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: tree.path("k/short")))
            try Shell.check(["chmod", "0600", tree.path("k/short")])
            #expect(Self.refusal { _ = try SigningKey.load(from: FilePath(tree.path("k/short"))) } == .keyRejected)
            #expect(Self.refusal { _ = try SigningKey.load(from: FilePath(tree.path("k/missing"))) } == .keyRejected)
        }
    }

    @Test("confinement: inside is allowed; escapes through symlinks and moved-in links are refused")
    func confinement() throws {
        try Self.withDirectory { tree in
            try tree.file("root/inside/doc.txt")
            try tree.file("outside/secret.txt")
            try tree.dir("outside/dir")
            try tree.file("outside/dir/doc.txt")
            let key = SigningKey(bytes: [UInt8](repeating: 7, count: 32))
            let root = FilePath(tree.path("root"))
            func sign(_ path: String) throws -> [UInt8] {
                try key.sign(try Bookmark.create(for: FilePath(tree.path(path)))).data()
            }
            // Inside, and the root itself.
            #expect(try key.resolve(try sign("root/inside/doc.txt"), confinedTo: [root]).resolution.path
                == FilePath(tree.path("root/inside/doc.txt")))
            _ = try key.resolve(try sign("root"), confinedTo: [root])
            // A symlink inside the root pointing out: the bookmark names the object outside.
            try tree.symlink("root/escape", to: tree.path("outside/secret.txt"))
            let viaLink = try sign("root/escape")
            #expect(Self.refusal { _ = try key.resolve(viaLink, confinedTo: [root]) } == .outsideScope)
            // A directory inside the root replaced by a symlink to a directory outside holding the
            // same name: the path now leads outside.
            let inside = try sign("root/inside/doc.txt")
            try tree.move("root/inside", "root/moved-away")
            try tree.symlink("root/inside", to: tree.path("outside/dir"))
            switch Result(catching: { () throws(SecurityScopeError) -> ScopedResolution in try key.resolve(inside, confinedTo: [root]) }) {
            case .success(let scoped):
                // Resolution may prefer the original file (found by identity), which is inside.
                #expect(scoped.resolution.path == FilePath(tree.path("root/moved-away/doc.txt")))
            case .failure(let error):
                #expect(error.code == .outsideScope)
            }
            // A root given through a symlink still confines by identity.
            try tree.symlink("rootlink", to: tree.path("root"))
            #expect(Self.refusal { _ = try key.resolve(viaLink, confinedTo: [FilePath(tree.path("rootlink"))]) } == .outsideScope)
            _ = try key.resolve(try sign("root/moved-away/doc.txt"), confinedTo: [FilePath(tree.path("rootlink"))])
            // A sibling whose name starts with the root's name is not beneath it.
            try tree.file("root-sibling/doc.txt")
            #expect(Self.refusal { _ = try key.resolve(try sign("root-sibling/doc.txt"), confinedTo: [root]) } == .outsideScope)
            // Several roots: any one will do.
            _ = try key.resolve(try sign("outside/secret.txt"), confinedTo: [root, FilePath(tree.path("outside"))])
        }
    }
}

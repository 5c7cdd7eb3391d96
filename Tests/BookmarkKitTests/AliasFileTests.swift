// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

@testable import BookmarkKit

/// Runs `/usr/bin/env ARGS`, returning status and stdout (nil when it cannot start).
func runPeer(_ arguments: [String]) -> (status: Int32, stdout: Data, stderr: String)? {
    guard let result = try? Shell.run(["/usr/bin/env"] + arguments) else { return nil }
    return (result.status, result.stdoutData, result.stderr)
}

enum AliasPeers {
    static let fq: Bool = runPeer(["fq", "--version"])?.status == 0
    static let macAlias: Bool =
        runPeer(["python3", "-c", "import importlib.metadata as m, sys; sys.exit(m.version('mac_alias') != '2.2.3')"])?.status == 0

    /// The documented conversion of an alias file's data fork to bookmark data: a 48-byte `book`
    /// header (size, version, header size 48) and the data section unchanged.
    static func bookmarkData(fromAliasFile bytes: [UInt8]) -> [UInt8] {
        let section = Array(bytes[56...])
        func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) } }
        return Array("book".utf8) + le(UInt32(48 + section.count)) + le(0x1004_0000) + le(48)
            + [UInt8](repeating: 0, count: 32) + section
    }

    /// mac_alias's reading of bookmark data: path components, volume UUID, creation options.
    static let macAliasScript = """
        import sys, json, mac_alias
        from mac_alias import bookmark as bm
        b = mac_alias.Bookmark.from_bytes(open(sys.argv[1], 'rb').read())
        print(json.dumps({"path": list(b.get(bm.kBookmarkPath, [])), "volumeUUID": b.get(bm.kBookmarkVolumeUUID),
                          "creationOptions": b.get(bm.kBookmarkCreationOptions)}))
        """
}

@Suite("Alias files", .serialized)
struct AliasFileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    // MARK: macOS aliases

    @Test("the macOS Finder aliases (perl-*.alias) read as their documented targets",
          arguments: [("perl-folder.alias", "/System/Library/Perl", "07FD1A5D-7D66-475A-AF51-934CDEF2D60C"),
                      ("perl-removable.alias", "/Volumes/SANDISK/untitled", "66D290A3-6692-3D78-ABD5-A2FE6F3F4DBD"),
                      ("perl-root.alias", "/", "07FD1A5D-7D66-475A-AF51-934CDEF2D60C")])
    func macOSFixtures(name: String, path: String, uuid: String) throws {
        let file = Self.fixture(name)
        try #require(FileManager.default.fileExists(atPath: file), "fixture missing: \(file)")
        let bookmark = try Bookmark(contentsOfAliasFile: FilePath(file))
        #expect(String(decoding: bookmark.path ?? [], as: UTF8.self) == path)
        #expect(bookmark.record.volume.uuid?.uppercased() == uuid)
        #expect(bookmark.creationOptions.contains(.suitableForBookmarkFile))
        // No FinderInfo attribute travels with the fixture: an alias by content.
        #expect(Bookmark.isAliasFile(at: FilePath(file)))
        // Its volume is not here: a typed error, fast, never a wrong file.
        let outcome = Result { () throws(BookmarkError) in try Bookmark.resolveAliasFile(at: FilePath(file)) }
        guard case .failure(let error) = outcome else {
            Issue.record("a macOS alias resolved on Linux: \(outcome)")
            return
        }
        #expect(error.code == .volumeNotMounted)
        #expect(error.lastKnownPath.map { String(decoding: $0, as: UTF8.self) } == path)
        // Writing it back out keeps every key.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("alias-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try bookmark.writeAliasFile(to: FilePath(copy))
        let reread = try Bookmark(contentsOfAliasFile: FilePath(copy))
        #expect(reread.record == bookmark.record)
    }

    // MARK: Writing and reading our own

    @Test("written with Apple's header and FinderInfo, read back by us",
          .requiresRealVolumes, arguments: [FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs])
    func writeAndRead(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("docs/report.txt", "hello")
            try tree.dir("folder")
            let bookmark = try Bookmark.create(for: FilePath(tree.path("docs/report.txt")), options: [.suitableForBookmarkFile])
            let aliasPath = tree.path("report alias")
            let written = try bookmark.writeAliasFile(to: FilePath(aliasPath))
            #expect(written.finderInfoWritten)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: aliasPath)))
            #expect(bytes.count == written.size)
            #expect(Array(bytes[0..<16]) == AliasFile.magic)
            #expect(Array(bytes[16..<20]) == [56, 0, 0, 0])
            #expect(Array(bytes[20..<24]) == [56, 0, 0, 0])
            let length = (0..<4).reduce(0) { $0 | Int(bytes[24 + $1]) << (8 * $1) }
            #expect(length == bytes.count - 56)
            // The attribute, read by Python's os.getxattr: alis/MACS with kIsAlias.
            let xattr = runPeer(["python3", "-c", "import os,sys; sys.stdout.buffer.write(os.getxattr(sys.argv[1], 'user.com.apple.FinderInfo'))", aliasPath])
            let info = try FinderInfo(decoding: [UInt8](try #require(xattr?.stdout)))
            #expect(info.isAlias && info.fileType == Array("alis".utf8) && info.creator == Array("MACS".utf8))
            #expect(Bookmark.isAliasFile(at: FilePath(aliasPath)))
            #expect(!Bookmark.isAliasFile(at: FilePath(tree.path("docs/report.txt"))))
            // Ours.
            let reread = try Bookmark(contentsOfAliasFile: FilePath(aliasPath))
            #expect(reread.record == bookmark.record)
            let resolved = try Bookmark.resolveAliasFile(at: FilePath(aliasPath))
            #expect(resolved.wasAlias && resolved.resolution?.path == FilePath(tree.path("docs/report.txt")))
            // A folder alias is fdrp.
            let folderAlias = tree.path("folder alias")
            try Bookmark.create(for: FilePath(tree.path("folder")), options: [.suitableForBookmarkFile])
                .writeAliasFile(to: FilePath(folderAlias))
            let folderInfo = try FinderInfo(decoding: try #require(
                try Directory.current.open(FilePath(folderAlias)).extendedAttribute(finderInfoAttribute)))
            #expect(folderInfo.isFolderAlias && folderInfo.isAlias)
        }
    }

    /// Writes an alias file to a new file on a `kind` volume, converts its data fork to bookmark
    /// data the documented way, and hands `body` that file, the bookmark and its path components.
    func withConvertedAlias(_ kind: FixtureFileSystem, _ body: (String, Bookmark, [String]) throws -> Void) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("docs/report.txt", "hello")
            let bookmark = try Bookmark.create(for: FilePath(tree.path("docs/report.txt")), options: [.suitableForBookmarkFile])
            let aliasPath = tree.path("report alias")
            try bookmark.writeAliasFile(to: FilePath(aliasPath))
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: aliasPath)))
            let converted = volume.path("converted.book")
            try Data(AliasPeers.bookmarkData(fromAliasFile: bytes)).write(to: URL(fileURLWithPath: converted))
            let components = String(decoding: bookmark.path ?? [], as: UTF8.self).split(separator: "/").map(String.init)
            try body(converted, bookmark, components)
        }
    }

    // tmpfs: a volume without a persistent UUID, so the bookmark has none.
    @Test("mac_alias reads our alias file (converted to bookmark data)", .requiresRealVolumes,
          .enabled(if: AliasPeers.macAlias, "mac_alias 2.2.3 is not installed (Tools/install-format-peers)"),
          arguments: [FixtureFileSystem.ext4, .tmpfs])
    func macAliasReadsOurs(kind: FixtureFileSystem) throws {
        try withConvertedAlias(kind) { converted, bookmark, components in
            let out = try #require(runPeer(["python3", "-c", AliasPeers.macAliasScript, converted]))
            #expect(out.status == 0, "\(out.stderr)")
            let json = try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any]
            #expect(json?["path"] as? [String] == components)
            #expect((json?["volumeUUID"] as? String)?.uppercased() == bookmark.record.volume.uuid?.uppercased())
            #expect(json?["creationOptions"] as? Int == 1024)
        }
    }

    @Test("fq reads our alias file (converted to bookmark data)", .requiresRealVolumes,
          .enabled(if: AliasPeers.fq, "fq is not installed (Tools/install-format-peers)"),
          arguments: [FixtureFileSystem.ext4, .tmpfs])
    func fqReadsOurs(kind: FixtureFileSystem) throws {
        try withConvertedAlias(kind) { converted, bookmark, components in
            let out = try #require(runPeer(["fq", "-c", "-d", "apple_bookmark", "-r", "torepr", converted]))
            #expect(out.status == 0, "\(out.stderr)")
            let json = try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any]
            #expect(json?["target_path"] as? [String] == components)
            #expect((json?["volume_uuid"] as? String)?.uppercased() == bookmark.record.volume.uuid?.uppercased())
        }
    }

    @Test("on a file system without extended attributes the alias is valid by content",
          .requiresRealVolumes, .requiresFileSystems(.exfat))
    func withoutAttributes() throws {
        try LoopVolume.withVolume(.exfat) { volume in
            let target = volume.path("target.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: target))
            let bookmark = try Bookmark.create(for: FilePath(target), options: [.suitableForBookmarkFile])
            let written = try bookmark.writeAliasFile(to: FilePath(volume.path("target alias")))
            #expect(!written.finderInfoWritten)
            #expect(Bookmark.isAliasFile(at: FilePath(volume.path("target alias"))))
            let resolved = try Bookmark.resolveAliasFile(at: FilePath(volume.path("target alias")))
            #expect(resolved.resolution?.path == FilePath(target))
        }
    }

    @Test("refusals: data not made for a bookmark file, a symlink at the destination, a directory")
    func refusals() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alias-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tree = Tree(root: directory.path)
        try tree.file("target.txt", "target")
        try tree.file("victim.txt", "must not change")
        try tree.symlink("link.alias", to: tree.path("victim.txt"))
        try tree.dir("adir")
        let plain = try Bookmark.create(for: FilePath(tree.path("target.txt")))
        #expect(throws: BookmarkError.self) { try plain.writeAliasFile(to: FilePath(tree.path("plain.alias"))) }
        #expect(!tree.exists("plain.alias"))
        let suitable = try Bookmark.create(for: FilePath(tree.path("target.txt")), options: [.suitableForBookmarkFile])
        #expect(throws: BookmarkError.self) { try suitable.writeAliasFile(to: FilePath(tree.path("link.alias"))) }
        #expect(try String(contentsOfFile: tree.path("victim.txt"), encoding: .utf8) == "must not change")
        #expect(throws: BookmarkError.self) { try suitable.writeAliasFile(to: FilePath(tree.path("adir"))) }
        // Nothing left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["adir", "link.alias", "target.txt", "victim.txt"])
    }

    // MARK: Resolving and refreshing

    @Test("resolved after the target moved; refreshed in place when stale, unknown keys and mode kept",
          .requiresRealVolumes, arguments: [FixtureFileSystem.ext4, .btrfs])
    func refresh(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/target.txt")
            var bookmark = try Bookmark.create(for: FilePath(tree.path("a/target.txt")), options: [.suitableForBookmarkFile])
            let custom = BookmarkKey.string(ByteString("com.example.app.note"))
            bookmark.record[custom] = .string(ByteString("kept"))
            let alias = tree.path("the alias")
            try bookmark.writeAliasFile(to: FilePath(alias))
            try Shell.check(["chmod", "0640", alias])
            try tree.move("a/target.txt", "b/moved.txt")
            let resolved = try Bookmark.resolveAliasFile(at: FilePath(alias))
            #expect(resolved.resolution?.path == FilePath(tree.path("b/moved.txt")))
            #expect(resolved.resolution?.isStale == true)

            let refreshed = try Bookmark.refreshFile(at: FilePath(alias))
            #expect(refreshed.rewritten && refreshed.container == .aliasFile)
            let after = try Bookmark(contentsOfAliasFile: FilePath(alias))
            #expect(String(decoding: after.path ?? [], as: UTF8.self) == tree.path("b/moved.txt"))
            #expect(after.record[custom] == .string(ByteString("kept")))
            #expect(after.creationOptions.contains(.suitableForBookmarkFile))
            #expect(Bookmark.isAliasFile(at: FilePath(alias)))
            #expect(try FileStatus(path: FilePath(alias)).permissions == 0o640)
            let again = try Bookmark.refreshFile(at: FilePath(alias))
            #expect(!again.rewritten)
            #expect(try Bookmark(contentsOfAliasFile: FilePath(alias)).resolve().isStale == false)
            // Raw bookmark data and base64 text are refreshed in their own container.
            let raw = tree.path("raw.book")
            let text = tree.path("text.b64")
            let plain = try Bookmark.create(for: FilePath(tree.path("b/moved.txt")))
            try Data(try plain.data()).write(to: URL(fileURLWithPath: raw))
            try Data((Data(try plain.data()).base64EncodedString() + "\n").utf8).write(to: URL(fileURLWithPath: text))
            try tree.move("b/moved.txt", "c/again.txt")
            #expect(try Bookmark.refreshFile(at: FilePath(raw)).container == .bookmarkData)
            #expect(try Bookmark.refreshFile(at: FilePath(text)).rewritten)
            let rawAfter = try Bookmark(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
            #expect(String(decoding: rawAfter.path ?? [], as: UTF8.self) == tree.path("c/again.txt"))
            let textAfter = try String(contentsOfFile: text, encoding: .utf8)
            let decoded = try Bookmark(data: [UInt8](try #require(Data(base64Encoded: textAfter.trimmingCharacters(in: .whitespacesAndNewlines)))))
            #expect(String(decoding: decoded.path ?? [], as: UTF8.self) == tree.path("c/again.txt"))
            // A target that is gone: the file is left alone.
            let before = try Data(contentsOf: URL(fileURLWithPath: raw))
            try tree.remove("c/again.txt")
            #expect(throws: BookmarkError.self) { try Bookmark.refreshFile(at: FilePath(raw)) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: raw)) == before)
        }
    }

    // MARK: Legacy alias records

    @Test("legacy alis v2 and v3 records become bookmark data and resolve by path",
          .requiresRealVolumes, arguments: [UInt16(2), 3])
    func legacyRecords(version: UInt16) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let mount = try #require(volume.mountPoint?.path)
            let tree = Tree(root: volume.path("t"))
            try tree.file("legacy.txt")
            var alias = AliasRecord(version: version, kind: 0)
            alias.volumeName = Array("Fixture".utf8)
            alias.targetName = Array("legacy.txt".utf8)
            alias.parentCNID = 0xFFFF_FFFF
            alias.targetCNID = 0xFFFF_FFFF
            alias.setTag(AliasRecord.TagNumber.posixPath, Array("/t/legacy.txt".utf8))
            alias.setTag(AliasRecord.TagNumber.posixMountPoint, Array(mount.utf8))
            let bytes = try alias.encoded()
            let bookmark = try Bookmark(aliasRecord: bytes)
            #expect(String(decoding: bookmark.path ?? [], as: UTF8.self) == tree.path("legacy.txt"))
            #expect(bookmark.record.aliasData == bytes)
            let data = try bookmark.data()
            #expect(try Bookmark(data: data).record == bookmark.record)
            let resolution = try bookmark.resolve()
            #expect(resolution.path == FilePath(tree.path("legacy.txt")))
            // A file holding only the record (a pre-10.6 alias's data) reads the same way.
            let file = volume.path("legacy.alis")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            #expect(try Bookmark(contentsOfAliasFile: FilePath(file)).record == bookmark.record)
            #expect(throws: BookmarkError.self) { try Bookmark(aliasRecord: Array(bytes.prefix(20))) }
        }
    }

    /// Runs `body` on a volume holding `t/legacy.txt` with an alias record of it (the file's
    /// inode as its CNID) that has every tag a refresh rewrites or drops, and one it keeps as it is
    /// (tag 21); also the file's inode.
    static func withLegacyRecord(version: UInt16, _ body: (LoopVolume, Tree, AliasRecord, UInt64) throws -> Void) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let mount = try #require(volume.mountPoint?.path)
            let tree = Tree(root: volume.path("t"))
            try tree.file("legacy.txt")
            let inode = try Self.inode(tree.path("legacy.txt"))
            let alias = Self.legacyRecord(version: version, mount: mount, inode: inode, parent: try Self.inode(tree.root))
            try body(volume, tree, alias, inode)
        }
    }

    static func legacyRecord(version: UInt16, mount: String, inode: UInt64, parent: UInt64) -> AliasRecord {
        var alias = AliasRecord(version: version, kind: 0)
        alias.volumeName = Array("Fixture".utf8)
        alias.targetName = Array("legacy.txt".utf8)
        alias.targetCNID = UInt32(inode)
        alias.parentCNID = UInt32(parent)
        alias.setTag(AliasRecord.TagNumber.folderName, Array("t".utf8))
        alias.setTag(AliasRecord.TagNumber.cnidPath, [0, 0, 0, 2])
        alias.setTag(AliasRecord.TagNumber.carbonPath, Array("Fixture:t:legacy.txt".utf8))
        alias.setTag(AliasRecord.TagNumber.unicodeFileName, AliasRecord.encodeUTF16Counted("legacy.txt"))
        alias.setTag(AliasRecord.TagNumber.posixPath, Array("/t/legacy.txt".utf8))
        alias.setTag(AliasRecord.TagNumber.posixMountPoint, Array(mount.utf8))
        alias.setTag(AliasRecord.TagNumber.userHomePrefixLength, [0, 7])
        return alias
    }

    static func inode(_ path: String) throws -> UInt64 {
        let number = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber
        return try #require(number).uint64Value
    }

    @Test("a stale alis record file is refreshed as an alis record of the new file, its other tags kept",
          .requiresRealVolumes, arguments: [UInt16(2), 3])
    func refreshLegacyRecord(version: UInt16) throws {
        try Self.withLegacyRecord(version: version) { volume, tree, alias, inode in
            let mount = try #require(volume.mountPoint?.path)
            let file = volume.path("legacy.alis")
            try Data(try alias.encoded()).write(to: URL(fileURLWithPath: file))
            // Saved atomically: a new file (a new inode) at the same path. An alias record has no
            // volume UUID, so its target is found by path only, and a move is not followed.
            let target = tree.path("legacy.txt")
            let replacement = try Self.saveAtomically(target)

            let refresh = try Bookmark.refreshFile(at: FilePath(file))
            #expect(refresh.rewritten)
            #expect(refresh.container == .aliasRecord)
            #expect(refresh.resolution.path == FilePath(target))
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(AliasRecord.looksLikeAliasRecord(bytes), "still an alis record, not bookmark data")
            let written = try AliasRecord(decoding: bytes)
            #expect(written.version == version)
            #expect(written.posixPath?.bytes == Array("/t/legacy.txt".utf8))
            #expect(written.posixMountPoint?.bytes == Array(mount.utf8))
            #expect(written.targetCNID == UInt32(replacement), "the new file's ID, not \(inode)")
            #expect(written.parentCNID == UInt32(try Self.inode(tree.root)))
            #expect(written.unicodeFileName == "legacy.txt")
            #expect(written.folderName == "t")
            #expect(written.cnidPath == nil, "the old folder chain is dropped, not left wrong")
            #expect(written.carbonPath == nil)
            #expect(written.userHomePrefixLength == 7, "a tag the refresh does not know is kept")
            if version == 2 { #expect(written.targetName == Array("legacy.txt".utf8)) }
            // Read back, it is not stale; a second refresh leaves it alone.
            let again = try Bookmark(contentsOfAliasFile: FilePath(file)).resolve()
            #expect(again.path == FilePath(target))
            #expect(again.changes.isEmpty, "\(again.changes)")
            #expect(try !Bookmark.refreshFile(at: FilePath(file)).rewritten)
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))) == bytes)
        }
    }

    /// Replaces the file at `path` as an editor saving atomically does (a new file renamed over
    /// it); the new inode.
    static func saveAtomically(_ path: String) throws -> UInt64 {
        let temporary = path + ".saving"
        try Data("saved".utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try inode(path)
    }

    @Test("bookmark data holding an alias record is refreshed with that record naming the new file",
          .requiresRealVolumes)
    func refreshEmbeddedRecord() throws {
        try Self.withLegacyRecord(version: 2) { volume, tree, alias, _ in
            // Apple's CFURLCreateBookmarkDataFromAliasRecord: bookmark data with the record inside.
            let file = volume.path("legacy.bookmark")
            try Data(try Bookmark(aliasRecord: try alias.encoded()).data()).write(to: URL(fileURLWithPath: file))
            let replacement = try Self.saveAtomically(tree.path("legacy.txt"))

            let refresh = try Bookmark.refreshFile(at: FilePath(file))
            #expect(refresh.rewritten)
            #expect(refresh.container == .bookmarkData)
            let bookmark = try Bookmark(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
            #expect(bookmark.path == Array(tree.path("legacy.txt").utf8))
            #expect(bookmark.record.fileID == Int64(replacement))
            let embedded = try #require(try bookmark.record.embeddedAliasRecord())
            #expect(embedded.targetCNID == UInt32(replacement), "the embedded record names the new file too")
            #expect(embedded.posixPath?.bytes == Array("/t/legacy.txt".utf8))
            #expect(embedded.cnidPath == nil)
        }
    }

    @Test("mac_alias reads a refreshed v2 record: the path, name and the new file's ID",
          .requiresRealVolumes,
          .enabled(if: AliasPeers.macAlias, "mac_alias 2.2.3 is not installed (Tools/install-format-peers)"))
    func macAliasReadsRefreshedRecord() throws {
        try Self.withLegacyRecord(version: 2) { volume, tree, alias, inode in
            let mount = try #require(volume.mountPoint?.path)
            let file = volume.path("legacy.alis")
            try Data(try alias.encoded()).write(to: URL(fileURLWithPath: file))
            let replacement = try Self.saveAtomically(tree.path("legacy.txt"))
            #expect(try Bookmark.refreshFile(at: FilePath(file)).rewritten)

            let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("BookmarkFormatTests/Interop/mac_alias_peer.py").path
            let out = try #require(runPeer(["python3", helper, "read-alias", file]))
            try #require(out.status == 0, "\(out.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any])
            #expect(json["error"] == nil, "\(json)")
            #expect(json["posixPath"] as? String == "/t/legacy.txt")
            #expect(json["volumePosixPath"] as? String == mount)
            #expect(json["filename"] as? String == "legacy.txt")
            #expect((json["cnid"] as? Int).map(UInt64.init) == replacement, "not the old file's \(inode)")
            #expect((json["parentCNID"] as? Int).map(UInt64.init) == (try Self.inode(tree.root)))
            #expect(json["cnidPath"] is NSNull)
        }
    }

    @Test("mac_alias's v2 and v3 records convert to their paths and CNIDs",
          .enabled(if: AliasPeers.macAlias, "mac_alias 2.2.3 is not installed (Tools/install-format-peers)"),
          arguments: [2, 3])
    func macAliasRecords(version: Int) throws {
        let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("BookmarkFormatTests/Interop/mac_alias_peer.py").path
        let out = try #require(runPeer(["python3", helper, "alias", String(version), "50", "6"]))
        try #require(out.status == 0, "\(out.stderr)")
        let lines = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 50)
        for line in lines {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let bytes = [UInt8](try #require(Data(base64Encoded: json["b64"] as? String ?? "")))
            let bookmark = try Bookmark(aliasRecord: bytes)
            #expect(String(decoding: bookmark.path ?? [], as: UTF8.self) == json["path"] as? String)
            #expect(bookmark.record.fileID == (json["cnid"] as? Int).map(Int64.init))
        }
    }
}

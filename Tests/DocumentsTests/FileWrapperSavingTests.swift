// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Documents
import Foundation
import SecureFiles
import Synchronization
import SystemPackage
import Testing
import VolumeFixtures

/// Holds every `unlinkat` until `release` is signalled (at most 10 s, so a regression cannot hang
/// the run): shows that a save returns before its background removal.
final class UnlinkGate: SyscallObserver, @unchecked Sendable {
    let release = DispatchSemaphore(value: 0)
    private let opened = Mutex(false)

    func fault(for call: SyscallCall) -> Errno? {
        guard call.name == "unlinkat", !opened.withLock({ $0 }) else { return nil }
        _ = release.wait(timeout: .now() + 10)
        opened.withLock { $0 = true }
        return nil
    }

    func record(_ call: SyscallCall, outcome: SyscallOutcome) {}
}

/// Saving packages on real volumes: the atomic swap, hard links for unchanged children, name
/// updating, attribute edits, edits made behind the wrapper's back, and the non-atomic write.
@Suite("FileWrapper saving on real volumes", .serialized, .requiresRealVolumes)
struct FileWrapperSavingTests {
    /// A package of three notes and an image folder, read back from disk.
    func makePackage(_ fixture: PackageFixture) throws -> FileWrapper {
        let notes = FileWrapper(directoryWithFileWrappers: [:])
        for index in 1...3 {
            notes.addRegularFile(withContents: Data("note \(index)".utf8), preferredFilename: "note\(index).txt")
        }
        let images = FileWrapper(directoryWithFileWrappers: [:])
        images.addRegularFile(withContents: Data(repeating: 7, count: 100_000), preferredFilename: "photo.raw")
        images.preferredFilename = "Images"
        #expect(notes.addFileWrapper(images) == "Images")
        try notes.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: nil)
        return try FileWrapper(url: fixture.url("Doc.pkg"))
    }

    @Test("an incremental save keeps the inodes of unchanged children and writes only the changed one", arguments: saveFileSystems)
    func incrementalSaveKeepsInodes(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            let package = try makePackage(fixture)
            let before = try ["note1.txt", "note3.txt", "Images/photo.raw", "note2.txt", ""].map { try fixture.inode("Doc.pkg/\($0)") }

            // SwiftUI's documented incremental save: remove the changed child, add the new one.
            let changed = try #require(package.fileWrappers?["note2.txt"])
            package.removeFileWrapper(changed)
            package.addRegularFile(withContents: Data("note 2, edited".utf8), preferredFilename: "note2.txt")
            let log = AuditLog()
            try SyscallSeam.$observer.withValue(log) {
                try package.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
            }
            let after = try ["note1.txt", "note3.txt", "Images/photo.raw", "note2.txt", ""].map { try fixture.inode("Doc.pkg/\($0)") }
            #expect(after[0] == before[0] && after[1] == before[1] && after[2] == before[2], "unchanged children linked")
            #expect(after[3] != before[3], "the changed child is new")
            #expect(after[4] != before[4], "the package directory is new (swapped in)")
            #expect(try fixture.text("Doc.pkg/note2.txt") == "note 2, edited")
            #expect(try fixture.text("Doc.pkg/note1.txt") == "note 1")
            #expect(try fixture.linkCount("Doc.pkg/note1.txt") == 1, "the old tree is gone")
            #expect(try fixture.names("") == ["Doc.pkg"], "no staging directory left")
            // One exchange, three links, one data write, and every new directory synced.
            #expect(log.effects(named: "renameat2").contains { $0.call.flags == 2 })
            #expect(log.effects(named: "linkat").count == 3)
            #expect(log.effects(named: "write").count == 1)
            #expect(log.effects(named: "fsync").count >= 4, "file, Images, package, parent")

            // The order that makes a power cut leave the old or the new package: the changed file,
            // then the directories bottom-up, then the exchange, then the parent.
            let images = try fixture.inode("Doc.pkg/Images")
            let parent = try fixture.inode("")
            let order = log.effects.compactMap { effect -> String? in
                if effect.call.name == "renameat2", effect.call.flags == 2 { return "exchange" }
                guard effect.call.name == "fsync", let inode = effect.identities.directory?.inode else { return nil }
                switch inode {
                case after[3]: return "note2.txt"
                case images: return "Images"
                case after[4]: return "package"
                case parent: return "parent"
                default: return "other"
                }
            }
            // Siblings go in key order ("Images" sorts first); each directory after its children.
            #expect(order == ["Images", "note2.txt", "package", "exchange", "parent"], "\(order)")
        }
    }

    @Test(
        ".removingOldTreeInBackground: the new package is in place when the call returns; the old tree goes in the background, audited; the next call waits for it",
        arguments: saveFileSystems)
    func backgroundRemoval(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            let package = try makePackage(fixture)
            let kept = try fixture.inode("Doc.pkg/Images/photo.raw")
            let options: FileWrapper.WritingOptions = [.atomic, .withNameUpdating, .removingOldTreeInBackground]
            // Round 0: the removal is held at its first unlinkat (the documented fault-injection
            // seam), and the save still returns: the old tree is beside the package until released.
            if let old = package.fileWrappers?["note2.txt"] { package.removeFileWrapper(old) }
            package.addRegularFile(withContents: Data("note 2, edit 0".utf8), preferredFilename: "note2.txt")
            let gate = UnlinkGate()
            try SyscallSeam.$observer.withValue(gate) {
                try package.write(to: fixture.url("Doc.pkg"), options: options, originalContentsURL: fixture.url("Doc.pkg"))
            }
            #expect(try fixture.text("Doc.pkg/note2.txt") == "note 2, edit 0")
            let beside = try fixture.names("")
            #expect(beside.count == 2 && beside.contains { $0.hasPrefix(".Doc.pkg.saving-") }, "\(beside)")
            gate.release.signal()
            FileWrapper.waitForBackgroundRemovals()
            #expect(try fixture.names("") == ["Doc.pkg"])
            for round in 1...3 {
                if let old = package.fileWrappers?["note2.txt"] { package.removeFileWrapper(old) }
                package.addRegularFile(withContents: Data("note 2, edit \(round)".utf8), preferredFilename: "note2.txt")
                let log = AuditLog()
                try SyscallSeam.$observer.withValue(log) {
                    try package.write(to: fixture.url("Doc.pkg"), options: options, originalContentsURL: fixture.url("Doc.pkg"))
                }
                // In place at once, whatever the removal's progress.
                #expect(try fixture.text("Doc.pkg/note2.txt") == "note 2, edit \(round)")
                // Any wrapper call waits for the removal and the identities read after it.
                #expect(package.fileWrappers?.count == 4)
                #expect(try fixture.names("") == ["Doc.pkg"], "the old tree is gone once a wrapper call returned")
                #expect(try fixture.linkCount("Doc.pkg/note1.txt") == 1)
                // The removal ran on the background queue under the caller's observer: the old
                // tree's four files, its Images folder and itself.
                #expect(log.effects(named: "unlinkat").count == 6, "\(log.effects(named: "unlinkat").count)")
                // The next save still links: the identities were recorded after the removal.
                #expect(try fixture.inode("Doc.pkg/Images/photo.raw") == kept, "round \(round)")
            }
            // An edit behind the wrapper's back is still caught after a background save (of a file
            // whose contents the wrapper holds; one never read is linked as it is, as documented).
            #expect(package.fileWrappers?["note1.txt"]?.regularFileContents == Data("note 1".utf8))
            try Shell.check(["sh", "-c", "printf 'note 1!' > '\(fixture.path("Doc.pkg/note1.txt"))'"])
            try package.write(to: fixture.url("Doc.pkg"), options: options, originalContentsURL: fixture.url("Doc.pkg"))
            FileWrapper.waitForBackgroundRemovals()
            #expect(try fixture.text("Doc.pkg/note1.txt") == "note 1", "the wrapper's contents were written, not the edited file linked")
            #expect(try fixture.names("") == ["Doc.pkg"])
        }
    }

    @Test("without .withNameUpdating, children added before the first save are not linked by the second; with it they are", arguments: saveFileSystems)
    func nameUpdating(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            for updating in [false, true] {
                let name = updating ? "B.pkg" : "A.pkg"
                let package = FileWrapper(directoryWithFileWrappers: [:])
                package.addRegularFile(withContents: Data("one".utf8), preferredFilename: "one.txt")
                let options: FileWrapper.WritingOptions = updating ? [.atomic, .withNameUpdating] : [.atomic]
                try package.write(to: fixture.url(name), options: options, originalContentsURL: nil)
                let first = try fixture.inode("\(name)/one.txt")
                try package.write(to: fixture.url(name), options: options, originalContentsURL: fixture.url(name))
                let second = try fixture.inode("\(name)/one.txt")
                #expect((first == second) == updating, "linked: \(first == second)")
                #expect(package.fileWrappers?["one.txt"]?.filename == (updating ? "one.txt" : nil))
            }
        }
    }

    @Test("setting a child's attributes forces it to be written with them", arguments: [FixtureFileSystem.ext4, .xfs])
    func attributeEditsForceRewrite(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            let package = try makePackage(fixture)
            let child = try #require(package.fileWrappers?["note1.txt"])
            let before = try fixture.inode("Doc.pkg/note1.txt")
            var attributes = child.fileAttributes
            attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: 0o640)
            attributes[FileAttributeKey.modificationDate.rawValue] = Date(timeIntervalSince1970: 1_000_000_000)
            child.fileAttributes = attributes
            try package.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
            #expect(try fixture.inode("Doc.pkg/note1.txt") != before)
            let written = try FileManager.default.attributesOfItem(atPath: fixture.path("Doc.pkg/note1.txt"))
            #expect((written[.posixPermissions] as? NSNumber)?.intValue == 0o640, "the mode asked for, minus a 022 umask")
            #expect((written[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_000_000_000)
            #expect(try fixture.text("Doc.pkg/note1.txt") == "note 1")
        }
    }

    @Test("an edit behind the wrapper's back that keeps size and mtime is caught: memory is written, never linked", arguments: [FixtureFileSystem.ext4, .btrfs])
    func silentEditCaught(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            let package = try makePackage(fixture)
            #expect(package.fileWrappers?["note1.txt"]?.regularFileContents == Data("note 1".utf8))
            // Same size, same mtime (touch -r): Apple's one-second check would link these bytes.
            let path = fixture.path("Doc.pkg/note1.txt")
            let mtime = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
            let handle = try FileHandle(forWritingTo: fixture.url("Doc.pkg/note1.txt"))
            try handle.write(contentsOf: Data("EVIL 1".utf8))
            try handle.close()
            try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: path)
            #expect(package.matchesContents(of: fixture.url("Doc.pkg")), "Apple's check sees nothing")
            #expect(!package.matchesContentsExactly(of: fixture.url("Doc.pkg")), "the identity check does")

            try package.write(to: fixture.url("Doc.pkg"), options: .atomic, originalContentsURL: fixture.url("Doc.pkg"))
            #expect(try fixture.text("Doc.pkg/note1.txt") == "note 1", "the bytes in memory, not the edited ones")
            #expect(package.matchesContentsExactly(of: fixture.url("Doc.pkg")), "the save recorded the new identities")
        }
    }

    @Test("a non-atomic write over an existing package fails with fileWriteFileExists and changes nothing", arguments: saveFileSystems)
    func nonAtomicOverExisting(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            let package = try makePackage(fixture)
            let inode = try fixture.inode("Doc.pkg")
            #expect(throws: CocoaError.self) {
                try package.write(to: fixture.url("Doc.pkg"), options: [], originalContentsURL: nil)
            }
            do {
                try package.write(to: fixture.url("Doc.pkg"), options: [], originalContentsURL: nil)
            } catch let error as CocoaError {
                #expect(error.code == .fileWriteFileExists)
                #expect(error.userInfo[NSUnderlyingErrorKey] is FileSystemError)
            }
            #expect(try fixture.inode("Doc.pkg") == inode)
            try package.write(to: fixture.url("Copy.pkg"), options: [], originalContentsURL: nil)
            #expect(try fixture.names("Copy.pkg") == ["Images", "note1.txt", "note2.txt", "note3.txt"])
        }
    }

    @Test("symbolic links inside a package are kept byte-exact and never followed", arguments: [FixtureFileSystem.ext4, .tmpfs])
    func symlinksKept(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            try fixture.file("P.pkg/real.txt", "real")
            try fixture.file("outside.txt", "outside")
            let targets: [String: [UInt8]] = [
                "relative": Array("real.txt".utf8), "escaping": Array("../../../outside.txt".utf8),
                "absolute": Array(fixture.path("outside.txt").utf8), "dangling": Array("nowhere".utf8),
                "latin1": [0x63, 0x61, 0x66, 0xE9],
            ]
            for (name, target) in targets {
                let cTarget = target.map { CChar(bitPattern: $0) } + [0]
                let made = cTarget.withUnsafeBufferPointer { buffer -> Int32 in
                    guard let base = buffer.baseAddress else { return -1 }
                    return symlink(base, fixture.path("P.pkg/\(name)"))
                }
                #expect(made == 0)
            }
            let log = AuditLog()
            let package = try SyscallSeam.$observer.withValue(log) {
                try FileWrapper(url: fixture.url("P.pkg"), options: .immediate)
            }
            for (name, target) in targets {
                let link = try #require(package.fileWrappers?[name])
                #expect(link.isSymbolicLink)
                #expect(link.symbolicLinkDestinationBytes == target)
            }
            #expect(!log.effects.contains { ($0.call.path ?? []).contains(Array("outside".utf8)) }, "no target was opened")
            try package.write(to: fixture.url("Q.pkg"), options: .atomic, originalContentsURL: nil)
            for (name, target) in targets {
                var buffer = [CChar](repeating: 0, count: 4096)
                let count = readlink(fixture.path("Q.pkg/\(name)"), &buffer, 4096)
                #expect(buffer[0..<max(0, count)].map { UInt8(bitPattern: $0) } == target)
            }
        }
    }
}

/// `.cloningUnchangedFiles`: unchanged files get new inodes that share the original's data
/// (XFS, btrfs) or copies (ext4, tmpfs), so the old package can be kept.
@Suite("FileWrapper saving with clones", .serialized, .requiresRealVolumes)
struct FileWrapperCloneTests {
    @Test("unchanged files are cloned (shared extents) or copied, never linked; contents, mode and mtime kept", arguments: [FixtureFileSystem.xfs, .btrfs, .ext4, .tmpfs])
    func clones(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try fixture.file("Doc.pkg/big.bin", String(repeating: "x", count: 256 * 1024))
            try fixture.file("Doc.pkg/small.txt", "small")
            #expect(chmod(fixture.path("Doc.pkg/big.bin"), 0o640) == 0)
            let package = try FileWrapper(url: fixture.url("Doc.pkg"))
            let before = try fixture.inode("Doc.pkg/big.bin")
            let mtime = try FileManager.default.attributesOfItem(atPath: fixture.path("Doc.pkg/big.bin"))[.modificationDate] as? Date
            package.addRegularFile(withContents: Data("new".utf8), preferredFilename: "new.txt")
            try package.write(
                to: fixture.url("Doc.pkg"), options: [.atomic, .withNameUpdating, .cloningUnchangedFiles],
                originalContentsURL: fixture.url("Doc.pkg"))
            #expect(try fixture.inode("Doc.pkg/big.bin") != before, "a new inode, not a link")
            #expect(try fixture.text("Doc.pkg/big.bin").count == 256 * 1024)
            #expect(try fixture.text("Doc.pkg/small.txt") == "small")
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.path("Doc.pkg/big.bin"))
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)
            #expect(attributes[.modificationDate] as? Date == mtime)
            // Saved as a copy, the old package stays: on XFS and btrfs both files share extents.
            try package.write(
                to: fixture.url("Copy.pkg"), options: [.atomic, .cloningUnchangedFiles], originalContentsURL: fixture.url("Doc.pkg"))
            #expect(try fixture.text("Copy.pkg/big.bin").count == 256 * 1024)
            if kind == .xfs || kind == .btrfs {
                for path in ["Doc.pkg/big.bin", "Copy.pkg/big.bin"] {
                    let extents = try Shell.run(["filefrag", "-v", fixture.path(path)])
                    #expect(extents.stdout.contains("shared"), "\(path) shares its extents: \(extents.stdout)")
                }
            }
        }
    }
}

/// Names that are not UTF-8: a package whose own name and children's names are Latin-1 bytes is
/// read and saved with every byte kept (its URL carries the path percent-encoded, as this
/// library's calls return such paths).
@Suite("FileWrapper and names that are not UTF-8", .serialized, .requiresRealVolumes)
struct FileWrapperByteNameTests {
    @Test("read, edit another child, save in place: names byte for byte, the Latin-1 child linked", arguments: saveFileSystems)
    func latin1Names(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let root = Array(volume.path("docs").utf8)
            let package = root + Array("/caf".utf8) + [0xE9] + Array(".pkg".utf8)
            let child = Array("na".utf8) + [0xEF] + Array("ve.txt".utf8)
            #expect(mkdir(String(decoding: root, as: UTF8.self), 0o755) == 0)
            #expect(withCString(package) { mkdir($0, 0o755) } == 0)
            for (name, text) in [(child, "old"), (Array("plain.txt".utf8), "plain")] {
                let fd = withCString(package + [0x2F] + name) { open($0, O_CREAT | O_WRONLY | O_EXCL, 0o644) }
                #expect(fd >= 0)
                _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            let url = FileURLPaths.url(bytes: package, isDirectory: true)
            let childPath = String(decoding: package + [0x2F] + child, as: UTF8.self)
            func inode(_ path: [UInt8]) -> UInt64? {
                var status = stat()
                return withCString(path) { lstat($0, &status) } == 0 ? UInt64(status.st_ino) : nil
            }
            let childInode = inode(package + [0x2F] + child)
            #expect(childInode != nil, "\(childPath)")

            let wrapper = try FileWrapper(url: url)
            let key = String(decoding: child, as: UTF8.self)
            #expect(wrapper.fileWrappers?[key]?.filenameBytes == child)
            #expect(wrapper.filenameBytes == Array("caf".utf8) + [0xE9] + Array(".pkg".utf8))
            let plain = try #require(wrapper.fileWrappers?["plain.txt"])
            wrapper.removeFileWrapper(plain)
            wrapper.addRegularFile(withContents: Data("edited".utf8), preferredFilename: "plain.txt")
            try wrapper.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)

            #expect(try listing(package) == [child, Array("plain.txt".utf8)].sorted { $0.lexicographicallyPrecedes($1) })
            #expect(inode(package + [0x2F] + child) == childInode, "the Latin-1 child was linked under its exact name")
            #expect(wrapper.matchesContentsExactly(of: url))
            let read = try FileWrapper(url: url, options: .immediate)
            #expect(read.fileWrappers?[key]?.regularFileContents == Data("old".utf8))
            #expect(read.fileWrappers?["plain.txt"]?.regularFileContents == Data("edited".utf8))
        }
    }

    func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        PathBytes(bytes).filePath.withPlatformString(body)
    }

    /// The names in a directory as bytes, sorted.
    func listing(_ path: [UInt8]) throws -> [[UInt8]] {
        guard let directory = withCString(path, { opendir($0) }) else { throw CocoaError(.fileNoSuchFile) }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import SecureFiles
import Testing
import VolumeFixtures

/// Reading packages: lazy and immediate reads, stored lazy errors, case collisions on a
/// case-sensitive volume, `matchesContents`, and what cannot be read.
@Suite("FileWrapper reading on real volumes", .serialized, .requiresRealVolumes)
struct FileWrapperReadingTests {
    @Test("lazy: a child deleted on disk reads as nil, and the next write reports the read error; immediate keeps it", arguments: saveFileSystems)
    func lazyVersusImmediate(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            try fixture.file("P.pkg/a.txt", "a")
            try fixture.file("P.pkg/b.txt", "b")
            let lazy = try FileWrapper(url: fixture.url("P.pkg"))
            let immediate = try FileWrapper(url: fixture.url("P.pkg"), options: .immediate)
            let lazyChild = try #require(lazy.fileWrappers?["a.txt"])
            try FileManager.default.removeItem(atPath: fixture.path("P.pkg/a.txt"))

            #expect(lazyChild.regularFileContents == nil, "the lazy read fails, without a crash")
            do {
                try lazy.write(to: fixture.url("Copy.pkg"), options: .atomic, originalContentsURL: nil)
                Issue.record("a write with an unreadable child succeeded")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadNoSuchFile)
                #expect((error.userInfo[NSUnderlyingErrorKey] as? FileSystemError)?.errno == .noSuchFileOrDirectory)
            }
            #expect(!FileManager.default.fileExists(atPath: fixture.path("Copy.pkg")), "nothing written")
            #expect(try fixture.names("") .filter { $0.hasPrefix(".") } .isEmpty, "no staging left")

            #expect(immediate.fileWrappers?["a.txt"]?.regularFileContents == Data("a".utf8))
            try immediate.write(to: fixture.url("Copy.pkg"), options: .atomic, originalContentsURL: nil)
            #expect(try fixture.text("Copy.pkg/a.txt") == "a")
        }
    }

    @Test("a case-sensitive directory holding a.txt and A.txt reads as two children and is written back unchanged", arguments: saveFileSystems)
    func caseCollisionOnDisk(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            try fixture.file("P.pkg/a.txt", "lower")
            try fixture.file("P.pkg/A.txt", "upper")
            let package = try FileWrapper(url: fixture.url("P.pkg"), options: .immediate)
            let keys = try #require(package.fileWrappers?.keys.sorted())
            #expect(keys == ["1__#$!@%!#__a.txt", "A.txt"])
            let uniqued = try #require(package.fileWrappers?["1__#$!@%!#__a.txt"])
            #expect(uniqued.filename == "a.txt", "its filename stays the real name")
            try package.write(to: fixture.url("P.pkg"), options: .atomic, originalContentsURL: fixture.url("P.pkg"))
            #expect(try fixture.names("P.pkg") == ["A.txt", "a.txt"])
            #expect(try fixture.text("P.pkg/a.txt") == "lower")
            #expect(try fixture.text("P.pkg/A.txt") == "upper")
        }
    }

    @Test("matchesContents: true after a read, false after an external change or removal of a known child", arguments: saveFileSystems)
    func matching(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            try fixture.file("P.pkg/a.txt", "a")
            try fixture.file("P.pkg/b.txt", "b")
            let package = try FileWrapper(url: fixture.url("P.pkg"), options: .immediate)
            #expect(package.matchesContents(of: fixture.url("P.pkg")))
            #expect(package.matchesContentsExactly(of: fixture.url("P.pkg")))
            let later = Date().addingTimeInterval(10)
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: fixture.path("P.pkg/a.txt"))
            #expect(!package.matchesContents(of: fixture.url("P.pkg")))
            try package.read(from: fixture.url("P.pkg"))
            #expect(package.matchesContents(of: fixture.url("P.pkg")))
            try FileManager.default.removeItem(atPath: fixture.path("P.pkg/b.txt"))
            #expect(!package.matchesContents(of: fixture.url("P.pkg")))
            // A re-read drops the removed child and keeps the other object.
            let kept = package.fileWrappers?["a.txt"]
            try package.read(from: fixture.url("P.pkg"))
            #expect(package.fileWrappers?.keys.sorted() == ["a.txt"])
            #expect(package.fileWrappers?["a.txt"] === kept)
            // Permissions alone are not compared, as in Apple's binary.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fixture.path("P.pkg/a.txt"))
            #expect(package.matchesContents(of: fixture.url("P.pkg")))
            #expect(!package.matchesContentsExactly(of: fixture.url("P.pkg")), "a chmod changes the change time")
        }
    }

    @Test("a top-level symbolic link is read as a link; / and a FIFO are refused with typed errors; a missing item is fileReadNoSuchFile")
    func whatCannotBeRead() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            try fixture.file("target.txt", "t")
            #expect(symlink("target.txt", fixture.path("link")) == 0)
            let link = try FileWrapper(url: fixture.url("link"))
            #expect(link.isSymbolicLink)
            #expect(link.symbolicLinkDestinationURL?.relativePath == "target.txt")

            #expect(mkfifo(fixture.path("fifo"), 0o600) == 0)
            #expect(throws: CocoaError.self) { try FileWrapper(url: fixture.url("fifo")) }
            #expect(throws: CocoaError.self) { try FileWrapper(url: URL(fileURLWithPath: "/")) }
            do {
                _ = try FileWrapper(url: fixture.url("missing"))
                Issue.record("a missing item was read")
            } catch let error as CocoaError {
                #expect(error.code == .fileReadNoSuchFile)
                #expect(error.userInfo[NSFilePathErrorKey] as? String == fixture.path("missing"))
            }
        }
    }

    @Test("a regular file and a symbolic link written at the top level, atomically over an old one")
    func topLevelFileAndLink() throws {
        try LoopVolume.withVolume(.xfs) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            try fixture.file("note.txt", "old")
            let file = FileWrapper(regularFileWithContents: Data("new".utf8))
            try file.write(to: fixture.url("note.txt"), options: .atomic, originalContentsURL: nil)
            #expect(try fixture.text("note.txt") == "new")
            let read = try FileWrapper(url: fixture.url("note.txt"), options: .immediate)
            #expect(read.regularFileContents == Data("new".utf8))
            #expect(read.filename == "note.txt" && read.preferredFilename == "note.txt")

            let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "note.txt"))
            try link.write(to: fixture.url("alias"), options: .atomic, originalContentsURL: nil)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: fixture.path("alias")) == "note.txt")
            #expect(throws: CocoaError.self) {
                try link.write(to: fixture.url("alias"), options: [], originalContentsURL: nil)
            }
        }
    }
}

/// What a reader that maps files would crash on, and Apple's path-based calls.
@Suite("FileWrapper: truncation during a read, and the deprecated path calls", .serialized, .requiresRealVolumes)
struct FileWrapperTruncationAndPathTests {
    @Test("another process truncates a file a lazy wrapper is about to read: short data, no SIGBUS", arguments: saveFileSystems)
    func truncatedWhileReading(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try fixture.file("P.pkg/big.bin", String(repeating: "z", count: 1 << 20))
            let package = try FileWrapper(url: fixture.url("P.pkg"))
            let child = try #require(package.fileWrappers?["big.bin"])
            try Shell.check(["truncate", "-s", "4096", fixture.path("P.pkg/big.bin")])
            #expect(child.regularFileContents?.count == 4096)
            // Truncated again after it was read: the bytes in memory stay as they were.
            try Shell.check(["truncate", "-s", "0", fixture.path("P.pkg/big.bin")])
            #expect(child.regularFileContents?.count == 4096)
        }
    }

    @Test("init?(path:), needsToBeUpdated(fromPath:), update(fromPath:), write(toFile:atomically:updateFilenames:), addFile(withPath:), addSymbolicLink")
    @available(*, deprecated)
    func deprecatedPathCalls() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try fixture.file("P.pkg/a.txt", "a")
            try fixture.file("extra.txt", "extra")
            let package = try #require(FileWrapper(path: fixture.path("P.pkg")))
            #expect(FileWrapper(path: fixture.path("missing")) == nil)
            #expect(!package.needsToBeUpdated(fromPath: fixture.path("P.pkg")))
            #expect(!package.update(fromPath: fixture.path("P.pkg")), "nothing to update")
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(30)], ofItemAtPath: fixture.path("P.pkg/a.txt"))
            #expect(package.needsToBeUpdated(fromPath: fixture.path("P.pkg")))
            #expect(package.update(fromPath: fixture.path("P.pkg")))
            #expect(!package.needsToBeUpdated(fromPath: fixture.path("P.pkg")))

            #expect(package.addFile(withPath: fixture.path("extra.txt")) == "extra.txt")
            #expect(package.addSymbolicLink(withDestination: "a.txt", preferredFilename: "link") == "link")
            #expect(package.fileWrappers?["link"]?.symbolicLinkDestination() == "a.txt")
            #expect(package.write(toFile: fixture.path("Q.pkg"), atomically: true, updateFilenames: true))
            #expect(try fixture.names("Q.pkg") == ["a.txt", "extra.txt", "link"])
            #expect(!package.write(toFile: fixture.path("Q.pkg"), atomically: false, updateFilenames: false), "not over an existing package")
        }
    }
}

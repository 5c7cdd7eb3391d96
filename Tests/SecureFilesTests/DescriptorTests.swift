// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import SecureFiles
import SystemPackage
import Testing

/// statx, handles, statfs, xattrs and reading on the test machine's own file system.
@Suite("Descriptors and metadata")
final class DescriptorTests {
    let directory: String = {
        // Not under /tmp: keep to the root file system where user xattrs work.
        let path = "/var/tmp/swift-bookmarks-unit-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test("statx reports birth time, unique mount id and the same inode as stat")
    func status() throws {
        let path = directory + "/f"
        try Data(count: 1234).write(to: URL(fileURLWithPath: path))
        let status = try FileStatus(path: FilePath(path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(status.inode == (attributes[.systemFileNumber] as? UInt64))
        #expect(status.size == 1234)
        #expect(status.kind == .regular)
        #expect(status.birthTime != nil)
        #expect(status.uniqueMountID != nil, "Linux 6.8+ reports the unique mount id")
        #expect(status.mountID == nil, "statx fills one field: the reusable id is not reported with it")
        let opened = try OwnedDescriptor.open(FilePath(path), options: [.pathOnly])
        #expect(try opened.status() == status)
    }

    @Test("a handle names the file across a rename; its mount id matches the reusable mount id")
    func handles() throws {
        let path = directory + "/h"
        try Data("h".utf8).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandleData(path: FilePath(path))
        try FileManager.default.moveItem(atPath: path, toPath: directory + "/h2")
        #expect(try FileHandleData(path: FilePath(directory + "/h2")) == handle)
        let opened = try OwnedDescriptor.open(FilePath(directory + "/h2"), options: [.pathOnly])
        #expect(try opened.reusableMountID() == handle.mountID)
        if getuid() == 0 {
            let root = try OwnedDescriptor.open(FilePath(directory), options: [.directory])
            let found = try handle.open(onMountOf: root)
            #expect(try found.currentPath()?.string == directory + "/h2")
        }
    }

    @Test("the current path as bytes follows renames, keeps non-UTF-8 names, and is nil once deleted")
    func currentPathBytes() throws {
        let name: [UInt8] = Array("/cp-".utf8) + [0xFF, 0xFE]
        let path = Array(directory.utf8) + name
        let file = try OwnedDescriptor.open(FilePath(bytes: path), options: [.writeOnly, .create])
        #expect(try file.currentPathBytes() == path)
        #expect(try file.currentPath() == FilePath(bytes: path))
        let renamed = Array(directory.utf8) + Array("/renamed".utf8)
        #expect(rename(path.map { CChar(bitPattern: $0) } + [0], directory + "/renamed") == 0)
        #expect(try file.currentPathBytes() == renamed)
        #expect(unlink(directory + "/renamed") == 0)
        #expect(try file.currentPathBytes() == nil)
        try file.close()
        #expect(throws: FileSystemError.self) { try file.currentPathBytes() }
    }

    @Test("statx and name_to_handle_at of a path given as bytes agree with the FilePath forms; a NUL is EINVAL")
    func pathBytesLookups() throws {
        let path = directory + "/pb"
        FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
        #expect(try FileStatus(pathBytes: Array(path.utf8)) == FileStatus(path: FilePath(path)))
        #expect(try FileHandleData(pathBytes: Array(path.utf8)) == FileHandleData(path: FilePath(path)))
        let withNUL = Array(directory.utf8) + [0] + Array("/pb".utf8)
        let statError = try #require(throws: FileSystemError.self) { try FileStatus(pathBytes: withNUL) }
        #expect(statError.errno == .invalidArgument)
        let handleError = try #require(throws: FileSystemError.self) { try FileHandleData(pathBytes: withNUL) }
        #expect(handleError.errno == .invalidArgument)
        #expect(handleError.syscall == "name_to_handle_at")
    }

    @Test("fstatfs reports the ext4 magic and f_fsid as stat -f prints it")
    func statistics() throws {
        let root = try OwnedDescriptor.open(FilePath(directory), options: [.pathOnly])
        let statistics = try root.fileSystemStatistics()
        let expected = try String(decoding: runStat(["-f", "-c", "%i", directory]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(statistics.fsid.description.replacingOccurrences(of: ":", with: "").hasSuffix(expected.suffix(8)))
        #expect(statistics.capacity > 0)
    }

    @Test("extended attributes: set, get, list, missing is nil, remove")
    func xattrs() throws {
        let path = directory + "/x"
        try Data().write(to: URL(fileURLWithPath: path))
        let file = try OwnedDescriptor.open(FilePath(path), options: [.readWrite])
        try file.setExtendedAttribute("user.test", to: [1, 2, 3])
        #expect(try file.extendedAttribute("user.test") == [1, 2, 3])
        #expect(try file.extendedAttribute("user.absent") == nil)
        #expect(try file.extendedAttributeNames().contains(Array("user.test".utf8)))
        #expect(throws: FileSystemError.self) { try file.setExtendedAttribute("user.test", to: [9], disposition: .createOnly) }
        try file.removeExtendedAttribute("user.test")
        #expect(try file.extendedAttribute("user.test") == nil)
    }

    @Test("ioctls: the root file system answers the ext4 UUID; a regular file refuses what it lacks")
    func ioctls() throws {
        let dir = try OwnedDescriptor.open(FilePath(directory), options: [.directory])
        let statistics = try dir.fileSystemStatistics()
        if statistics.isExt4 {
            #expect(try dir.ext4UUID().count == 16)
        }
        let error = try #require(throws: FileSystemError.self) { _ = try dir.btrfsFSID() }
        #expect(error.code == .unsupported)
        #expect(error.syscall == "ioctl(BTRFS_IOC_FS_INFO)")
        let pathOnly = try OwnedDescriptor.open(FilePath(directory), options: [.pathOnly])
        #expect(throws: FileSystemError.self) { _ = try pathOnly.fileSystemUUID() }
    }

    @Test("readToEnd reads kernel files and refuses more than the limit")
    func readToEnd() throws {
        let file = try OwnedDescriptor.open("/proc/self/mountinfo")
        #expect(try file.readToEnd().count > 0)
        let big = directory + "/big"
        try Data(count: 100_000).write(to: URL(fileURLWithPath: big))
        let error = try #require(throws: FileSystemError.self) { _ = try OwnedDescriptor.open(FilePath(big)).readToEnd(limit: 1000) }
        #expect(error.errno == .fileTooLarge)
    }

    @Test("readLink returns the raw target bytes")
    func readLink() throws {
        try FileManager.default.createSymbolicLink(atPath: directory + "/l", withDestinationPath: "some/where")
        #expect(try OwnedDescriptor.readLink(FilePath(directory + "/l")) == Array("some/where".utf8))
    }
}

func runStat(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/stat")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}

@Suite("Directory entries")
struct DirectoryEntryTests {
    @Test("getdents64 lists names as bytes with inode and type, skipping . and ..")
    func entries() throws {
        let path = "/var/tmp/swift-bookmarks-dirents-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        FileManager.default.createFile(atPath: path + "/a.txt", contents: nil)
        try FileManager.default.createSymbolicLink(atPath: path + "/link", withDestinationPath: "a.txt")
        let odd: [UInt8] = [0x62, 0xFF]  // "b\xff", not UTF-8
        let oddPath = FilePath(platformString: (Array(path.utf8) + [0x2F] + odd).map { CChar(bitPattern: $0) } + [0])
        _ = try OwnedDescriptor.open(oddPath, options: [.writeOnly, .create, .exclusive])
        for count in 0..<300 { FileManager.default.createFile(atPath: path + "/many-\(count)", contents: nil) }

        let dir = try OwnedDescriptor.open(FilePath(path), options: [.directory])
        let entries = try dir.directoryEntries()
        #expect(entries.count == 304)
        let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0) })
        #expect(byName[Array("sub".utf8)]?.kind == .directory)
        #expect(byName[Array("link".utf8)]?.kind == .symlink)
        #expect(byName[Array("a.txt".utf8)]?.inode == (try FileStatus(path: FilePath(path + "/a.txt")).inode))
        #expect(byName[odd]?.kind == .regular)
        #expect(byName[[0x2E]] == nil && byName[[0x2E, 0x2E]] == nil)

        let again = try OwnedDescriptor.open(FilePath(path), options: [.directory])
        #expect(try again.directoryEntries(limit: 5).count == 5)
    }
}

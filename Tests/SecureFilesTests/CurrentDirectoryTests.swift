// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// `Directory.current` (the process's own view, the unconfined policy), `readFile`, and the two
/// descriptor steps the layers above use instead of raw opens: `openChild` and `reopen`.
@Suite("The process's own view and descriptor steps")
final class CurrentDirectoryTests {
    let base: String

    init() throws {
        base = try TreeFixture.scratch("current")
        try FileManager.default.createDirectory(atPath: base + "/dir", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: base + "/dir/file"))
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/dir/file")
        try FileManager.default.createSymbolicLink(atPath: base + "/relative-link", withDestinationPath: "dir/file")
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }

    static func read(_ fd: OwnedDescriptor) throws -> String { String(decoding: try fd.readToEnd(), as: UTF8.self) }

    @Test("absolute paths, absolute symlinks and magic links resolve as the kernel resolves them")
    func unconfined() throws {
        #expect(try Self.read(Directory.current.open(FilePath(base + "/link"))) == "inside")
        #expect(try Self.read(Directory.current.open(FilePath(base + "/dir/../dir/file"))) == "inside")
        // /proc/self/fd/N is a magic link: refused beneath a root, followed by the process's own view.
        let held = try Directory.current.open(FilePath(base + "/dir/file"))
        let magic = FilePath("/proc/self/fd/\(try #require(held.rawValue))")
        #expect(try Self.read(Directory.current.open(magic)) == "inside")
        let root = try Directory(opening: "/proc/self/fd")
        #expect(throws: FileSystemError.self) { try root.open(FilePath("\(try #require(held.rawValue))")) }
        // A plain openat: no openat2 on the way.
        let log = AuditLog(level: .calls)
        _ = try SyscallSeam.$observer.withValue(log) { try Directory.current.open(FilePath(base + "/link")) }
        #expect(log.calls.map(\.name) == ["openat"])
        #expect(log.calls.first?.descriptor == -100, "relative to AT_FDCWD")
    }

    @Test("unconfined with noSymlinks refuses every symlink (openat2 RESOLVE_NO_SYMLINKS), and without openat2 refuses rather than resolve less strictly")
    func unconfinedRestricted() throws {
        let strict = ResolutionPolicy.unconfined.noSymlinks
        let loop = try #require(throws: FileSystemError.self) { try Directory.current.open(FilePath(base + "/link"), policy: strict) }
        #expect(loop.errno == .tooManySymbolicLinkLevels)
        #expect(try Self.read(Directory.current.open(FilePath(base + "/dir/file"), policy: strict)) == "inside")
        let log = AuditLog(level: .calls, faults: [.openat2Unavailable()])
        let refused = try #require(throws: FileSystemError.self) {
            try SyscallSeam.$observer.withValue(log) {
                try Directory(opening: FilePath(base), policy: strict).open("dir/file")
            }
        }
        #expect(refused.errno == .noFunction)
    }

    @Test("the working directory follows chdir, and closing it is harmless")
    func followsChdir() throws {
        let saved = FileManager.default.currentDirectoryPath
        defer { _ = FileManager.default.changeCurrentDirectoryPath(saved) }
        _ = FileManager.default.changeCurrentDirectoryPath(base)
        #expect(try Self.read(Directory.current.open("relative-link")) == "inside")
        _ = FileManager.default.changeCurrentDirectoryPath(base + "/dir")
        #expect(try Self.read(Directory.current.open("file")) == "inside")
        try Directory.current.descriptor.close()
        #expect(Directory.current.descriptor.rawValue == -100)
        #expect(try Self.read(Directory.current.open("file")) == "inside")
    }

    @Test("readFile reads to the end and refuses more than the limit; a FIFO does not block")
    func readFile() throws {
        #expect(try Directory.current.readFile(FilePath(base + "/dir/file")) == Array("inside".utf8))
        let big = base + "/big"
        try Data(count: 5000).write(to: URL(fileURLWithPath: big))
        let tooLarge = try #require(throws: FileSystemError.self) { try Directory.current.readFile(FilePath(big), limit: 1000) }
        #expect(tooLarge.errno == .fileTooLarge)
        #expect(mkfifo(base + "/fifo", 0o600) == 0)
        // No writer: O_NONBLOCK opens at once and reads nothing.
        #expect(try Directory.current.readFile(FilePath(base + "/fifo")) == [])
    }

    @Test("openChild opens one name and never follows a symlink there")
    func openChild() throws {
        let directory = try Directory.current.open(FilePath(base), options: [.pathOnly, .directory])
        #expect(try Self.read(directory.openChild(Array("dir".utf8), options: [.directory]).openChild(Array("file".utf8))) == "inside")
        let link = try #require(throws: FileSystemError.self) { try directory.openChild(Array("link".utf8)) }
        #expect(link.errno == .tooManySymbolicLinkLevels)
        #expect(try directory.openChild(Array("link".utf8), options: [.pathOnly]).status().kind == .symlink)
        for bad in ["dir/file", "..", ".", ""] {
            let error = try #require(throws: FileSystemError.self) { try directory.openChild(Array(bad.utf8)) }
            #expect(error.errno == .invalidArgument, "\(bad)")
        }
        #expect(throws: FileSystemError.self) { try directory.openChild(Array("new".utf8), options: [.create, .writeOnly]) }
        // O_DIRECTORY shares a bit with O_TMPFILE: a directory open is not a creation.
        let listing = try directory.reopen(options: [.readOnly, .directory]).directoryEntries()
        #expect(Set(listing.map { String(decoding: $0.name, as: UTF8.self) }) == ["dir", "link", "relative-link"])
    }

    @Test("reopen upgrades an O_PATH descriptor to the same object, whatever happened to its path")
    func reopen() throws {
        let located = try Directory.current.open(FilePath(base + "/dir/file"), options: [.pathOnly, .noFollow])
        try FileManager.default.moveItem(atPath: base + "/dir/file", toPath: base + "/dir/moved")
        try Data("impostor".utf8).write(to: URL(fileURLWithPath: base + "/dir/file"))
        let readable = try located.reopen(options: .readOnly)
        #expect(try Self.read(readable) == "inside")
        #expect(try readable.status().inode == located.status().inode)
        for refused: OwnedDescriptor.OpenOptions in [.noFollow, .create] {
            let error = try #require(throws: FileSystemError.self) { try located.reopen(options: refused) }
            #expect(error.errno == .invalidArgument)
        }
    }
}

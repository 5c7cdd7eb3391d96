// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// The walk that examines a path's directories for bookmark creation: one `statx` per prefix,
/// never through a symlink, the path's own bytes cut in place.
@Suite("Examining the directories on a path")
struct PathDirectoriesTests {
    /// A fresh directory under the temporary directory, removed after `body`.
    func withDirectory(_ body: (String) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prefixes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(root)
    }

    /// Where each `/` after the first ends a prefix, plus the path's end.
    func ends(_ path: [UInt8]) -> [Int] {
        (1..<path.count).filter { path[$0] == UInt8(ascii: "/") } + [path.count]
    }

    @Test("each prefix's inode, in order, one statx each that does not follow symlinks")
    func inodes() throws {
        try withDirectory { root in
            try FileManager.default.createDirectory(atPath: root + "/a/b/c", withIntermediateDirectories: true)
            let path = Array((root + "/a/b/c").utf8)
            var found: [UInt64] = []
            let trace = AuditLog(level: .calls)
            let failure = SyscallSeam.$observer.withValue(trace) {
                PathDirectories.inodes(of: path, prefixEnds: ends(path)[...], into: &found)
            }
            #expect(failure == nil)
            let expected = try ends(path).map { try FileStatus(path: FilePath(String(decoding: path[..<$0], as: UTF8.self))).inode }
            #expect(found == expected)
            let statx = trace.calls.filter { $0.name == "statx" }
            #expect(statx.count == expected.count)
            #expect(statx.allSatisfy { ($0.flags ?? 0) & Int64(AT_SYMLINK_NOFOLLOW) != 0 })
            // The path was cut in place and put back: each call saw one prefix.
            #expect(statx.map { $0.path ?? [] } == ends(path).map { Array(path[..<$0]) })
            // A slice from the middle examines only those prefixes.
            var tail: [UInt64] = []
            #expect(PathDirectories.inodes(of: path, prefixEnds: ends(path).suffix(2), into: &tail) == nil)
            #expect(tail == Array(expected.suffix(2)))
        }
    }

    @Test("a symlink or a file on the path is not a directory; it is never followed")
    func notDirectories() throws {
        try withDirectory { root in
            try FileManager.default.createDirectory(atPath: root + "/real/b", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "real")
            #expect(FileManager.default.createFile(atPath: root + "/file", contents: Data()))
            for (relative, examined) in [("/link/b", 0), ("/file", 0), ("/real/missing", 1)] {
                let path = Array((root + relative).utf8)
                let prefixEnds = ends(path).filter { $0 > root.utf8.count }
                var found: [UInt64] = []
                let failure = PathDirectories.inodes(of: path, prefixEnds: prefixEnds[...], into: &found)
                #expect(failure == (relative == "/real/missing" ? .noSuchFileOrDirectory : .notDirectory), "\(relative)")
                #expect(found.count == examined, "\(relative)")
            }
        }
    }

    @Test("a NUL byte or an end outside the path is refused without a system call")
    func malformed() {
        var found: [UInt64] = []
        let trace = AuditLog(level: .calls)
        SyscallSeam.$observer.withValue(trace) {
            #expect(PathDirectories.inodes(of: Array("/tmp\u{0}x".utf8), prefixEnds: [4], into: &found) == .invalidArgument)
            #expect(PathDirectories.inodes(of: Array("/tmp".utf8), prefixEnds: [9], into: &found) == .invalidArgument)
            #expect(PathDirectories.inodes(of: Array("/tmp".utf8), prefixEnds: [0], into: &found) == .invalidArgument)
            #expect(PathDirectories.inodes(of: Array("/tmp".utf8), prefixEnds: [], into: &found) == nil)
        }
        #expect(found.isEmpty)
        #expect(trace.calls.isEmpty)
    }
}

/// The lookup of a path from a descriptor of one of its directories (the moved file's check after
/// opening it by handle): the same object as the whole path, or `nil` for the caller to look up
/// the whole path.
@Suite("Looking up a path below an open directory")
struct LookupBelowTests {
    @Test("below the directory: one statx relative to its descriptor, the whole path's status; otherwise nil")
    func below() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("below-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(FileManager.default.createFile(atPath: root + "/a/b/f", contents: Data("x".utf8)))
        try FileManager.default.createSymbolicLink(atPath: root + "/a/link", withDestinationPath: "b/f")
        let directory = Array((root + "/a").utf8)
        let descriptor = try Directory.current.open(FilePath(root + "/a"), options: [.readOnly, .directory])
        let path = Array((root + "/a/b/f").utf8)
        let trace = AuditLog(level: .calls)
        let found = SyscallSeam.$observer.withValue(trace) {
            FileStatus.lookup(pathBytes: path, below: directory, relativeTo: descriptor, followSymlinks: false)
        }
        let status = try #require(try found?.get())
        #expect(status.inode == (try FileStatus(path: FilePath(root + "/a/b/f")).inode))
        #expect(trace.calls.filter { $0.name == "statx" }.map { $0.path ?? [] } == [Array("b/f".utf8)])
        // A trailing symlink is not followed when asked not to.
        let link = try #require(
            try FileStatus.lookup(pathBytes: Array((root + "/a/link").utf8), below: directory, relativeTo: descriptor, followSymlinks: false)?.get())
        #expect(link.kind == .symlink)
        // Missing: the errno, not nil.
        let missing = FileStatus.lookup(pathBytes: Array((root + "/a/gone").utf8), below: directory, relativeTo: descriptor, followSymlinks: false)
        #expect(missing?.failureErrno == .noSuchFileOrDirectory)
        // Not strictly below: the directory itself, a sibling sharing its name's start, another tree.
        for other in [root + "/a", root + "/ab/f", "/etc/hostname", root + "/a/"] {
            #expect(FileStatus.lookup(pathBytes: Array(other.utf8), below: directory, relativeTo: descriptor, followSymlinks: false) == nil, "\(other)")
        }
        // A NUL byte names no file.
        let nul = FileStatus.lookup(pathBytes: directory + [0x2F, 0x62, 0x00, 0x66], below: directory, relativeTo: descriptor, followSymlinks: false)
        #expect(nul?.failureErrno == .invalidArgument)
        // `/` is never the directory: the caller looks up the whole path.
        #expect(FileStatus.lookup(pathBytes: path, below: [0x2F], relativeTo: descriptor, followSymlinks: false) == nil)
    }
}

extension Result where Failure == Errno {
    fileprivate var failureErrno: Errno? {
        if case .failure(let errno) = self { return errno }
        return nil
    }
}

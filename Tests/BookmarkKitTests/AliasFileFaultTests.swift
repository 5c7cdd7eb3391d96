// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

@testable import BookmarkKit

/// Alias writes and refreshes with a failure injected at each system call of the publication: the old
/// file stays intact, no temporary file is left; and the syscalls a file-reference cache hit costs.
@Suite("Alias-file publication under injected faults", .serialized)
struct AliasFileFaultTests {
    static let steps = ["openat", "write", "fsetxattr", "fchmod", "fsync", "linkat", "renameat2"]

    @Test("a failure at any step leaves the old alias file as it was", arguments: steps)
    func faultAtStep(step: String) throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("alias-fault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tree = Tree(root: directory.path)
        try tree.file("one.txt", "1")
        try tree.file("two.txt", "2")
        let alias = FilePath(tree.path("the alias"))
        try Bookmark.create(for: FilePath(tree.path("one.txt")), options: [.suitableForBookmarkFile]).writeAliasFile(to: alias)
        let before = try Data(contentsOf: URL(fileURLWithPath: tree.path("the alias")))
        let next = try Bookmark.create(for: FilePath(tree.path("two.txt")), options: [.suitableForBookmarkFile])

        // Fail the open step only for the temporary file (unnamed, O_TMPFILE: __O_TMPFILE | O_DIRECTORY).
        let temporaryFile: Int64? = step == "openat" ? Int64(0o20_000_000 | O_DIRECTORY) : nil
        let trace = AuditLog(level: .calls, faults: [SyscallFault(call: step, errno: .ioError, requiredFlags: temporaryFile)])
        let succeeded = SyscallSeam.$observer.withValue(trace) { () -> Bool in
            (try? next.writeAliasFile(to: alias)) != nil
        }
        // (An attribute failure other than "not supported" is an error too.)
        #expect(!succeeded, "\(step) failed but the write succeeded")
        #expect(trace.calls.contains { $0.name == step }, "the publication never called \(step)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.path("the alias"))) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["one.txt", "the alias", "two.txt"], "left behind: \(names)")
    }

    @Test("publication order: unnamed temporary file, data, attribute, exact mode, fsync, link to a temporary name, rename, directory fsync")
    func order() throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("alias-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tree = Tree(root: directory.path)
        try tree.file("one.txt", "1")
        let bookmark = try Bookmark.create(for: FilePath(tree.path("one.txt")), options: [.suitableForBookmarkFile])
        let trace = AuditLog(level: .calls)
        let written = SyscallSeam.$observer.withValue(trace) { () -> Bool in
            (try? bookmark.writeAliasFile(to: FilePath(tree.path("the alias")))) != nil
        }
        #expect(written)
        let names = trace.calls.map(\.name).filter { ["fchmod", "write", "fsetxattr", "fsync", "linkat", "renameat2"].contains($0) }
        #expect(names == ["write", "fsetxattr", "fchmod", "fsync", "linkat", "renameat2", "fsync"])
        let unnamed = Int64(0o20_000_000 | O_DIRECTORY)
        #expect(trace.calls.contains { $0.name == "openat" && ($0.flags ?? 0) & unnamed == unnamed })
        // The temporary name says whose it is: ".the alias.tmp-<pid>-<start>-<random>".
        let link = try #require(trace.calls.first { $0.name == "linkat" })
        let temporaryName = String(decoding: try #require(link.secondPath), as: UTF8.self)
        #expect(temporaryName.hasPrefix(".the alias.tmp-\(getpid())-"))
    }

    @Test("a cache hit costs one statx (the entry knows the birth time), not open, handle, statx and close",
          .requiresRealVolumes)
    func cacheHitCost() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let path = volume.path("f.txt")
            try Data("f".utf8).write(to: URL(fileURLWithPath: path))
            let reference = try FileReferenceURL(for: FilePath(path))
            let trace = AuditLog(level: .calls)
            let method = SyscallSeam.$observer.withValue(trace) { () -> FileReferenceResolution.Method? in
                (try? reference.resolve())?.method
            }
            #expect(method == .cache)
            #expect(trace.calls.map(\.name) == ["statx"])
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// The order that makes a write durable, read from the audit log for every writer: the file's data
/// is synced, then the name is made to point at it (rename, or link for a new key), then the
/// directory is synced. A crash at any point leaves the old file or the complete new one.
@Suite("Durability order of every writer")
struct DurabilityOrderTests {
    /// The fsync, linkat and renameat2 effects in order, each with the kind of object its
    /// descriptor named (measured by the audit log before the call).
    static func order(_ log: AuditLog) -> [String] {
        log.effects.compactMap { effect -> String? in
            switch effect.call.name {
            case "fsync": return "fsync(\(effect.identities.directory?.kind.rawValue ?? "?"))"
            case "renameat2", "linkat": return effect.call.name
            default: return nil
            }
        }
    }

    static func scratch() throws -> String {
        let path = "/var/tmp/swift-bookmarks-durability-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("target".utf8).write(to: URL(fileURLWithPath: path + "/target.txt"))
        return path
    }

    @Test("make -o (writeAtomically), alias, refresh: file synced, then linked and renamed into place, then the directory synced")
    func replacingWriters() throws {
        let base = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let bookmark = try Bookmark.create(for: FilePath(base + "/target.txt"), options: [.suitableForBookmarkFile])
        let expected = ["fsync(regular)", "linkat", "renameat2", "fsync(directory)"]

        let make = AuditLog()
        try SyscallSeam.$observer.withValue(make) { try Bookmark.writeAtomically(try bookmark.data(), to: FilePath(base + "/b.bookmark")) }
        #expect(Self.order(make) == expected)

        let alias = AuditLog()
        _ = try SyscallSeam.$observer.withValue(alias) { try bookmark.writeAliasFile(to: FilePath(base + "/alias")) }
        #expect(Self.order(alias) == expected)

        try FileManager.default.moveItem(atPath: base + "/target.txt", toPath: base + "/moved.txt")
        let refresh = AuditLog()
        let outcome = try SyscallSeam.$observer.withValue(refresh) { try Bookmark.refreshFile(at: FilePath(base + "/b.bookmark")) }
        #expect(outcome.rewritten)
        #expect(Self.order(refresh) == expected)
    }

    @Test("key creation: the key's data synced, then linked to its name (never replacing one), then the directory synced")
    func keyCreation() throws {
        let base = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let log = AuditLog()
        let (_, created) = try SyscallSeam.$observer.withValue(log) { try SigningKey.loadOrCreate(at: FilePath(base + "/keys/app.key")) }
        #expect(created)
        // The new directory is synced after mkdir too; the key's own order ends the sequence.
        #expect(Self.order(log).suffix(3) == ["fsync(regular)", "linkat", "fsync(directory)"])
        #expect(!log.calls.contains { $0.name == "renameat2" }, "a key is never renamed over anything")
    }
}

// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// The log and the effects agree: replaying the recorded system calls (directory identity mapped to
/// the same directory of an identical tree, name bytes, typed flags, mode) on a fresh copy of the
/// tree gives the same result for every call and leaves the same tree.
@Suite("Audit log replay")
struct AuditReplayTests {
    struct Key: Hashable {
        var major: UInt32, minor: UInt32, inode: UInt64
        init(_ identity: ObjectIdentity) {
            major = identity.device.major
            minor = identity.device.minor
            inode = identity.inode
        }
    }

    /// Every entry with its type and permission bits.
    func listing(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted().map { name in
            var info = stat()
            _ = lstat(root + "/" + name, &info)
            return "\(name) \(String(UInt32(info.st_mode), radix: 8))"
        }
    }

    func cString(_ bytes: [UInt8]?) -> [CChar] { (bytes ?? []).map { CChar(bitPattern: $0) } + [0] }

    /// Replays one effect on the copy; returns its outcome as 0 or an errno, or nil when the call
    /// is not replayed (reads, writes, closes, ioctls: they change nothing a later call depends on).
    func replay(_ effect: AuditEffect, fds: inout [Key: Int32]) -> Int32? {
        let call = effect.call
        func mapped(_ identity: ObjectIdentity?, _ raw: Int32?) -> Int32 {
            if raw == -100 { return -100 }
            return identity.flatMap { fds[Key($0)] } ?? -1
        }
        let dir = mapped(effect.identities.directory, call.descriptor)
        let path = cString(call.path)
        let flags = Int32(truncatingIfNeeded: call.flags ?? 0)
        var rc: Int32
        switch call.name {
        case "openat":
            rc = openat(dir, path, flags, mode_t(call.mode ?? 0))
        case "openat2":
            // EAGAIN is the kernel saying a rename somewhere on the system raced a `..` step (other
            // tests rename concurrently): transient, so the replay retries like the library does.
            var attempts = 0
            repeat {
                rc = cls_openat2(dir, path, UInt64(UInt32(bitPattern: flags)), UInt64(call.mode ?? 0), call.resolve ?? 0)
                attempts += 1
            } while rc < 0 && errno == EAGAIN && attempts < 1000
        case "statx":
            var raw = cls_statx()
            rc = cls_statx(dir, path, flags, CLS_STATX_BASIC_STATS, &raw)
        case "mkdirat": rc = mkdirat(dir, path, mode_t(call.mode ?? 0))
        case "unlinkat": rc = unlinkat(dir, path, flags)
        case "symlinkat": rc = symlinkat(cString(call.secondPath), dir, path)
        case "linkat":
            let dir2 = mapped(effect.identities.secondDirectory, call.secondDescriptor)
            rc = linkat(dir, path, dir2, cString(call.secondPath), flags)
        case "renameat2":
            let dir2 = mapped(effect.identities.secondDirectory, call.secondDescriptor)
            rc = cls_renameat2(dir, path, dir2, cString(call.secondPath), UInt32(truncatingIfNeeded: call.flags ?? 0))
        case "fchmod": rc = fchmod(dir, mode_t(call.mode ?? 0))
        default: return nil
        }
        if rc < 0 { return errno }
        if ["openat", "openat2"].contains(call.name) {
            if let result = effect.identities.result { fds[Key(result)] = rc } else { close(rc) }
        }
        return 0
    }

    @Test("replaying every recorded call on an identical tree gives the same results and the same tree")
    func replayAgrees() throws {
        let original = try TreeFixture.scratch("replay-a")
        let copy = try TreeFixture.scratch("replay-b")
        defer {
            try? FileManager.default.removeItem(atPath: original)
            try? FileManager.default.removeItem(atPath: copy)
        }
        for base in [original, copy] { try TreeFixture.build("basic-tree.txt", under: base) }

        let log = AuditLog()
        let root = try Directory(opening: FilePath(original), auditLog: log)
        let rootIdentity = try root.status().identity
        log.clear()
        _ = try root.createDirectory("x/y/z", permissions: FilePermissions(rawValue: 0o750), withIntermediateDirectories: true)
        _ = try root.createFile("x/y/z/f", permissions: FilePermissions(rawValue: 0o640))
        try root.createSymlink("x/l", target: Array("y".utf8))
        _ = try root.open("x/l/z/f")
        try root.rename("x/y/z/f", to: "x/g", mode: .noReplace)
        #expect(throws: FileSystemError.self) { try root.rename("x/g", to: "b-file", mode: .noReplace) }
        #expect(throws: FileSystemError.self) { try root.open("escape-link1/file") }
        try root.publish("published", contents: Array("p".utf8))
        try root.removeAll("x/y")
        _ = try root.open("link3/target_rel", options: [.pathOnly, .directory])

        let copyRoot = open(copy, O_PATH_DIRECTORY())
        defer { close(copyRoot) }
        var fds: [Key: Int32] = [Key(rootIdentity): copyRoot]
        var replayed = 0
        var disagreements: [String] = []
        for effect in log.effects {
            // A recorded EAGAIN was a transient retry of the same call; its retry is recorded next.
            if effect.call.name == "openat2", effect.outcome.errno == .resourceTemporarilyUnavailable { continue }
            guard let outcome = replay(effect, fds: &fds) else { continue }
            replayed += 1
            let recorded = effect.outcome.errno?.rawValue ?? 0
            if outcome != recorded { disagreements.append("\(effect): replay gave \(outcome)") }
        }
        for fd in Set(fds.values) where fd != copyRoot { close(fd) }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        #expect(replayed > 30)
        #expect(listing(original) == listing(copy))
    }
}

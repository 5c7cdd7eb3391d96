// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Verify-before-read on a loop-mounted ext4 volume: every rejection names its reason, FIFOs and
/// devices are refused without blocking, the checks use the opened descriptor only; and the same
/// policy run as an unprivileged user (uid 65534, through setpriv and secure-probe).
@Suite("Verify before read", .serialized, .requiresRealVolumes)
struct VerificationTests {
    func makeTree(_ base: String) throws {
        try TreeFixture.makeFile(base + "/secure", Array("good".utf8), contents: Array("trusted".utf8), mode: 0o600)
        try TreeFixture.makeFile(base + "/secure", Array("other-owner".utf8), contents: [1], mode: 0o600)
        #expect(chown(base + "/secure/other-owner", 12345, 12345) == 0)
        try TreeFixture.makeFile(base + "/secure", Array("group-writable".utf8), contents: [1], mode: 0o620)
        try TreeFixture.makeFile(base + "/secure", Array("world-writable".utf8), contents: [1], mode: 0o602)
        try TreeFixture.makeFile(base + "/secure", Array("linked".utf8), contents: [1], mode: 0o600)
        #expect(link(base + "/secure/linked", base + "/secure/second-name") == 0)
        #expect(mkfifo(base + "/secure/fifo", 0o600) == 0)
        #expect(mknod(base + "/secure/null", S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0)
        #expect(mknod(base + "/secure/loop0", S_IFBLK | 0o600, dev_t(7 << 8)) == 0)
        #expect(symlink("good", base + "/secure/link") == 0)
        try FileManager.default.createDirectory(atPath: base + "/secure/subdir", withIntermediateDirectories: true)
        try TreeFixture.makeFile(base + "/open", Array("file".utf8), contents: [1], mode: 0o600)
        #expect(chmod(base + "/open", 0o777) == 0)
        try TreeFixture.makeFile(base + "/sticky", Array("file".utf8), contents: [1], mode: 0o600)
        #expect(chmod(base + "/sticky", 0o1777) == 0)
        #expect(chmod(base + "/secure", 0o755) == 0)
    }

    @Test(
        "as root: owner, mode, directory mode, type and link count rejections, each with its reason",
        arguments: [ResolverBackend.automatic, .walker])
    func rejections(backend: ResolverBackend) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let base = volume.path("v")
            try makeTree(base)
            let log = AuditLog()
            let root = try Directory(opening: FilePath(base), auditLog: log, backend: backend)
            log.clear()
            #expect(try root.readVerified("secure/good") == Array("trusted".utf8))
            let cases: [(String, SecurityViolation)] = [
                ("secure/other-owner", .owner(uid: 12345)),
                ("secure/group-writable", .fileWritableByOthers(mode: 0o100620)),
                ("secure/world-writable", .fileWritableByOthers(mode: 0o100602)),
                ("secure/linked", .linkCount(2)),
                ("secure/second-name", .linkCount(2)),
                ("secure/fifo", .notRegular(.fifo)),
                ("secure/null", .notRegular(.characterDevice)),
                ("secure/loop0", .notRegular(.blockDevice)),
                ("secure/link", .notRegular(.symlink)),
                ("secure/subdir", .notRegular(.directory)),
                ("open/file", .directoryWritableByOthers(mode: 0o40777)),
                ("sticky/file", .directoryWritableByOthers(mode: 0o41777)),
            ]
            for (path, violation) in cases {
                let started = ContinuousClock.now
                let error = try #require(throws: FileSystemError.self) { try root.openVerified(FilePath(path)) }
                #expect(error.violation == violation, "\(path): \(error)")
                #expect(error.code == .rejected)
                #expect(String(describing: error).contains("rejected"))
                #expect(ContinuousClock.now - started < .seconds(10), "\(path) must not block")
            }
            #expect(log.rejections == cases.map(\.1))
            // Every check was made on a descriptor: no statx by name after the O_PATH open.
            let statxByName = log.effects(named: "statx").filter { !($0.call.path ?? []).isEmpty }
            #expect(statxByName.isEmpty, "\(statxByName)")
            #expect(log.pathBasedEffects().isEmpty)
            // Relaxed policies accept what they do not check.
            _ = try root.openVerified("secure/linked", verification: VerificationPolicy(requiresSingleLink: false))
            _ = try root.openVerified("secure/other-owner", verification: VerificationPolicy(owner: .uids([12345])))
            _ = try root.openVerified("open/file", verification: VerificationPolicy(refusesWritableDirectory: false))
            #expect(throws: FileSystemError.self) { try root.openVerified("secure/fifo", verification: .regularFileOnly) }
        }
    }

    @Test("as uid 65534 (setpriv): own and root-owned files pass; another owner, modes, FIFOs and links are refused",
          .requiresUnprivilegedUser)
    func unprivileged() throws {
        let probe = try #require(ProbeTool.path)
        try LoopVolume.withVolume(.ext4) { volume in
            let base = volume.path("u")
            let nobody = UInt32(Unprivileged.uid)
            try TreeFixture.makeFile(base, Array("mine".utf8), contents: Array("abc".utf8), mode: 0o600)
            try TreeFixture.makeFile(base, Array("rootfile".utf8), contents: Array("r".utf8), mode: 0o644)
            try TreeFixture.makeFile(base, Array("other".utf8), contents: [1], mode: 0o644)
            try TreeFixture.makeFile(base, Array("groupw".utf8), contents: [1], mode: 0o660)
            #expect(mkfifo(base + "/fifo", 0o600) == 0)
            #expect(mknod(base + "/null", S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0)
            try TreeFixture.makeFile(base, Array("shared".utf8), contents: [1], mode: 0o600)
            #expect(link(base + "/shared", base + "/shared2") == 0)
            for name in ["mine", "groupw", "fifo", "shared", "null"] { #expect(chown(base + "/" + name, nobody, nobody) == 0) }
            #expect(chown(base + "/other", 12345, 12345) == 0)
            #expect(chown(base, nobody, nobody) == 0 && chmod(base, 0o755) == 0)
            try TreeFixture.makeFile(base + "/sub", Array("f".utf8), contents: [1], mode: 0o644)
            #expect(chmod(base + "/sub", 0o755) == 0)
            let expected: [(String, String)] = [
                ("mine", "ok 3"), ("rootfile", "ok 1"), ("other", "rejected owner"), ("groupw", "rejected fileWritableByOthers"),
                ("fifo", "rejected notRegular"), ("null", "rejected notRegular"), ("shared2", "rejected linkCount"), ("sub/f", "ok 1"), ("missing", "rejected errno-2"),
            ]
            for (name, answer) in expected {
                let result = try Unprivileged.run(["sh", "-c", "cd '\(base)' && exec '\(probe)' verify '\(name)'"])
                #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == answer, "\(name): \(result.stdout) \(result.stderr)")
            }
            // The same files as root: root is not the owner of "mine", but it is neither self nor root → refused.
            let root = try Directory(opening: FilePath(base))
            let error = try #require(throws: FileSystemError.self) { try root.openVerified("mine", verification: VerificationPolicy(requiresSingleLink: false)) }
            #expect(error.violation == .owner(uid: nobody))
        }
    }
}

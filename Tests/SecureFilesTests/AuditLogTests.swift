// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// The audit log: two levels plus policy events, per task or per root, deterministic, exported as
/// JSON lines; and the fault injection that goes with it (EAGAIN n times, ENOSYS/EPERM, any errno).
@Suite("Audit log")
final class AuditLogTests {
    let base: String

    init() throws {
        base = try TreeFixture.scratch("audit")
        try TreeFixture.build("basic-tree.txt", under: base)
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }

    @Test("level .calls: the same calls in the same order as .full, with no intents, policy events or identities, and no extra statx")
    func callsLevel() throws {
        let full = AuditLog(level: .full)
        let calls = AuditLog(level: .calls)
        for log in [full, calls] {
            let root = try Directory(opening: FilePath(base))
            try SyscallSeam.$observer.withValue(log) {
                _ = try root.createFile(FilePath("level-\(log.level.rawValue)"), permissions: [.ownerReadWrite])
                _ = try? root.open("../escape")
            }
        }
        #expect(calls.intents.isEmpty && calls.policyEvents.isEmpty)
        #expect(calls.effects.allSatisfy { $0.identities == SyscallIdentities() })
        #expect(!full.intents.isEmpty && !full.rejections.isEmpty)
        #expect(full.effects.contains { $0.identities.directory != nil })
        // Identities are measured outside the seam: the call sequences are the same (bar the name).
        let strip: (SyscallCall) -> String = { "\($0.name) \($0.flags ?? 0)" }
        #expect(calls.calls.map(strip) == full.calls.map(strip))
        // And a .calls log still injects faults.
        let failing = AuditLog(level: .calls, faults: [SyscallFault(call: "openat2", errno: .noSpace, times: 1)])
        let root = try Directory(opening: FilePath(base), auditLog: failing)
        let error = try #require(throws: FileSystemError.self) { try root.createFile("level-fault") }
        #expect(error.errno == .noSpace)
        #expect(failing.effects(named: "openat2").first?.outcome == .injected(.noSpace))
    }

    @Test("intent, effects with directory and result identities, and policy events, in order")
    func levels() throws {
        let log = AuditLog()
        let root = try Directory(opening: FilePath(base), auditLog: log)
        let rootIdentity = try root.status().identity
        log.clear()
        let file = try root.createFile("a/new", permissions: [.ownerReadWrite])
        let created = try file.status()
        #expect(log.records.map(\.sequence) == Array(1...log.records.count))
        guard case .intent(let intent) = log.events.first else { Issue.record("no intent first"); return }
        #expect(intent.operation == "Directory.createFile" && intent.path == Array("a/new".utf8))
        #expect(intent.details["mode"] == "0o600")
        let resolve = try #require(log.effects(named: "openat2").first)
        #expect(resolve.identities.directory?.isSameObject(as: rootIdentity) == true)
        #expect(resolve.call.resolveNames == ["RESOLVE_NO_MAGICLINKS", "RESOLVE_BENEATH"])
        #expect(resolve.call.flagNames.contains("O_PATH"))
        let create = try #require(log.effects(named: "openat").first { $0.call.flagNames.contains("O_CREAT") })
        #expect(create.call.path == Array("new".utf8))
        #expect(create.call.mode == 0o600)
        #expect(create.call.flagNames.contains("O_EXCL") && create.call.flagNames.contains("O_NOFOLLOW"))
        #expect(create.identities.result?.inode == created.inode)
        #expect(log.effects(named: "fchmod").first?.call.mode == 0o600)
        #expect(log.createdObjects.map(\.path) == [Array("a/new".utf8)])
        #expect(log.everyCreatedObject(hasPermissions: 0o600))
        #expect(log.pathBasedEffects().isEmpty)
        #expect(!log.contains(syscall: "umask"))

        // An escape is a policy event with its reason.
        #expect(throws: FileSystemError.self) { try root.open("escape-link1/file") }
        #expect(log.rejections.last == .escape)
    }

    @Test("JSON lines: one object per record, names lossless as hex, decoded flags, errno names")
    func json() throws {
        let log = AuditLog()
        let root = try Directory(opening: FilePath(base), auditLog: log)
        _ = try root.open(bytes: Array("bad".utf8) + [0xFF] + Array("-name".utf8))
        _ = try? root.open("missing")
        let lines = log.jsonLines().split(separator: "\n")
        #expect(lines.count == log.records.count)
        var sawHex = false
        var sawErrno = false
        for (index, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["seq"] as? Int == index + 1)
            #expect(["intent", "effect", "policy"].contains(object["level"] as? String ?? ""))
            if object["nameHex"] as? String == "626164ff2d6e616d65" { sawHex = true }
            if object["errno"] as? String == "ENOENT" { sawErrno = true }
            if object["call"] as? String == "openat2" { #expect((object["resolve"] as? [String])?.contains("RESOLVE_BENEATH") == true) }
        }
        #expect(sawHex && sawErrno)
    }

    func script(_ directory: String) throws -> [String] {
        let log = AuditLog()
        let root = try Directory(opening: FilePath(directory), auditLog: log)
        log.clear()
        _ = try root.createDirectory("x/y/z", withIntermediateDirectories: true)
        _ = try root.createFile("x/y/z/f")
        try root.replace("x/r", contents: [1, 2, 3])
        _ = try? root.open("escape-link2")
        _ = try root.readVerified("target/file", verification: .regularFileOnly)
        try root.removeAll("x")
        // Descriptor numbers, inodes and random temporary names differ between runs; the rest must not.
        return log.events.map { event in
            switch event {
            case .effect(let effect):
                let name = effect.call.path.map { String(decoding: $0, as: UTF8.self) } ?? ""
                let stable = name.contains(".tmp-") ? "<tmp>" : name
                return "\(effect.call.name) \(stable) \(effect.call.flagNames) \(effect.call.mode ?? 0) \(effect.outcome.errno.map(String.init(describing:)) ?? "ok")"
            case .intent(let intent): return "intent \(intent.operation) \(String(decoding: intent.path, as: UTF8.self))"
            case .policy(let policy): return "policy \(policy.kind)"
            }
        }
    }

    @Test("the same operations on identical trees give the same log")
    func deterministic() throws {
        let other = try TreeFixture.scratch("audit2")
        defer { try? FileManager.default.removeItem(atPath: other) }
        try TreeFixture.build("basic-tree.txt", under: other)
        // The first replace in a process reads its own start time once (`/proc/PID/stat`, for the
        // owner in temporary names); do that before either recorded run, whichever test ran first.
        let warm = try TreeFixture.scratch("audit-warm")
        defer { try? FileManager.default.removeItem(atPath: warm) }
        try Directory(opening: FilePath(warm)).replace("warm", contents: [0])
        let first = try script(base)
        let second = try script(other)
        #expect(first == second)
        #expect(first.count > 40)
    }

    @Test("logs are per task: concurrent tasks never see each other's events; a root's own log takes its operations")
    func scoping() async throws {
        let base = self.base
        let results = try await withThrowingTaskGroup(of: (Int, AuditLog).self) { group in
            for index in 0..<4 {
                group.addTask {
                    let log = AuditLog()
                    try SyscallSeam.$observer.withValue(log) {
                        let root = try Directory(opening: FilePath(base))
                        for round in 0..<20 { _ = try root.createFile(FilePath("task\(index)-\(round)")) }
                    }
                    return (index, log)
                }
            }
            var collected: [(Int, AuditLog)] = []
            for try await result in group { collected.append(result) }
            return collected
        }
        for (index, log) in results {
            let created = log.createdObjects.map { String(decoding: $0.path, as: UTF8.self) }
            #expect(created == (0..<20).map { "task\(index)-\($0)" })
        }
        let taskLog = AuditLog()
        let rootLog = AuditLog()
        let root = try Directory(opening: FilePath(base), auditLog: rootLog)
        try SyscallSeam.$observer.withValue(taskLog) { _ = try root.createFile("through-root") }
        #expect(rootLog.createdObjects.count == 1)
        // Only the later close of the returned descriptor, made by the task itself, is the task's.
        #expect(taskLog.intents.isEmpty && taskLog.effects.allSatisfy { $0.call.name == "close" })
    }

    @Test("EAGAIN from openat2 is retried up to the bound, then the walker answers that call", arguments: [1, 127, 128, 129])
    func eagain(times: Int) throws {
        let log = AuditLog(faults: [.openat2Again(times: times)])
        let root = try Directory(opening: FilePath(base), auditLog: log)
        let result = Result { () throws(FileSystemError) in try root.open("b/c/file") }
        let retries = log.policyEvents.filter { if case .retriedEAGAIN = $0 { return true } else { return false } }
        let fellBack = log.policyEvents.filter { $0 == .fellBack(errno: .resourceTemporarilyUnavailable) }
        #expect((try? result.get()) != nil)
        if times <= 128 {
            #expect(retries.count == times)
            #expect(fellBack.isEmpty)
            #expect(log.effects(named: "openat2").count == times + 1, "answered by openat2 itself")
        } else {
            #expect(retries.count == 128)
            #expect(log.effects(named: "openat2").count == 129)
            #expect(fellBack.count == 1)
        }
        // The root keeps using openat2 afterwards.
        let before = log.effects(named: "openat2").count
        _ = try root.open("b/c/file")
        #expect(log.effects(named: "openat2").count == before + 1)
        // A stricter bound falls back sooner, with the same answer.
        let strict = ResolutionPolicy(scope: .beneath, eagainRetries: 4)
        log.inject(.openat2Again(times: 5))
        let viaWalker = try root.open("b/c/file", policy: strict)
        #expect(try viaWalker.status().inode == (try root.open("b/c/file").status().inode))
    }

    @Test("ENOSYS or EPERM from openat2 switches the root to the walker once, recorded as a policy event", arguments: [Errno.noFunction, .notPermitted])
    func fallback(errno: Errno) throws {
        let log = AuditLog(faults: [.openat2Unavailable(errno)])
        let root = try Directory(opening: FilePath(base), auditLog: log)
        _ = try root.open("link3/target_rel/file")
        _ = try root.open("b/c/d")
        #expect(log.policyEvents.filter { $0 == .fellBack(errno: errno) }.count == 1)
        #expect(log.effects(named: "openat2").count == 1)
        #expect(log.contains(syscall: "readlinkat"))
    }

    @Test("the SECURITY.md example")
    func documentationExample() throws {
        let scratch = "/var/tmp/keys-test-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        symlink("/etc/shadow", scratch + "/signing.key")

        let log = AuditLog(faults: [.openat2Unavailable(.noFunction), .temporaryFileUnsupported])
        let root = try Directory(opening: FilePath(scratch), auditLog: log)
        log.clear()

        let clash = try #require(throws: FileSystemError.self) {
            try root.publish("signing.key", contents: Array("secret".utf8), permissions: [.ownerReadWrite])
        }
        #expect(clash.errno == .fileExists)
        try root.publish("signing2.key", contents: [1, 2, 3], permissions: [.ownerReadWrite])

        #expect(log.intents.map(\.operation) == ["Directory.publish", "Directory.publish"])
        #expect(log.policyEvents.contains(.fellBack(errno: .noFunction)))
        #expect(log.policyEvents.contains(.temporaryNameFallback(errno: .notSupported)))
        #expect(log.pathBasedEffects().isEmpty)
        #expect(log.effectsThatMayFollowSymlinks.isEmpty)
        #expect(log.everyCreatedObject(hasPermissions: 0o600))
        #expect(!log.contains(syscall: "umask"))
        #expect(!log.transcript.isEmpty)
        try log.jsonLines().write(toFile: scratch + ".audit.jsonl", atomically: false, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: scratch + ".audit.jsonl")
    }

    @Test("any errno from any call surfaces as a typed error naming the call, errno and path")
    func anyErrno() throws {
        let cases: [(String, Errno)] = [("mkdirat", .noSpace), ("getdents64", .ioError), ("renameat2", .readOnlyFileSystem), ("statx", .accessDenied)]
        for (call, errno) in cases {
            let log = AuditLog(faults: [SyscallFault(call: call, errno: errno)])
            let root = try Directory(opening: FilePath(base), auditLog: log)
            let error = try #require(throws: FileSystemError.self) {
                _ = try root.createDirectory(FilePath("fault-\(call)/deeper"), withIntermediateDirectories: true)
                try root.removeAll(FilePath("fault-\(call)"))
                try root.replace(FilePath("fault-\(call)-file"), contents: [1])
            }
            #expect(error.syscall == call && error.errno == errno, "\(call): \(error)")
            #expect(log.effects.contains { $0.outcome == .injected(errno) })
        }
    }
}

extension Errno {
    static var accessDenied: Errno { .permissionDenied }
}

extension Result where Failure == FileSystemError {
    var failureErrno: Errno? {
        if case .failure(let error) = self { return error.errno }
        return nil
    }
}

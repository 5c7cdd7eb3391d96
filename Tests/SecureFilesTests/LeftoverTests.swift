// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Writers killed at random moments leave the old file or the new one, never a torn one, and the
/// next write removes whatever temporary files they left.
@Suite("Killed writers leave nothing behind", .serialized)
final class LeftoverTests {
    let base: String

    init() throws {
        base = try TreeFixture.scratch("leftovers")
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }

    /// Every byte of a complete file written by `secure-probe replace-loop` is the same, and it has 64 KiB.
    static func isComplete(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return data.count == 65536 && data.allSatisfy { $0 == data.first }
    }

    @Test("1,000 writers killed with SIGKILL mid-replace: old or new every time; the next write leaves only the file")
    func killedWriters() throws {
        let probe = try #require(ProbeTool.path, "secure-probe is built with the tests")
        let target = base + "/state.bin"
        try Data(repeating: 0, count: 65536).write(to: URL(fileURLWithPath: target))
        var torn = 0
        var mostLeftovers = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<1000 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: probe)
            process.arguments = ["replace-loop", "state.bin"]
            process.currentDirectoryURL = URL(fileURLWithPath: base)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 2_000...25_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if !Self.isComplete(target) {
                torn += 1
                Issue.record("round \(round): the file is torn or missing")
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: base)
            mostLeftovers = max(mostLeftovers, names.count - 1)
        }
        #expect(torn == 0)
        // Each write removes the leftovers of writers that are gone, so at most a few are ever
        // there at once (those of the last kills, before the next writer's sweep).
        let before = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0 != "state.bin" }
        let log = AuditLog()
        try Directory(opening: FilePath(base), auditLog: log).replace("state.bin", contents: [UInt8](repeating: 7, count: 65536))
        let after = try FileManager.default.contentsOfDirectory(atPath: base)
        #expect(after == ["state.bin"], "left behind: \(after)")
        let removed = log.policyEvents.filter { if case .removedLeftover = $0 { return true } else { return false } }.count
        #expect(removed == before.count)
        print("killed writers: 1000 kills, 0 torn, at most \(mostLeftovers) leftover(s) at once, \(before.count) removed by the final write")
    }

    @Test("a leftover of a live writer is kept; one whose pid was reused by another process is removed")
    func ownership() throws {
        let live = ".state.bin.tmp-\(getpid())-\(try Self.startTime(getpid()))-abc"  // ours, maybe mid-write
        let otherLive = ".state.bin.tmp-1-\(try Self.startTime(1))-abc"  // init's: alive
        let reused = ".state.bin.tmp-\(getpid())-1-abc"  // our pid, another start time: a previous owner
        let dead = ".state.bin.tmp-2147483646-5-abc"
        let foreign = ".state.bin.tmp-notours"
        for name in [live, otherLive, reused, dead, foreign] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/" + name))
        }
        try Directory(opening: FilePath(base)).replace("state.bin", contents: [1])
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: base))
        #expect(names == [live, otherLive, foreign, "state.bin"])
    }

    @Test("inside LeftoverSweeping.oncePerDirectory only the first write sweeps a directory; the next write outside sweeps again")
    func oncePerDirectory() throws {
        let dead = ".state.bin.tmp-2147483646-5-abc"
        let directory = try Directory(opening: FilePath(base))
        try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/" + dead))
        try LeftoverSweeping.oncePerDirectory {
            try directory.replace("state.bin", contents: [1])
            #expect(!FileManager.default.fileExists(atPath: base + "/" + dead), "the first write of the scope sweeps")
            try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/" + dead))
            try directory.replace("other.bin", contents: [2])
            #expect(FileManager.default.fileExists(atPath: base + "/" + dead), "a second write into the same directory does not")
        }
        try directory.replace("state.bin", contents: [3])
        #expect(!FileManager.default.fileExists(atPath: base + "/" + dead), "outside the scope every write sweeps")
    }

    /// Field 22 of /proc/PID/stat.
    static func startTime(_ pid: Int32) throws -> String {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let afterName = try #require(text.split(separator: ")").last)
        return String(afterName.split(separator: " ")[19])
    }
}

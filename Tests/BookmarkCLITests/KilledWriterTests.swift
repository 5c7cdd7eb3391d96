// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import Testing
import VolumeFixtures

/// Every file the `bookmark` command writes (bookmark data, alias files, refreshed bookmarks,
/// signing keys), with the writer killed by SIGKILL at random moments 1,000 times: the file is the
/// old one or the new one every time, never torn, and once a write completes nothing else is left
/// in the directory.
@Suite("Writers killed at random moments", .serialized)
struct KilledWriterTests {
    static let kills = 1000

    /// Starts `bookmark ARGS`, kills it after a random delay, waits for it.
    static func killMidway(_ arguments: [String], generator: inout SystemRandomNumberGenerator) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(BookmarkTool.path))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32.random(in: 1_000...30_000, using: &generator))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func decodes(_ path: String) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: path) else { return false }
        return (try? BookmarkSource(decoding: Array(bytes))) != nil
    }

    /// A scratch directory on the root file system (user extended attributes work there).
    static func scratch(_ name: String) throws -> String {
        let path = "/var/tmp/swift-bookmarks-kill-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path + "/out", withIntermediateDirectories: true)
        try Data("target".utf8).write(to: URL(fileURLWithPath: path + "/target.txt"))
        return path
    }

    static func leftovers(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }

    @Test("make -o, alias and refresh: old or new after each of 1,000 kills; the next write leaves no temporary file",
          arguments: ["make", "alias", "refresh"])
    func killedWriter(writer: String) throws {
        let base = try Self.scratch(writer)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let output = base + "/out/result"
        var arguments: [String]
        switch writer {
        case "make": arguments = ["make", base + "/target.txt", "-o", output]
        case "alias": arguments = ["alias", base + "/target.txt", output]
        default: arguments = ["refresh", output]
        }
        // The old file: complete, and (for refresh) stale, so every run rewrites it.
        #expect(try BookmarkTool.run(writer == "alias" ? arguments : ["make", base + "/target.txt", "-o", output]).status == 0)
        if writer == "refresh" {
            try FileManager.default.moveItem(atPath: base + "/target.txt", toPath: base + "/moved.txt")
        }
        let stale = try Data(contentsOf: URL(fileURLWithPath: output))
        var generator = SystemRandomNumberGenerator()
        var torn = 0
        for round in 0..<Self.kills {
            if writer == "refresh" {
                // Put the stale data back (by a rename, so never torn itself): every run rewrites.
                try stale.write(to: URL(fileURLWithPath: base + "/stale.copy"))
                _ = rename(base + "/stale.copy", output)
            }
            try Self.killMidway(arguments, generator: &generator)
            if !Self.decodes(output) {
                torn += 1
                Issue.record("\(writer), kill \(round): \(output) is torn or missing")
            }
        }
        #expect(torn == 0)
        let before = try Self.leftovers(base + "/out")
        #expect(try BookmarkTool.run(arguments).status == 0)
        #expect(try Self.leftovers(base + "/out").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/out") == ["result"])
        print("killed \(writer): \(Self.kills) kills, 0 torn, \(before.count) leftover(s) before the final write, none after")
    }

    @Test("key creation (make --sign): after each of 1,000 kills the key is absent or complete (32 bytes, 0600); nothing else is left")
    func killedKeyCreation() throws {
        let base = try Self.scratch("key")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let key = base + "/out/keys/signing.key"
        var generator = SystemRandomNumberGenerator()
        var created = 0
        for round in 0..<Self.kills {
            if round % 4 == 0 { try? FileManager.default.removeItem(atPath: key) }
            try Self.killMidway(["make", base + "/target.txt", "-o", base + "/signed.bookmark", "--sign", key], generator: &generator)
            guard FileManager.default.fileExists(atPath: key) else { continue }
            created += 1
            let attributes = try FileManager.default.attributesOfItem(atPath: key)
            #expect((attributes[.size] as? Int) == 32, "kill \(round): a key of \(attributes[.size] ?? "?") bytes")
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "kill \(round)")
        }
        #expect(try BookmarkTool.run(["make", base + "/target.txt", "-o", base + "/signed.bookmark", "--sign", key]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/out/keys") == ["signing.key"])
        print("killed key creation: \(Self.kills) kills, the key existed after \(created) of them, always complete")
    }
}

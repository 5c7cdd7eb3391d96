// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// `bookmark` with a FUSE volume whose daemon stopped answering: listing and work elsewhere stay
/// prompt; work on it exits 75 within `--volume-timeout`, and the process really ends (a shell
/// reading its output is not kept waiting).
@Suite(
    "Dead volumes through the CLI", .serialized,
    .requires(requiredInCI: true) { StallingFileSystem.unavailableReason })
struct DeadVolumeCLITests {
    static func timed(_ arguments: [String]) throws -> (CommandResult, Double) {
        let start = ContinuousClock.now
        let result = try BookmarkTool.run(arguments)
        let elapsed = ContinuousClock.now - start
        return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test("volumes lists it, resolve elsewhere works, and resolve, id, make and alias on it exit 75 in time")
    func exitCodes() throws {
        let fuse = try StallingFileSystem()
        defer { fuse.destroy() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("dead-cli-\(UUID())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try fuse.makeFile("doc.txt", contents: Data("d".utf8))
        try Data("e".utf8).write(to: URL(fileURLWithPath: work + "/else.txt"))
        let onDead = work + "/dead.bookmark"
        let elsewhere = work + "/else.bookmark"
        #expect(try BookmarkTool.run(["make", fuse.mountPoint + "/doc.txt", "-o", onDead]).status == 0)
        #expect(try BookmarkTool.run(["make", work + "/else.txt", "-o", elsewhere]).status == 0)

        // A bookmark file kept on the FUSE volume itself (SOURCE there).
        try FileManager.default.copyItem(atPath: elsewhere, toPath: fuse.backing + "/else.bookmark")

        try fuse.stall()
        defer { fuse.resume() }
        let (volumes, _) = try Self.timed(["volumes", "--json"])
        #expect(volumes.status == 0, "\(volumes.stderr)")
        #expect(volumes.stdout.contains(fuse.mountPoint))
        #expect(try BookmarkTool.run(["resolve", elsewhere]).stdout.contains("else.txt"))

        let (resolved, seconds) = try Self.timed(["resolve", "--volume-timeout", "0.5", onDead])
        #expect(resolved.status == 75, "\(resolved.stderr)")
        #expect(resolved.stderr.contains("volumeNotResponding") && resolved.stderr.contains(fuse.mountPoint), "\(resolved.stderr)")
        #expect(seconds < 15, "took \(seconds) s")
        for arguments in [
            ["id", "--volume-timeout", "0.5", fuse.mountPoint + "/doc.txt"],
            ["make", "--volume-timeout", "0.5", fuse.mountPoint + "/doc.txt"],
            ["alias", "--volume-timeout", "0.5", fuse.mountPoint + "/doc.txt", work + "/doc alias"],
        ] {
            let (result, seconds) = try Self.timed(arguments)
            #expect(result.status == 75, "\(arguments[0]): \(result.status) \(result.stderr)")
            #expect(seconds < 15, "\(arguments[0]) took \(seconds) s")
        }
        #expect(try BookmarkTool.run(["resolve", "--volume-timeout", "0", onDead]).status == 64)
        // Reading a SOURCE from it and writing a bookmark into it: exit 75 too, not a hang.
        let (source, sourceSeconds) = try Self.timed(["resolve", "--volume-timeout", "0.5", fuse.mountPoint + "/else.bookmark"])
        #expect(source.status == 75, "\(source.status) \(source.stderr)")
        #expect(sourceSeconds < 15)
        let (written, writtenSeconds) = try Self.timed(["make", work + "/else.txt", "-o", fuse.mountPoint + "/out.bookmark"])
        #expect(written.status == 75, "\(written.status) \(written.stderr)")
        #expect(writtenSeconds < 15)

        // A shell that captures the output gets it and goes on: nothing left behind holds stdout.
        let tool = try #require(BookmarkTool.path)
        let script = "out=$(\(tool) resolve --volume-timeout 0.5 \(onDead) 2>&1); echo \"status=$?\"; echo \"$out\""
        let (shell, shellSeconds): (CommandResult, Double) = try {
            let start = ContinuousClock.now
            let result = try Shell.run(["sh", "-c", script])
            let elapsed = ContinuousClock.now - start
            return (result, Double(elapsed.components.seconds))
        }()
        #expect(shell.stdout.contains("status=75"), "\(shell.stdout)")
        #expect(shellSeconds < 15)

        fuse.resume()
        let healed = try BookmarkTool.run(["resolve", onDead])
        #expect(healed.status == 0, "\(healed.stderr)")
    }
}

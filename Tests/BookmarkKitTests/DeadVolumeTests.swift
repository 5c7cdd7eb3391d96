// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// A FUSE volume whose daemon stops answering (a dead sshfs, NFS or SMB server): nothing that does
/// not need it waits for it, and what needs it fails with `volumeNotResponding` within its timeout.
@Suite(
    "Dead volumes: a FUSE daemon that stops answering", .serialized,
    .requires(requiredInCI: true) { StallingFileSystem.unavailableReason })
struct DeadVolumeTests {
    /// Seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The mount of the stalling file system in a fresh table.
    static func entry(of fuse: StallingFileSystem) throws -> MountEntry {
        let table = try MountTable.current()
        return try #require(table.entries.last { $0.mountPoint == Array(fuse.mountPoint.utf8) })
    }

    /// Waits (up to 10 s) until nothing is left stuck on `mount`.
    static func waitUntilReleased(_ mount: MountID) -> (threads: Int, probes: Int) {
        let deadline = ContinuousClock.now + .seconds(10)
        var left = VolumeWatchdog.abandonedCalls(on: mount)
        while left != (0, 0), ContinuousClock.now < deadline {
            usleep(50_000)
            left = VolumeWatchdog.abandonedCalls(on: mount)
        }
        return left
    }

    @Test("listing volumes and resolving on other volumes do not wait for it")
    func othersStayPrompt() throws {
        let fuse = try StallingFileSystem()
        defer { fuse.destroy() }
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("dead-volume-\(UUID()).txt").path
        try Data("here".utf8).write(to: URL(fileURLWithPath: elsewhere))
        defer { unlink(elsewhere) }
        let healthy = try Bookmark.create(for: FilePath(elsewhere))
        try fuse.stall()
        defer { fuse.resume() }

        let volumes = try MountedVolumes()
        let listed = volumes.allVolumes()
        let dead = try #require(listed.first { $0.mountPoint == Array(fuse.mountPoint.utf8) })
        #expect(dead.fsType == "fuse.stallfs")
        #expect(dead.mayBlock)
        #expect(dead.capacity == nil, "the dead volume's root was asked for statfs")
        #expect(try healthy.resolve(volumes: volumes).path == FilePath(elsewhere))
        #expect(try healthy.resolve().path == FilePath(elsewhere))
        // A bookmark elsewhere never waits, even in a batch.
        let batch = Bookmark.resolveAll([healthy, healthy])
        #expect(batch.allSatisfy { (try? $0.get().path) == FilePath(elsewhere) })
    }

    @Test("resolving a file on it fails with volumeNotResponding within the timeout; a second call fails at once; all is released when it answers")
    func resolutionTimesOut() throws {
        let fuse = try StallingFileSystem()
        defer { fuse.destroy() }
        let file = try fuse.makeFile("note.txt", contents: Data("note".utf8))
        let bookmark = try Bookmark.create(for: FilePath(file))
        #expect(try bookmark.resolve().path == FilePath(file))
        let reference = try FileReferenceURL(for: FilePath(file))
        let mount = try Self.entry(of: fuse).mountID

        try fuse.stall()
        let options = ResolutionOptions(volumeResponseTimeout: .milliseconds(500))
        let start = ContinuousClock.now
        let first = Result { () throws(BookmarkError) in try bookmark.resolve(options) }
        let firstSeconds = Self.seconds(since: start)
        guard case .failure(let error) = first else {
            Issue.record("resolved on a dead volume: \(first)")
            return
        }
        #expect(error.code == .volumeNotResponding, "\(error)")
        #expect(error.mountPoint == Array(fuse.mountPoint.utf8))
        #expect(error.lastKnownPath == Array(file.utf8))
        #expect(error.description.contains("did not respond within 0.5 s"), "\(error)")
        // At least the timeout; the upper bound only catches a hang (machines under load are slow).
        #expect(firstSeconds >= 0.5 && firstSeconds < 15, "took \(firstSeconds) s")
        // The probe child is left waiting, and accounted for; no thread of ours touched the volume.
        #expect(VolumeWatchdog.abandonedCalls(on: mount) == (0, 1))

        // The second call fails at once: it says an earlier call is waiting, and starts no probe.
        let second = Result { () throws(BookmarkError) in try bookmark.resolve(options) }
        if case .failure(let error) = second {
            #expect(error.code == .volumeNotResponding)
            #expect(error.description.contains("earlier call"), "\(error)")
        } else {
            Issue.record("resolved on a dead volume: \(second)")
        }
        #expect(VolumeWatchdog.abandonedCalls(on: mount) == (0, 1), "a second probe was started")

        // Bookmark creation, identification and file-reference URLs: the same error, no hang.
        let creation = Result { () throws(BookmarkError) in
            try Bookmark.create(for: FilePath(file), volumeResponseTimeout: .milliseconds(500))
        }
        #expect((try? creation.get()) == nil)
        if case .failure(let error) = creation { #expect(error.code == .volumeNotResponding) }
        let identified = Result { () throws(FileIdentityError) in
            try FileID.identify(FilePath(file), responseTimeout: .milliseconds(500))
        }
        if case .failure(let error) = identified {
            #expect(error.code == .volumeNotResponding)
        } else {
            Issue.record("identified a file on a dead volume")
        }

        let referenced = Result { () throws(BookmarkError) in try reference.resolve() }
        if case .failure(let error) = referenced {
            #expect(error.code == .volumeNotResponding, "\(error)")
        } else {
            Issue.record("a file-reference URL resolved on a dead volume")
        }

        fuse.resume()
        #expect(Self.waitUntilReleased(mount) == (0, 0))
        #expect(try bookmark.resolve(options).path == FilePath(file))
        #expect(try reference.resolve().path == FilePath(file))
    }

    @Test("a volume that stops answering between the check and the call: the thread is abandoned, counted, and released when it answers")
    func stuckAfterProbe() throws {
        let fuse = try StallingFileSystem()
        defer { fuse.destroy() }
        let file = try fuse.makeFile("data.bin", contents: Data(repeating: 7, count: 64))
        let bookmark = try Bookmark.create(for: FilePath(file))
        let mount = try Self.entry(of: fuse).mountID
        // statfs and stat still answer, so the probe passes; opening for reading waits.
        try fuse.stallOpens()
        let options = ResolutionOptions(volumeResponseTimeout: .milliseconds(500))
        let start = ContinuousClock.now
        let opened = Result { () throws(BookmarkError) in try bookmark.open(.readOnly, resolving: options) }
        #expect(Self.seconds(since: start) < 15)
        if case .failure(let error) = opened {
            #expect(error.code == .volumeNotResponding, "\(error)")
        } else {
            Issue.record("opened a file whose open never returns")
        }
        #expect(VolumeWatchdog.abandonedCalls(on: mount) == (1, 0))
        fuse.resume()
        #expect(Self.waitUntilReleased(mount) == (0, 0))
        let reopened = try bookmark.open(.readOnly, resolving: options)
        #expect(try reopened.descriptor.readPrefix(64).count == 64)
    }

    @Test("cancelling stops the wait at once")
    func cancellation() throws {
        let fuse = try StallingFileSystem()
        defer { fuse.destroy() }
        let file = try fuse.makeFile("c.txt", contents: Data("c".utf8))
        let bookmark = try Bookmark.create(for: FilePath(file))
        try fuse.stall()
        defer { fuse.resume() }
        let flag = CancellationFlag()
        let canceller = Thread { usleep(200_000); flag.cancel() }
        canceller.start()
        let start = ContinuousClock.now
        let result = Result { () throws(BookmarkError) in
            try bookmark.resolve(ResolutionOptions(cancellation: flag, volumeResponseTimeout: .seconds(30)))
        }
        #expect(Self.seconds(since: start) < 15, "the 30 s timeout was waited out")
        if case .failure(let error) = result { #expect(error.code == .cancelled, "\(error)") } else { Issue.record("resolved") }
    }

    @Test("killing the daemon releases what was stuck, and the mount's table entry needs no touching")
    func daemonKilled() throws {
        let fuse = try StallingFileSystem()
        let file = try fuse.makeFile("k.txt", contents: Data("k".utf8))
        let bookmark = try Bookmark.create(for: FilePath(file))
        let mount = try Self.entry(of: fuse).mountID
        try fuse.stall()
        let result = Result { () throws(BookmarkError) in
            try bookmark.resolve(ResolutionOptions(volumeResponseTimeout: .milliseconds(300)))
        }
        #expect((try? result.get()) == nil)
        #expect(VolumeWatchdog.abandonedCalls(on: mount).probes == 1)
        fuse.destroy()
        #expect(Self.waitUntilReleased(mount) == (0, 0))
        #expect(!fuse.isMounted)
    }

    @Test("the mount table alone says which mounts may block and which path is beneath an automount trigger")
    func hazards() throws {
        let text = """
            20 1 8:1 / / rw - ext4 /dev/sda1 rw
            30 20 0:40 / /mnt/remote rw - fuse.sshfs host:/srv rw
            31 20 0:41 / /net rw - autofs systemd-1 rw
            32 20 0:42 / /mnt/nfs rw - nfs4 server:/export rw
            33 20 7:0 / /media/card rw - fuseblk /dev/loop0 rw
            """
        let volumes = MountedVolumes(table: try MountTable(parsing: Array(text.utf8)))
        func hazard(_ path: String) -> String {
            switch volumes.hazard(of: Array(path.utf8)) {
            case .none: return "none"
            case .mayBlock(let entry): return "block " + String(decoding: entry.mountPoint, as: UTF8.self)
            case .automount(let entry): return "automount " + String(decoding: entry.mountPoint, as: UTF8.self)
            }
        }
        #expect(hazard("/home/a.txt") == "none")
        #expect(hazard("/mnt/remote/x/y") == "block /mnt/remote")
        #expect(hazard("/mnt/remotely/y") == "none")
        #expect(hazard("/mnt/nfs") == "block /mnt/nfs")
        #expect(hazard("/media/card/DCIM") == "block /media/card")
        #expect(hazard("/net/host/file") == "automount /net")
        for entry in volumes.table.entries {
            #expect(entry.mayBlock == ["fuse.sshfs", "nfs4", "fuseblk"].contains(entry.fsType), "\(entry.fsType)")
        }
    }
}

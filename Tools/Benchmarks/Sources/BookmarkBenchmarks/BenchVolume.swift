// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// A loop-mounted ext4 image that holds one workload tree.
///
/// It lives in `/var/tmp/swift-bookmarks-fixtures/PID-bench-N` with an `owner.pid`, the layout the
/// test fixtures use, so `Tools/sweep-fixtures` (and this tool's own start-up sweep) remove what a
/// killed run left behind. ``destroy()`` unmounts, detaches and deletes; ``Cleanup`` calls it on
/// normal exit, on errors and on SIGINT/SIGTERM/SIGHUP.
final class BenchVolume: Sendable {
    static let workspace = "/var/tmp/swift-bookmarks-fixtures"
    private static let counter = Mutex(0)

    let directory: String
    let image: String
    let mountPoint: String
    let uuid: String
    private let device = Mutex<String?>(nil)
    private let mounted = Mutex(false)

    /// Makes an ext4 image with room for `entries` entries and mounts it.
    init(entries: Int) throws {
        let number = Self.counter.withLock { value -> Int in
            value += 1
            return value
        }
        // The pid first, as the test fixtures name theirs: a test run's sweep reads the owner there.
        directory = "\(Self.workspace)/\(getpid())-bench-\(number)"
        image = directory + "/image"
        mountPoint = directory + "/mnt"
        uuid = UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try String(getpid()).write(toFile: directory + "/owner.pid", atomically: true, encoding: .utf8)
        Cleanup.register(self)
        let megabytes = 256 + entries * 2 / 1024
        let inodes = entries + entries / 4 + 16_384
        try Spawn.check(["truncate", "-s", "\(megabytes)M", image])
        try Spawn.check(["mkfs.ext4", "-q", "-F", "-N", String(inodes), "-U", uuid, "-L", "benchhome", image])
        let attached = try Spawn.check(["losetup", "--find", "--show", image])
        device.withLock { $0 = attached }
        try Spawn.check(["mount", "-t", "ext4", attached, mountPoint])
        mounted.withLock { $0 = true }
    }

    /// Unmounts, detaches the loop device and deletes the image. Safe to call twice.
    func destroy() {
        let wasMounted = mounted.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        if wasMounted, Spawn.run(["umount", mountPoint]).status != 0 {
            _ = Spawn.run(["umount", "-l", mountPoint])
        }
        if let attached = device.withLock({ value -> String? in
            defer { value = nil }
            return value
        }) {
            _ = Spawn.run(["losetup", "-d", attached])
        }
        _ = Spawn.run(["rm", "-rf", "--one-file-system", directory])
        Cleanup.unregister(self)
    }

    /// Removes benchmark volumes whose owning process is gone (a run that was killed with SIGKILL).
    static func sweepDead() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: workspace) else { return }
        let mountInfo = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        for name in names where name.contains("-bench-") || name.hasPrefix("bench-") {
            let dir = workspace + "/" + name
            let owner = (try? String(contentsOfFile: dir + "/owner.pid", encoding: .utf8))?.trimmingWhitespace()
            if let pid = owner.flatMap({ Int32($0) }), kill(pid, 0) == 0 || errno == EPERM { continue }
            for line in mountInfo.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count > 4, fields[4].hasPrefix(dir) { _ = Spawn.run(["umount", "-l", String(fields[4])]) }
            }
            let loops = Spawn.run(["losetup", "--noheadings", "--output", "NAME", "-j", dir + "/image"]).output
            for loop in loops.split(separator: "\n") { _ = Spawn.run(["losetup", "-d", String(loop).trimmingWhitespace()]) }
            _ = Spawn.run(["rm", "-rf", "--one-file-system", dir])
            print("note: removed a benchmark volume left by a dead run: \(dir)")
        }
    }
}

/// Destroys every live ``BenchVolume`` on exit or on a terminating signal.
enum Cleanup {
    private static let volumes = Mutex<[ObjectIdentifier: BenchVolume]>([:])
    /// Kept alive for the whole run; written once, from the main thread, before any signal can arrive.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func register(_ volume: BenchVolume) { volumes.withLock { $0[ObjectIdentifier(volume)] = volume } }
    static func unregister(_ volume: BenchVolume) { _ = volumes.withLock { $0.removeValue(forKey: ObjectIdentifier(volume)) } }

    /// Destroys what is left.
    static func all() {
        let left = volumes.withLock { Array($0.values) }
        for volume in left { volume.destroy() }
    }

    /// On SIGINT, SIGTERM or SIGHUP: destroy the volumes, then exit with 128 + the signal.
    static func installSignalHandlers() {
        let queue = DispatchQueue(label: "benchmark-signals")
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                FileHandle.standardError.write(Data("benchmark: signal \(number): cleaning up\n".utf8))
                all()
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }
}

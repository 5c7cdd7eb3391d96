// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The file systems the fixture can make.
public enum FixtureFileSystem: String, Sendable, CaseIterable, CustomStringConvertible {
    /// ext4 (`mkfs.ext4 -U UUID -L LABEL`).
    case ext4
    /// XFS (`mkfs.xfs -m uuid=UUID -L LABEL`); at least 300 MiB.
    case xfs
    /// btrfs (`mkfs.btrfs -U UUID -L LABEL`), with a subvolume `sub` created after mounting.
    case btrfs
    /// tmpfs: no image, no loop device, no persistent UUID.
    case tmpfs
    /// exFAT through FUSE (`mkfs.exfat -L LABEL`, `mount.exfat-fuse`): no ioctl UUID, so libblkid
    /// is the only source; the serial is random and read back with `blkid` after formatting.
    case exfat

    /// The name.
    public var description: String { rawValue }

    var imageSize: Int {
        switch self {
        case .xfs: return 320 << 20
        case .btrfs: return 256 << 20
        case .ext4, .exfat: return 64 << 20
        case .tmpfs: return 0
        }
    }

    var mkfs: String? {
        switch self {
        case .ext4: return "mkfs.ext4"
        case .xfs: return "mkfs.xfs"
        case .btrfs: return "mkfs.btrfs"
        case .exfat: return "mkfs.exfat"
        case .tmpfs: return nil
        }
    }
}

/// Why real volumes cannot be made here, or `nil` when they can.
public enum VolumeSupport {
    /// `nil` when this process can make, mount and remove loop volumes; otherwise why not.
    public static let unavailableReason: String? = {
        guard getuid() == 0 else { return "real-volume tests need root (loop devices and mount)" }
        guard FileManager.default.fileExists(atPath: "/dev/loop-control") else { return "no /dev/loop-control" }
        for tool in ["losetup", "mount", "umount", "mkfs.ext4"] where !Shell.has(tool) {
            return "\(tool) is not installed (Tools/test installs it)"
        }
        do {
            let probe = try LoopVolume(.ext4, uuid: UUID().uuidString.lowercased(), label: "probe")
            try probe.destroy()
            return nil
        } catch {
            return "mounting a loop image failed: \(error)"
        }
    }()

    /// Whether `BOOKMARK_REQUIRE_VOLUMES=1` (set by Tools/test as root): real-volume tests then run
    /// regardless and fail loudly, and requirements CI must meet fail instead of skipping (see
    /// ``Requirement``).
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["BOOKMARK_REQUIRE_VOLUMES"] == "1" }

    /// Whether a file system type can be made here (its mkfs exists).
    public static func canMake(_ kind: FixtureFileSystem) -> Bool {
        guard let mkfs = kind.mkfs else { return true }
        return Shell.has(mkfs)
    }
}

/// A loop-mounted file system image made for one test, with a chosen UUID and label.
///
/// Everything lives under ``LoopVolume/workspace`` (outside `/tmp`, whose special handling by
/// editors would hide behaviour). ``destroy()`` unmounts, detaches the loop device and deletes the
/// image; ``withVolume(_:uuid:label:_:)`` calls it even when the test fails. A process that dies
/// before that leaves a `owner.pid` behind, and the next fixture (or `Tools/sweep-fixtures`)
/// removes whatever belonged to dead processes, so loop devices do not leak across runs.
public final class LoopVolume: @unchecked Sendable {
    /// Where fixtures live.
    public static let workspace = URL(fileURLWithPath: "/var/tmp/swift-bookmarks-fixtures")

    /// The file system.
    public let kind: FixtureFileSystem
    /// The UUID it was made with (for exFAT, the random serial as libblkid prints it, `XXXX-XXXX`).
    public private(set) var uuid: String
    /// The label it was made with.
    public let label: String
    /// This fixture's private directory.
    public let directory: URL
    /// The image file (none for tmpfs).
    public let image: URL
    /// Where it is mounted now (`nil` while unmounted).
    public private(set) var mountPoint: URL?
    /// The loop device it is attached to now (`nil` while detached, and always for tmpfs).
    public private(set) var loopDevice: String?

    private static let lock = Guarded(0)  // not Guarded(()): ThreadSanitizer mistakes a zero-sized value for the lock field beside it
    private static let counter = Guarded(0)
    private static let swept = Guarded(false)

    /// Makes the file system and mounts it at `directory/mnt`.
    public init(_ kind: FixtureFileSystem, uuid: String = UUID().uuidString.lowercased(), label: String = "fixture")
        throws
    {
        Self.sweepOnce()
        self.kind = kind
        self.label = label
        let number = Self.counter.withLock { value -> Int in
            value += 1
            return value
        }
        directory = Self.workspace.appendingPathComponent("\(getpid())-\(number)-\(kind)")
        image = directory.appendingPathComponent("image")
        self.uuid = uuid
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Shell.check(["chmod", "0755", Self.workspace.path, directory.path])
        try String(getpid()).write(to: directory.appendingPathComponent("owner.pid"), atomically: true, encoding: .utf8)
        do {
            try format()
            try mount(at: directory.appendingPathComponent("mnt"))
            if kind == .btrfs, let mountPoint {
                try Shell.check(["btrfs", "subvolume", "create", mountPoint.appendingPathComponent("sub").path])
            }
        } catch {
            try? destroy()
            throw error
        }
    }

    private func format() throws {
        guard let mkfs = kind.mkfs else { return }
        try Shell.check(["truncate", "-s", String(kind.imageSize), image.path])
        switch kind {
        case .ext4: try Shell.check([mkfs, "-q", "-F", "-U", uuid, "-L", label, image.path])
        case .xfs: try Shell.check([mkfs, "-q", "-f", "-m", "uuid=\(uuid)", "-L", label, image.path])
        case .btrfs: try Shell.check([mkfs, "-q", "-f", "-U", uuid, "-L", label, image.path])
        case .exfat:
            try Shell.check([mkfs, "-L", String(label.prefix(11)), image.path])
            uuid = try Shell.check(["blkid", "-p", "-s", "UUID", "-o", "value", image.path])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        case .tmpfs: break
        }
    }

    /// Mounts at `point` (created if needed). With `newLoopDevice`, the image is attached to a loop
    /// device other than the one it had last, to prove identities do not depend on device numbers.
    public func mount(at point: URL, newLoopDevice: Bool = false) throws {
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        try Shell.check(["chmod", "0755", point.path])
        if kind == .tmpfs {
            try Shell.check(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0755", "tmpfs-\(label)", point.path])
            mountPoint = point
            return
        }
        try Self.lock.withLock { _ in
            let previous = lastLoopDevice
            let device = try Self.attach(image: image.path, avoiding: newLoopDevice ? previous : nil)
            loopDevice = device
            lastLoopDevice = device
        }
        do {
            if kind == .exfat {
                try Shell.check(["mount.exfat-fuse", "-o", "allow_other", loopDevice ?? "", point.path])
            } else {
                try Shell.check(["mount", "-t", kind.rawValue, loopDevice ?? "", point.path])
            }
        } catch {
            try? detach()
            throw error
        }
        mountPoint = point
    }
    private var lastLoopDevice: String?

    /// Attaches the image to a free loop device, avoiding `avoiding`.
    private static func attach(image: String, avoiding: String?) throws -> String {
        guard let avoiding else {
            return try Shell.check(["losetup", "--find", "--show", image]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Take the first free device that is not the old one: hold the old number with a dummy
        // attachment if it is the first free, so `--find` moves on.
        let free = try Shell.check(["losetup", "--find"]).trimmingCharacters(in: .whitespacesAndNewlines)
        if free != avoiding {
            return try Shell.check(["losetup", "--show", free, image]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let placeholder = image + ".hold"
        try Shell.check(["truncate", "-s", "1M", placeholder])
        let held = try Shell.check(["losetup", "--find", "--show", placeholder]).trimmingCharacters(in: .whitespacesAndNewlines)
        defer {
            _ = try? Shell.run(["losetup", "-d", held])
            try? FileManager.default.removeItem(atPath: placeholder)
        }
        return try Shell.check(["losetup", "--find", "--show", image]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Unmounts and, unless `keepDevice`, detaches the loop device (the image stays).
    public func unmount(keepDevice: Bool = false) throws {
        if let mountPoint {
            try Shell.check(["umount", mountPoint.path])
            self.mountPoint = nil
        }
        if !keepDevice { try detach() }
    }

    private func detach() throws {
        guard let device = loopDevice else { return }
        try Self.lock.withLock { _ in
            let result = try Shell.run(["losetup", "-d", device])
            if result.status != 0 && !result.stderr.contains("No such device") {
                throw CommandFailure(command: ["losetup", "-d", device], status: result.status, stderr: result.stderr)
            }
        }
        loopDevice = nil
    }

    /// Unmounts, detaches and deletes everything this fixture made.
    public func destroy() throws {
        if let mountPoint {
            if (try? Shell.check(["umount", mountPoint.path])) == nil {
                _ = try? Shell.run(["umount", "-l", mountPoint.path])
            }
            self.mountPoint = nil
        }
        try? detach()
        try FileManager.default.removeItem(at: directory)
    }

    /// Makes a volume, runs `body`, and destroys the volume whatever happens.
    public static func withVolume<T>(
        _ kind: FixtureFileSystem, uuid: String = UUID().uuidString.lowercased(), label: String = "fixture",
        _ body: (LoopVolume) throws -> T
    ) throws -> T {
        let volume = try LoopVolume(kind, uuid: uuid, label: label)
        defer { try? volume.destroy() }
        return try body(volume)
    }

    /// Makes a path inside the mounted volume.
    public func path(_ relative: String) -> String {
        (mountPoint ?? directory).appendingPathComponent(relative).path
    }

    // MARK: - Sweeping what dead processes left behind

    private static func sweepOnce() {
        let first = swept.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        if first { sweep() }
    }

    /// Removes fixtures whose owning process is gone: unmounts their mounts, detaches their loop
    /// devices and deletes their directories.
    public static func sweep() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: workspace.path) else { return }
        let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        let loops = (try? Shell.check(["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"])) ?? ""
        for name in names {
            let dir = workspace.appendingPathComponent(name)
            // The owner is in the name ("PID-N-kind"), written before the directory exists, so a
            // fixture another thread is creating right now (no owner.pid yet) is never taken for a
            // dead one; owner.pid is the fallback for other names.
            // Other names (the benchmark's "bench-PID-N") are not taken for a dead owner's: their
            // first part is no pid, and reading it as one removed a running benchmark's volume.
            let fromName = name.split(separator: "-").first.flatMap { Int32($0) }
            let fromFile = (try? String(contentsOf: dir.appendingPathComponent("owner.pid"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            // No owner yet (one being made right now): left to Tools/sweep-fixtures.
            guard let pid = fromName ?? fromFile else { continue }
            if kill(pid, 0) == 0 || errno == EPERM {
                continue  // still alive
            }
            for line in mounts.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count > 4, fields[4].hasPrefix(dir.path) { _ = try? Shell.run(["umount", "-l", String(fields[4])]) }
            }
            for line in loops.split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 1)
                if fields.count == 2, fields[1].contains(dir.path) { _ = try? Shell.run(["losetup", "-d", String(fields[0])]) }
            }
            try? manager.removeItem(at: dir)
        }
    }
}

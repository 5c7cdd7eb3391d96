// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A FUSE file system that can be told to stop answering (`Tests/Scripts/stallfs.py`): a dead
/// sshfs, NFS or SMB mount, on demand.
///
/// It mirrors a backing directory at a mount point (type `fuse.stallfs`) with the kernel's caches
/// off, so every lookup reaches the daemon. ``stall()`` makes every request wait; ``stallOpens()``
/// only `open`, `read` and `readdir` (`statfs` and `stat` still answer); ``resume()`` lets them go
/// on. ``destroy()`` kills the daemon (which aborts the connection: waiting calls fail with
/// `ENOTCONN`) and detaches the mount.
public final class StallingFileSystem: @unchecked Sendable {
    /// Where it is mounted.
    public let mountPoint: String
    /// The directory it mirrors (write here to change files without going through the daemon).
    public let backing: String
    private let base: String
    private var daemon: pid_t

    /// Why it cannot run here, or `nil`.
    public static let unavailableReason: String? = {
        guard getuid() == 0 else { return "a FUSE mount with allow_other needs root" }
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else { return "no /dev/fuse" }
        guard FileManager.default.fileExists(atPath: script) else { return "\(script) is missing" }
        let check = try? Shell.run(["/usr/bin/python3", "-c", "import fusepy"])
        guard check?.status == 0 else { return "Debian's python3-fusepy is not installed (Tools/install-deps installs it)" }
        return nil
    }()

    /// The daemon's script, beside the test sources.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/stallfs.py").path

    /// Mounts a new, empty one and waits (up to 10 s) until the mount is in the table.
    public init() throws {
        try FileManager.default.createDirectory(at: LoopVolume.workspace, withIntermediateDirectories: true)
        base = LoopVolume.workspace.appendingPathComponent("\(getpid())-stallfs-\(UUID().uuidString.prefix(8))").path
        backing = base + "/backing"
        mountPoint = base + "/mount"
        for directory in [backing, mountPoint] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        daemon = try Self.spawn(["/usr/bin/python3", Self.script, backing, mountPoint])
        let deadline = Date().addingTimeInterval(10)
        while !isMounted {
            guard Date() < deadline else {
                kill(daemon, SIGKILL)
                throw CommandFailure(command: ["stallfs.py", backing, mountPoint], status: -1, stderr: "not mounted after 10 s")
            }
            usleep(20_000)
        }
    }

    /// Whether the mount is in this process's mount table now.
    public var isMounted: Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return false }
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 4 && fields[4] == mountPoint && line.contains(" - fuse.stallfs ")
        }
    }

    /// Writes `contents` to `name` in the backing directory (not through the daemon) and returns
    /// the file's path on the mount.
    @discardableResult
    public func makeFile(_ name: String, contents: Data) throws -> String {
        try contents.write(to: URL(fileURLWithPath: backing + "/" + name))
        return mountPoint + "/" + name
    }

    /// Every request waits from now on.
    public func stall() throws { try Data().write(to: URL(fileURLWithPath: backing + "/.stall")) }

    /// `open`, `read` and `readdir` wait from now on; `statfs` and `stat` still answer.
    public func stallOpens() throws { try Data().write(to: URL(fileURLWithPath: backing + "/.stall-open")) }

    /// Requests are answered again (those waiting go on).
    public func resume() {
        unlink(backing + "/.stall")
        unlink(backing + "/.stall-open")
    }

    /// Kills the daemon, detaches the mount and removes everything. Calls stuck on it fail then.
    public func destroy() {
        if daemon > 0 {
            kill(daemon, SIGKILL)
            var status: Int32 = 0
            waitpid(daemon, &status, 0)
            daemon = 0
        }
        _ = try? Shell.run(["umount", "-l", mountPoint])
        _ = try? FileManager.default.removeItem(atPath: base)
    }

    deinit { destroy() }

    /// Starts `arguments` with stdin, stdout and stderr on /dev/null and nothing else inherited.
    static func spawn(_ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, &cArguments, environ)
        guard result == 0 else { throw CommandFailure(command: arguments, status: result, stderr: "posix_spawn failed") }
        return pid
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A command that exited non-zero, with what it printed.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
    /// The command line.
    public var command: [String]
    /// Its exit status.
    public var status: Int32
    /// What it printed on stderr.
    public var stderr: String
    /// `command: status N: stderr`.
    public var description: String { "\(command.joined(separator: " ")): exit \(status): \(stderr)" }
}

/// What a finished command printed.
public struct CommandResult: Sendable {
    /// Exit status.
    public var status: Int32
    /// Standard output.
    public var stdout: String
    /// Standard error.
    public var stderr: String
    /// Standard output as bytes.
    public var stdoutData: Data
    /// Standard error as bytes.
    public var stderrData: Data = Data()
}

/// Runs external programs for test fixtures (mkfs, mount, losetup, setpriv). Tests only: the
/// library itself never shells out.
public enum Shell {
    /// Runs `arguments` (looked up on PATH) and returns what it printed, whatever the status.
    @discardableResult
    public static func run(_ arguments: [String], input: Data? = nil, environment: [String: String]? = nil)
        throws -> CommandResult
    {
        try run(bytes: arguments.map { Array($0.utf8) }, input: input, environment: environment)
    }

    /// Runs a program with arguments given as exact bytes (names that are not UTF-8, as a shell
    /// would pass them), looked up on PATH, and returns what it printed, whatever the status.
    public static func run(bytes byteArguments: [[UInt8]], input: Data? = nil, environment: [String: String]? = nil)
        throws -> CommandResult
    {
        let arguments = byteArguments.map { String(decoding: $0, as: UTF8.self) }
        // posix_spawn with only fds 0-2 passed on, and output to unlinked temporary files: a
        // command that leaves a daemon behind (mount.exfat-fuse) must not inherit anything that
        // would keep us waiting (Foundation's Process waits on such inherited descriptors).
        let out = try TemporaryOutput()
        let err = try TemporaryOutput()
        let inFile = try TemporaryOutput()
        if let input { inFile.handle.write(input); _ = try? inFile.handle.seek(toOffset: 0) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inFile.handle.fileDescriptor, 0)
        posix_spawn_file_actions_adddup2(&actions, out.handle.fileDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, err.handle.fileDescriptor, 2)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = [Array("/usr/bin/env".utf8)] + byteArguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
        var cEnv = env.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { $0?.deallocate() }
            cEnv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/usr/bin/env", &actions, nil, &cArgs, &cEnv)
        guard rc == 0 else { throw CommandFailure(command: arguments, status: rc, stderr: "posix_spawn failed") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let outData = out.contents()
        let errData = err.contents()
        return CommandResult(
            status: exitStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData, stderrData: errData)
    }

    /// Runs `arguments` and throws ``CommandFailure`` unless it exits 0; returns stdout.
    @discardableResult
    public static func check(_ arguments: [String]) throws -> String {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw CommandFailure(command: arguments, status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }

    /// Whether a program is on PATH.
    public static func has(_ program: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(program)"]).status) == 0
    }
}

/// Runs checks as an unprivileged user with `setpriv`, for privilege-dependent behaviour.
public enum Unprivileged {
    /// The uid and gid used (`nobody` on Debian).
    public static let uid = 65534

    /// Why this process cannot switch users, or `nil` when it can (it is root and setpriv exists).
    public static let unavailableReason: String? = {
        guard getuid() == 0 else { return "reruns as uid 65534 need root" }
        guard Shell.has("setpriv") else { return "setpriv is not installed (Tools/install-deps installs util-linux)" }
        return nil
    }()

    /// Runs `arguments` as uid/gid 65534 with no supplementary groups and no capabilities.
    public static func run(_ arguments: [String], input: Data? = nil) throws -> CommandResult {
        try Shell.run(
            ["setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--inh-caps=-all", "--"] + arguments,
            input: input)
    }
}

/// An unlinked temporary file to collect a child's output.
private final class TemporaryOutput {
    let handle: FileHandle
    init() throws {
        var template = Array("/var/tmp/swift-bookmarks-out-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CommandFailure(command: ["mkstemp"], status: errno, stderr: "cannot create a temporary file") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
    func contents() -> Data {
        _ = try? handle.seek(toOffset: 0)
        return (try? handle.readToEnd()) ?? Data()
    }
}

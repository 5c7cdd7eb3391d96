// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A command that failed.
struct CommandError: Error, CustomStringConvertible {
    var command: [String]
    var status: Int32
    var output: String
    var description: String { "\(command.joined(separator: " ")): exit \(status): \(output)" }
}

/// Runs external programs (mkfs, mount, losetup, find) with `posix_spawnp`.
enum Spawn {
    /// Runs `arguments`, returns its exit status and what it printed (stdout and stderr together).
    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { return (127, "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        let pid = launch(arguments, &actions)
        close(pipeFDs[1])
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
            if count > 0 { output += chunk[0..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        close(pipeFDs[0])
        guard let pid else { return (127, "cannot run \(arguments.first ?? "?")") }
        return (wait(for: pid), String(decoding: output, as: UTF8.self))
    }

    /// Runs `arguments` and throws unless it exits 0; returns what it printed, trimmed.
    @discardableResult
    static func check(_ arguments: [String]) throws -> String {
        let result = run(arguments)
        guard result.status == 0 else { throw CommandError(command: arguments, status: result.status, output: result.output) }
        return result.output.trimmingWhitespace()
    }

    /// Runs `arguments` with all output sent to /dev/null (the `find` baselines); returns the status.
    static func quiet(_ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        guard let pid = launch(arguments, &actions) else { return 127 }
        return wait(for: pid)
    }

    /// Whether `program` is on PATH.
    static func has(_ program: String) -> Bool {
        run(["sh", "-c", "command -v \(program)"]).status == 0
    }

    private static func launch(_ arguments: [String], _ actions: inout posix_spawn_file_actions_t) -> pid_t? {
        guard let program = arguments.first else { return nil }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, program, &actions, nil, &argv, environ)
        return rc == 0 ? pid : nil
    }

    private static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

extension String {
    /// Without leading and trailing spaces and newlines.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The built `bookmark` executable, for tests that run the command as a user would.
public enum BookmarkTool {
    /// The binary next to the test bundle (SwiftPM puts both in the same build folder).
    public static let path: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        let candidate = directory.appendingPathComponent("bookmark").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    /// Runs `bookmark ARGS` as the current user.
    public static func run(_ arguments: [String], input: Data? = nil) throws -> CommandResult {
        guard let path else { throw CommandFailure(command: ["bookmark"], status: -1, stderr: "bookmark binary not built") }
        return try Shell.run([path] + arguments, input: input)
    }

    /// Runs `bookmark ARGS` with arguments as exact bytes.
    public static func run(bytes arguments: [[UInt8]], input: Data? = nil, environment: [String: String]? = nil)
        throws -> CommandResult
    {
        guard let path else { throw CommandFailure(command: ["bookmark"], status: -1, stderr: "bookmark binary not built") }
        return try Shell.run(bytes: [Array(path.utf8)] + arguments, input: input, environment: environment)
    }

    /// Runs `bookmark ARGS`, arguments as exact bytes, as uid/gid 65534 through setpriv.
    public static func runUnprivileged(bytes arguments: [[UInt8]], input: Data? = nil) throws -> CommandResult {
        guard let path else { throw CommandFailure(command: ["bookmark"], status: -1, stderr: "bookmark binary not built") }
        let setpriv = ["setpriv", "--reuid=\(Unprivileged.uid)", "--regid=\(Unprivileged.uid)", "--clear-groups", "--inh-caps=-all", "--"]
        return try Shell.run(bytes: setpriv.map { Array($0.utf8) } + [Array(path.utf8)] + arguments, input: input)
    }

    /// Runs `bookmark ARGS` as uid/gid 65534 through setpriv.
    public static func runUnprivileged(_ arguments: [String], input: Data? = nil) throws -> CommandResult {
        guard let path else { throw CommandFailure(command: ["bookmark"], status: -1, stderr: "bookmark binary not built") }
        return try Unprivileged.run([path] + arguments, input: input)
    }

    /// Parses JSON output.
    public static func json(_ result: CommandResult) throws -> Any {
        try JSONSerialization.jsonObject(with: result.stdoutData)
    }
}

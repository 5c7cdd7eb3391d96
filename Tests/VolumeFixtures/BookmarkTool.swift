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

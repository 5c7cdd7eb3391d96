// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// The `bookmark` executable built next to the tests.
enum CatalogCLI {
    static let path: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        let candidate = directory.appendingPathComponent("bookmark").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    static func binary() throws -> String {
        try #require(path, "the bookmark executable is built with the tests")
    }

    /// Runs `bookmark catalog ARGUMENTS` as root.
    static func run(_ arguments: [String]) throws -> CommandResult {
        try Shell.run([try binary(), "catalog"] + arguments)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import VolumeFixtures

/// A small DSL over a directory on a test volume: make, move, remove, link, as a user would.
struct Tree {
    let root: String

    func path(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    func dir(_ relative: String, mode: Int = 0o755) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(relative))
    }

    func file(_ relative: String, _ contents: String = "data") throws {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: full))
    }

    func move(_ from: String, _ to: String) throws {
        let destination = path(to)
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Shell.check(["mv", path(from), destination])
    }

    func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: path(relative)) }

    func hardLink(_ existing: String, _ new: String) throws { try Shell.check(["ln", path(existing), path(new)]) }

    func symlink(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path(relative), withDestinationPath: destination)
    }

    func shell(_ script: String) throws { try Shell.check(["sh", "-c", "cd '\(root)' && \(script)"]) }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path(relative)) }
}

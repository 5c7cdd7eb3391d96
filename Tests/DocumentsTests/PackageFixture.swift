// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// A small package on disk to read and save, and what tests ask of its files.
struct PackageFixture {
    let root: String

    func path(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }
    func url(_ relative: String) -> URL { URL(fileURLWithPath: path(relative)) }

    func file(_ relative: String, _ contents: String) throws {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: full))
    }

    func inode(_ relative: String) throws -> UInt64 {
        var status = stat()
        guard lstat(path(relative), &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return UInt64(status.st_ino)
    }

    func linkCount(_ relative: String) throws -> Int {
        var status = stat()
        guard lstat(path(relative), &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return Int(status.st_nlink)
    }

    func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// Every entry beneath a directory with its inode and, for a file, its contents: equal before
    /// and after exactly when nothing was written there.
    func tree(_ relative: String) throws -> [String: String] {
        var entries: [String: String] = [:]
        let base = path(relative)
        guard let walker = FileManager.default.enumerator(atPath: base) else { throw CocoaError(.fileReadNoSuchFile) }
        while let name = walker.nextObject() as? String {
            let full = base + "/" + name
            let contents = (try? String(contentsOfFile: full, encoding: .utf8)) ?? "(directory)"
            entries[name] = "\(try inode(relative.isEmpty ? name : relative + "/" + name)) \(contents)"
        }
        entries["."] = "\(try inode(relative))"
        return entries
    }

    /// The names in a directory, sorted.
    func names(_ relative: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(relative)).sorted()
    }
}

/// The file systems every save scenario runs on.
let saveFileSystems: [FixtureFileSystem] = [.ext4, .xfs, .btrfs, .tmpfs]

/// Runs `body` with a fresh directory under the system's temporary directory (its name starts
/// with `prefix`), removed afterwards.
func withScratchDirectory<T>(_ prefix: String, _ body: (URL) throws -> T) throws -> T {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return try body(root)
}

// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A tree of files to catalog, and a catalog file beside it.
struct CatalogFixture {
    let root: String

    /// A fixture at `TMPDIR/PREFIX-UUID/tree` (no loop volume, no privilege), and its folder for
    /// a catalog beside the tree; `cleanUp` removes both.
    static func temporary(_ prefix: String) -> (fixture: CatalogFixture, folder: String, cleanUp: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        return (CatalogFixture(root: folder + "/tree"), folder, { try? FileManager.default.removeItem(atPath: folder) })
    }

    func path(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    /// Writes `contents` at `relative`, making its directories.
    func file(_ relative: String, _ contents: String = "") throws {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: full))
    }

    func directory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    func move(_ from: String, _ to: String) throws {
        try FileManager.default.moveItem(atPath: path(from), toPath: path(to))
    }
}

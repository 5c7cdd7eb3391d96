// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles

/// How `find` and `export` tell a CATALOG argument from a PATTERN or a FILE (Docs/CATALOG.md,
/// "Which argument is the catalog"): by what the argument is, not only by where it stands, so a
/// forgotten PATTERN or FILE is a usage error instead of a search of the default catalog for the
/// catalog's name, or an export read from the file meant to be written.
enum CatalogArgument {
    /// The first 16 bytes of every SQLite database.
    static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// Whether `argument` names a catalog: it has no glob character (`*`, `?`, `[`: `'*.catalog'`
    /// is a pattern) and ends in `.catalog` or is a regular file that starts with SQLite's header.
    static func namesCatalog(_ argument: String) -> Bool {
        let bytes = RawArguments.bytes(of: argument)
        let globCharacters: Set<UInt8> = [0x2A, 0x3F, 0x5B]
        // A glob is never a catalog, and is not opened (it may name a path on a slow mount).
        if bytes.contains(where: globCharacters.contains) { return false }
        if bytes.count > ".catalog".utf8.count, bytes.reversed().starts(with: ".catalog".utf8.reversed()) { return true }
        return isSQLiteFile(bytes)
    }

    /// Whether the file at `path` is a regular file whose first bytes are SQLite's header.
    /// Opened without blocking (a FIFO named like a pattern is not waited on), and never read
    /// past the header.
    static func isSQLiteFile(_ path: [UInt8]) -> Bool {
        do throws(FileSystemError) {
            let fd = try Directory.current.open(PathBytes(path).filePath, options: [.readOnly, .nonBlocking])
            guard try fd.status().kind == .regular else { return false }
            return try fd.read(count: sqliteHeader.count, at: 0) == sqliteHeader
        } catch {
            return false
        }
    }
}

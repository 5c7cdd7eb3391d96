// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import Foundation
import Glibc
import SecureFiles

extension BookmarkCommand {
    /// `bookmark catalog scan|diff|find|export`: volume catalogs.
    struct CatalogGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalog",
            abstract: "Catalog what is on your drives, offline, with file identity.",
            discussion: """
                A catalog is one SQLite file. Without -o or CATALOG, the default is \
                $XDG_DATA_HOME/swift-bookmarks/volumes.catalog (~/.local/share/… without XDG_DATA_HOME). \
                See \(DocPages.cite("CATALOG.md")).
                """,
            subcommands: [CatalogScan.self, CatalogDiffCommand.self, CatalogFind.self, CatalogExport.self])
    }
}

/// Where catalogs live when no path is given.
enum CatalogLocation {
    static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return base + "/swift-bookmarks/volumes.catalog"
    }

    /// The catalog path an argument names. SQLite takes a path as UTF-8 text, so a name that is not
    /// UTF-8 is refused (exit 64) rather than opened under another name.
    static func path(_ argument: String) throws -> String {
        guard let path = String(validating: RawArguments.bytes(of: argument), as: UTF8.self) else {
            Output.error("\(RawArguments.display(argument)): a catalog's path must be UTF-8 (its scan roots and names need not be)")
            throw ExitStatus.usage.exitCode
        }
        return path
    }

    /// Opens an existing catalog for reading, or exits 66 with the reason (64 for a path that is
    /// not UTF-8). `nil` is the default catalog (``defaultPath``), as `scan` writes it without
    /// `-o`: `bookmark catalog scan /media/usb` then `bookmark catalog find '*.jpg'` works.
    static func open(_ argument: String?) throws -> BookmarkCatalog.Catalog {
        let path = try argument.map(self.path) ?? defaultPath
        do {
            return try BookmarkCatalog.Catalog(path: path, create: false)
        } catch {
            // The description names the catalog's path.
            Output.error(error.description)
            throw ExitStatus.sourceUnreadable.exitCode
        }
    }
}

extension CatalogLocation {
    /// The exit status of a catalog error: 66 for a catalog that cannot be opened or is not one
    /// (damaged, a directory, newer), as for one missing; 64 for a bad pattern; 1 for the rest (a
    /// read or a write that failed: the disk full). A damaged catalog was 1: SQLite finds the
    /// damage only when it reads a page, after the open succeeded.
    static func exitStatus(for error: CatalogError) -> ExitStatus {
        switch error.code {
        case .cannotOpen, .newerSchema, .rootUnavailable: .sourceUnreadable
        case .badPattern: .usage
        case .database: .failure
        }
    }
}

/// The JSON of a change (`diff --json`, `--jsonl`).
struct ChangeJSON: Encodable {
    var kind: String
    var entryKind: String
    var path: String
    var pathBase64: String?
    var oldPath: String?
    var oldPathBase64: String?
    var descendants: Int
    var size: UInt64
    var inode: UInt64

    init(_ change: CatalogChange) {
        kind = change.kind.rawValue
        entryKind = change.entryKind.description
        path = JSONPath.text(change.path)
        pathBase64 = JSONPath.base64(change.path)
        oldPath = change.oldPath.map(JSONPath.text)
        oldPathBase64 = change.oldPath.flatMap(JSONPath.base64)
        descendants = change.descendants
        size = change.size
        inode = change.inode
    }
}

/// Prints changes: one line each (paths as their bytes), a JSON array, or JSON Lines.
enum ChangePrinter {
    static func print(_ changes: [CatalogChange], json: Bool, jsonLines: Bool) throws {
        if json {
            try Output.json(changes.map(ChangeJSON.init))
        } else if jsonLines {
            for change in changes { try Output.jsonLine(ChangeJSON(change)) }
        } else {
            for change in changes {
                var line = Array(change.kind.rawValue.utf8) + [0x20]
                if let old = change.oldPath { line += old + Array(" -> ".utf8) }
                line += change.path
                if change.descendants > 0 { line += Array(" (and \(change.descendants) inside)".utf8) }
                Output.record(line)
            }
        }
    }
}

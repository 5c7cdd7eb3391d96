// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import Foundation

/// `bookmark catalog diff OLD NEW`, or `bookmark catalog diff [CATALOG]` for the last re-scan.
struct CatalogDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changed between two catalogs, or in each root's last re-scan of one catalog.",
        discussion: """
            Entries are matched by identity (volume, inode, generation, birth time), never by name: \
            a rename or a move is reported as `moved OLD -> NEW`, and a moved folder is one move. A \
            folder added or deleted with its contents is one line, with the count inside. Paths are \
            printed as their bytes; --json and --jsonl give text plus base64 for names that are not \
            UTF-8. Without a catalog, the default catalog's last re-scans. Exits 0 (with or without \
            changes), 66 when a catalog cannot be opened.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "OLD and NEW catalogs, or one CATALOG (default: the default catalog).")
    var catalogs: [String] = []

    @Flag(name: .customLong("jsonl"), help: "One JSON object per line.")
    var jsonLines = false

    func validate() throws {
        guard catalogs.count <= 2 else { throw ValidationError("give OLD NEW, one CATALOG, or none for the default catalog") }
    }

    func run() throws {
        let changes: [CatalogChange]
        do {
            if catalogs.count == 2 {
                let old = try CatalogLocation.open(catalogs[0])
                let new = try CatalogLocation.open(catalogs[1])
                changes = try CatalogDiff.changes(from: old, to: new)
            } else {
                let catalog = try CatalogLocation.open(catalogs.first)
                var all: [CatalogChange] = []
                for scan in try catalog.latestScans() { all += try catalog.changes(inScan: scan.scanID) }
                changes = all
            }
        } catch let error as CatalogError {
            Output.error(error.description)
            throw CatalogLocation.exitStatus(for: error).exitCode
        }
        try ChangePrinter.print(changes, json: global.json, jsonLines: jsonLines)
    }
}

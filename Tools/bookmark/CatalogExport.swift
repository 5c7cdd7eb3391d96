// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import Foundation
import Glibc
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark catalog export [CATALOG [FILE]] [-o FILE] (--html|--csv|--tsv|--json|--markdown)`.
    struct CatalogExport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export a catalog as one HTML page to browse, or as CSV, TSV, JSON or Markdown.",
            discussion: """
                Choose one format (--json, the global flag, is the JSON format here, written to FILE \
                or stdout). FILE is written atomically (a temporary file beside it, then a \
                rename), keeping the permissions of a file it replaces (new files: 0666 less the \
                umask); without FILE, or with '-', the export goes to stdout. The HTML page is \
                self-contained: open it from disk in any browser, offline. Its file list always \
                shows name, size and date; --columns chooses the columns of the other formats \
                (default: path,kind,size,modified,volume; all, or any of: \(CatalogColumn.allCases.map(\.rawValue).joined(separator: ","))). \
                GLOB is a shell glob on the name, or on the whole path when it has a '/'; a matching \
                folder brings or leaves out everything in it, and --exclude wins over --include. \
                Without CATALOG, the default catalog; -o FILE writes it to FILE. A lone argument is \
                CATALOG; one that does not exist and does not end in .catalog is refused (64), since \
                it was meant as FILE: give -o FILE. Exits 0, 64 for such an argument, 66 when \
                CATALOG cannot be opened as a catalog.
                """)

        // `--json` is the global flag: here it chooses the JSON format.
        @OptionGroup var global: GlobalOptions

        @Flag(name: .customLong("html"), help: "One self-contained HTML page: folder tree, sortable file list, search.")
        var html = false

        @Flag(name: .customLong("csv"), help: "Comma-separated values (RFC 4180).")
        var csv = false

        @Flag(name: .customLong("tsv"), help: "Tab-separated values (tab, newline, CR and backslash escaped).")
        var tsv = false

        @Flag(name: .customLong("markdown"), help: "A Markdown table for each root.")
        var markdown = false

        @Argument(help: "The catalog file (default: the default catalog).")
        var catalog: String?

        @Argument(help: "Where to write the export; '-' or nothing for stdout.")
        var file: String?

        @Option(name: [.customShort("o"), .customLong("output")], help: "Where to write the export (instead of FILE): the only way to name a FILE for the default catalog.")
        var output: String?

        @Option(name: .customLong("columns"), help: ArgumentHelp("Columns, comma-separated, in order; all for every column.", valueName: "a,b,c"))
        var columns: String?

        @Option(name: .customLong("include"), help: ArgumentHelp("Export only what matches (repeatable).", valueName: "GLOB"))
        var include: [String] = []

        @Option(name: .customLong("exclude"), help: ArgumentHelp("Leave out what matches, and everything in it (repeatable).", valueName: "GLOB"))
        var exclude: [String] = []

        @Flag(name: [.customShort("i"), .customLong("ignore-case")], help: "Match --include and --exclude ignoring case.")
        var ignoreCase = false

        @Option(name: .customLong("title"), help: "The HTML page's (and Markdown's) title.")
        var title: String = "Catalog"

        @Flag(
            name: .customLong("deleted"),
            help: "Include entries that scans found gone (where they were), with a deleted column: when the scan that found each gone began.")
        var deleted = false

        func validate() throws {
            let chosen = [html, csv, tsv, global.json, markdown].filter { $0 }.count
            guard chosen == 1 else {
                throw ValidationError(
                    chosen == 0 ? "choose a format: --html, --csv, --tsv, --json or --markdown" : "choose only one format")
            }
            _ = try parsedColumns()
            _ = try catalogAndFile()
        }

        /// The catalog to read (`nil`: the default) and where to write (`nil` or "-": stdout).
        /// A lone positional is the CATALOG, as documented, except when it cannot be one: it does
        /// not exist and its name does not end in `.catalog`. Then it was meant as FILE, and
        /// either reading it (66, "no catalog") or writing the default catalog to it would
        /// be a guess: a usage error that says to give -o. An existing file stays CATALOG (66
        /// when it is not one), so no file is ever overwritten by a guess.
        func catalogAndFile() throws -> (catalog: String?, file: String?) {
            if let output {
                guard file == nil else { throw ValidationError("give FILE or -o FILE, not both") }
                return (catalog, output)
            }
            if let catalog, file == nil, !CatalogArgument.namesCatalog(catalog), !FileManager.default.fileExists(atPath: catalog) {
                let shown = RawArguments.display(catalog)
                throw ValidationError(
                    "no catalog '\(shown)' (no such file, and not a .catalog name): to write the default catalog to it, "
                        + "give -o \(shown); a lone argument is the CATALOG to read")
            }
            return (catalog, file)
        }

        var format: CatalogExportFormat {
            if html { return .html }
            if csv { return .csv }
            if tsv { return .tsv }
            if markdown { return .markdown }
            return .json
        }

        func parsedColumns() throws -> [CatalogColumn] {
            // With --deleted, the default columns and `deleted`: otherwise a deleted object and
            // the object now at its path were two rows that nothing told apart.
            guard let columns else { return deleted ? CatalogColumn.defaultSelection + [.deleted] : [] }
            return try columns.split(separator: ",", omittingEmptySubsequences: true).flatMap { name in
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                // `all`, as the help names it: every column, in the documented order.
                if trimmed.lowercased() == "all" { return CatalogColumn.allCases }
                guard let column = CatalogColumn(name: trimmed) else {
                    throw ValidationError(
                        "unknown column '\(trimmed)'; columns are \(CatalogColumn.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return [column]
            }
        }

        func run() throws {
            let (catalog, file) = try catalogAndFile()
            let opened = try CatalogLocation.open(catalog)
            let snapshots: [CatalogRootSnapshot]
            do {
                snapshots = try opened.snapshots(includingDeleted: deleted)
            } catch {
                Output.error(error.description)
                throw CatalogLocation.exitStatus(for: error).exitCode
            }
            let options = CatalogExportOptions(
                columns: try parsedColumns(),
                include: include.map { CatalogGlob(bytes: RawArguments.bytes(of: $0)) },
                exclude: exclude.map { CatalogGlob(bytes: RawArguments.bytes(of: $0)) },
                ignoresCase: ignoreCase, title: String(decoding: RawArguments.bytes(of: title), as: UTF8.self))
            let bytes = CatalogExporter.export(snapshots, format: format, options: options)
            guard let file, file != "-" else {
                Output.write(bytes, to: STDOUT_FILENO)
                return
            }
            do {
                try Directory.current.replace(
                    RawArguments.filePath(file), contents: bytes,
                    options: ReplaceOptions(permissions: .keepExisting(otherwise: FilePermissions(rawValue: 0o666 & ~Self.umask))))
            } catch {
                throw Output.fail(error, path: RawArguments.display(file)).exitCode
            }
        }

        /// The process's umask, read from /proc (setting it to read it back would race with other
        /// threads); 022 where /proc is missing.
        static var umask: UInt32 {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
                let value = UInt32(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
            else { return 0o022 }
            return value
        }
    }
}

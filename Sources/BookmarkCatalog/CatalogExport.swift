// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles

/// A file format a catalog can be exported to (Docs/CATALOG-EXPORTS.md describes each).
public enum CatalogExportFormat: String, CaseIterable, Sendable, Hashable {
    /// One self-contained page: a folder tree, a sortable file list and a search over everything.
    case html
    /// Comma-separated values, RFC 4180 (CRLF line ends, fields quoted where needed).
    case csv
    /// Tab-separated values, one entry a line; tab, newline, CR and backslash escaped.
    case tsv
    /// One JSON object: the volumes, the roots and every entry.
    case json
    /// A Markdown table for each root.
    case markdown

    /// The usual file-name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .html: "html"
        case .csv: "csv"
        case .tsv: "tsv"
        case .json: "json"
        case .markdown: "md"
        }
    }

    /// The media type, with its character set.
    public var mediaType: String {
        switch self {
        case .html: "text/html; charset=utf-8"
        case .csv: "text/csv; charset=utf-8; header=present"
        case .tsv: "text/tab-separated-values; charset=utf-8"
        case .json: "application/json"
        case .markdown: "text/markdown; charset=utf-8"
        }
    }
}

/// A field of an entry that the tabular exports (CSV, TSV, JSON, Markdown) can write; the raw value
/// is the column's header and JSON key.
public enum CatalogColumn: String, CaseIterable, Sendable, Hashable {
    /// The absolute path at the last scan.
    case path
    /// The last path component.
    case name
    /// `file`, `directory`, `symlink` or `other`.
    case kind
    /// Size in bytes.
    case size
    /// Modification time (ISO 8601, UTC).
    case modified
    /// Status change time (ISO 8601, UTC).
    case changed
    /// Birth time (ISO 8601, UTC), empty where the file system records none.
    case born
    /// `st_mode` in octal (type and permission bits), such as `100644`.
    case mode
    /// Owner's user id.
    case uid
    /// Group id.
    case gid
    /// Inode number.
    case inode
    /// Inode generation, empty where the file system has none.
    case generation
    /// A symbolic link's target, empty for anything else.
    case linkTarget
    /// SHA-256 of the contents in lowercase hex, empty when the scan did not hash the file.
    case sha256
    /// When a scan first saw the entry (ISO 8601, UTC).
    case firstSeen
    /// When a scan last saw the entry (ISO 8601, UTC).
    case lastSeen
    /// The volume: its UUID, or its mount source where it has none (JSON: the volume's id in
    /// `volumes`).
    case volume
    /// For an entry a scan found gone (exported with `includingDeleted`), when that scan began
    /// (ISO 8601, UTC); empty for an entry still there. It tells a deleted object from the
    /// object now at its path (an atomic save's replacement), which share the path.
    case deleted

    /// What the exports write when no columns are chosen: path, kind, size, modified, volume.
    public static let defaultSelection: [CatalogColumn] = [.path, .kind, .size, .modified, .volume]

    /// The column named `name`: its raw value in any case, or `link-target` / `link_target`
    /// spelled with a separator, and the same for `first-seen` and `last-seen`.
    public init?(name: String) {
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let column = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = column
    }
}

/// A shell glob (`fnmatch(3)`) that chooses entries by name or by path.
///
/// A pattern with a `/` is matched against the whole path, with `FNM_PATHNAME` (a `*` stays inside
/// one component); any other pattern is matched against the name alone. This is the rule of
/// `bookmark catalog find`.
public struct CatalogGlob: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The pattern's exact bytes (a pattern from the command line may hold bytes that are not UTF-8).
    public var bytes: [UInt8]

    /// A pattern given as text.
    public init(_ pattern: String) { bytes = Array(pattern.utf8) }

    /// A pattern given as exact bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A pattern written as a literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// Whether the pattern is matched against the whole path (it has a `/`).
    public var matchesPath: Bool { bytes.contains(0x2F) }

    /// The pattern, bytes that are not UTF-8 as `\xNN`.
    public var description: String { PathBytes(bytes).escaped }
}

/// What an export writes: which columns, which entries, and the HTML page's title.
///
/// Filters: an entry is written when no `exclude` pattern matches it or any folder above it, and,
/// if there are `include` patterns, one of them matches it or a folder above it. Exclusion wins:
/// `--include '*.jpg' --exclude .cache` leaves out the pictures inside `.cache`. A matched folder
/// brings (or takes away) everything under it, as `tar --exclude` does. The HTML page keeps the
/// folders above an included entry so that its tree stays connected; the other formats write only
/// the entries chosen.
public struct CatalogExportOptions: Sendable, Hashable {
    /// The columns of CSV, TSV, JSON and Markdown, in order. Empty means
    /// ``CatalogColumn/defaultSelection``. The HTML page always shows name, size and date.
    public var columns: [CatalogColumn]
    /// Entries to write; empty means every entry.
    public var include: [CatalogGlob]
    /// Entries to leave out, with everything under them; wins over `include`.
    public var exclude: [CatalogGlob]
    /// Match `include` and `exclude` ignoring case (`FNM_CASEFOLD`).
    public var ignoresCase: Bool
    /// The HTML page's title and heading, and the Markdown document's heading.
    public var title: String

    /// Options; every parameter has the default described on its property.
    public init(
        columns: [CatalogColumn] = [], include: [CatalogGlob] = [], exclude: [CatalogGlob] = [], ignoresCase: Bool = false,
        title: String = "Catalog"
    ) {
        self.columns = columns
        self.include = include
        self.exclude = exclude
        self.ignoresCase = ignoresCase
        self.title = title
    }

    /// The columns written: ``columns``, or the default selection when it is empty.
    public var effectiveColumns: [CatalogColumn] { columns.isEmpty ? CatalogColumn.defaultSelection : columns }
}

/// Writes catalog snapshots (``Catalog/snapshots(includingDeleted:)``) as HTML, CSV, TSV, JSON or
/// Markdown.
///
/// ```swift
/// let snapshots = try catalog.snapshots()
/// let page = CatalogExporter.export(snapshots, format: .html)
/// let csv = CatalogExporter.export(snapshots, format: .csv, options: .init(columns: [.path, .size], exclude: [".git"]))
/// ```
///
/// Every format is built in one pass over the entries into one buffer (100,000 entries take well
/// under a second), and never fails: names are bytes, and bytes that are not UTF-8 are written in
/// each format's lossless or visible form (Docs/CATALOG-EXPORTS.md, "Escaping").
public enum CatalogExporter {
    /// The export of `snapshots` in `format`, as the bytes of the file.
    public static func export(
        _ snapshots: [CatalogRootSnapshot], format: CatalogExportFormat, options: CatalogExportOptions = CatalogExportOptions()
    ) -> [UInt8] {
        let selection = ExportSelection(snapshots, options: options, keepingAncestors: format == .html)
        var output = ExportBuffer()
        switch format {
        case .csv: ExportDelimited.write(selection, columns: options.effectiveColumns, style: .csv, into: &output)
        case .tsv: ExportDelimited.write(selection, columns: options.effectiveColumns, style: .tsv, into: &output)
        case .json: ExportJSON.write(selection, columns: options.effectiveColumns, into: &output)
        case .markdown: ExportMarkdown.write(selection, columns: options.effectiveColumns, title: options.title, into: &output)
        case .html: ExportHTML.write(selection, title: options.title, into: &output)
        }
        return output.bytes
    }
}

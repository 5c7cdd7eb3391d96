// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import Foundation

/// `bookmark catalog find CATALOG… PATTERN`.
struct CatalogFind: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Search one or more catalogs offline: where a file is, on which drive, seen when.",
        discussion: """
            PATTERN is a shell glob on the name (on the whole path when it has a '/'), or with \
            --regex a regular expression searched in the path. Each hit prints its path, its drive \
            (label or UUID) and when a scan last saw it, tab-separated; -0 prints only paths, \
            NUL-terminated. --duplicates lists files of the same size (and the same SHA-256 where \
            the scan hashed them) across all the catalogs; PATTERN is optional with it. Given \
            only PATTERN (or, with --duplicates, nothing), it searches the default catalog. The \
            last argument is never taken for PATTERN when it names a catalog (it ends in .catalog \
            with no glob character, or it is an SQLite file): that is a missing PATTERN, exit 64. \
            Exits 0 with hits, 3 with none, 66 when a catalog cannot be opened.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Catalog files (default: the default catalog), then PATTERN.")
    var arguments: [String] = []

    @Flag(name: .customLong("regex"), help: "PATTERN is a regular expression on the path.")
    var regex = false

    @Flag(name: [.customShort("i"), .customLong("ignore-case")], help: "Ignore case in PATTERN.")
    var ignoreCase = false

    // Unconditional: `--size -1` takes "-1" as its value (by default a value starting with '-'
    // was taken for an option, and `--size -1` failed with "Missing value").
    @Option(
        name: .customLong("size"), parsing: .unconditional,
        help: "N bytes exactly, +N at least, -N at most; k, M, G suffixes (1024).")
    var size: String?

    @Option(name: .customLong("newer"), help: "Modified after this date (YYYY-MM-DD or ISO 8601).")
    var newer: String?

    @Option(name: .customLong("hash"), help: "SHA-256 starting with these hex digits.")
    var hash: String?

    @Option(name: .customLong("type"), help: "f (file), d (directory), l (symlink) or o (other).")
    var type: String?

    @Flag(
        name: .customLong("deleted"),
        help: "Include entries that scans found gone (where they were), with a fourth field: deleted DATE (when the scan that found it gone began).")
    var deleted = false

    @Flag(name: .customLong("duplicates"), help: "List same-size (and same-hash) files across the catalogs.")
    var duplicates = false

    @Flag(name: .customLong("jsonl"), help: "One JSON object per line.")
    var jsonLines = false

    @Flag(name: .customShort("0"), help: "Print only paths, each followed by a NUL byte.")
    var nulTerminated = false

    // Checked here, not in run(): a ValidationError from run() printed the top-level usage line
    // (`Usage: bookmark <subcommand>`) instead of find's.
    func validate() throws { _ = try parsed() }

    /// The catalogs to search (`nil`: the default one) and the query the arguments ask for.
    private func parsed() throws -> (catalogPaths: [String?], query: CatalogQuery) {
        var catalogPaths: [String?] = arguments
        var pattern: String?
        if duplicates {
            // After at least one catalog, the last argument is PATTERN unless it names a catalog
            // (CatalogArgument: a `.catalog` name, or an SQLite file); any other file, a script
            // of that name, is a pattern. A lone argument stays a catalog, so a mistyped one is
            // exit 66 naming it, not a pattern on the default catalog; with no argument at all,
            // the default catalog.
            if let last = arguments.last, arguments.count > 1, !CatalogArgument.namesCatalog(last) {
                pattern = last
                catalogPaths.removeLast()
            }
        } else {
            guard let last = arguments.last else {
                throw ValidationError("give a PATTERN, after the CATALOGs to search (default: the default catalog)")
            }
            // A last argument that names a catalog is a forgotten PATTERN, not a pattern to search
            // the default catalog for.
            guard !CatalogArgument.namesCatalog(last) else {
                throw ValidationError(
                    "no PATTERN: '\(RawArguments.display(last))' is a catalog (a .catalog name or an SQLite file); "
                        + "give the PATTERN after it (to search for a name ending in .catalog, put a glob character in it: '*.catalog', 'x.catalo[g]')")
            }
            pattern = last
            catalogPaths.removeLast()
        }
        if catalogPaths.isEmpty { catalogPaths = [nil] }
        var query = CatalogQuery(ignoringCase: ignoreCase, includingDeleted: deleted)
        // A glob keeps the argument's exact bytes: a name that is not UTF-8 is matched as it is.
        if let pattern { query.pattern = regex ? .regex(pattern) : .globBytes(RawArguments.bytes(of: pattern)) }
        if let type {
            guard let kind = CatalogEntryKind(name: type) else { throw ValidationError("--type takes f, d, l or o") }
            query.kind = kind
        }
        if let size { try SizeFilter.apply(size, to: &query) }
        if let newer {
            guard let date = DateArgument.parse(newer) else { throw ValidationError("--newer takes YYYY-MM-DD or an ISO 8601 time") }
            query.modifiedAfter = date
        }
        if let hash {
            // Any number of digits: "starting with these hex digits", an odd count included.
            guard !hash.isEmpty, hash.utf8.allSatisfy(\.isHexDigit) else { throw ValidationError("--hash takes hex digits") }
            query.sha256HexPrefix = hash
        }
        return (catalogPaths, query)
    }

    func run() throws {
        let (catalogPaths, query) = try parsed()
        let catalogs = try catalogPaths.map(CatalogLocation.open)
        do {
            if duplicates {
                let groups = try BookmarkCatalog.Catalog.duplicates(in: catalogs, matching: query)
                try printGroups(groups)
                if groups.isEmpty { throw ExitStatus.notFound.exitCode }
                return
            }
            // Each catalog's hits printed before the next is searched (they were all gathered first);
            // JSON records streamed as the text lines are.
            var stream = global.json ? CatalogJSONStream(.array) : jsonLines ? CatalogJSONStream(.lines) : nil
            var found = false
            for catalog in catalogs {
                let hits = try catalog.find(query)
                found = found || !hits.isEmpty
                try printHits(hits, to: &stream)
            }
            stream?.finish()
            if !found { throw ExitStatus.notFound.exitCode }
        } catch let error as CatalogError {
            Output.error(error.description)
            throw CatalogLocation.exitStatus(for: error).exitCode
        }
    }

    /// Prints hits as text lines, NUL-terminated paths, or into `stream` (`--json`, `--jsonl`):
    /// one record at a time, none of them kept.
    private func printHits(_ hits: [CatalogHit], to stream: inout CatalogJSONStream?) throws {
        if stream != nil {
            for index in hits.indices { try stream?.append(HitJSON(hits[index])) }
            return
        }
        // The flag read once, not per hit (each read goes through its property wrapper).
        let nulTerminated = self.nulTerminated
        for index in hits.indices {
            if nulTerminated {
                Output.record(hits[index].entry.path, terminator: 0)
            } else {
                // A hit that `--deleted` let in says so in a fourth field: with three it read
                // exactly like a file that is still there. (Fields read in place: a copy of the
                // hit retained and released every array and string in it.)
                let gone = hits[index].entry.deleted.map { "\tdeleted \(HitJSON.time($0))" } ?? ""
                let fields = "\t\(HitJSON.drive(hits[index].volume))\t\(HitJSON.time(hits[index].entry.lastSeen))\(gone)"
                Output.record(hits[index].entry.path + Array(fields.utf8))
            }
        }
    }

    private func printGroups(_ groups: [DuplicateGroup]) throws {
        if global.json || jsonLines {
            let objects = groups.map(GroupJSON.init)
            if global.json { return try Output.json(objects) }
            for object in objects { try Output.jsonLine(object) }
            return
        }
        for (index, group) in groups.enumerated() {
            if nulTerminated {
                for member in group.members { Output.record(member.entry.path, terminator: 0) }
                continue
            }
            if index > 0 { Output.line("") }
            Output.line("\(group.size) bytes, \(group.evidence.rawValue)" + (group.sha256.map { " " + HexArgument.text($0) } ?? ""))
            for member in group.members {
                Output.record(
                    Array("  ".utf8) + member.entry.path
                        + Array("\t\(HitJSON.drive(member.volume))\t\(HitJSON.time(member.entry.lastSeen))".utf8))
            }
        }
    }
}

/// The JSON of a hit.
struct HitJSON: Encodable {
    var path: String
    var pathBase64: String?
    var kind: String
    var size: UInt64
    var modified: String
    var inode: UInt64
    var sha256: String?
    var lastSeen: String
    var deleted: String?
    var drive: String
    var volumeUUID: String?
    var volumeLabel: String?
    var fsType: String
    var catalog: String

    init(_ hit: CatalogHit) {
        path = JSONPath.text(hit.entry.path)
        pathBase64 = JSONPath.base64(hit.entry.path)
        kind = hit.entry.kind.description
        size = hit.entry.size
        modified = Self.time(hit.entry.modified)
        inode = hit.entry.inode
        sha256 = hit.entry.sha256.map(HexArgument.text)
        lastSeen = Self.time(hit.entry.lastSeen)
        deleted = hit.entry.deleted.map(Self.time)
        drive = Self.drive(hit.volume)
        volumeUUID = hit.volume.uuid
        volumeLabel = hit.volume.label
        fsType = hit.volume.fsType
        catalog = hit.catalogPath
    }

    /// The drive as a person knows it: its label, else its UUID, else its source.
    static func drive(_ volume: CatalogVolume) -> String {
        if let label = volume.label, !label.isEmpty { return label }
        return volume.uuid ?? volume.source
    }

    static func time(_ date: Date) -> String { ExportText.iso8601Seconds(date) }
}

/// The JSON of a duplicate group.
struct GroupJSON: Encodable {
    var size: UInt64
    var evidence: String
    var sha256: String?
    var members: [HitJSON]

    init(_ group: DuplicateGroup) {
        size = group.size
        evidence = group.evidence.rawValue
        sha256 = group.sha256.map(HexArgument.text)
        members = group.members.map(HitJSON.init)
    }
}

/// `--size` as find(1) spells it.
enum SizeFilter {
    static func apply(_ text: String, to query: inout CatalogQuery) throws {
        var body = Substring(text)
        let sign = body.first == "+" || body.first == "-" ? body.removeFirst() : nil
        var multiplier: UInt64 = 1
        if let last = body.last, let scale = ["k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30][last] {
            multiplier = UInt64(scale)
            body.removeLast()
        }
        guard let number = UInt64(body), number <= UInt64.max / multiplier else {
            throw ValidationError("--size takes N, +N or -N with an optional k, M or G")
        }
        let bytes = number * multiplier
        switch sign {
        case "+": query.minimumSize = bytes
        case "-": query.maximumSize = bytes
        default:
            query.minimumSize = bytes
            query.maximumSize = bytes
        }
    }
}

/// Dates on the command line.
enum DateArgument {
    static func parse(_ text: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        return day.date(from: text)
    }
}

extension UInt8 {
    /// An ASCII hex digit, either case.
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}

/// Bytes as hex digits (a SHA-256 printed).
enum HexArgument {
    static func text(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

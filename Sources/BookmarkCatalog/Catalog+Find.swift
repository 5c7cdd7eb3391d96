// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// What to look for in catalogs. Every condition given must hold.
public struct CatalogQuery: Sendable {
    /// How the pattern matches.
    public enum Pattern: Sendable {
        /// A shell glob (`fnmatch`) on the entry's name, or on its whole path when the pattern
        /// has a `/`.
        case glob(String)
        /// ``glob(_:)`` given as bytes: a pattern that is not UTF-8 (a name in Latin-1, say) is
        /// matched byte for byte, as the names are (a `String` cannot hold such bytes).
        case globBytes([UInt8])
        /// A regular expression searched for in the whole path (its text; bytes that are not
        /// UTF-8 are U+FFFD).
        case regex(String)
    }

    /// The pattern, or `nil` for any name.
    public var pattern: Pattern?
    /// Ignore case in the pattern.
    public var ignoringCase: Bool
    /// Only this kind.
    public var kind: CatalogEntryKind?
    /// At least this many bytes.
    public var minimumSize: UInt64?
    /// At most this many bytes.
    public var maximumSize: UInt64?
    /// Modified after this moment.
    public var modifiedAfter: Date?
    /// Whose SHA-256 starts with these bytes (a hex prefix, parsed by the caller).
    public var sha256Prefix: [UInt8]?
    /// Whose SHA-256, written in hex, starts with these digits: any number of them (an odd
    /// number too, as `find --hash 7ca5bd8`), in either case. Digits other than hex match nothing.
    public var sha256HexPrefix: String?
    /// Entries marked deleted too (they answer where something was).
    public var includingDeleted: Bool

    /// A query; every condition is off by default.
    public init(
        pattern: Pattern? = nil, ignoringCase: Bool = false, kind: CatalogEntryKind? = nil, minimumSize: UInt64? = nil,
        maximumSize: UInt64? = nil, modifiedAfter: Date? = nil, sha256Prefix: [UInt8]? = nil, includingDeleted: Bool = false
    ) {
        self.pattern = pattern
        self.ignoringCase = ignoringCase
        self.kind = kind
        self.minimumSize = minimumSize
        self.maximumSize = maximumSize
        self.modifiedAfter = modifiedAfter
        self.sha256Prefix = sha256Prefix
        self.includingDeleted = includingDeleted
    }
}

/// One entry found: what it is, where it was when last seen, on which volume, and when.
public struct CatalogHit: Sendable {
    /// The entry, its `path` filled in.
    public var entry: CatalogEntry
    /// Its volume.
    public var volume: CatalogVolume
    /// The catalog it came from.
    public var catalogPath: String
}

extension Catalog {
    /// The entries that match `query`, in path order.
    ///
    /// - Throws: ``CatalogError`` `badPattern` for a regular expression that does not compile,
    ///   `database` for a read that fails.
    public func find(_ query: CatalogQuery) throws(CatalogError) -> [CatalogHit] {
        let matcher = try NameMatcher(query.pattern, ignoringCase: query.ignoringCase)
        let volumes = Dictionary(uniqueKeysWithValues: try volumes().map { ($0.id, $0) })
        let catalogPath = path
        return try read { db in
            var conditions: [String] = []
            var arguments: [(any DatabaseValueConvertible)?] = []
            if !query.includingDeleted { conditions.append("deleted_in IS NULL") }
            if let kind = query.kind {
                conditions.append("kind = ?")
                arguments.append(kind.rawValue)
            }
            if let minimum = query.minimumSize {
                conditions.append("size >= ?")
                arguments.append(Int64(clamping: minimum))
            }
            if let maximum = query.maximumSize {
                conditions.append("size <= ?")
                arguments.append(Int64(clamping: maximum))
            }
            if let after = query.modifiedAfter {
                conditions.append("mtime > ?")
                arguments.append(Int64(after.timeIntervalSince1970 * 1e9))
            }
            if let prefix = query.sha256Prefix, !prefix.isEmpty {
                conditions.append("substr(sha256, 1, ?) = ?")
                arguments.append(prefix.count)
                arguments.append(Data(prefix))
            }
            if let digits = query.sha256HexPrefix, !digits.isEmpty {
                // SQLite's hex() writes upper case.
                conditions.append("sha256 IS NOT NULL AND substr(hex(sha256), 1, ?) = ?")
                arguments.append(digits.utf8.count)
                arguments.append(digits.uppercased())
            }
            let sql = "SELECT \(CatalogEntry.selectColumns) FROM entry" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            let scanTimes = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, started FROM scan").map {
                    ($0["id"] as Int64, Date(timeIntervalSince1970: $0["started"]))
                })
            var paths = try PathResolver(db)
            // A deleted entry is where it was when the scan that found it gone began.
            var earlier = query.includingDeleted ? try EarlierPaths(db) : nil
            var hits: [CatalogHit] = []
            let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try rows.next() {
                let name = row.bytes(at: CatalogEntry.Column.name)
                if matcher.needsOnlyName, !matcher.matches(name: name, path: []) { continue }
                let id: Int64 = row[CatalogEntry.Column.id]
                let deletedIn: Int64? = row[CatalogEntry.Column.deletedIn]
                let found =
                    if let deletedIn, earlier != nil {
                        try earlier?.path(of: id, before: deletedIn, db)
                    } else {
                        try paths.path(of: id, parent: row[CatalogEntry.Column.parentID], name: name, db)
                    }
                guard let path = found else { continue }
                if !matcher.needsOnlyName, !matcher.matches(name: name, path: path) { continue }
                guard let volume = volumes[row[CatalogEntry.Column.volumeID]] else { continue }
                hits.append(CatalogHit(entry: CatalogEntry(row: row, path: path, scanTimes: scanTimes), volume: volume, catalogPath: catalogPath))
            }
            // The hits' positions are sorted, not the hits: a hit is a few hundred bytes, and
            // sorting a million of them moved and copied far more than it compared.
            let order = hits.indices.sorted { PathOrder.precedes(hits[$0].entry.path, hits[$1].entry.path) }
            return order.map { hits[$0] }
        }
    }
}

/// A compiled name or path pattern.
struct NameMatcher {
    private enum Compiled {
        case none
        case nameGlob(FoldingGlob)
        case pathGlob(FoldingGlob)
        case regex(NSRegularExpression)
    }

    private let compiled: Compiled

    init(_ pattern: CatalogQuery.Pattern?, ignoringCase: Bool) throws(CatalogError) {
        switch pattern {
        case nil: compiled = .none
        case .glob(let glob):
            let onPath = glob.contains("/")
            let compiledGlob = FoldingGlob(bytes: Array(glob.utf8), ignoringCase: ignoringCase, pathname: onPath)
            compiled = onPath ? .pathGlob(compiledGlob) : .nameGlob(compiledGlob)
        case .globBytes(let bytes):
            // Up to a NUL, as C sees it; the bytes as they are, not decoded.
            let onPath = bytes.contains(0x2F)
            let compiledGlob = FoldingGlob(bytes: bytes, ignoringCase: ignoringCase, pathname: onPath)
            compiled = onPath ? .pathGlob(compiledGlob) : .nameGlob(compiledGlob)
        case .regex(let expression):
            do {
                compiled = .regex(try NSRegularExpression(pattern: expression, options: ignoringCase ? [.caseInsensitive] : []))
            } catch {
                throw CatalogError(.badPattern, "not a valid regular expression: \(expression): \(CatalogRegexReason.reason(expression))")
            }
        }
    }

    /// Whether the name alone decides (so a path need not be built for a miss).
    var needsOnlyName: Bool {
        switch compiled {
        case .none, .nameGlob: true
        case .pathGlob, .regex: false
        }
    }

    func matches(name: [UInt8], path: [UInt8]) -> Bool {
        switch compiled {
        case .none: return true
        case .nameGlob(let glob): return glob.matches(name)
        case .pathGlob(let glob): return glob.matches(path)
        case .regex(let expression):
            let text = String(decoding: path, as: UTF8.self)
            return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }
}

/// Byte order of paths (the order `find` returns), compared with `memcmp`: paths of one catalog
/// share long prefixes, which a byte-at-a-time comparison walked one generic step at a time.
enum PathOrder {
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let common = min(a.count, b.count)
        let order = a.withUnsafeBytes { x in
            b.withUnsafeBytes { y -> Int32 in
                guard common > 0, let p = x.baseAddress, let q = y.baseAddress else { return 0 }
                return memcmp(p, q, common)
            }
        }
        return order != 0 ? order < 0 : a.count < b.count
    }
}

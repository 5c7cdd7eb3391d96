// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Absolute paths of entries, built from parent links.
///
/// Only directories' paths are remembered (an entry's own path is built and returned, not kept):
/// a search that hits most of a million-entry catalog once kept a path per hit, a gigabyte. A
/// caller that has the entry's row gives its parent and name (``path(of:parent:name:_:)``), so
/// only its ancestors are looked up, once each, through one prepared statement: a look-up per hit,
/// prepared anew each time, made `find '*.txt'` on a million-entry catalog take three minutes.
struct PathResolver {
    private var known: [Int64: [UInt8]] = [:]
    private var parents: [Int64: (parent: Int64?, name: [UInt8])] = [:]

    /// How many paths are remembered (roots and directories): for the tests.
    var rememberedPaths: Int { known.count }

    init(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT entry_id, path FROM root WHERE entry_id IS NOT NULL") {
            known[row["entry_id"]] = row.bytes("path")
        }
    }

    /// The path of entry `id`, or `nil` when its chain does not reach a root.
    mutating func path(of id: Int64, _ db: Database) throws -> [UInt8]? {
        if let path = known[id] { return path }
        guard let link = try self.link(of: id, db) else { return nil }
        return try path(of: id, parent: link.parent, name: link.name, db)
    }

    /// The path of entry `id`, whose row says `parent` and `name` (no look-up of the entry itself).
    mutating func path(of id: Int64, parent: Int64?, name: [UInt8], _ db: Database) throws -> [UInt8]? {
        if let path = known[id] { return path }  // a scan root
        guard let parent, let base = try directoryPath(parent, db) else { return nil }
        return Self.join(base, name)
    }

    /// The path of directory `id`, remembered with every directory above it.
    private mutating func directoryPath(_ id: Int64, _ db: Database) throws -> [UInt8]? {
        var chain: [(Int64, [UInt8])] = []
        var cursor: Int64? = id
        var base: [UInt8]?
        while let current = cursor {
            if let path = known[current] {
                base = path
                break
            }
            guard let link = try self.link(of: current, db) else { return nil }
            chain.append((current, link.name))
            cursor = link.parent
            if chain.count > 4_096 { return nil }
        }
        guard var path = base else { return nil }
        for (entry, name) in chain.reversed() {
            path = Self.join(path, name)
            known[entry] = path
        }
        return path
    }

    private static func join(_ path: [UInt8], _ name: [UInt8]) -> [UInt8] {
        path == [0x2F] ? [0x2F] + name : path + [0x2F] + name
    }

    private mutating func link(of id: Int64, _ db: Database) throws -> (parent: Int64?, name: [UInt8])? {
        if let link = parents[id] { return link }
        let statement = try db.cachedStatement(sql: "SELECT parent_id, name FROM entry WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        let link = (parent: row["parent_id"] as Int64?, name: row.bytes("name"))
        parents[id] = link
        return link
    }
}

extension Catalog {
    /// What a re-scan found changed: moves (a moved directory is one move), modifications, and
    /// additions and deletions (each directory added or deleted with its contents is one change,
    /// with their count). Paths are as the scan left them; a moved entry's old path and a deleted
    /// entry's path are where it was just before the scan, every ancestor at its place then (an
    /// ancestor that moved in the same scan, at any depth, at its old parent and name).
    public func changes(inScan scanID: Int64) throws(CatalogError) -> [CatalogChange] {
        try read { db in
            var earlier = try EarlierPaths(db)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT change.kind AS change_kind, change.entry_id, entry.kind, entry.size, entry.inode, entry.parent_id
                    FROM change JOIN entry ON entry.id = change.entry_id
                    WHERE change.scan_id = ? ORDER BY change.id
                    """,
                arguments: [scanID])
            var items: [(key: Int64, change: CatalogChange)] = []
            var parentOf: [Int64: Int64] = [:]
            for row in rows {
                guard let kind = CatalogChange.Kind(rawValue: row["change_kind"]) else { continue }
                let id: Int64 = row["entry_id"]
                if let parent: Int64 = row["parent_id"] { parentOf[id] = parent }
                // Before the scan for what it found gone; after it (before the next) for the rest.
                let path = try earlier.path(of: id, before: kind == .deleted ? scanID : scanID + 1, db) ?? []
                let old = kind == .moved ? try earlier.path(of: id, before: scanID, db) : nil
                items.append(
                    (
                        id,
                        CatalogChange(
                            kind: kind, entryKind: CatalogEntryKind(rawValue: row["kind"]) ?? .other, path: path, oldPath: old,
                            size: UInt64(storedBits: row["size"]), inode: UInt64(storedBits: row["inode"]))
                    ))
            }
            return [CatalogChange].folding(items) { parentOf[$0] }
        }
    }

    /// The newest finished scan of each root, newest first.
    public func latestScans() throws(CatalogError) -> [(scanID: Int64, root: [UInt8], finished: Date)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT scan.id, root.path, scan.finished FROM scan JOIN root ON root.id = scan.root_id
                    WHERE scan.id IN (SELECT MAX(id) FROM scan WHERE finished IS NOT NULL GROUP BY root_id)
                    ORDER BY scan.finished DESC
                    """
            ).map { (scanID: $0["id"] as Int64, root: $0.bytes("path"), finished: Date(timeIntervalSince1970: $0["finished"])) }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// A scanned root as the catalog lists it.
public struct CatalogRoot: Sendable, Hashable {
    /// The row id.
    public var id: Int64
    /// The volume's row id.
    public var volumeID: Int64
    /// The root's path inside its volume (`/` for the volume's top).
    public var pathInVolume: [UInt8]
    /// Its absolute path at the last scan.
    public var path: [UInt8]
    /// When the last finished scan of it finished, if one did.
    public var lastScanned: Date?
    /// Whether a scan of it was interrupted and not yet finished.
    public var hasUnfinishedScan: Bool
}

extension Catalog {
    /// Every volume the catalog knows.
    public func volumes() throws(CatalogError) -> [CatalogVolume] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM volume ORDER BY id").map(CatalogVolume.init(row:)) }
    }

    /// Every scanned root.
    public func roots() throws(CatalogError) -> [CatalogRoot] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT root.*, (SELECT MAX(finished) FROM scan WHERE scan.root_id = root.id) AS last_scanned,
                        EXISTS (SELECT 1 FROM scan WHERE scan.root_id = root.id AND finished IS NULL) AS unfinished
                    FROM root ORDER BY root.id
                    """
            ).map { row in
                CatalogRoot(
                    id: row["id"], volumeID: row["volume_id"], pathInVolume: row.bytes("path_in_volume"), path: row.bytes("path"),
                    lastScanned: (row["last_scanned"] as Double?).map { Date(timeIntervalSince1970: $0) },
                    hasUnfinishedScan: row["unfinished"])
            }
        }
    }

    /// Each root with every live entry under it, parents before children, paths filled in: what
    /// the exports write. `includingDeleted` adds entries marked deleted, under their parents, with
    /// the paths they had when the scan that found them gone began (every ancestor at its place
    /// then, though it moved since).
    public func snapshots(includingDeleted: Bool = false) throws(CatalogError) -> [CatalogRootSnapshot] {
        let volumes = Dictionary(uniqueKeysWithValues: try volumes().map { ($0.id, $0) })
        return try read { db in
            let scanTimes = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, started FROM scan").map {
                    ($0["id"] as Int64, Date(timeIntervalSince1970: $0["started"]))
                })
            var snapshots: [CatalogRootSnapshot] = []
            var earlier = includingDeleted ? try EarlierPaths(db) : nil
            for root in try Row.fetchAll(db, sql: "SELECT * FROM root WHERE entry_id IS NOT NULL ORDER BY id") {
                let rootID: Int64 = root["id"]
                guard let volume = volumes[root["volume_id"]] else { continue }
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT \(CatalogEntry.selectColumns) FROM entry WHERE root_id = ?" + (includingDeleted ? "" : " AND deleted_in IS NULL") + " ORDER BY id",
                    arguments: [rootID])
                var byID: [Int64: CatalogEntry] = [:]
                var children: [Int64: [Int64]] = [:]
                var deletedIn: [Int64: Int64] = [:]
                while let row = try rows.next() {
                    let entry = CatalogEntry(row: row, path: [], scanTimes: scanTimes)
                    if let scan: Int64 = row[CatalogEntry.Column.deletedIn] { deletedIn[entry.id] = scan }
                    byID[entry.id] = entry
                    if let parent = entry.parentID { children[parent, default: []].append(entry.id) }
                }
                // Parents before children, each directory's children by name; paths built on the way.
                var ordered: [CatalogEntry] = []
                ordered.reserveCapacity(byID.count)
                let rootPath = root.bytes("path")
                var stack: [(Int64, [UInt8])] = []
                if let top: Int64 = root["entry_id"] { stack.append((top, rootPath)) }
                while let (id, walked) = stack.popLast() {
                    guard var entry = byID[id] else { continue }
                    var path = walked
                    if let scan = deletedIn[id], let before = try earlier?.path(of: id, before: scan, db) { path = before }
                    entry.path = path
                    ordered.append(entry)
                    let kids = (children[id] ?? []).compactMap { byID[$0] }.sorted { $0.name.lexicographicallyPrecedes($1.name) }
                    for kid in kids.reversed() {
                        stack.append((kid.id, path == [0x2F] ? [0x2F] + kid.name : path + [0x2F] + kid.name))
                    }
                }
                let scanned =
                    try Double.fetchOne(db, sql: "SELECT MAX(finished) FROM scan WHERE root_id = ?", arguments: [rootID])
                    ?? Double.fetchOne(db, sql: "SELECT MAX(started) FROM scan WHERE root_id = ?", arguments: [rootID]) ?? 0
                snapshots.append(
                    CatalogRootSnapshot(
                        volume: volume, rootPath: rootPath, scannedAt: Date(timeIntervalSince1970: scanned), entries: ordered))
            }
            return snapshots
        }
    }
}

extension CatalogVolume {
    init(row: Row) {
        self.init(
            id: row["id"], uuid: row["uuid"], uuidSource: row["uuid_source"], label: row["label"], fsType: row["fs_type"],
            source: row["source"], mountPoint: row.bytes("mount_point"), isPersistent: row["persistent"])
    }
}

extension CatalogEntry {
    /// The `entry` columns that ``init(row:path:scanTimes:)`` reads, in the order it reads them:
    /// by position, because a look-up by name (a dictionary of the statement's column names in
    /// GRDB) per column per row was a quarter of a search that hit a million entries.
    static let selectColumns =
        "id, parent_id, volume_id, name, kind, size, mode, uid, gid, mtime, ctime, btime, inode, generation, link_target, sha256, first_seen, last_seen, deleted_in"

    /// Positions in ``selectColumns`` that other readers of the same rows use.
    enum Column {
        static let id = 0
        static let parentID = 1
        static let volumeID = 2
        static let name = 3
        static let deletedIn = 18
    }

    /// An entry from a row of `SELECT \(selectColumns) FROM entry …`.
    init(row: Row, path: [UInt8], scanTimes: [Int64: Date]) {
        let kind = CatalogEntryKind(rawValue: row[4]) ?? .other
        let generation: Int64? = row[13]
        let deletedIn: Int64? = row[18]
        self.init(
            id: row[Column.id], parentID: row[Column.parentID], volumeID: row[Column.volumeID], name: row.bytes(at: Column.name),
            path: path, kind: kind, size: UInt64(storedBits: row[5]), mode: UInt32(truncatingIfNeeded: row[6] as Int64),
            uid: UInt32(truncatingIfNeeded: row[7] as Int64), gid: UInt32(truncatingIfNeeded: row[8] as Int64),
            modifiedNanoseconds: row[9], changedNanoseconds: row[10], bornNanoseconds: row[11],
            inode: UInt64(storedBits: row[12]), generation: generation.map { UInt32(truncatingIfNeeded: $0) },
            linkTarget: row.optionalBytes(at: 14), sha256: row.optionalBytes(at: 15),
            firstSeen: scanTimes[row[16]] ?? .distantPast, lastSeen: scanTimes[row[17]] ?? .distantPast,
            deleted: deletedIn.flatMap { scanTimes[$0] })
    }
}

// SPDX-License-Identifier: Apache-2.0
import GRDB

/// Where entries were just before a given scan: the path a deleted entry had when that scan found
/// it gone, a moved entry's old path, and the path of an entry as a scan left it.
///
/// A row holds an entry's place now (its parent and name after the last scan that moved it). An
/// ancestor that moved in the scan asked about, or in any later one, was elsewhere before it: its
/// place then is the old parent and name of its first `moved` change from that scan on. Building a
/// path from the rows as they are now gave paths that never existed (a file deleted while its
/// album moved printed under the album's new folder).
struct EarlierPaths {
    /// Each moved entry's moves, oldest first: the scan and the place before it.
    private var moves: [Int64: [(scan: Int64, parent: Int64?, name: [UInt8])]] = [:]
    private var rootPaths: [Int64: [UInt8]] = [:]
    private var links: [Int64: (parent: Int64?, name: [UInt8])] = [:]
    private var known: [Key: [UInt8]] = [:]

    private struct Key: Hashable {
        var entry: Int64
        var scan: Int64
    }

    init(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT entry_id, path FROM root WHERE entry_id IS NOT NULL") {
            rootPaths[row["entry_id"]] = row.bytes("path")
        }
        let rows = try Row.fetchCursor(
            db, sql: "SELECT entry_id, scan_id, old_parent_id, old_name FROM change WHERE kind = 'moved' ORDER BY scan_id, id")
        while let row = try rows.next() {
            moves[row["entry_id"], default: []].append((row["scan_id"], row["old_parent_id"], row.bytes("old_name")))
        }
    }

    /// The path of entry `id` just before scan `scan` ran, or `nil` when its chain does not reach
    /// a root. (After scan S is before scan S + 1.)
    mutating func path(of id: Int64, before scan: Int64, _ db: Database) throws -> [UInt8]? {
        var chain: [(entry: Int64, name: [UInt8])] = []
        var cursor: Int64? = id
        var base: [UInt8]?
        while let current = cursor {
            if let path = known[Key(entry: current, scan: scan)] ?? rootPaths[current] {
                base = path
                break
            }
            let place: (parent: Int64?, name: [UInt8])
            if let move = moves[current]?.first(where: { $0.scan >= scan }) {
                place = (move.parent, move.name)
            } else if let link = try link(of: current, db, remember: !chain.isEmpty) {
                place = link
            } else {
                return nil
            }
            chain.append((current, place.name))
            cursor = place.parent
            if chain.count > 4_096 { return nil }
        }
        guard var path = base else { return nil }
        for (position, link) in chain.enumerated().reversed() {
            path = path == [0x2F] ? [0x2F] + link.name : path + [0x2F] + link.name
            // Directories above the entry asked about are asked about again; the entry itself
            // rarely is (a million deleted hits would be a million paths kept).
            if position > 0 { known[Key(entry: link.entry, scan: scan)] = path }
        }
        return path
    }

    /// An entry's parent and name now; remembered for directories (`remember`), not for the
    /// entries asked about themselves.
    private mutating func link(of id: Int64, _ db: Database, remember: Bool) throws -> (parent: Int64?, name: [UInt8])? {
        if let link = links[id] { return link }
        let statement = try db.cachedStatement(sql: "SELECT parent_id, name FROM entry WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        let link = (parent: row["parent_id"] as Int64?, name: row.bytes("name"))
        if remember { links[id] = link }
        return link
    }
}

// SPDX-License-Identifier: Apache-2.0
import GRDB

/// What a scan stores for an object the catalog does not have yet (the columns that differ from
/// entry to entry; the volume, root and scan are bound once per scan).
struct NewEntry {
    var parent: Int64?
    var name: [UInt8]
    var kind: Int64
    var size: Int64
    var mode: Int64
    var uid: Int64
    var gid: Int64
    var mtime: Int64
    var ctime: Int64
    var btime: Int64?
    var inode: Int64
    var generation: Int64?
    var linkTarget: [UInt8]?

    /// Binds the 13 values, in column order from `parent_id` to `link_target`, starting at
    /// parameter `first`.
    func bind(to binder: SQLiteBinder, first: Int32) {
        binder.bind(first, parent)
        binder.bind(first + 1, name)
        binder.bind(first + 2, kind)
        binder.bind(first + 3, size)
        binder.bind(first + 4, mode)
        binder.bind(first + 5, uid)
        binder.bind(first + 6, gid)
        binder.bind(first + 7, mtime)
        binder.bind(first + 8, ctime)
        binder.bind(first + 9, btime)
        binder.bind(first + 10, inode)
        binder.bind(first + 11, generation)
        binder.bind(first + 12, linkTarget)
    }

    /// How many values ``bind(to:first:)`` binds.
    static let boundValues: Int32 = 13
}

/// A first scan's new entries, inserted ``rowsPerInsert`` rows to a statement.
///
/// One `INSERT` per entry pays, per row, for the statement's start (SQLite opens a cursor on the
/// table and on each of its two indexes every time it runs): in C against Debian's SQLite, 100,000
/// rows of the `entry` table took 0.38–0.43 s of CPU one per statement and 0.26–0.30 s sixteen per
/// statement (`Tools/Benchmarks` `--profile catalog-scan` has the scan's own numbers).
///
/// **The row ids.** A directory's id is needed as soon as the directory is seen, because its
/// children name it as their parent, and that may be before its row is inserted. The scan writes
/// in `IMMEDIATE` transactions, so no other connection inserts while one is open, and SQLite gives
/// a row inserted without an id the largest id in the table plus one (unless that largest id is
/// `Int64.max`, which is why a table whose ids come near it is written one row at a time instead).
/// So the ids are counted on from `max(id)`, read at the start of each transaction, and each insert's
/// last row id is checked against the count: a difference fails the scan before its transaction
/// commits, so nothing wrong is ever stored.
///
/// Only for a volume the catalog has no entries of (``CatalogScanner``'s `needsLookups` is false):
/// a scan that looks entries up by identity must see every row it wrote, so it inserts at once.
struct NewEntryInserts {
    /// Rows per statement. 8, 16, 32 and 64 took the same time in C; 16 keeps the statement
    /// (16 × 13 + 3 parameters) and the rows held short.
    static let rowsPerInsert = 16

    private let many: SQLiteBinder
    private let one: SQLiteBinder
    private var pending: [NewEntry] = []
    /// The id the next entry filed gets (set by ``startTransaction(_:)``); the pending ones have
    /// the ids just below it.
    private var nextID: Int64 = 1

    /// Prepares the statements; `one` is the scan's single-row insert (the volume, root and scan
    /// bound as parameters 1, 2, 16 and 17, the rest from 3).
    init(_ db: Database, one: SQLiteBinder, volumeID: Int64, rootID: Int64, scanID: Int64) throws {
        let per = NewEntry.boundValues
        var rows: [String] = []
        for row in 0..<Int32(Self.rowsPerInsert) {
            let first = 4 + row * per
            let values = (first..<first + per).map { "?\($0)" }.joined(separator: ", ")
            rows.append("(?1, ?2, \(values), ?3, ?3)")
        }
        // A cached statement: the database's cache keeps it alive while the binder uses it.
        many = SQLiteBinder(
            try db.cachedStatement(
                sql: """
                    INSERT INTO entry (volume_id, root_id, parent_id, name, kind, size, mode, uid, gid, mtime, ctime, btime,
                        inode, generation, link_target, first_seen, last_seen)
                    VALUES \(rows.joined(separator: ", "))
                    """), db)
        many.bind(1, volumeID)
        many.bind(2, rootID)
        many.bind(3, scanID)
        self.one = one
        pending.reserveCapacity(Self.rowsPerInsert)
    }

    /// Reads where the ids go on from; call right after each transaction begins. Returns `false`
    /// if the table's ids come near `Int64.max` (the scan then inserts one row at a time).
    mutating func startTransaction(_ db: Database) throws -> Bool {
        let largest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM entry") ?? 0
        guard largest < Int64.max / 2 else { return false }
        nextID = largest + 1
        return true
    }

    /// Files an entry for insertion; returns the id it will have (known before its insert runs,
    /// so that its children can name it).
    mutating func add(_ entry: NewEntry, _ db: Database) throws -> Int64 {
        let id = nextID
        nextID += 1
        pending.append(entry)
        if pending.count == Self.rowsPerInsert { try flush(db) }
        return id
    }

    /// Inserts the entries filed and not yet inserted: before a commit, and after the walk.
    mutating func flush(_ db: Database) throws {
        guard !pending.isEmpty else { return }
        let last = nextID - 1
        if pending.count == Self.rowsPerInsert {
            for (row, entry) in pending.enumerated() {
                entry.bind(to: many, first: 4 + Int32(row) * NewEntry.boundValues)
            }
            try many.run()
        } else {
            for entry in pending {
                entry.bind(to: one, first: 3)
                try one.run()
            }
        }
        pending.removeAll(keepingCapacity: true)
        let inserted = db.lastInsertedRowID
        guard inserted == last else {
            throw CatalogError(
                .database, "the catalog gave new entries other row ids than expected (\(inserted), not \(last)); nothing of this batch was kept")
        }
    }
}

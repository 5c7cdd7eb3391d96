// SPDX-License-Identifier: Apache-2.0
import GRDB

/// The statements a scan runs per entry, looked up in GRDB's statement cache once per scan.
///
/// `Database.cachedStatement(sql:)` finds a statement by hashing its SQL text: for the insert's
/// 300 characters, once per entry, that hash was the largest single cost of a first scan's writer
/// outside SQLite itself.
struct EntryStatements {
    /// The identity look-up: live entries of a volume with an inode number.
    let lookup: SQLiteBinder
    /// An entry matched by identity, brought up to date.
    let update: SQLiteBinder
    /// An entry matched by identity with nothing changed but that it was seen. Setting only
    /// `last_seen` leaves both indexes alone: the full update sets `parent_id` and `name`, and
    /// SQLite rewrites an index entry for every indexed column a statement sets, changed or not.
    let touch: SQLiteBinder
    /// A new entry.
    let insert: SQLiteBinder

    /// Prepares the statements for one scan, binding once the values every entry shares (the
    /// volume, the root and the scan): SQLite keeps a statement's bindings across resets, and
    /// each `sqlite3_bind_*` call locks the connection's mutex (Debian's SQLite is serialized).
    init(_ db: Database, volumeID: Int64, rootID: Int64, scanID: Int64) throws {
        try self.init(db)
        lookup.bind(1, volumeID)
        touch.bind(1, scanID)
        insert.bind(1, volumeID)
        insert.bind(2, rootID)
        insert.bind(16, scanID)
        insert.bind(17, scanID)
    }

    private init(_ db: Database) throws {
        lookup = SQLiteBinder(
            try db.cachedStatement(
                sql: """
                    SELECT id, parent_id, name, kind, size, mtime, btime, generation, link_target, last_seen,
                        root_id, mode, uid, gid, ctime
                    FROM entry WHERE volume_id = ? AND inode = ? AND deleted_in IS NULL
                    """), db)
        update = SQLiteBinder(
            try db.cachedStatement(
                sql: """
                    UPDATE entry SET root_id = ?, parent_id = ?, name = ?, size = ?, mode = ?, uid = ?, gid = ?,
                        mtime = ?, ctime = ?, btime = ?, generation = ?, link_target = ?,
                        sha256 = CASE WHEN ? THEN NULL ELSE sha256 END, last_seen = ?
                    WHERE id = ?
                    """), db)
        touch = SQLiteBinder(try db.cachedStatement(sql: "UPDATE entry SET last_seen = ? WHERE id = ?"), db)
        insert = SQLiteBinder(
            try db.cachedStatement(
                sql: """
                    INSERT INTO entry (volume_id, root_id, parent_id, name, kind, size, mode, uid, gid, mtime, ctime, btime,
                        inode, generation, link_target, first_seen, last_seen)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """), db)
    }
}

/// The catalog row ids of the directories a scan descends into, by the walker's key.
///
/// The walker numbers entries from 0 in walk order, so the keys are dense: an array indexed by
/// key, with 0 for "none" (SQLite row ids start at 1), costs a bounds check where a dictionary
/// hashed every key.
struct DirectoryRowIDs {
    private var rows: [Int64] = []

    /// The row id recorded for `key`, or `nil` (never recorded, or a negative key).
    subscript(key: Int32) -> Int64? {
        get {
            let index = Int(key)
            guard index >= 0, index < rows.count, rows[index] != 0 else { return nil }
            return rows[index]
        }
        set {
            let index = Int(key)
            guard index >= 0 else { return }
            if index >= rows.count {
                guard newValue != nil else { return }
                rows.append(contentsOf: repeatElement(0, count: index + 1 - rows.count))
            }
            rows[index] = newValue ?? 0
        }
    }
}

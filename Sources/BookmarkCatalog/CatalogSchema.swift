// SPDX-License-Identifier: Apache-2.0
import GRDB

/// The catalog's SQLite schema, as GRDB migrations: each version is one migration, applied in
/// order, never edited once released (Docs/CATALOG.md, "Schema"). A catalog whose database holds a
/// migration this library does not know was written by a newer version and is refused.
enum CatalogSchema {
    /// The schema version this library writes: the number of migrations.
    static let version = 1

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // A root is a scanned directory: its path inside its volume (`/` for the top) and its
            // absolute path at the last scan. Names, paths and link targets are BLOBs: Linux names are bytes, not always UTF-8.
            // Times are nanoseconds since 1970 (INTEGER), scan times seconds (REAL). Inode numbers
            // and sizes are stored as the signed 64-bit bit pattern of the unsigned value.
            try db.execute(
                sql: """
                    CREATE TABLE volume (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        uuid TEXT,
                        uuid_source TEXT NOT NULL,
                        label TEXT,
                        fs_type TEXT NOT NULL,
                        source TEXT NOT NULL,
                        mount_point BLOB NOT NULL,
                        persistent INTEGER NOT NULL
                    );
                    CREATE TABLE root (
                        id INTEGER PRIMARY KEY,
                        volume_id INTEGER NOT NULL REFERENCES volume(id),
                        path_in_volume BLOB NOT NULL,
                        path BLOB NOT NULL,
                        entry_id INTEGER,
                        UNIQUE (volume_id, path_in_volume)
                    );
                    CREATE TABLE scan (
                        id INTEGER PRIMARY KEY,
                        root_id INTEGER NOT NULL REFERENCES root(id),
                        started REAL NOT NULL,
                        finished REAL,
                        mount_point BLOB NOT NULL,
                        entries INTEGER NOT NULL DEFAULT 0,
                        errors INTEGER NOT NULL DEFAULT 0,
                        hashed INTEGER NOT NULL,
                        cross_mounts INTEGER NOT NULL
                    );
                    CREATE TABLE entry (
                        id INTEGER PRIMARY KEY,
                        volume_id INTEGER NOT NULL REFERENCES volume(id),
                        root_id INTEGER NOT NULL REFERENCES root(id),
                        parent_id INTEGER REFERENCES entry(id),
                        name BLOB NOT NULL,
                        kind INTEGER NOT NULL,
                        size INTEGER NOT NULL,
                        mode INTEGER NOT NULL,
                        uid INTEGER NOT NULL,
                        gid INTEGER NOT NULL,
                        mtime INTEGER NOT NULL,
                        ctime INTEGER NOT NULL,
                        btime INTEGER,
                        inode INTEGER NOT NULL,
                        generation INTEGER,
                        link_target BLOB,
                        sha256 BLOB,
                        first_seen INTEGER NOT NULL REFERENCES scan(id),
                        last_seen INTEGER NOT NULL REFERENCES scan(id),
                        deleted_in INTEGER REFERENCES scan(id)
                    );
                    CREATE INDEX entry_by_parent ON entry(parent_id, name);
                    CREATE INDEX entry_by_identity ON entry(volume_id, inode);
                    CREATE TABLE change (
                        id INTEGER PRIMARY KEY,
                        scan_id INTEGER NOT NULL REFERENCES scan(id),
                        entry_id INTEGER NOT NULL REFERENCES entry(id),
                        kind TEXT NOT NULL CHECK (kind IN ('added', 'deleted', 'modified', 'moved')),
                        old_parent_id INTEGER,
                        old_name BLOB
                    );
                    CREATE INDEX change_by_scan ON change(scan_id);
                    CREATE TABLE scan_error (
                        id INTEGER PRIMARY KEY,
                        scan_id INTEGER NOT NULL REFERENCES scan(id),
                        path BLOB NOT NULL,
                        syscall TEXT NOT NULL,
                        errno INTEGER NOT NULL
                    );
                    CREATE VIEW entry_path (id, path) AS
                        WITH RECURSIVE walk (id, path) AS (
                            SELECT entry.id, root.path FROM root JOIN entry ON entry.id = root.entry_id
                            UNION ALL
                            SELECT child.id, CAST(CASE WHEN walk.path = X'2F' THEN X'2F' || child.name ELSE walk.path || X'2F' || child.name END AS BLOB)
                                FROM entry AS child JOIN walk ON child.parent_id = walk.id
                                WHERE child.id NOT IN (SELECT entry_id FROM root WHERE entry_id IS NOT NULL)
                        )
                        SELECT id, path FROM walk;
                    """)
        }
        return migrator
    }
}

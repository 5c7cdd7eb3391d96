// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import SecureFiles
import SystemPackage

/// A volume catalog: what was on each scanned root, with file identity, in one SQLite database
/// that other tools can query (Docs/CATALOG.md has the schema).
///
/// ```swift
/// let catalog = try Catalog(path: "/home/me/drives.catalog")
/// let summary = try catalog.scan(root: "/media/me/Archive")
/// for change in try catalog.changes(inScan: summary.scanID) { print(change) }
/// ```
///
/// A catalog is safe to share across threads and tasks: every read and write goes through one
/// serial SQLite connection (a GRDB `DatabaseQueue`). Writes are transactions, so another process
/// reading the file sees the state before or after each committed batch, never a half-written one.
public final class Catalog: Sendable {
    /// The database file.
    public let path: String
    let database: DatabaseQueue

    /// The schema version this library writes (Docs/CATALOG.md, "Schema").
    public static var schemaVersion: Int { CatalogSchema.version }

    /// Opens the catalog at `path`, creating it (and migrating an older one) when `create` is true.
    /// With `create` false it is opened read-only: for finding, diffing and exporting, never for
    /// scanning (a scan then fails with `database`). A reader that could not write the catalog or
    /// its folder (a read-only folder or mount, another user's catalog) creates no `-wal` or
    /// `-shm` beside it: with nothing unmerged in a `-wal` the file is read as SQLite's
    /// `immutable` (Docs/CATALOG.md, "Reading a catalog you cannot write").
    ///
    /// - Throws: ``CatalogError`` `database` when `create` is true and an existing catalog
    ///   cannot be written (the disk full); `cannotOpen` (not a catalog, a directory, unreadable, missing without
    ///   `create`, or a reader that cannot write it facing unmerged changes in its `-wal`),
    ///   `newerSchema` (written by a newer version).
    public init(path: String, create: Bool = true) throws(CatalogError) {
        self.path = path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !create, !exists {
            throw CatalogError(.cannotOpen, "no catalog at this path", path: Array(path.utf8))
        }
        // SQLite says "disk I/O error" (reading) or "unable to open database file" (creating).
        if exists, isDirectory.boolValue {
            throw CatalogError(.cannotOpen, "a directory, not a catalog", path: Array(path.utf8))
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.readonly = !create
        // A reader that could not write the catalog must not make its journal files (CatalogReadAccess).
        let access = create ? .normal : try CatalogReadAccess.choose(path: path)
        do {
            let opened = access == .immutable ? CatalogReadAccess.immutableURI(path) : path
            database = try DatabaseQueue(path: opened, configuration: configuration)
        } catch let error as DatabaseError where create && exists && Self.isWriteFailure(error) {
            // A catalog that is there but cannot be written to (the disk full: its -shm cannot
            // grow): a failed write, not a file that is no catalog.
            throw CatalogError(.database, "the catalog could not be written", path: Array(path.utf8), underlying: "\(error)")
        } catch {
            throw CatalogError(.cannotOpen, "cannot open the catalog", path: Array(path.utf8), underlying: "\(error)")
        }
        let migrator = CatalogSchema.migrator
        do {
            let superseded = try database.read { db in try migrator.hasBeenSuperseded(db) }
            if superseded {
                throw CatalogError(
                    .newerSchema, "the catalog was written by a newer version of swift-bookmarks", path: Array(path.utf8))
            }
            if create {
                // WAL: readers (another `bookmark catalog find`) are never blocked by a scan.
                try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
                try migrator.migrate(database)
            } else {
                let complete = try database.read { db in try migrator.hasCompletedMigrations(db) }
                guard complete else {
                    throw CatalogError(.cannotOpen, "not a catalog, or one of an older schema opened read-only", path: Array(path.utf8))
                }
            }
        } catch let error as CatalogError {
            throw error
        } catch let error as DatabaseError where create && exists && Self.isWriteFailure(error) {
            throw CatalogError(.database, "the catalog could not be written", path: Array(path.utf8), underlying: "\(error)")
        } catch {
            throw CatalogError(.cannotOpen, "not a catalog", path: Array(path.utf8), underlying: "\(error)")
        }
    }

    /// Whether SQLite failed to write: the disk full, or an I/O error (a full file system
    /// refuses to grow the `-shm`, which SQLite reports as an I/O error).
    static func isWriteFailure(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_FULL || error.resultCode == .SQLITE_IOERR
    }

    /// Runs a read, turning database errors into ``CatalogError``: `cannotOpen` for a damaged
    /// file (SQLite's `SQLITE_CORRUPT` or `SQLITE_NOTADB`, found only when a page is read, since
    /// opening reads the header alone), `database` for anything else.
    func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do {
            return try database.read(body)
        } catch let error as CatalogError {
            throw error
        } catch let error as DatabaseError where Self.isDamage(error) {
            throw CatalogError(
                .cannotOpen, "not a catalog: the file is damaged", path: Array(path.utf8), underlying: "\(error.resultCode)")
        } catch {
            throw CatalogError(.database, "the catalog could not be read", path: Array(path.utf8), underlying: "\(error)")
        }
    }

    /// Whether SQLite found the file damaged or not a database.
    static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// Runs a write transaction, turning database errors into ``CatalogError``.
    func write<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do {
            return try database.write(body)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError(.database, "the catalog could not be written", path: Array(path.utf8), underlying: "\(error)")
        }
    }
}

// MARK: Row conversions

extension UInt64 {
    /// Stored as SQLite's signed 64-bit integer, bit for bit.
    var storedBits: Int64 { Int64(bitPattern: self) }
    init(storedBits: Int64) { self = UInt64(bitPattern: storedBits) }
}

extension Array where Element == UInt8 {
    var blob: Data { Data(self) }
}

extension Row {
    /// A BLOB column as bytes (`[]` for NULL).
    func bytes(_ column: String) -> [UInt8] {
        (self[column] as Data?).map { [UInt8]($0) } ?? []
    }

    /// A BLOB column as bytes, `nil` for NULL.
    func optionalBytes(_ column: String) -> [UInt8]? {
        (self[column] as Data?).map { [UInt8]($0) }
    }

    /// The BLOB at column position `index` as bytes (`[]` for NULL).
    func bytes(at index: Int) -> [UInt8] {
        (self[index] as Data?).map { [UInt8]($0) } ?? []
    }

    /// The BLOB at column position `index` as bytes, `nil` for NULL.
    func optionalBytes(at index: Int) -> [UInt8]? {
        (self[index] as Data?).map { [UInt8]($0) }
    }
}

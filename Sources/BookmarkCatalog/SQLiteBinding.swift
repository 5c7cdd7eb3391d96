// SPDX-License-Identifier: Apache-2.0
import GRDB
import GRDBSQLite

/// Binds, steps and reads a GRDB statement through SQLite's C API, for the scan's per-entry
/// statements: building GRDB `StatementArguments` (key paths and existentials per value) was a
/// fifth of a first scan's time in a profile, more than the inserts themselves.
struct SQLiteBinder {
    private let statement: SQLiteStatement
    private let connection: SQLiteConnection?

    /// SQLite copies the bytes it is given (`SQLITE_TRANSIENT`, a macro Swift does not import).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    /// Prepares `statement` (a GRDB cached statement of `db`) for new values.
    init(_ statement: Statement, _ db: Database) {
        self.statement = statement.sqliteStatement
        connection = db.sqliteConnection
        sqlite3_reset(self.statement)
    }

    /// Resets the statement for new values (a binder kept for a whole scan is reused per entry),
    /// and returns it.
    func reset() -> SQLiteBinder {
        sqlite3_reset(statement)
        return self
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement, index, value)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ bytes: [UInt8]?) {
        guard let bytes else {
            sqlite3_bind_null(statement, index)
            return
        }
        if bytes.isEmpty {
            sqlite3_bind_zeroblob(statement, index, 0)
            return
        }
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(clamping: buffer.count), Self.transient)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        let code = sqlite3_step(statement)
        defer { sqlite3_reset(statement) }
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Steps to the next row; `false` at the end.
    func next() throws -> Bool {
        let code = sqlite3_step(statement)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else { throw error(code) }
        return false
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func optionalInt64(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
    }

    func bytes(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }
}

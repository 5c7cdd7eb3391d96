// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// An entry or directory a scan could not read, as the `scan_error` table records it.
public struct CatalogScanError: Sendable, Hashable {
    /// The scan that met it.
    public var scanID: Int64
    /// Its absolute path, exact bytes.
    public var path: [UInt8]
    /// The call that failed (`openat2`, `statx`, `getdents64`…).
    public var syscall: String
    /// The errno it failed with (13 is `EACCES`).
    public var errno: Int32
}

extension Catalog {
    /// What the scan `scanID` could not read, in the order it met them (paths as bytes, with the
    /// syscall and errno): the list behind ``ScanSummary/errors``, which only counts them.
    ///
    /// - Throws: ``CatalogError`` `database` when the catalog cannot be read.
    public func errors(inScan scanID: Int64) throws(CatalogError) -> [CatalogScanError] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT path, syscall, errno FROM scan_error WHERE scan_id = ? ORDER BY id", arguments: [scanID]
            ).map { row in
                CatalogScanError(
                    scanID: scanID, path: row.bytes(at: 0), syscall: row[1], errno: Int32(truncatingIfNeeded: row[2] as Int64))
            }
        }
    }
}

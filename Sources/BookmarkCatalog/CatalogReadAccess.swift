// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// How a catalog opened for reading (`Catalog(path:create: false)`) is handed to SQLite.
///
/// The database is in WAL mode, and SQLite's reader of a WAL database needs `CATALOG-wal` and
/// `CATALOG-shm` beside it, creating them when missing. That fails in a read-only folder or on a
/// read-only mount (`SQLite error 8`/`14`), and where the reader may create files but cannot write
/// the database (another user, a shared folder) it leaves `-wal` and `-shm` owned by the reader,
/// which then stop the owner's next scan (`SQLite error 8 … BEGIN IMMEDIATE`).
///
/// So a process that could write the catalog and its folder opens it normally, as before. Any
/// other reader must not create those files:
/// - with no `-wal`, or an empty one, every committed change is in the database file itself:
///   it is opened with SQLite's `immutable=1` (no journal files, no locks);
/// - with a `-wal` that holds changes, and its `-shm` present, it is opened normally (SQLite then
///   reads both without creating anything);
/// - with a `-wal` that holds changes and no `-shm`, reading is refused with an error that says
///   why: the changes cannot be read without making a `-shm` the owner could not use.
enum CatalogReadAccess: Equatable {
    case normal
    case immutable

    /// How to open the catalog at `path` for reading.
    ///
    /// - Throws: ``CatalogError`` `cannotOpen` for a catalog whose unmerged changes cannot be read
    ///   without creating files beside it.
    static func choose(path: String) throws(CatalogError) -> CatalogReadAccess {
        let bytes = PathBytes(Array(path.utf8))
        guard let name = bytes.lastComponent, (try? Directory.current.status(of: bytes.filePath)) != nil,
            let folder = try? Directory(opening: bytes.parent.filePath)
        else { return .normal }  // SQLite's own error says what is missing
        // The kernel's answer (mode bits, ACLs, a read-only mount), not one worked out from the modes.
        if folder.descriptor.mayWrite(child: name), folder.descriptor.mayWrite(child: [0x2E]) { return .normal }
        let wal = try? Directory.current.status(of: FilePath(bytes: bytes.bytes + Array("-wal".utf8)))
        guard let wal, wal.size > 0 else { return .immutable }
        if (try? Directory.current.status(of: FilePath(bytes: bytes.bytes + Array("-shm".utf8)))) != nil { return .normal }
        throw CatalogError(
            .cannotOpen,
            "the catalog has changes in its -wal file not yet merged, and this process cannot create the -shm file SQLite needs to read them (a read-only folder or mount, or a catalog of another user); a scan by its owner, or `sqlite3 CATALOG 'PRAGMA wal_checkpoint(TRUNCATE)'` as its owner, merges them",
            path: bytes.bytes)
    }

    /// An SQLite URI that opens the file at `path` read-only and immutable (`file:` with the
    /// path's bytes percent-encoded where a URI needs it).
    static func immutableURI(_ path: String) -> String {
        var text = "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += String(format: "%%%02X", byte)
            }
        }
        return text + "?mode=ro&immutable=1"
    }
}

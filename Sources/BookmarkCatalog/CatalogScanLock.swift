// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

/// One scan at a time per catalog: an exclusive `flock` on `CATALOG-lock`, held from before the
/// scan reads anything until its last write.
///
/// Why a lock of its own: a scan decides at its start whether an unfinished scan of its root is
/// one to resume, and whether its volume has rows at all (a first scan then inserts without
/// looking entries up, `NewEntryInserts`). Both are only true while no other scan writes the
/// catalog. A second scan that started while the first ran took the running scan for a killed one,
/// and both inserted the same objects: duplicated rows, and deletions that never happened.
///
/// Why `flock` on a separate file: the kernel drops it when the process dies, so a killed scan
/// leaves no stale lock and the next scan resumes it; and it is never taken on the database file
/// itself, because closing any descriptor of that file would drop SQLite's own POSIX locks in this
/// process. `flock` locks belong to the open file description, so two scans in one process (two
/// threads, two `Catalog`s) exclude each other too. The file is never removed: removing it while
/// another scan waits on it would let a third take a lock on a new file at the same name.
struct CatalogScanLock {
    private let file: OwnedDescriptor

    /// The lock file's name beside the catalog: the catalog's name and `-lock`.
    static let suffix = "-lock"

    /// Takes the lock of the catalog at `catalogPath`, waiting for a scan that holds it.
    ///
    /// - Throws: ``CatalogError`` `database` when the lock file cannot be opened or created (the
    ///   catalog's folder is read-only, say: a scan could not write its journal there either).
    init(catalogPath: String) throws(CatalogError) {
        let path = PathBytes(Array(catalogPath.utf8))
        let lockPath = path.bytes + Array(Self.suffix.utf8)
        guard let name = PathBytes(lockPath).lastComponent else {
            throw CatalogError(.database, "the catalog has no file name to lock", path: lockPath)
        }
        do throws(FileSystemError) {
            let folder = try Directory(opening: path.parent.filePath)
            file = try Self.openOrCreate(name, in: folder)
            try file.lock(exclusive: true, wait: true)
        } catch {
            throw CatalogError(.database, "cannot lock the catalog for a scan", path: lockPath, fileSystemError: error)
        }
    }

    /// The lock file, opened read-only (enough for `flock`, and it works for a file another user
    /// made), or created with mode 0666 less the umask.
    private static func openOrCreate(_ name: [UInt8], in folder: Directory) throws(FileSystemError) -> OwnedDescriptor {
        for _ in 0..<3 {
            do throws(FileSystemError) {
                return try folder.descriptor.openChild(name, options: .readOnly)
            } catch {
                guard error.errno == .noSuchFileOrDirectory else { throw error }
            }
            let umask = (try? ProcessUmask.current()).flatMap { $0 } ?? 0o022
            do throws(FileSystemError) {
                return try folder.createFile(bytes: name, permissions: FilePermissions(rawValue: 0o666 & ~umask))
            } catch {
                // Made by another scan between the two calls: open that one.
                guard error.errno == .fileExists else { throw error }
            }
        }
        return try folder.descriptor.openChild(name, options: .readOnly)
    }

    /// Releases the lock by closing the file (the kernel does it too if the process dies).
    func release() { try? file.close() }
}

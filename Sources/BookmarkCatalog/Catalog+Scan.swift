// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import GRDB
import SecureFiles
import SystemPackage

/// How to scan.
public struct ScanOptions: Sendable, Hashable {
    /// Record a SHA-256 of regular files whose size another live file in the catalog shares (a
    /// file of a unique size cannot have a duplicate, so it is not read). Off by default.
    public var hashing: Bool
    /// Descend into other file systems mounted under the root. Off by default, as `find -xdev`.
    /// Each entry records the volume of the file system it is on (identified once per scan per
    /// device), so identities on two file systems never mix.
    public var crossingMounts: Bool
    /// Read each entry's inode generation from its file handle (one `name_to_handle_at` per
    /// entry): a reused inode number is then told apart even where birth times are missing.
    public var generations: Bool
    /// Entries written per transaction. A killed scan loses at most the last batch, and a reader
    /// sees the catalog as of the last commit.
    public var batchSize: Int

    /// Options; every one has its default.
    public init(hashing: Bool = false, crossingMounts: Bool = false, generations: Bool = true, batchSize: Int = 5_000) {
        self.hashing = hashing
        self.crossingMounts = crossingMounts
        self.generations = generations
        self.batchSize = max(1, batchSize)
    }
}

/// How far a scan is, reported to the caller's progress handler at most ten times a second.
public struct ScanProgress: Sendable, Hashable {
    /// Entries recorded so far.
    public var entries: Int
    /// Directories listed so far.
    public var directories: Int
    /// Entries or directories that could not be read.
    public var errors: Int
    /// The directory being listed.
    public var directory: [UInt8]
}

/// What a scan did.
public struct ScanSummary: Sendable, Hashable {
    /// The scan's row id (``Catalog/changes(inScan:)`` lists what it found changed).
    public var scanID: Int64
    /// The root's absolute path.
    public var root: [UInt8]
    /// Whether this finished an earlier scan that was interrupted.
    public var resumed: Bool
    /// Whether the root had been scanned before (changes are recorded only then).
    public var isRescan: Bool
    /// Entries seen (the root included).
    public var entries: Int
    /// Entries or directories that could not be read (in the `scan_error` table).
    public var errors: Int
    /// New entries (on a re-scan).
    public var added: Int
    /// Entries whose contents changed (size or modification time).
    public var modified: Int
    /// Entries now under another name or parent.
    public var moved: Int
    /// Entries gone since the last scan.
    public var deleted: Int
    /// Files hashed.
    public var hashed: Int
    /// Mount points where another device carries a file system with the root volume's UUID (a
    /// cloned drive mounted beside the original): the catalog cannot tell the two apart, and
    /// merges what it finds on them. Empty in the normal case.
    public var sameUUIDMountedAt: [[UInt8]] = []
}

extension Catalog {
    /// Scans `root` (a directory) into the catalog: every entry under it, through the secure layer
    /// (names relative to directory descriptors, no symbolic link followed, one file system unless
    /// `options.crossingMounts`; each entry under the volume of the file system it is on). A root scanned before is updated in place: each entry is matched
    /// to the object it was by identity (volume, inode, generation, birth time, kind), so a rename or
    /// a move is recorded as one, and entries not seen any more are marked deleted.
    ///
    /// Unreadable entries and directories are recorded in `scan_error` and skipped; what the catalog
    /// knew under an unreadable directory is kept, not marked deleted. A scan killed midway leaves
    /// the catalog as of its last committed batch; the next scan of the root finishes it.
    ///
    /// One scan writes a catalog at a time: a scan holds an exclusive `flock` on `CATALOG-lock`
    /// (beside the catalog, created when missing) for its whole run, and a scan started meanwhile,
    /// in this process or another, waits for it and then runs (as a re-scan, if the first scanned
    /// the same root). The kernel releases the lock of a killed scan.
    ///
    /// - Throws: ``CatalogError`` `rootUnavailable` (cannot open or identify the root) or `database`
    ///   (also when the lock file cannot be opened or created).
    @discardableResult
    public func scan(
        root: String, options: ScanOptions = ScanOptions(), progress: (@Sendable (ScanProgress) -> Void)? = nil
    ) throws(CatalogError) -> ScanSummary {
        try scan(rootBytes: Array(root.utf8), options: options, progress: progress)
    }

    /// ``scan(root:options:progress:)`` for a root path given as bytes.
    @discardableResult
    public func scan(
        rootBytes root: [UInt8], options: ScanOptions = ScanOptions(), progress: (@Sendable (ScanProgress) -> Void)? = nil
    ) throws(CatalogError) -> ScanSummary {
        // Held until the scan's last write: one scan writes a catalog at a time (CatalogScanLock).
        let lock = try CatalogScanLock(catalogPath: path)
        defer { lock.release() }
        let located = try CatalogScanner.locate(root)
        var scanner = CatalogScanner(catalog: self, located: located, options: options, progress: progress)
        var summary = try scanner.run()
        summary.sameUUIDMountedAt = CatalogScanner.otherDevicesWithUUID(of: located.volume)
        return summary
    }
}

/// The scan root, opened and identified.
struct LocatedRoot {
    let descriptor: OwnedDescriptor
    let path: [UInt8]
    let status: FileStatus
    let volume: Volume
    let pathInVolume: [UInt8]
    let generation: UInt32?
}

/// One scan of one root.
struct CatalogScanner {
    let catalog: Catalog
    let located: LocatedRoot
    let options: ScanOptions
    let progress: (@Sendable (ScanProgress) -> Void)?

    private var volumeID: Int64 = 0
    private var rootID: Int64 = 0
    private var scanID: Int64 = 0
    private var summary: ScanSummary
    private var needsLookups = true
    /// A first scan's inserts, several rows per statement (`nil`: one at a time).
    private var newEntries: NewEntryInserts?
    private var directories = 0
    private var pendingInBatch = 0
    private var lastProgress = ContinuousClock.now
    /// Directories whose listing failed: what the catalog knew under them is kept.
    private var unlisted: [Int64] = []
    /// With hashing: where each regular file is, relative to the root.
    private var filePaths: [Int64: [UInt8]] = [:]
    /// The volume row of each device met other than the root's (another file system mounted
    /// below the root), identified once per scan from the mount table by the entry's mount id.
    private var otherVolumes: [DeviceNumber: Int64] = [:]
    /// The mount table, read when the first other device is met.
    private var mountTable: MountedVolumes?
    /// SQLite's `cache_size` during a scan: negative, so in KiB (32 MiB).
    static let scanCacheSize = -32_768

    init(catalog: Catalog, located: LocatedRoot, options: ScanOptions, progress: (@Sendable (ScanProgress) -> Void)?) {
        self.catalog = catalog
        self.located = located
        self.options = options
        self.progress = progress
        summary = ScanSummary(
            scanID: 0, root: located.path, resumed: false, isRescan: false, entries: 0, errors: 0, added: 0, modified: 0,
            moved: 0, deleted: 0, hashed: 0)
    }

    /// Opens and identifies the root.
    static func locate(_ root: [UInt8]) throws(CatalogError) -> LocatedRoot {
        let descriptor: OwnedDescriptor
        do {
            descriptor = try Directory.current.open(bytes: root, options: [.readOnly, .directory])
        } catch {
            throw CatalogError(.rootUnavailable, "cannot open the root", path: root, fileSystemError: error)
        }
        let fileID: FileID
        let status: FileStatus
        do {
            fileID = try FileID.identify(descriptor, volumes: try MountedVolumes())
            status = try descriptor.status()
        } catch let error as FileIdentityError {
            throw CatalogError(.rootUnavailable, "cannot identify the root's volume", path: root, underlying: "\(error)")
        } catch let error as FileSystemError {
            throw CatalogError(.rootUnavailable, "cannot read the root", path: root, fileSystemError: error)
        } catch {
            throw CatalogError(.rootUnavailable, "cannot identify the root", path: root, underlying: "\(error)")
        }
        let path = (try? descriptor.currentPathBytes()).flatMap { $0 } ?? root
        let volume = fileID.volume
        // The root's path inside its file system: the mount's own root (a bind or subvolume mount
        // shows a directory of the file system), then the path below the mount point.
        var below = path
        if volume.mountPoint != [0x2F], below.starts(with: volume.mountPoint) { below.removeFirst(volume.mountPoint.count) }
        var inVolume = volume.root == [0x2F] ? below : volume.root + below
        if inVolume.isEmpty { inVolume = [0x2F] }
        return LocatedRoot(
            descriptor: descriptor, path: path, status: status, volume: volume, pathInVolume: inVolume, generation: fileID.generation)
    }

    mutating func run() throws(CatalogError) -> ScanSummary {
        try begin()
        do {
            try catalog.database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // The scan keeps the references right itself (parents are written before their
                // children, in the same or an earlier transaction); checking five foreign keys per
                // inserted row was the largest part of a first scan. The tests run SQLite's
                // foreign_key_check on scanned catalogs.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                // A page cache of 32 MiB for the scan instead of SQLite's 2 MiB: the two indexes
                // take entries in no useful order, and with the small cache a first scan of 100,000
                // entries read back about 7,000 evicted pages (`pread64`); now about 3,300. The
                // connection's own size comes back afterwards.
                let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
                try db.execute(sql: "PRAGMA cache_size = \(CatalogScanner.scanCacheSize)")
                defer { try? db.execute(sql: "PRAGMA cache_size = \(cache)") }
                // Immediate, as every transaction of the scan: see NewEntryInserts.
                try db.beginTransaction(.immediate)
                do {
                    try walk(db)
                    try finish(db)
                    try db.commit()
                } catch {
                    // The batch since the last commit goes; GRDB traps on a transaction left open.
                    if db.isInsideTransaction { try? db.rollback() }
                    throw error
                }
            }
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError(.database, "the scan could not be recorded", path: located.path, underlying: "\(error)")
        }
        if options.hashing { summary.hashed = try hashShared() }
        return summary
    }

    // MARK: Before the walk

    /// The catalog's directory and its files' names, to leave out of a scan that contains them.
    private func catalogFiles() -> CatalogWalker.OwnFiles? {
        let path = PathBytes(Array(catalog.path.utf8))
        guard let name = path.lastComponent,
            let directory = try? Directory.current.status(of: path.parent.filePath)
        else { return nil }
        let names = Set(["", "-wal", "-shm", "-journal", CatalogScanLock.suffix].map { name + Array($0.utf8) })
        return CatalogWalker.OwnFiles(device: directory.device, inode: directory.inode, names: names)
    }

    /// Inserts or refreshes the row of `volume` (keyed by its UUID, or by type, source and mount
    /// point without one) and returns its id.
    static func recordVolume(_ volume: Volume, _ db: Database) throws -> Int64 {
        let key = volume.isPersistent && volume.uuid != nil ? volume.uuid ?? "" : "\(volume.fsType):\(volume.source):\(PathBytes(volume.mountPoint).escaped)"
        try db.execute(
            sql: """
                INSERT INTO volume (key, uuid, uuid_source, label, fs_type, source, mount_point, persistent)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET uuid_source = excluded.uuid_source, label = excluded.label,
                    fs_type = excluded.fs_type, source = excluded.source, mount_point = excluded.mount_point
                """,
            arguments: [
                key, volume.uuid, volume.uuidSource.rawValue, volume.label, volume.fsType, volume.source,
                volume.mountPoint.blob, volume.isPersistent,
            ])
        guard let volumeID = try Int64.fetchOne(db, sql: "SELECT id FROM volume WHERE key = ?", arguments: [key]) else {
            throw CatalogError(.database, "the volume row is missing after its insert")
        }
        return volumeID
    }

    /// Records the volume and the root, and starts (or resumes) the scan.
    private mutating func begin() throws(CatalogError) {
        let volume = located.volume
        let located = self.located
        let crossing = options.crossingMounts
        let hashing = options.hashing
        let ids = try catalog.write { db -> (Int64, Int64, Int64, Bool, Bool, Bool) in
            let volumeID = try Self.recordVolume(volume, db)
            try db.execute(
                sql: """
                    INSERT INTO root (volume_id, path_in_volume, path) VALUES (?, ?, ?)
                    ON CONFLICT (volume_id, path_in_volume) DO UPDATE SET path = excluded.path
                    """,
                arguments: [volumeID, located.pathInVolume.blob, located.path.blob])
            guard
                let rootID = try Int64.fetchOne(
                    db, sql: "SELECT id FROM root WHERE volume_id = ? AND path_in_volume = ?",
                    arguments: [volumeID, located.pathInVolume.blob])
            else { throw CatalogError(.database, "the root row is missing after its insert") }
            let scannedBefore =
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM scan WHERE root_id = ? AND finished IS NOT NULL)", arguments: [rootID])
                ?? false
            let needsLookups =
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM entry WHERE volume_id = ?)", arguments: [volumeID]) ?? true
            if let unfinished = try Int64.fetchOne(
                db, sql: "SELECT id FROM scan WHERE root_id = ? AND finished IS NULL ORDER BY id DESC LIMIT 1", arguments: [rootID])
            {
                return (volumeID, rootID, unfinished, true, scannedBefore, needsLookups)
            }
            try db.execute(
                sql: "INSERT INTO scan (root_id, started, mount_point, hashed, cross_mounts) VALUES (?, ?, ?, ?, ?)",
                arguments: [rootID, Date().timeIntervalSince1970, located.volume.mountPoint.blob, hashing, crossing])
            return (volumeID, rootID, db.lastInsertedRowID, false, scannedBefore, needsLookups)
        }
        (volumeID, rootID, scanID) = (ids.0, ids.1, ids.2)
        summary.scanID = scanID
        summary.resumed = ids.3
        summary.isRescan = ids.4
        needsLookups = ids.5
    }

    // MARK: The walk

    /// Records what the walker (on a thread of its own) sees, as it sees it: the system calls and
    /// the SQLite writes run on two cores at once.
    private mutating func walk(_ db: Database) throws {
        let channel = WalkChannel(capacity: 8)
        let walker = CatalogWalker(
            root: located.descriptor, rootPath: located.path, rootStatus: located.status, rootGeneration: located.generation,
            options: options, ownFiles: catalogFiles())
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            walker.run(into: channel)
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        // Whatever happens here, the walker stops and is waited for before its descriptors go.
        defer {
            channel.abandon()
            finished.wait()
        }
        // Row ids of the directories to descend into, by walk key: keys count up from 0 in walk
        // order, so an array indexed by key (0 for none; row ids start at 1) instead of a
        // dictionary, whose hashing was a tenth of the writer's own time.
        var ids = DirectoryRowIDs()
        // The per-entry statements, looked up once for the whole walk (see `EntryStatements`).
        let statements = try EntryStatements(db, volumeID: volumeID, rootID: rootID, scanID: scanID)
        if !needsLookups {
            var inserts = try NewEntryInserts(db, one: statements.insert, volumeID: volumeID, rootID: rootID, scanID: scanID)
            if try inserts.startTransaction(db) { newEntries = inserts }
        }
        while let batch = channel.take() {
            for item in batch {
                switch item {
                case .entry(let key, let parentKey, let name, let status, let generation, let linkTarget, let relative, let descend):
                    let isRoot = parentKey < 0
                    let parent = isRoot ? nil : ids[parentKey]
                    if !isRoot && parent == nil { continue }
                    let id = try record(
                        db, statements, name: name, parent: parent, status: status, generation: generation, linkTarget: linkTarget, isRoot: isRoot)
                    if isRoot { try db.execute(sql: "UPDATE root SET entry_id = ? WHERE id = ?", arguments: [id, rootID]) }
                    if status.kind == .directory {
                        if descend { ids[key] = id } else { unlisted.append(id) }
                    }
                    if options.hashing, status.kind == .regular { filePaths[id] = relative }
                    try commitIfBatchFull(db)
                case .failure(let path, let error, let unlistedKey):
                    try recordError(db, path: path, error)
                    if let unlistedKey, let id = ids[unlistedKey] { unlisted.append(id) }
                case .listed(let path):
                    directories += 1
                    reportProgress(directory: path)
                }
            }
        }
        try newEntries?.flush(db)
    }

    /// A catalogued object the scan may match, as the identity look-up reads it.
    private struct Candidate {
        var id: Int64
        var parent: Int64?
        var name: [UInt8]
        var kind: Int64
        var size: Int64
        var mtime: Int64
        var btime: Int64?
        var generation: Int64?
        var linkTarget: [UInt8]?
        var lastSeen: Int64
        var root: Int64
        var mode: Int64
        var uid: Int64
        var gid: Int64
        var ctime: Int64
    }

    private func candidates(_ statements: EntryStatements, inode: UInt64, volume: Int64) throws -> [Candidate] {
        // The root's volume is bound once per scan (EntryStatements); another is bound for this
        // look-up, and the root's again after it.
        let lookup = statements.lookup.reset()
        lookup.bind(2, inode.storedBits)
        if volume != volumeID { lookup.bind(1, volume) }
        defer {
            if volume != volumeID {
                _ = lookup.reset()
                lookup.bind(1, volumeID)
            }
        }
        var found: [Candidate] = []
        while try lookup.next() {
            found.append(
                Candidate(
                    id: lookup.int64(0), parent: lookup.optionalInt64(1), name: lookup.bytes(2) ?? [], kind: lookup.int64(3),
                    size: lookup.int64(4), mtime: lookup.int64(5), btime: lookup.optionalInt64(6), generation: lookup.optionalInt64(7),
                    linkTarget: lookup.bytes(8), lastSeen: lookup.int64(9), root: lookup.int64(10), mode: lookup.int64(11),
                    uid: lookup.int64(12), gid: lookup.int64(13), ctime: lookup.int64(14)))
        }
        return found
    }

    /// Inserts or updates the entry for an object seen at `name` in `parent`, matched by identity.
    private mutating func record(
        _ db: Database, _ statements: EntryStatements, name: [UInt8], parent: Int64?, status: FileStatus, generation: UInt32?,
        linkTarget: [UInt8]?, isRoot: Bool
    ) throws -> Int64 {
        summary.entries += 1
        pendingInBatch += 1
        // Each entry belongs to the volume of the file system it is on: the root's, or one mounted
        // below it (a mount point itself is the root of the file system mounted there).
        let entryVolume = status.device == located.status.device ? volumeID : try otherVolume(of: status, db)
        let onRootVolume = entryVolume == volumeID
        let kind = CatalogEntryKind(status.kind)
        let modified = status.modificationTime.nanosecondsSince1970
        let born = status.birthTime?.nanosecondsSince1970
        let generationValue = generation.map { Int64($0) }
        // The first scan's shortcut (no look-ups) is the root volume's alone: another volume's
        // entries are always looked up, and inserted one at a time.
        if needsLookups || !onRootVolume {
            var chosen: Candidate?
            for candidate in try candidates(statements, inode: status.inode, volume: entryVolume) {
                let sameObject =
                    candidate.kind == Int64(kind.rawValue)
                    && (born == nil || candidate.btime == nil || candidate.btime == born)
                    && (generationValue == nil || candidate.generation == nil || candidate.generation == generationValue)
                if !sameObject {
                    // The inode number was reused: the object catalogued under it is gone.
                    if candidate.lastSeen != scanID { try markDeleted(db, id: candidate.id) }
                    continue
                }
                if candidate.parent == parent && candidate.name == name {
                    chosen = candidate
                    break
                }
                if chosen == nil, candidate.lastSeen != scanID { chosen = candidate }
            }
            if let row = chosen {
                let moved = row.parent != parent || row.name != name
                let contentsChanged = UInt64(storedBits: row.size) != status.size || row.mtime != modified || row.linkTarget != linkTarget
                if summary.isRescan, row.lastSeen != scanID {
                    if moved && !isRoot {
                        summary.moved += 1
                        try db.execute(
                            sql: "INSERT INTO change (scan_id, entry_id, kind, old_parent_id, old_name) VALUES (?, ?, 'moved', ?, ?)",
                            arguments: [scanID, row.id, row.parent, Data(row.name)])
                    }
                    if contentsChanged && kind != .directory {
                        summary.modified += 1
                        try db.execute(
                            sql: "INSERT INTO change (scan_id, entry_id, kind) VALUES (?, ?, 'modified')", arguments: [scanID, row.id])
                    }
                }
                let changeTime = status.changeTime.nanosecondsSince1970
                if !moved, !contentsChanged, row.root == rootID, row.mode == Int64(status.mode), row.uid == Int64(status.uid),
                    row.gid == Int64(status.gid), row.ctime == changeTime, row.btime == born, row.generation == generationValue
                {
                    // Nothing stored changed: mark it seen and leave the rest (and the indexes) alone.
                    // `run` resets after each use; the scan id is bound once per scan.
                    let touch = statements.touch
                    touch.bind(2, row.id)
                    try touch.run()
                    return row.id
                }
                let update = statements.update.reset()
                update.bind(1, rootID)
                update.bind(2, parent)
                update.bind(3, name)
                update.bind(4, status.size.storedBits)
                update.bind(5, Int64(status.mode))
                update.bind(6, Int64(status.uid))
                update.bind(7, Int64(status.gid))
                update.bind(8, modified)
                update.bind(9, changeTime)
                update.bind(10, born)
                update.bind(11, generationValue)
                update.bind(12, linkTarget)
                update.bind(13, contentsChanged ? 1 : 0)
                update.bind(14, scanID)
                update.bind(15, row.id)
                try update.run()
                return row.id
            }
        }
        let entry = NewEntry(
            parent: parent, name: name, kind: Int64(kind.rawValue), size: status.size.storedBits, mode: Int64(status.mode),
            uid: Int64(status.uid), gid: Int64(status.gid), mtime: modified, ctime: status.changeTime.nanosecondsSince1970, btime: born,
            inode: status.inode.storedBits, generation: generationValue, linkTarget: linkTarget)
        let id: Int64
        if !onRootVolume {
            id = try insertOnOtherVolume(entry, volume: entryVolume, statements, db)
        } else if let filed = try newEntries?.add(entry, db) {
            id = filed
        } else {
            // `run` resets after each use; the volume, root and scan (1, 2, 16, 17) are bound once
            // per scan.
            entry.bind(to: statements.insert, first: 3)
            try statements.insert.run()
            id = db.lastInsertedRowID
        }
        if summary.isRescan {
            summary.added += 1
            try db.execute(sql: "INSERT INTO change (scan_id, entry_id, kind) VALUES (?, ?, 'added')", arguments: [scanID, id])
        }
        return id
    }

    /// The volume row of an entry on another device than the root's: identified by the mount it
    /// is on (`statx`'s mount id, in the mount table), recorded once per device. Without a mount id
    /// or a mount-table entry, the root's volume (as before volumes were told apart).
    private mutating func otherVolume(of status: FileStatus, _ db: Database) throws -> Int64 {
        if let known = otherVolumes[status.device] { return known }
        if mountTable == nil { mountTable = try? MountedVolumes() }
        var id = volumeID
        // The mount table lists reusable mount ids; Linux 6.8+ gives `statx` the unique one, whose
        // reusable id `statmount` tells.
        let mountID = status.mountID ?? status.uniqueMountID.flatMap { try? $0.reusableID().get() }
        if let mountID, let volume = mountTable?.volume(mountID: mountID) {
            id = try Self.recordVolume(volume, db)
        }
        otherVolumes[status.device] = id
        return id
    }

    /// Inserts a new entry of another volume than the root's. The first scan's multi-row inserts
    /// count row ids on from the table's largest: what they hold is inserted first, and they count
    /// on from the new largest afterwards. The single-row insert binds the root's volume once per
    /// scan, so it is bound back after.
    private mutating func insertOnOtherVolume(_ entry: NewEntry, volume: Int64, _ statements: EntryStatements, _ db: Database)
        throws -> Int64
    {
        try newEntries?.flush(db)
        entry.bind(to: statements.insert, first: 3)
        statements.insert.bind(1, volume)
        defer { statements.insert.bind(1, volumeID) }
        try statements.insert.run()
        let id = db.lastInsertedRowID
        if var inserts = newEntries { newEntries = try inserts.startTransaction(db) ? inserts : nil }
        return id
    }

    private mutating func markDeleted(_ db: Database, id: Int64) throws {
        try db.execute(sql: "UPDATE entry SET deleted_in = ? WHERE id = ?", arguments: [scanID, id])
        try db.execute(sql: "INSERT INTO change (scan_id, entry_id, kind) VALUES (?, ?, 'deleted')", arguments: [scanID, id])
        summary.deleted += 1
    }

    private mutating func recordError(_ db: Database, path: [UInt8], _ error: FileSystemError) throws {
        summary.errors += 1
        try db.execute(
            sql: "INSERT INTO scan_error (scan_id, path, syscall, errno) VALUES (?, ?, ?, ?)",
            arguments: [scanID, path.blob, error.syscall, Int64(error.errno.rawValue)])
    }

    private mutating func commitIfBatchFull(_ db: Database) throws {
        guard pendingInBatch >= options.batchSize else { return }
        try newEntries?.flush(db)
        try db.execute(sql: "UPDATE scan SET entries = ?, errors = ? WHERE id = ?", arguments: [summary.entries, summary.errors, scanID])
        try db.commit()
        // Immediate: the new entries' ids are counted on from the table's largest (NewEntryInserts).
        try db.beginTransaction(.immediate)
        if var inserts = newEntries {
            newEntries = try inserts.startTransaction(db) ? inserts : nil
        }
        pendingInBatch = 0
    }

    private mutating func reportProgress(directory: [UInt8]) {
        guard let progress else { return }
        let now = ContinuousClock.now
        guard now - lastProgress >= .milliseconds(100) else { return }
        lastProgress = now
        progress(ScanProgress(entries: summary.entries, directories: directories, errors: summary.errors, directory: directory))
    }

    // MARK: After the walk

    /// Keeps what was under unreadable directories and other mounts, marks the rest not seen as
    /// deleted, and closes the scan.
    private mutating func finish(_ db: Database) throws {
        for id in unlisted {
            try db.execute(
                sql: """
                    WITH RECURSIVE below (id) AS (
                        SELECT id FROM entry WHERE parent_id = ? AND deleted_in IS NULL
                        UNION ALL SELECT entry.id FROM entry JOIN below ON entry.parent_id = below.id WHERE entry.deleted_in IS NULL
                    )
                    UPDATE entry SET last_seen = ? WHERE id IN below
                    """,
                arguments: [id, scanID])
        }
        if summary.isRescan || summary.resumed {
            // Only the top of a deleted subtree needs its own change row for a reader to see it;
            // every entry gets one anyway, so a query by entry finds it.
            try db.execute(
                sql: """
                    INSERT INTO change (scan_id, entry_id, kind)
                    SELECT ?, id, 'deleted' FROM entry WHERE root_id = ? AND deleted_in IS NULL AND last_seen <> ?
                    """,
                arguments: [scanID, rootID, scanID])
            summary.deleted += db.changesCount
            try db.execute(
                sql: "UPDATE entry SET deleted_in = ? WHERE root_id = ? AND deleted_in IS NULL AND last_seen <> ?",
                arguments: [scanID, rootID, scanID])
        }
        if summary.resumed {
            // What the killed part of this scan found was recorded under the same scan id, and is
            // not found again (those entries were last seen by this scan already): the summary
            // counts it from the change rows, one per change, as the counters do. It said
            // `0 moved` for a move the killed part had recorded, which `diff` shows.
            let counts = try Row.fetchAll(db, sql: "SELECT kind, COUNT(*) FROM change WHERE scan_id = ? GROUP BY kind", arguments: [scanID])
            var byKind: [String: Int] = [:]
            for row in counts { byKind[row[0]] = row[1] }
            summary.added = byKind["added"] ?? 0
            summary.modified = byKind["modified"] ?? 0
            summary.moved = byKind["moved"] ?? 0
            summary.deleted = byKind["deleted"] ?? 0
        }
        try db.execute(
            sql: "UPDATE scan SET finished = ?, entries = ?, errors = ? WHERE id = ?",
            arguments: [Date().timeIntervalSince1970, summary.entries, summary.errors, scanID])
    }

    /// Hashes the files of this root whose size another live file shares and that have no hash
    /// yet; each is opened beneath the root without following links, and checked to be the
    /// catalogued inode before its bytes count.
    private mutating func hashShared() throws(CatalogError) -> Int {
        let rootID = self.rootID
        let candidates = try catalog.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, inode FROM entry
                    WHERE root_id = ? AND kind = 0 AND deleted_in IS NULL AND sha256 IS NULL AND size > 0
                      AND size IN (SELECT size FROM entry WHERE kind = 0 AND deleted_in IS NULL GROUP BY size HAVING COUNT(*) > 1)
                    """,
                arguments: [rootID]
            ).map { (id: $0["id"] as Int64, inode: UInt64(storedBits: $0["inode"])) }
        }
        let root = Directory(adopting: located.descriptor, policy: ResolutionPolicy(scope: .beneath, refusesSymlinks: true))
        var hashed = 0
        var digests: [(Int64, Data)] = []
        for candidate in candidates {
            guard let relative = filePaths[candidate.id],
                let file = try? root.open(bytes: relative, options: .readOnly),
                let status = try? file.status(), status.inode == candidate.inode, status.kind == .regular,
                let digest = try? FileDigest.sha256(of: file)
            else { continue }
            digests.append((candidate.id, Data(digest)))
            hashed += 1
            if digests.count >= 1_000 {
                try store(digests)
                digests = []
            }
        }
        try store(digests)
        return hashed
    }

    private func store(_ digests: [(Int64, Data)]) throws(CatalogError) {
        guard !digests.isEmpty else { return }
        try catalog.write { db in
            for (id, digest) in digests {
                try db.execute(sql: "UPDATE entry SET sha256 = ? WHERE id = ?", arguments: [digest, id])
            }
        }
    }
}

extension CatalogEntryKind {
    init(_ kind: FileKind) {
        switch kind {
        case .regular: self = .file
        case .directory: self = .directory
        case .symlink: self = .symlink
        default: self = .other
        }
    }
}

extension Timestamp {
    /// Nanoseconds since 1970 (saturating; times before 1678 or after 2262 are clamped).
    var nanosecondsSince1970: Int64 {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(Int64(nanoseconds))
        return overflow2 ? .max : sum
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

/// Where a stored bookmark's bytes can be read again, when the quick check does not settle it.
enum StoredSource: Sendable {
    /// The caller's array (kept, not copied).
    case bytes([UInt8])
    /// A record of the file being read.
    case file(offset: Int, length: Int)
}

/// A stored bookmark whose facts the quick view read (``BookmarkQuickView``), waiting for its
/// one check: a `statx` of its path, or the volume walk of a large batch.
struct QuickPending: Sendable {
    var index: Int
    var source: StoredSource
    /// The recorded path re-rooted at the volume's mount point now: where an unmoved object is.
    var current: [UInt8]
    /// The recorded path, when it differs from ``current`` (the volume is mounted elsewhere).
    var recorded: [UInt8]?
    var inode: UInt64
    var birthTime: Timestamp
    var generation: UInt32?
    var subvolume: UInt64?
    var handle: FileHandleData?
    var volumeMountPointChanged: Bool
    var volumeNameChanged: Bool

    var recordedPath: [UInt8] { recorded ?? current }

    /// Whether `status` is this bookmark's object (inode, birth time, subvolume), as
    /// `Recorded.matches` decides for an object found by `FileID.lookUpKnown`.
    func matches(_ status: FileStatus) -> Bool {
        guard status.inode == inode, let born = status.birthTime, born == birthTime else { return false }
        if let subvolume, let other = status.subvolume, subvolume != other { return false }
        return true
    }
}

/// The volume's pending bookmarks, in arrival order.
struct QuickGroup {
    var volume: Volume
    var items: [QuickPending] = []
}

/// The volume facts of the last stored bookmark, for the next one on the same volume: a library's
/// bookmarks mostly share a few volumes, and locating one and comparing its name cost more than
/// the rest of the quick read.
struct QuickVolumeMemo: Sendable {
    var uuid: [UInt8]
    var path: [UInt8]?
    var name: [UInt8]?
    var volume: Volume
    var key: String
    var mountPointChanged: Bool
    var nameChanged: Bool
    /// The volume's unique mount id (`STATX_MNT_ID_UNIQUE`), once an object found on it showed it.
    var uniqueMountID: UniqueMountID?

    /// Whether a record's volume UUID, path and name are this memo's, compared where they lie in
    /// the record.
    func isSame(
        uuid: Slice<UnsafeRawBufferPointer>, path: Slice<UnsafeRawBufferPointer>?, name: Slice<UnsafeRawBufferPointer>?
    ) -> Bool {
        func same(_ slice: Slice<UnsafeRawBufferPointer>?, _ kept: [UInt8]?) -> Bool {
            switch (slice, kept) {
            case (nil, nil): return true
            case (let slice?, let kept?): return RawBytes.equal(UnsafeRawBufferPointer(rebasing: slice), kept)
            default: return false
            }
        }
        return same(uuid, self.uuid) && same(path, self.path) && same(name, self.name)
    }

    /// Whether `status` is of an object on this memo's mount, told without the shared tables.
    func isMount(of status: FileStatus) -> Bool {
        if let id = status.mountID { return id == volume.mountID }
        if let unique = status.uniqueMountID, let known = uniqueMountID { return unique == known }
        return false
    }
}

/// One stored record, as the batch is handed it: bytes in the reader's buffer (valid during the
/// call) or the caller's array.
enum StoredRecord {
    case buffer(UnsafeRawBufferPointer, offset: Int)
    case array([UInt8])

    var source: StoredSource {
        switch self {
        case .buffer(let bytes, let offset): return .file(offset: offset, length: bytes.count)
        case .array(let bytes): return .bytes(bytes)
        }
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .buffer(let bytes, _): return body(bytes)
        case .array(let bytes): return bytes.withUnsafeBytes(body)
        }
    }
}

/// What the quick pass made of one stored record.
enum StoredOutcome: Sendable {
    /// Not the plain case (or the check could not decide): decoded in full, usual steps.
    case fullPath
    /// Nothing is at its path: it waits for the volume's walk.
    case absent(QuickPending, QuickVolumeMemo)
    /// Already in the batch's results (an unmoved one, written there by the thread that checked it).
    case settled
}

extension BatchResolution {
    /// Takes stored records in order: each one's quick view, its unmoved check (one `statx`) and,
    /// when that fails, whether its path is empty, all on several threads when there are many;
    /// then, on the calling thread and in order, the results, the bookmarks that wait for a walk,
    /// and full decoding for the rest.
    mutating func add(stored records: [StoredRecord]) {
        let base = results.count
        // A chunk of a file is a few thousand records: enough work for every thread.
        let threads = records.count >= 256 ? threads(for: 4096) : threads(for: records.count)
        // Every record's slot first: the threads write the unmoved ones (most of a library) there
        // themselves, so the calling thread does not copy them once more.
        results.append(contentsOf: repeatElement(Self.unsettled, count: records.count))
        var outcomes = [StoredOutcome](repeating: .settled, count: records.count)
        let (options, directory) = (options, directory)
        results.withUnsafeMutableBufferPointer { resultBuffer in
            outcomes.withUnsafeMutableBufferPointer { buffer in
                // Each chunk writes its own slots only; the records' bytes live until this call returns.
                nonisolated(unsafe) let slots = buffer
                nonisolated(unsafe) let resultSlots = resultBuffer
                nonisolated(unsafe) let records = records
                let chunks = threads > 1 ? min(threads * 4, records.count) : 1
                let work = { @Sendable (chunk: Int) in
                    guard let results = resultSlots.baseAddress else { return }
                    var memo: QuickVolumeMemo?
                    for index in (records.count * chunk / chunks)..<(records.count * (chunk + 1) / chunks) {
                        // An unmoved one's result is made in its slot (`.settled`): a result is a
                        // few hundred bytes, and each copy of it was a `memmove`.
                        let outcome = records[index].withBytes {
                            Self.quickOutcome(
                                $0, source: records[index].source, index: base + index, memo: &memo, options: options,
                                directory: directory, result: results + base + index)
                        }
                        if case .settled = outcome { continue }
                        slots[index] = outcome
                    }
                }
                if chunks > 1 { ConcurrentWork.perform(iterations: chunks, work) } else { work(0) }
            }
        }
        for (offset, outcome) in outcomes.enumerated() {
            tick(at: base + offset)
            switch outcome {
            case .settled: break
            case .absent(let item, let memo):
                quick[memo.key, default: QuickGroup(volume: memo.volume)].items.append(item)
            case .fullPath:
                let decoded = records[offset].withBytes { bytes in
                    Result { () throws(BookmarkError) in try Bookmark(data: Array(bytes)) }
                }
                switch decoded {
                case .success(let bookmark): add(bookmark, at: base + offset)
                case .failure(let error): results[base + offset] = .failure(error)
                }
            }
        }
    }

    /// Room for `count` results, when the batch can tell how many are coming (a file's size).
    mutating func reserve(_ count: Int) {
        results.reserveCapacity(min(count, 50_000_000))
    }

    /// The quick pass for one record: plain layout with an inode, a birth time and a volume UUID,
    /// on a mounted volume that cannot block; then one `statx` of its path. `memo` keeps the last
    /// volume located (one per thread). An unmoved one's result is written to `result`.
    static func quickOutcome(
        _ bytes: UnsafeRawBufferPointer, source: StoredSource, index: Int, memo: inout QuickVolumeMemo?,
        options: ResolutionOptions, directory: MountedVolumes, result: UnsafeMutablePointer<Result<Resolution, BookmarkError>>
    ) -> StoredOutcome {
        if options.isCancelled { return .fullPath }
        // Spans, not copies: the path is made once, where the object is now.
        guard let spans = BookmarkQuickSpans(bytes), let inode = spans.inode, let birth = spans.file.birthTime,
            let uuidSpan = spans.volumeUUIDSpan,
            volumeMemo(
                uuid: bytes[uuidSpan], path: spans.volumePathSpan.map { bytes[$0] }, name: spans.volumeNameSpan.map { bytes[$0] },
                memo: &memo, directory: directory),
            let mountPoint = memo?.volume.mountPoint, let mountPointChanged = memo?.mountPointChanged,
            let nameChanged = memo?.nameChanged,
            let (current, sameAsRecorded) = spans.currentPath(bytes, mountPoint: mountPoint)
        else { return .fullPath }
        var recorded: [UInt8]?
        if !sameAsRecorded {
            guard let joined = spans.joinedPath(bytes) else { return .fullPath }
            recorded = joined
        }
        guard !directory.hazard(of: current).needsCare else { return .fullPath }
        var handle: FileHandleData?
        if let type = spans.file.handleType, let span = spans.file.handle {
            handle = FileHandleData(type: type, bytes: Array(UnsafeRawBufferPointer(rebasing: bytes[span])), mountID: MountID(rawValue: 0))
        }
        let item = QuickPending(
            index: index, source: source, current: current, recorded: recorded,
            inode: inode, birthTime: Timestamp(seconds: birth.seconds, nanoseconds: birth.nanoseconds),
            generation: spans.file.generation.map { UInt32(truncatingIfNeeded: $0) }, subvolume: spans.file.subvolumeID,
            handle: handle, volumeMountPointChanged: mountPointChanged, volumeNameChanged: nameChanged)
        // In place: the memo is not copied for every record.
        return memo?.check(item, volumes: directory, result: result) ?? .fullPath
    }

    /// Sets `memo` to the mounted volume a bookmark records, and how its mount point and name
    /// changed since; `false` when it is not mounted. `memo` answers a run of bookmarks on one
    /// volume.
    static func volumeMemo(
        uuid uuidSlice: Slice<UnsafeRawBufferPointer>, path pathSlice: Slice<UnsafeRawBufferPointer>?,
        name nameSlice: Slice<UnsafeRawBufferPointer>?, memo: inout QuickVolumeMemo?, directory: MountedVolumes
    ) -> Bool {
        // Compared in place (`memo?.`): binding the memo copied it, five retains per record. The
        // strings are copied only for a new memo.
        if memo?.isSame(uuid: uuidSlice, path: pathSlice, name: nameSlice) == true { return true }
        let uuid = Array(uuidSlice)
        let path = pathSlice.map { Array($0) }
        let name = nameSlice.map { Array($0) }
        guard let text = String(validating: uuid, as: UTF8.self), !text.isEmpty,
            case .mounted(let volume) = directory.locate(uuid: text, hint: path)
        else { return false }
        let nameChanged = name.flatMap { ByteString(bytes: $0).string }.map { $0 != Resolver.currentVolumeName(volume) }
        let fresh = QuickVolumeMemo(
            uuid: uuid, path: path, name: name, volume: volume.withOwnBox(), key: volume.key,
            mountPointChanged: path.map { PathBytes($0) != PathBytes(volume.mountPoint) } ?? false,
            nameChanged: nameChanged ?? false)
        memo = fresh
        return true
    }

    /// As `Resolver.finish` for the pending bookmark's object, found at `path` as `id`.
    static func resolution(_ item: QuickPending, at path: [UInt8], id: FileID, matchedBy: MatchKind, entriesSearched: Int)
        -> Resolution
    {
        let here = PathBytes(path)
        let recorded = PathBytes(item.recordedPath)
        var changes = here == recorded ? [] : Resolver.pathChanges(here, from: recorded)
        if item.volumeMountPointChanged { changes.insert(.volumeMountPoint) }
        if item.volumeNameChanged { changes.insert(.volumeName) }
        return Resolution(
            pathBytes: path, matchedBy: matchedBy, changes: changes, isInTrash: here.isInTrash,
            volume: id.volume, fileID: id, entriesSearched: entriesSearched, notes: [])
    }
}

extension QuickVolumeMemo {
    /// The one `statx` of a pending path on this memo's volume, as `Resolver.inspect` and
    /// `Resolver.finish` do it for an object found at its recorded path: the result, written to
    /// `result` (`.settled`), when the recorded object is there; the wait for the walk when
    /// nothing is (`ENOENT`, `ENOTDIR`); the full path otherwise. The memo learns its volume's
    /// unique mount id from the first object found on it.
    mutating func check(
        _ item: QuickPending, volumes: MountedVolumes, result: UnsafeMutablePointer<Result<Resolution, BookmarkError>>
    ) -> StoredOutcome {
        switch FileStatus.lookup(pathBytes: item.current, followSymlinks: false) {
        case .failure(let errno):
            return errno == .noSuchFileOrDirectory || errno == .notDirectory ? .absent(item, self) : .fullPath
        case .success(let status):
            let known: FileID
            if item.matches(status), isMount(of: status) {
                // On the volume located for the record (nearly always): its facts are in hand, so
                // the shared tables' locks are not taken once per bookmark by every thread.
                known = FileID.known(
                    status, on: volume, mountID: volume.mountID, generation: item.generation, handle: item.handle)
            } else if let found = FileID.lookUpKnown(
                status: status, inode: item.inode, birthTime: item.birthTime, generation: item.generation,
                handle: item.handle, volumes: volumes), found.mountID == volume.mountID
            {
                known = found
                if let unique = status.uniqueMountID { uniqueMountID = unique }
            } else {
                // Not the object, or the object on another mount (a bind mount of one of the
                // volume's folders, say), whose result reports that mount as `resolve()` does.
                return .fullPath
            }
            if let subvolume = item.subvolume, let other = known.subvolume, subvolume != other { return .fullPath }
            result.pointee = .success(
                BatchResolution.resolution(item, at: item.current, id: known, matchedBy: .path, entriesSearched: 0))
            return .settled
        }
    }
}

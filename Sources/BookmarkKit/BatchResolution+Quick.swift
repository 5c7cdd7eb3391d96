// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Dispatch
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
struct QuickVolumeMemo {
    var uuid: [UInt8]
    var path: [UInt8]?
    var name: [UInt8]?
    var volume: Volume
    var key: String
    var mountPointChanged: Bool
    var nameChanged: Bool
}

extension BatchResolution {
    /// Takes stored bookmark data: read quickly and kept for its check when it is the plain case
    /// (see ``quickPending(_:source:index:)``); otherwise decoded in full now and taken through
    /// the usual steps.
    mutating func add(stored bytes: UnsafeRawBufferPointer, source: StoredSource) {
        add(stored: bytes, source: source, view: BookmarkQuickView(bytes))
    }

    /// ``add(stored:source:)`` for many records of a file, their quick views read on several
    /// threads when there are many (the rest is one pass on the calling thread, in order).
    mutating func add(stored records: [(bytes: UnsafeRawBufferPointer, offset: Int)]) {
        let threads = records.count >= 256 ? threads(for: 4096) : 1
        var views = [BookmarkQuickView?](repeating: nil, count: records.count)
        if threads > 1 {
            views.withUnsafeMutableBufferPointer { buffer in
                // Each chunk writes its own slots; the records' bytes live until this call returns.
                nonisolated(unsafe) let slots = buffer
                nonisolated(unsafe) let records = records
                let chunks = min(threads * 4, records.count)
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    for index in (records.count * chunk / chunks)..<(records.count * (chunk + 1) / chunks) {
                        slots[index] = BookmarkQuickView(records[index].bytes)
                    }
                }
            }
        } else {
            for (index, record) in records.enumerated() { views[index] = BookmarkQuickView(record.bytes) }
        }
        for (record, view) in zip(records, views) {
            add(stored: record.bytes, source: .file(offset: record.offset, length: record.bytes.count), view: view)
        }
    }

    /// Room for `count` results, when the batch can tell how many are coming (a file's size).
    mutating func reserve(_ count: Int) {
        results.reserveCapacity(min(count, 50_000_000))
    }

    /// ``add(stored:source:)`` with the record's quick view already read (`nil`: not plain).
    mutating func add(stored bytes: UnsafeRawBufferPointer, source: StoredSource, view: BookmarkQuickView?) {
        tick()
        let index = results.count
        results.append(Self.unsettled)
        if let view, quickPending(view, source: source, index: index) { return }
        do throws(BookmarkError) {
            add(try Bookmark(data: Array(bytes)), at: index)
        } catch {
            results[index] = .failure(error)
        }
    }

    /// Keeps the facts of the unmoved check for later, when `bytes` are the plain layout and carry
    /// an inode, a birth time and a volume UUID, and that volume is mounted and cannot block.
    /// `false` otherwise: the full path then decides, and reports errors as usual.
    mutating func quickPending(_ view: BookmarkQuickView, source: StoredSource, index: Int) -> Bool {
        if options.cancellation?.isCancelled == true || Task.isCancelled { return false }
        guard let inode = view.inode, let birth = view.linux.birthTime,
            let uuidBytes = view.volumeUUID, let memo = volumeMemo(uuid: uuidBytes, path: view.volumePath, name: view.volumeName)
        else { return false }
        let current = Self.rerooted(view.path, relative: view.linux.mountRelativePath?.bytes, at: memo.volume)
        guard !directory.hazard(of: current).needsCare else { return false }
        var handle: FileHandleData?
        if let type = view.linux.handleType, let handleBytes = view.linux.handle {
            handle = FileHandleData(type: type, bytes: handleBytes, mountID: MountID(rawValue: 0))
        }
        let item = QuickPending(
            index: index, source: source, current: current, recorded: current == view.path ? nil : view.path,
            inode: inode, birthTime: Timestamp(seconds: birth.seconds, nanoseconds: birth.nanoseconds),
            generation: view.linux.generation.map { UInt32(truncatingIfNeeded: $0) }, subvolume: view.linux.subvolumeID,
            handle: handle, volumeMountPointChanged: memo.mountPointChanged, volumeNameChanged: memo.nameChanged)
        quick[memo.key, default: QuickGroup(volume: memo.volume)].items.append(item)
        return true
    }

    /// The mounted volume a bookmark records, and how its mount point and name changed since.
    mutating func volumeMemo(uuid: [UInt8], path: [UInt8]?, name: [UInt8]?) -> QuickVolumeMemo? {
        if let last = lastVolume, last.uuid == uuid, last.path == path, last.name == name { return last }
        guard let text = String(validating: uuid, as: UTF8.self), !text.isEmpty,
            case .mounted(let volume) = directory.locate(uuid: text, hint: path)
        else { return nil }
        let nameChanged = name.flatMap { ByteString(bytes: $0).string }.map { $0 != Resolver.currentVolumeName(volume) }
        let memo = QuickVolumeMemo(
            uuid: uuid, path: path, name: name, volume: volume, key: volume.key,
            mountPointChanged: path.map { PathBytes($0) != PathBytes(volume.mountPoint) } ?? false,
            nameChanged: nameChanged ?? false)
        lastVolume = memo
        return memo
    }

    /// `Recorded.rerooted(at:)` for the quick view's facts.
    static func rerooted(_ path: [UInt8], relative: [UInt8]?, at volume: Volume) -> [UInt8] {
        guard let relative else { return path }
        let point = volume.mountPoint
        if point == [UInt8(ascii: "/")] { return relative }
        return relative == [UInt8(ascii: "/")] ? point : point + relative
    }

    /// As `Resolver.finish` for the pending bookmark's object, found at `path` with `status`.
    static func resolution(_ item: QuickPending, at path: [UInt8], status: FileStatus, volume: Volume, matchedBy: MatchKind,
                    entriesSearched: Int) -> Resolution
    {
        var changes = Set<Change>()
        let here = PathBytes(path)
        let recorded = PathBytes(item.recordedPath)
        if here != recorded {
            changes.insert(.path)
            if here.lastComponent != recorded.lastComponent { changes.insert(.name) }
            if here.parent != recorded.parent { changes.insert(.parent) }
        }
        if item.volumeMountPointChanged { changes.insert(.volumeMountPoint) }
        if item.volumeNameChanged { changes.insert(.volumeName) }
        let id = FileID.known(status, on: volume, mountID: volume.mountID, generation: item.generation, handle: item.handle)
        return Resolution(
            path: FilePath(bytes: path), matchedBy: matchedBy, changes: changes, isInTrash: here.isInTrash, volume: volume,
            fileID: id, entriesSearched: entriesSearched, notes: [])
    }
}

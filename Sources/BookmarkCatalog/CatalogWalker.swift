// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles

/// What the scan's walker saw, in the order the writer must record it (each directory before
/// what is in it).
enum WalkItem: Sendable {
    /// An entry. `key` numbers entries in walk order; `parentKey` is its directory's key (`-1` for
    /// the root). `descend` is false for a directory on another mount, whose contents are not read.
    case entry(key: Int32, parentKey: Int32, name: [UInt8], status: FileStatus, generation: UInt32?, linkTarget: [UInt8]?, relative: [UInt8], descend: Bool)
    /// An entry or a directory that could not be read; `unlistedKey` is the directory whose
    /// contents stay as catalogued.
    case failure(path: [UInt8], error: FileSystemError, unlistedKey: Int32?)
    /// A directory was listed (for progress).
    case listed(path: [UInt8])
}

/// Batches from the walker thread to the writer, at most `capacity` waiting: the walk (system
/// calls) and the writing (SQLite) run on two cores at once, and memory stays bounded.
final class WalkChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[WalkItem]] = []
    private var closed = false
    private var abandoned = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Hands a batch over; `false` when the writer gave up (the walker then stops).
    func put(_ batch: [WalkItem]) -> Bool {
        condition.withLock {
            while batches.count >= capacity && !abandoned { condition.wait() }
            guard !abandoned else { return false }
            batches.append(batch)
            condition.broadcast()
            return true
        }
    }

    /// The next batch, or `nil` once the walker is done and everything was taken.
    func take() -> [WalkItem]? {
        condition.withLock {
            while batches.isEmpty && !closed { condition.wait() }
            guard !batches.isEmpty else { return nil }
            condition.broadcast()
            return batches.removeFirst()
        }
    }

    /// The walker is done.
    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// The writer gave up: the walker's next `put` fails.
    func abandon() {
        condition.withLock {
            abandoned = true
            batches = []
            condition.broadcast()
        }
    }
}

/// The walk itself: directories through their descriptors, no symbolic link followed, one file
/// system unless asked; on a thread of its own.
struct CatalogWalker: Sendable {
    let root: OwnedDescriptor
    let rootPath: [UInt8]
    let rootStatus: FileStatus
    let rootGeneration: UInt32?
    let options: ScanOptions
    /// The catalog's own files (the database, its `-wal`, `-shm` and `-journal`), when the catalog
    /// lies under the root: left out, or every scan would report them changed.
    let ownFiles: OwnFiles?

    /// A directory (by device and inode) and the names in it to leave out.
    struct OwnFiles: Sendable {
        var device: DeviceNumber
        var inode: UInt64
        var names: Set<[UInt8]>
    }

    private struct Pending {
        let parent: OwnedDescriptor?
        let name: [UInt8]
        let key: Int32
        let relative: [UInt8]
        let absolute: [UInt8]
        let status: FileStatus
    }

    func run(into channel: WalkChannel) {
        defer { channel.close() }
        var batch: [WalkItem] = []
        batch.reserveCapacity(512)
        // The item is moved into the batch (not copied: a copy of an entry went through the
        // runtime's generic tuple copy), and each new batch starts at its full size (growing one
        // from empty copied its items nine times).
        func emit(_ item: consuming WalkItem) -> Bool {
            batch.append(item)
            guard batch.count >= 512 else { return true }
            let full = batch
            batch = []
            batch.reserveCapacity(512)
            return channel.put(full)
        }
        var nextKey: Int32 = 0
        _ = emit(
            .entry(
                key: 0, parentKey: -1, name: PathBytes(rootPath).lastComponent ?? [0x2F], status: rootStatus, generation: rootGeneration,
                linkTarget: nil, relative: [], descend: true))
        var stack = [Pending(parent: nil, name: [], key: 0, relative: [], absolute: rootPath, status: rootStatus)]
        while let item = stack.popLast() {
            let directory: OwnedDescriptor
            if let parent = item.parent {
                do {
                    directory = try parent.openChildDirectory(item.name, sameMount: !options.crossingMounts)
                } catch {
                    guard emit(.failure(path: item.absolute, error: error, unlistedKey: item.key)) else { return }
                    continue
                }
            } else {
                directory = root
            }
            var entries: [DirectoryEntry] = []
            do {
                try directory.forEachDirectoryEntry { entry in
                    entries.append(entry)
                    return true
                }
            } catch {
                guard emit(.failure(path: item.absolute, error: error, unlistedKey: item.key)) else { return }
                continue
            }
            var children: [Pending] = []
            // Paths are built only where they are needed (a directory to descend into, an error, a
            // file to hash): two allocations per entry were a measurable part of the walk.
            func absolute(_ name: [UInt8]) -> [UInt8] { item.absolute == [0x2F] ? [0x2F] + name : item.absolute + [0x2F] + name }
            func relative(_ name: [UInt8]) -> [UInt8] { item.relative.isEmpty ? name : item.relative + [0x2F] + name }
            let skipped = ownFiles.flatMap { own in
                own.device == item.status.device && own.inode == item.status.inode ? own.names : nil
            }
            for entry in entries {
                if let skipped, skipped.contains(entry.name) { continue }
                let status: FileStatus
                do {
                    status = try directory.statusOfChild(entry.name)
                } catch {
                    // Gone since the listing (a scan racing with deletions), or unreadable.
                    if error.errno != .noSuchFileOrDirectory {
                        guard emit(.failure(path: absolute(entry.name), error: error, unlistedKey: nil)) else { return }
                    }
                    continue
                }
                nextKey += 1
                let generation =
                    options.generations
                    ? FileID.generation(ofChild: entry.name, in: directory, inode: status.inode)
                    : nil
                let target = status.kind == .symlink ? try? directory.symlinkTarget(ofChild: entry.name) : nil
                let descend = status.kind == .directory && (status.device == rootStatus.device || options.crossingMounts)
                let hashed = options.hashing && status.kind == .regular
                guard
                    emit(
                        .entry(
                            key: nextKey, parentKey: item.key, name: entry.name, status: status, generation: generation,
                            linkTarget: target, relative: hashed ? relative(entry.name) : [], descend: descend))
                else { return }
                if descend {
                    children.append(
                        Pending(
                            parent: directory, name: entry.name, key: nextKey, relative: relative(entry.name),
                            absolute: absolute(entry.name), status: status))
                }
            }
            guard emit(.listed(path: item.absolute)) else { return }
            stack.append(contentsOf: children.reversed())
        }
        if !batch.isEmpty { _ = channel.put(batch) }
    }
}

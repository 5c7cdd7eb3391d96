// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

// A library's shared walk reads the whole volume: on one thread it was a third of a large batch.
// Split over the cores by subtree, the walk's parts share one budget and stop together.

/// What a walk split over threads found: each part's finds, the entries read, and whether it
/// ended without running out of its budget or being cancelled (or found everything).
struct ParallelWalkResult<Found> {
    var parts: [[Found]]
    var entries: Int
    var complete: Bool
    /// A mount of the volume's own file system was met and not entered (``VolumeWalker/skippedMounts``).
    var skippedMounts = false
}

extension BatchResolution {
    /// Walks the volume from its mount point on `threads` threads.
    ///
    /// The top levels are read on the calling thread, breadth first, until a level has sixteen
    /// directories per thread (or the third level is reached); each directory of that level is
    /// then one part, walked depth first by one thread at a time (``VolumeWalker``), all parts
    /// sharing `share`. A part opens its directory relative to its parent when it starts and
    /// closes it when it ends, so the descriptors open at once are the level above (fewer than
    /// sixteen per thread) and the parts running, however wide the tree. `examine` is called on
    /// the thread that read the entry, with that part's own list to add to; it returns `true`
    /// when the walk found everything, which ends every part at its next check
    /// (``WalkShare/finish()``).
    static func parallelWalk<Found>(
        _ volume: Volume, threads: Int, share: WalkShare, cancellation: CancellationFlag?,
        interesting: (DirectoryEntryView) -> Bool,
        examine: (DirectoryEntry, OwnedDescriptor, [UInt8], inout [Found]) -> Bool
    ) -> ParallelWalkResult<Found> {
        guard let root = try? Directory.current.open(volume.mountPointPath, options: [.readOnly, .directory, .nonBlocking])
        else { return ParallelWalkResult(parts: [], entries: 0, complete: false) }
        // Set by any part that meets a mount of the volume's own file system.
        let skipped = AtomicFlag()
        var top: [Found] = []
        var level = [(directory: root, path: volume.mountPoint)]
        // The directories of the next level: the index of their parent in `level`, and the name.
        var children: [(parent: Int, name: [UInt8])] = []
        var entries = 0
        var depth = 0
        var finished = false
        while !finished {
            children = []
            for (index, (directory, path)) in level.enumerated() where !finished {
                var hits: [DirectoryEntry] = []
                try? directory.forEachDirectoryEntryView { view in
                    entries += 1
                    if interesting(view) { hits.append(view.entry) }
                    if view.kind == .directory || view.kind == .unknown { children.append((index, Array(view.nameBytes))) }
                    return true
                }
                for hit in hits where examine(hit, directory, path, &top) {
                    finished = true
                    break
                }
            }
            depth += 1
            if finished || children.count >= threads * 16 || depth >= 3 || children.isEmpty { break }
            // A small level: open it (fewer than sixteen directories per thread) and read it here.
            var next: [(directory: OwnedDescriptor, path: [UInt8])] = []
            for (parent, name) in children {
                do throws(FileSystemError) {
                    let opened = try level[parent].directory.openChildDirectory(name, sameMount: true)
                    next.append((opened, PathBytes(level[parent].path).appending(name).bytes))
                } catch {
                    if VolumeWalker.isMountOfSameFileSystem(error, name, in: level[parent].directory, as: root) {
                        skipped.set()
                    }
                }
            }
            level = next
        }
        _ = share.add(entries)
        if finished || isCancelled(cancellation) || children.isEmpty {
            return ParallelWalkResult(
                parts: [top], entries: entries, complete: !isCancelled(cancellation) || finished, skippedMounts: skipped.value)
        }
        var parts = [[Found]](repeating: [], count: children.count + 1)
        var counts = [Int](repeating: 0, count: children.count)
        let stopped = AtomicFlag()
        parts.withUnsafeMutableBufferPointer { partSlots in
            counts.withUnsafeMutableBufferPointer { countSlots in
                // Each part writes its own slots only; the closures and the level are only read.
                nonisolated(unsafe) let parts = partSlots
                nonisolated(unsafe) let counts = countSlots
                nonisolated(unsafe) let interesting = interesting
                nonisolated(unsafe) let examine = examine
                let (level, children) = (level, children)
                ConcurrentWork.perform(iterations: children.count) { part in
                    let (parent, name) = children[part]
                    if share.isFinished { return }
                    // A part that would start after the budget ran out does not read anything.
                    if share.total >= share.budget.entries || ContinuousClock.now >= share.deadline
                        || isCancelled(cancellation)
                    {
                        stopped.set()
                        return
                    }
                    // An unreadable or vanished directory is skipped, as the walker skips one.
                    let directory: OwnedDescriptor
                    do throws(FileSystemError) {
                        directory = try level[parent].directory.openChildDirectory(name, sameMount: true)
                    } catch {
                        if VolumeWalker.isMountOfSameFileSystem(error, name, in: level[parent].directory, as: root) {
                            skipped.set()
                        }
                        return
                    }
                    defer { try? directory.close() }
                    var walker = VolumeWalker(share: share, cancellation: cancellation)
                    var found: [Found] = []
                    do {
                        let all = try walker.walk(
                            directory, path: PathBytes(level[parent].path).appending(name).bytes, interesting: interesting,
                            examine: { entry, directory, path in examine(entry, directory, path, &found) })
                        if all { share.finish() }
                    } catch {
                        if !share.isFinished { stopped.set() }
                    }
                    parts[part + 1] = found
                    counts[part] = walker.entries
                    if walker.skippedMounts { skipped.set() }
                }
            }
        }
        parts[0] = top
        let complete = share.isFinished || !stopped.value
        return ParallelWalkResult(
            parts: parts, entries: entries + counts.reduce(0, +), complete: complete, skippedMounts: skipped.value)
    }

    /// One budget and one deadline for every part of a volume's walk, from the batch's options.
    func walkShare() -> WalkShare {
        WalkShare(
            budget: options.budget,
            deadline: ContinuousClock.now.advanced(by: min(options.budget.time, .seconds(86_400 * 365))))
    }

    /// Whether the caller cancelled (the flag or the task).
    static func isCancelled(_ flag: CancellationFlag?) -> Bool {
        flag?.isCancelled == true || Task.isCancelled
    }

}

/// The pending bookmarks a walk has found, for walkers on several threads: each is claimed once.
/// (A pthread mutex, `Locked`, not `Synchronization.Mutex`: ThreadSanitizer sees the one and not
/// the other, Tools/sanitizers.)
final class WalkClaims: Sendable {
    private let state: Locked<(claimed: [Bool], remaining: Int)>

    init(count: Int) {
        state = Locked(([Bool](repeating: false, count: count), count))
    }

    /// Whether `position` is claimed already: a walker need not confirm it again.
    func isClaimed(_ position: Int) -> Bool {
        state.withLock { $0.claimed[position] }
    }

    /// Claims `position`: `false` when another walker claimed it first. `allFound` is set when
    /// this claim was the last.
    func claim(_ position: Int, allFound: inout Bool) -> Bool {
        state.withLock { state in
            guard !state.claimed[position] else { return false }
            state.claimed[position] = true
            state.remaining -= 1
            allFound = state.remaining == 0
            return true
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

/// Progress of a batch resolution.
public struct BatchProgress: Sendable, Hashable {
    /// Bookmarks settled so far (resolved or failed).
    public var settled: Int
    /// Bookmarks in the batch.
    public var total: Int
    /// Directory entries read by the shared walk so far.
    public var entriesWalked: Int
    /// The mount point of the volume whose walk is about to start or just ended; `nil` outside the walks.
    public var volume: [UInt8]? = nil

    /// Progress with these counts.
    public init(settled: Int, total: Int, entriesWalked: Int, volume: [UInt8]? = nil) {
        self.settled = settled
        self.total = total
        self.entriesWalked = entriesWalked
        self.volume = volume
    }
}

extension Bookmark {
    /// Resolves many bookmarks in one call, sharing one walk per volume for all that need a search.
    ///
    /// First every bookmark goes through the steps that need no search (volume, path, replacement,
    /// relative, handle). The rest are grouped by volume, and each volume is walked once from its
    /// mount point, looking for all their inodes (and parent inodes) at the same time; the walk stops
    /// early when every one is found. The budget applies to each volume's walk. A bookmark on a
    /// FUSE or network volume is resolved alone, under its response timeout (as ``resolve(_:volumes:)``).
    ///
    /// - Parameters:
    ///   - bookmarks: The bookmarks, in any order.
    ///   - options: As for ``resolve(_:volumes:)``.
    ///   - volumes: A mounted-volume table to reuse (a fresh one is read when `nil`).
    ///   - progress: Called every 4,096 bookmarks of the first phase and after it, before and after
    ///     each volume's walk, and at the end, on the calling thread.
    /// - Returns: One result per bookmark, in the same order.
    public static func resolveAll(
        _ bookmarks: [Bookmark], options: ResolutionOptions = ResolutionOptions(), volumes: MountedVolumes? = nil,
        progress: (@Sendable (BatchProgress) -> Void)? = nil
    ) -> [Result<Resolution, BookmarkError>] {
        var results = [Result<Resolution, BookmarkError>?](repeating: nil, count: bookmarks.count)
        let directory: MountedVolumes
        do {
            directory = try volumes ?? MountedVolumes.shared()
        } catch {
            let failure = BookmarkError(.fileSystem, "cannot read the mount table: \(error)")
            return bookmarks.map { _ in .failure(failure) }
        }
        struct Waiting {
            var index: Int
            var resolver: Resolver
            var volume: Volume?
            var replacement: Found?
            var deleted: Bool
        }
        var waiting: [String: (volume: Volume, items: [Waiting])] = [:]
        var pathOnly: [Waiting] = []
        for (index, bookmark) in bookmarks.enumerated() {
            if let progress, index > 0, index % 4096 == 0 {
                progress(BatchProgress(settled: index, total: bookmarks.count, entriesWalked: 0))
            }
            do throws(BookmarkError) {
                let recorded = try bookmark.recordedCache.recorded(for: bookmark.record)
                var resolver = Resolver(recorded: recorded, options: options, directory: directory)
                let start = try resolver.begin()
                if directory.hazard(of: start.current).needsCare {
                    // On a FUSE or network volume: alone and watched, never in a shared walk that a
                    // volume which stopped answering would hold.
                    results[index] = .success(try resolver.guarded(start) { resolver, start throws(BookmarkError) in
                        try resolver.run(from: start)
                    })
                    continue
                }
                switch try resolver.runUntilSearch(from: start) {
                case .resolved(let resolution): results[index] = .success(resolution)
                case .needsSearch(let volume, _, let replacement, let deleted):
                    // The shared walk starts at the mount point, not at the old directory.
                    let item = Waiting(
                        index: index, resolver: resolver, volume: volume, replacement: replacement, deleted: deleted)
                    if let volume, options.search, recorded.inode != nil, !deleted {
                        waiting[volume.key, default: (volume, [])].items.append(item)
                    } else {
                        pathOnly.append(item)
                    }
                }
            } catch {
                results[index] = .failure(error)
            }
        }
        var settled = results.count { $0 != nil }
        progress?(BatchProgress(settled: settled, total: bookmarks.count, entriesWalked: 0))

        var walked = 0
        for (_, group) in waiting.sorted(by: { $0.key < $1.key }) {
            var byInode: [UInt64: [Int]] = [:]
            for (position, item) in group.items.enumerated() {
                if let inode = item.resolver.recorded.inode { byInode[inode, default: []].append(position) }
                if let parent = item.resolver.recorded.parentInode { byInode[parent, default: []].append(position) }
            }
            var found = [Found?](repeating: nil, count: group.items.count)
            var remaining = group.items.count
            var walker = VolumeWalker(budget: options.budget, cancellation: options.cancellation)
            var stop: VolumeWalker.Stop?
            progress?(BatchProgress(
                settled: settled, total: bookmarks.count, entriesWalked: walked, volume: group.volume.mountPoint))
            if let root = try? Directory.current.open(group.volume.mountPointPath, options: [.readOnly, .directory, .nonBlocking]) {
                let volume = group.volume
                let items = group.items
                let base = walked
                let total = bookmarks.count
                let settledBefore = settled
                do {
                    _ = try walker.walk(
                    root, path: volume.mountPoint,
                    interesting: { byInode[$0.inode] != nil },
                    examine: { entry, parent, path in
                        for position in byInode[entry.inode] ?? [] where found[position] == nil {
                            let goal = SearchGoal(
                                recorded: items[position].resolver.recorded,
                                name: items[position].resolver.recorded.components.last ?? [])
                            if let hit = goal.confirm(entry, in: parent, at: path, on: volume) {
                                found[position] = hit
                                remaining -= 1
                            }
                        }
                        return remaining == 0
                    })
                } catch {
                    stop = error
                }
                walked = base + walker.entries
                progress?(BatchProgress(
                    settled: settledBefore, total: total, entriesWalked: walked, volume: volume.mountPoint))
            }
            for (position, item) in group.items.enumerated() {
                var resolver = item.resolver
                resolver.entriesSearched = walker.entries
                if let hit = found[position] {
                    results[item.index] = .success(resolver.finish(hit, volume: group.volume))
                } else if case .cancelled = stop {
                    results[item.index] = .failure(resolver.error(.cancelled, "cancelled during the shared walk"))
                } else if case .exhausted = stop, item.replacement == nil {
                    results[item.index] = .failure(resolver.error(
                        .notFound, "the shared walk ran out of its budget after \(walker.entries) entries",
                        searchExhausted: true))
                } else {
                    results[item.index] = Result { () throws(BookmarkError) in
                        try resolver.conclude(excluding: group.volume, replacement: item.replacement)
                    }
                }
                settled += 1
            }
        }
        for item in pathOnly {
            var resolver = item.resolver
            results[item.index] = Result { () throws(BookmarkError) in
                try resolver.conclude(excluding: item.volume, replacement: item.replacement, deleted: item.deleted)
            }
            settled += 1
        }
        progress?(BatchProgress(settled: settled, total: bookmarks.count, entriesWalked: walked))
        return results.map { $0 ?? .failure(BookmarkError(.fileSystem, "internal: unsettled bookmark")) }
    }
}

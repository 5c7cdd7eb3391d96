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
    /// relative, handle, and the later place ``ResolutionOptions/locationHints`` give). The rest
    /// are grouped by volume, and each volume is walked once from its mount point, looking for all
    /// their inodes (and parent inodes) at the same time; the walk stops
    /// early when every one is found. The budget applies to each volume's walk, which is split over
    /// the batch's threads by subtree (``ResolutionOptions/batchThreads``), its parts sharing that
    /// budget; an object with two names (a hard link) is reported at the name the first part to
    /// confirm it met. A bookmark the walk did not find because the budget ran out fails with
    /// `notFound` and ``BookmarkError/searchExhausted``. A bookmark on a
    /// FUSE or network volume is resolved alone, under its response timeout (as ``resolve(_:volumes:)``).
    /// With location hints, a failure says where they last saw the object (``BookmarkError/lastSighting``),
    /// as a single resolution's does.
    ///
    /// - Parameters:
    ///   - bookmarks: The bookmarks, in any order.
    ///   - options: As for ``resolve(_:volumes:)``.
    ///   - volumes: A mounted-volume table to reuse (the process's shared table when `nil`).
    ///   - progress: Called every 4,096 bookmarks of the first phase and after it, before and after
    ///     each volume's walk, and at the end, on the calling thread.
    /// - Returns: One result per bookmark, in the same order.
    public static func resolveAll(
        _ bookmarks: [Bookmark], options: ResolutionOptions = ResolutionOptions(), volumes: MountedVolumes? = nil,
        progress: (@Sendable (BatchProgress) -> Void)? = nil
    ) -> [Result<Resolution, BookmarkError>] {
        var batch: BatchResolution
        do throws(BookmarkError) {
            batch = try BatchResolution(options: options, volumes: volumes, expected: bookmarks.count, progress: progress)
        } catch {
            return bookmarks.map { _ in .failure(error) }
        }
        batch.addAll(bookmarks)
        return batch.finish()
    }
}

/// One batch resolution: the steps that need no search, bookmark by bookmark as they arrive, then
/// one shared walk per volume for the rest (see ``Bookmark/resolveAll(_:options:volumes:progress:)``).
///
/// Only the bookmarks that wait for a walk are kept; the others are settled at once, so a batch fed
/// from stored data never holds every decoded bookmark at the same time.
struct BatchResolution {
    struct Waiting: Sendable {
        var index: Int
        var resolver: Resolver
        var volume: Volume?
        var replacement: Found?
        var deleted: Bool
    }

    let options: ResolutionOptions
    let directory: MountedVolumes
    let progress: (@Sendable (BatchProgress) -> Void)?
    /// The bookmarks the caller announced (for progress; grows when more arrive).
    private var expected: Int
    /// One per bookmark added, in order; ``unsettled`` until settled.
    var results: [Result<Resolution, BookmarkError>] = []
    /// The placeholder of a result not settled yet (never returned: every bookmark is settled by
    /// ``finish(refetch:)``). Not `nil` in an optional: the last pass that unwrapped a million
    /// optionals copied every result once more. Its message is short enough to be stored inline,
    /// so that a library's million placeholders hold no reference to count.
    static let unsettled: Result<Resolution, BookmarkError> = .failure(BookmarkError(.fileSystem, "unsettled"))
    var waiting: [String: (volume: Volume, items: [Waiting])] = [:]
    var pathOnly: [Waiting] = []
    /// Stored bookmarks the quick view read, by volume, waiting for their check (`BatchResolution+Quick.swift`).
    var quick: [String: QuickGroup] = [:]

    /// - Throws: ``BookmarkError`` (`fileSystem`) when no table is given and the mount table is unreadable.
    init(
        options: ResolutionOptions, volumes: MountedVolumes?, expected: Int,
        progress: (@Sendable (BatchProgress) -> Void)?
    ) throws(BookmarkError) {
        self.options = options
        directory = try Bookmark.mountedVolumes(volumes, lastKnownPath: nil)
        self.expected = expected
        self.progress = progress
        results.reserveCapacity(expected)
    }

    /// Takes one bookmark through the steps that need no search; keeps it for the walk if they
    /// did not settle it.
    mutating func add(_ bookmark: Bookmark) {
        tick()
        let index = results.count
        results.append(Self.unsettled)
        add(bookmark, at: index)
    }

    /// ``add(_:)`` for a bookmark whose place in the results is already taken.
    mutating func add(_ bookmark: Bookmark, at index: Int) {
        record(Self.firstPhase(bookmark, index: index, options: options, directory: directory))
    }

    /// What the steps that need no search made of one bookmark.
    enum FirstPhase: Sendable {
        case settled(Int, Result<Resolution, BookmarkError>)
        /// Waiting for a search; `walkable`: the shared walk of its volume may find it.
        case waiting(Waiting, walkable: Bool)
    }

    /// The steps that need no search, for one bookmark: pure, so blocks of bookmarks can take them
    /// on several threads (``addAll(_:)``).
    static func firstPhase(_ bookmark: Bookmark, index: Int, options: ResolutionOptions, directory: MountedVolumes)
        -> FirstPhase
    {
        var known: Recorded?
        do throws(BookmarkError) {
            let recorded = try bookmark.recordedCache.recorded(for: bookmark.record)
            known = recorded
            var resolver = Resolver(recorded: recorded, options: options, directory: directory)
            let start = try resolver.begin()
            if directory.hazard(of: start.current).needsCare {
                // On a FUSE or network volume: alone and watched, never in a shared walk that a
                // volume which stopped answering would hold.
                return .settled(index, .success(try resolver.guarded(start) { resolver, start throws(BookmarkError) in
                    try resolver.run(from: start)
                }))
            }
            switch try resolver.runUntilSearch(from: start) {
            case .resolved(let resolution): return .settled(index, .success(resolution))
            case .needsSearch(let volume, _, let replacement, let deleted):
                // The catalog's later place comes before any search, as in `resolve()`
                // (`searchThenConclude`); only a batch with location hints has one to try.
                if !deleted, let volume, let found = resolver.catalogCandidate(on: volume) {
                    return .settled(index, .success(resolver.finish(found, volume: volume)))
                }
                // The shared walk starts at the mount point, not at the old directory.
                let item = Waiting(
                    index: index, resolver: resolver, volume: volume, replacement: replacement, deleted: deleted)
                // A bookmark whose path was refused (`EACCES`) is not searched for: see `Resolver.pathDenied`.
                return .waiting(
                    item, walkable: volume != nil && options.search && recorded.inode != nil && !deleted && !resolver.pathDenied)
            }
        } catch {
            guard let known else { return .settled(index, .failure(error)) }
            return .settled(index, .failure(Resolver.withLastSighting(error, of: known, options: options)))
        }
    }

    /// Files what ``firstPhase(_:index:options:directory:)`` concluded. `volumeWalked`: the batch
    /// already walked the bookmark's volume completely for it, so it is not walked for again.
    mutating func record(_ phase: FirstPhase, volumeWalked: Bool = false) {
        switch phase {
        case .settled(let index, let result): results[index] = result
        case .waiting(let item, let walkable):
            if walkable, !volumeWalked, let volume = item.volume {
                waiting[volume.key, default: (volume, [])].items.append(item)
            } else {
                pathOnly.append(item)
            }
        }
    }

    /// ``add(_:)`` for every bookmark, the first phase of each block of 4,096 on as many threads
    /// as ``ResolutionOptions/batchThreads`` allows; progress still comes after each block, on
    /// the calling thread.
    mutating func addAll(_ bookmarks: [Bookmark]) {
        let threads = threads(for: bookmarks.count)
        guard threads > 1 else {
            for bookmark in bookmarks { add(bookmark) }
            return
        }
        var start = 0
        while start < bookmarks.count {
            let end = min(start + 4096, bookmarks.count)
            let base = results.count
            var phases = [FirstPhase?](repeating: nil, count: end - start)
            let (options, directory, first) = (options, directory, start)
            phases.withUnsafeMutableBufferPointer { buffer in
                // Each chunk writes its own slots only.
                nonisolated(unsafe) let slots = buffer
                let count = end - start
                let chunks = min(threads * 8, count)
                ConcurrentWork.perform(iterations: chunks) { chunk in
                    for offset in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) {
                        slots[offset] = Self.firstPhase(
                            bookmarks[first + offset], index: base + offset, options: options, directory: directory)
                    }
                }
            }
            for phase in phases {
                tick()
                results.append(Self.unsettled)
                if let phase { record(phase) }
            }
            start = end
        }
    }

    /// Progress every 4,096 bookmarks of the first phase.
    mutating func tick() { tick(at: results.count) }

    /// ``tick()`` for the bookmark at `index`, whose slot may already be in the results.
    mutating func tick(at index: Int) {
        if index >= expected { expected = index + 1 }
        if let progress, index > 0, index % 4096 == 0 {
            progress(BatchProgress(settled: index, total: expected, entriesWalked: 0))
        }
    }

    /// Adds the location hints' last sighting to the failure at `index`, as `resolve()` does.
    private mutating func annotateFailure(at index: Int, of recorded: Recorded) {
        guard options.locationHints != nil, case .failure(let error) = results[index] else { return }
        results[index] = .failure(Resolver.withLastSighting(error, of: recorded, options: options))
    }

    /// Walks each volume once for the bookmarks that wait, concludes the rest, and returns one
    /// result per bookmark added, in order.
    mutating func finish(refetch: (StoredSource) -> Result<[UInt8], BookmarkError> = StoredSource.inMemory)
        -> [Result<Resolution, BookmarkError>]
    {
        settleQuick(refetch: refetch)
        let total = results.count
        var settled = total - pathOnly.count - waiting.values.reduce(0) { $0 + $1.items.count }
        progress?(BatchProgress(settled: settled, total: total, entriesWalked: 0))

        var walked = 0
        for (_, group) in waiting.sorted(by: { $0.key < $1.key }) {
            var byInode: [UInt64: [Int]] = [:]
            for (position, item) in group.items.enumerated() {
                if let inode = item.resolver.recorded.inode { byInode[inode, default: []].append(position) }
                if let parent = item.resolver.recorded.parentInode { byInode[parent, default: []].append(position) }
            }
            progress?(BatchProgress(
                settled: settled, total: total, entriesWalked: walked, volume: group.volume.mountPoint))
            // One walk of the volume on every core the batch may use, as a stored library's walk
            // (``parallelWalk(_:threads:share:cancellation:interesting:examine:)``): a volume walk
            // is large whatever the number of bookmarks it looks for. Each position is claimed by
            // the first part that confirms it.
            let volume = group.volume
            let items = group.items
            let candidates = byInode  // read by every part, written by none
            let claims = WalkClaims(count: items.count)
            let walk = Self.parallelWalk(
                volume, threads: threads(for: 4096), share: walkShare(), cancellation: options.cancellation,
                interesting: { candidates[$0.inode] != nil },
                examine: { (entry, parent, path, hits: inout [(Int, Found)]) -> Bool in
                    var allFound = false
                    // A position found already (by its own inode or its parent's) is not
                    // confirmed again: confirming opens the entry.
                    for position in candidates[entry.inode] ?? [] where !claims.isClaimed(position) {
                        let goal = SearchGoal(
                            recorded: items[position].resolver.recorded,
                            name: items[position].resolver.recorded.components.last ?? [])
                        if let hit = goal.confirm(entry, in: parent, at: path, on: volume),
                            claims.claim(position, allFound: &allFound)
                        {
                            hits.append((position, hit))
                        }
                    }
                    return allFound
                })
            var found = [Found?](repeating: nil, count: items.count)
            for part in walk.parts {
                for (position, hit) in part { found[position] = hit }
            }
            // Why a walk that did not find everything ended early: the caller cancelled, or the
            // budget (entries or time) ran out. (No part at all: the mount point did not open, and
            // nothing was walked; the bookmarks take the usual conclusion, as they did when the
            // walk was serial.)
            let stop: VolumeWalker.Stop? =
                walk.complete || walk.parts.isEmpty
                ? nil : (options.isCancelled ? .cancelled : .exhausted)
            let entries = walk.entries
            walked += entries
            progress?(BatchProgress(settled: settled, total: total, entriesWalked: walked, volume: volume.mountPoint))
            for (position, item) in group.items.enumerated() {
                var resolver = item.resolver
                resolver.entriesSearched = entries
                if let hit = found[position] {
                    results[item.index] = .success(resolver.finish(hit, volume: group.volume))
                } else if case .cancelled = stop {
                    results[item.index] = .failure(resolver.error(.cancelled, "cancelled during the shared walk"))
                } else if case .exhausted = stop, item.replacement == nil {
                    results[item.index] = .failure(resolver.error(
                        .notFound, "the shared walk ran out of its budget after \(entries) entries",
                        searchExhausted: true))
                } else if walk.skippedMounts, stop == nil {
                    // The shared walk did not enter a mount it met inside the volume (a bind mount
                    // of one of its folders, say): the bookmark's own search, as `resolve()`
                    // makes it, starts where the object was and may be behind that mount.
                    let current = resolver.recorded.rerooted(at: group.volume)
                    results[item.index] = Result { () throws(BookmarkError) in
                        try resolver.searchThenConclude(
                            on: group.volume, from: current, replacement: item.replacement, deleted: item.deleted)
                    }
                } else {
                    results[item.index] = Result { () throws(BookmarkError) in
                        try resolver.conclude(excluding: group.volume, replacement: item.replacement)
                    }
                }
                annotateFailure(at: item.index, of: item.resolver.recorded)
                settled += 1
            }
        }
        for item in pathOnly {
            var resolver = item.resolver
            results[item.index] = Result { () throws(BookmarkError) in
                try resolver.conclude(excluding: item.volume, replacement: item.replacement, deleted: item.deleted)
            }
            annotateFailure(at: item.index, of: item.resolver.recorded)
            settled += 1
        }
        progress?(BatchProgress(settled: settled, total: total, entriesWalked: walked))
        return results
    }
}

// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

extension StoredSource {
    /// Reads bytes kept in memory; a file record needs the batch's reader.
    static func inMemory(_ source: StoredSource) -> Result<[UInt8], BookmarkError> {
        switch source {
        case .bytes(let bytes): return .success(bytes)
        case .file: return .failure(BookmarkError(.fileSystem, "internal: a stored record without its file"))
        }
    }
}

extension BatchResolution {
    /// Settles the stored bookmarks whose path the quick pass found empty, volume by volume: one
    /// walk of the volume finds them all at once (when the usual steps before a search could not
    /// apply, ``walksForAbsent``). What it does not settle is decoded in full and goes through
    /// the usual steps. `refetch` may be called on several threads at once.
    mutating func settleQuick(refetch: (StoredSource) -> Result<[UInt8], BookmarkError>) {
        let groups = quick.sorted { $0.key < $1.key }.map(\.value)
        quick = [:]
        for group in groups {
            // Every one waiting here had nothing at its path (the quick pass checked).
            let absent = group.items
            guard !absent.isEmpty else { continue }
            // Those the walk covered completely without finding them are not walked for again.
            let (hits, entries, complete) = walksForAbsent ? walk(absent, on: group.volume) : ([], 0, false)
            // The finds become results, and the rest are read again and take the first steps, on
            // every core the batch may use: a tenth of a library moved is a hundred thousand
            // results to build. Each position writes its own slots only.
            var phases = [FirstPhase?](repeating: nil, count: absent.count)
            let (options, directory, volume) = (options, directory, group.volume)
            let threads = threads(for: absent.count)
            results.withUnsafeMutableBufferPointer { resultBuffer in
                phases.withUnsafeMutableBufferPointer { phaseBuffer in
                    nonisolated(unsafe) let resultSlots = resultBuffer
                    nonisolated(unsafe) let phaseSlots = phaseBuffer
                    let chunks = threads > 1 ? min(threads * 8, absent.count) : 1
                    func work(_ chunk: Int) {
                        for position in (absent.count * chunk / chunks)..<(absent.count * (chunk + 1) / chunks) {
                            let item = absent[position]
                            if position < hits.count, let hit = hits[position] {
                                let id = FileID.known(
                                    hit.status, on: volume, mountID: volume.mountID, generation: item.generation,
                                    handle: item.handle)
                                resultSlots[item.index] = .success(Self.resolution(
                                    item, at: hit.path, id: id, matchedBy: .search, entriesSearched: entries))
                                continue
                            }
                            switch refetch(item.source) {
                            case .success(let bytes):
                                do throws(BookmarkError) {
                                    phaseSlots[position] = Self.firstPhase(
                                        try Bookmark(data: bytes), index: item.index, options: options, directory: directory)
                                } catch {
                                    resultSlots[item.index] = .failure(error)
                                }
                            case .failure(let error): resultSlots[item.index] = .failure(error)
                            }
                        }
                    }
                    if chunks > 1 { ConcurrentWork.perform(iterations: chunks, work) } else { work(0) }
                }
            }
            // Filed in order, on this thread.
            for phase in phases {
                if let phase { record(phase, volumeWalked: complete) }
            }
        }
    }

    /// The threads for `count` checks (``ResolutionOptions/batchThreads``).
    func threads(for count: Int) -> Int {
        if options.batchThreads > 0 { return min(options.batchThreads, 64) }
        guard count >= 4096 else { return 1 }
        return min(ProcessFacts.onlineProcessors, 64)
    }

    /// Whether an object missing from its path may be looked for by the batch's own walk, before
    /// anything else: only when the usual steps between the path and the search would not apply
    /// (no relative base, no location hints, no handle this process can open).
    var walksForAbsent: Bool {
        options.search && options.relativeTo == nil && options.locationHints == nil
            && (!options.useHandles || !ProcessFacts.isEffectivelyRoot)
    }

    /// Where the walk found a pending bookmark's object.
    struct WalkHit {
        var path: [UInt8]
        var status: FileStatus
    }

    /// Walks the volume once from its mount point, on every core the batch may use
    /// (``parallelWalk(_:threads:share:cancellation:interesting:examine:)``), finding every pending
    /// object by inode and confirming it with a `statx` relative to its directory; the walk ends
    /// when all are found. `complete`: the walk ended without running out of its budget or being
    /// cancelled, and entered every directory it met on the volume (no other mount among them).
    func walk(_ items: [QuickPending], on volume: Volume) -> (hits: [WalkHit?], entries: Int, complete: Bool) {
        // Inode → first position; `chain` links the positions that share an inode.
        var first: [UInt64: Int] = [:]
        first.reserveCapacity(items.count)
        var chain = [Int](repeating: -1, count: items.count)
        for (position, item) in items.enumerated() {
            if let earlier = first[item.inode] { chain[position] = earlier }
            first[item.inode] = position
        }
        progress?(BatchProgress(settled: 0, total: results.count, entriesWalked: 0, volume: volume.mountPoint))
        let claims = WalkClaims(count: items.count)
        // A volume walk is large whatever the number of bookmarks it looks for.
        let walked = Self.parallelWalk(
            volume, threads: threads(for: 4096), share: walkShare(), cancellation: options.cancellation,
            interesting: { first[$0.inode] != nil },
            examine: { (entry, directory, directoryPath, found: inout [(Int, WalkHit)]) -> Bool in
                guard let status = try? directory.statusOfChild(entry.name) else { return false }
                var position = first[entry.inode] ?? -1
                var allFound = false
                while position >= 0 {
                    if items[position].matches(status), claims.claim(position, allFound: &allFound) {
                        found.append((position, WalkHit(path: PathBytes(directoryPath).appending(entry.name).bytes, status: status)))
                    }
                    position = chain[position]
                }
                return allFound
            })
        var hits = [WalkHit?](repeating: nil, count: items.count)
        for part in walked.parts {
            for (position, hit) in part { hits[position] = hit }
        }
        progress?(BatchProgress(settled: 0, total: results.count, entriesWalked: walked.entries, volume: volume.mountPoint))
        // A mount met inside the volume (a bind mount of one of its folders, say) was not entered:
        // what was not found may be there, so it is not reported as searched for.
        return (hits, walked.entries, walked.complete && !walked.skippedMounts)
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Which entries of which roots an export writes, after the include and exclude globs
/// (``CatalogExportOptions`` states the rule), with each entry's parent found by position.
struct ExportSelection {
    /// One root's entries and the ones chosen.
    struct Root {
        /// The snapshot as given.
        let snapshot: CatalogRootSnapshot
        /// Positions in `snapshot.entries` to write, in the snapshot's order (parents first).
        let kept: [Int]
        /// For every position in `snapshot.entries`, its parent's position, or -1 for a top-level
        /// entry (the root, or an entry whose parent is not before it in the snapshot).
        let parents: [Int]
    }

    let roots: [Root]
    /// Every volume of the snapshots, each once, in the order first seen.
    let volumes: [CatalogVolume]
    private let volumesByID: [Int64: CatalogVolume]

    init(_ snapshots: [CatalogRootSnapshot], options: CatalogExportOptions, keepingAncestors: Bool) {
        var volumes: [CatalogVolume] = []
        var byID: [Int64: CatalogVolume] = [:]
        for snapshot in snapshots where byID[snapshot.volume.id] == nil {
            byID[snapshot.volume.id] = snapshot.volume
            volumes.append(snapshot.volume)
        }
        self.volumes = volumes
        volumesByID = byID
        let matcher = ExportGlobMatcher(include: options.include, exclude: options.exclude, ignoringCase: options.ignoresCase)
        roots = snapshots.map { Self.select($0, matcher: matcher, keepingAncestors: keepingAncestors) }
    }

    /// The volume an entry is on: its own (an entry under a mount point crossed by the scan), or
    /// the root's when the snapshots do not carry that volume.
    func volume(of entry: CatalogEntry, in root: Root) -> CatalogVolume {
        volumesByID[entry.volumeID] ?? root.snapshot.volume
    }

    /// One pass down (a parent's verdict reaches its children), and for the HTML page one pass up
    /// (a chosen entry keeps the folders above it). Linear in the entries.
    private static func select(_ snapshot: CatalogRootSnapshot, matcher: ExportGlobMatcher, keepingAncestors: Bool) -> Root {
        let entries = snapshot.entries
        var positions: [Int64: Int] = [:]
        positions.reserveCapacity(entries.count)
        var parents = [Int](repeating: -1, count: entries.count)
        var included = [Bool](repeating: false, count: entries.count)
        var excluded = [Bool](repeating: false, count: entries.count)
        var chosen = [Bool](repeating: false, count: entries.count)
        for (index, entry) in entries.enumerated() {
            // Only an earlier entry can be a parent: that keeps a malformed snapshot from looping.
            let parent = entry.parentID.flatMap { positions[$0] } ?? -1
            parents[index] = parent
            positions[entry.id] = index
            let parentIncluded = parent >= 0 && included[parent]
            let parentExcluded = parent >= 0 && excluded[parent]
            excluded[index] = parentExcluded || matcher.excludes(entry)
            included[index] = !excluded[index] && (parentIncluded || matcher.includes(entry))
            chosen[index] = included[index]
        }
        if keepingAncestors {
            for index in entries.indices.reversed() where chosen[index] && parents[index] >= 0 {
                chosen[parents[index]] = true
            }
            // A root is shown even when nothing under it was chosen: the page says it is empty.
            for index in entries.indices where parents[index] < 0 { chosen[index] = true }
        }
        let kept = entries.indices.filter { chosen[$0] }
        return Root(snapshot: snapshot, kept: kept, parents: parents)
    }
}

/// The include and exclude globs, compiled once for `fnmatch(3)` (``FoldingGlob``: `-i` folds
/// the case of UTF-8 names too).
struct ExportGlobMatcher {
    private struct Compiled {
        let glob: FoldingGlob
        let onPath: Bool
    }

    private let include: [Compiled]
    private let exclude: [Compiled]

    init(include: [CatalogGlob], exclude: [CatalogGlob], ignoringCase: Bool) {
        func compile(_ glob: CatalogGlob) -> Compiled {
            // FNM_PATHNAME for a path pattern, so that `*` stays within one component, as in a shell.
            Compiled(
                glob: FoldingGlob(bytes: glob.bytes, ignoringCase: ignoringCase, pathname: glob.matchesPath), onPath: glob.matchesPath)
        }
        self.include = include.map(compile)
        self.exclude = exclude.map(compile)
    }

    /// Whether an include pattern matches the entry (every entry when there are none).
    func includes(_ entry: CatalogEntry) -> Bool {
        include.isEmpty || include.contains { matches($0, entry) }
    }

    /// Whether an exclude pattern matches the entry.
    func excludes(_ entry: CatalogEntry) -> Bool {
        exclude.contains { matches($0, entry) }
    }

    private func matches(_ compiled: Compiled, _ entry: CatalogEntry) -> Bool {
        compiled.glob.matches(compiled.onPath ? entry.path : entry.name)
    }
}

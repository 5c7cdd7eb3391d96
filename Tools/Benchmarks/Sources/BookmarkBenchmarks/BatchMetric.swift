// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
#if canImport(Glibc)
    import Glibc
#endif
import SystemPackage

extension Bench {
    /// 10,000 bookmarks (fewer on a small tree), of which a tenth moved: nine in ten of those within
    /// their project folder, one in ten far (to another top-level folder). Resolved with
    /// `Bookmark.resolveAll` and a shared `MountedVolumes`, without handles and then with them
    /// (and, with `oneByOne`, one `resolve` at a time); the baseline is one `find` walk of the volume.
    /// Creates the batch's bookmarks and moves a tenth of their files (see ``batch(bookmarks:runs:oneByOne:)``).
    mutating func prepareBatch(_ wanted: Int) throws
        -> (bookmarks: [Bookmark], expected: [String], count: Int, movedCount: Int, farCount: Int)
    {
        let projectPool = workload.projectFiles.map(\.file).filter { !used.contains($0) }
        let otherPool = workload.otherFiles.filter { !used.contains($0) }
        let count = min(wanted, (projectPool.count + otherPool.count) / 2)
        let movedCount = count / 10
        let farCount = max(movedCount / 10, 1)
        guard projectPool.count >= movedCount * 2, count > 0 else { throw BenchError("tree too small for the batch") }
        var chosen = spread(projectPool, count / 2)
        chosen += spread(otherPool, count - chosen.count)
        used.formUnion(chosen)
        let bookmarks = try chosen.map { try Bookmark.create(for: FilePath(full($0)), volumes: volumes) }
        var expected = chosen.map { full($0) }
        let projectOf = Dictionary(workload.projectFiles.map { ($0.file, $0.project) }, uniquingKeysWith: { a, _ in a })
        for index in 0..<movedCount {  // chosen[0..<count/2] are project files
            let file = chosen[index]
            let name = file.split(separator: "/").last.map(String.init) ?? "file"
            let destination = index < farCount
                ? "Downloads/batch-far-\(index)-\(name)" : "\(projectOf[file] ?? "Downloads")/docs/batch-\(index)-\(name)"
            try move(file, to: destination)
            expected[index] = full(destination)
        }
        return (bookmarks, expected, count, movedCount, farCount)
    }

    mutating func batch(bookmarks wanted: Int, runs: Int, oneByOne: Bool) throws -> [MetricResult] {
        let (bookmarks, expected, count, movedCount, farCount) = try prepareBatch(wanted)
        let noHandles = ResolutionOptions(useHandles: false)
        var misses = 0
        // Results are checked after each measurement, outside the timed closure (the check makes a
        // FilePath per bookmark, which is the benchmark's cost, not the library's).
        var results: [Result<Resolution, BookmarkError>] = []
        let once = Measure(runs: min(runs, 3), minimumTime: .zero)
        let batched = try once.compare(
            ours: { results = Bookmark.resolveAll(bookmarks, options: noHandles, volumes: volumes) },
            baseline: { try find([]) })
        misses = try check(results, expected)
        let label = "resolve \(count) bookmarks, \(movedCount) moved (\(farCount) far), one batch"
        var rows = [
            MetricResult(
                label, baseline: "one find walk", target: .ratioAtMost(1.2), batched,
                note: "Bookmark.resolveAll, shared MountedVolumes, no handles, default budget; \(misses) not found")
        ]
        if geteuid() == 0 {
            let withHandles = try once.compare(
                ours: { results = Bookmark.resolveAll(bookmarks, volumes: volumes) },
                baseline: { try find([]) })
            misses = try check(results, expected)
            rows.append(
                MetricResult(
                    "same batch as root (handles)", baseline: "one find walk", target: .none, withHandles,
                    note: "Bookmark.resolveAll with handles; \(misses) not found"))
        }
        // An application's launch: the bookmarks arrive as stored data, so each is decoded and
        // resolved for the first time (no derived state cached from an earlier run).
        let stored = try bookmarks.map { try $0.data() }
        let launch = try once.compare(
            ours: {
                let decoded = try stored.map { try Bookmark(data: $0) }
                results = Bookmark.resolveAll(decoded, options: noHandles, volumes: volumes)
            },
            baseline: { try find([]) })
        misses = try check(results, expected)
        rows.append(
            MetricResult(
                "same batch from stored data (decode + first resolution)", baseline: "one find walk", target: .none,
                launch, note: "Bookmark(data:) for each, then resolveAll, no handles; \(misses) not found"))
        if oneByOne {
            let single = try once.compare(
                ours: {
                    results = bookmarks.map { b in Result { () throws(BookmarkError) in try b.resolve(noHandles, volumes: volumes) } }
                },
                baseline: { try find([]) })
            misses = try check(results, expected)
            rows.append(
                MetricResult(
                    "same batch, one by one", baseline: "one find walk", target: .none, single,
                    note: "resolve(_:volumes:) per bookmark, no handles; \(misses) not found"))
        }
        return rows
    }

    /// Checks that every result is the expected path; returns how many were not found.
    private func check(_ results: [Result<Resolution, BookmarkError>], _ expected: [String]) throws -> Int {
        var misses = 0
        for (result, path) in zip(results, expected) {
            switch result {
            case .success(let resolution):
                guard resolution.path == FilePath(path) else { throw BenchError("resolved to \(resolution.path), not \(path)") }
            case .failure(let error):
                guard error.code == .notFound else { throw error }
                misses += 1
            }
        }
        return misses
    }

    /// `count` items spread evenly over `pool`.
    private func spread(_ pool: [String], _ count: Int) -> [String] {
        guard count > 0, !pool.isEmpty else { return [] }
        let step = max(pool.count / count, 1)
        return (0..<min(count, pool.count)).map { pool[($0 * step) % pool.count] }
    }
}

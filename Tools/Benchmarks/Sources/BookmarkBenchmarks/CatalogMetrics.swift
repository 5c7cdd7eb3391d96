// SPDX-License-Identifier: Apache-2.0
// Volume catalogs (issue 17): a scan of the benchmark tree against `find -xdev -printf`, the
// baseline the issue names, measured in the same run.
import BookmarkCatalog
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Bench {
    /// A first scan (an empty catalog) and a re-scan (nothing changed) of the whole tree, against
    /// `find ROOT -xdev -printf '%i %s %T@ %p\n' > /dev/null` as a whole process.
    mutating func catalogScan() throws -> [MetricResult] {
        let root = workload.root
        let catalogPath = "/var/tmp/swift-bookmarks-bench-\(getpid()).catalog"
        func removeCatalog() {
            for suffix in ["", "-wal", "-shm"] { unlink(catalogPath + suffix) }
        }
        defer { removeCatalog() }
        let find = ["find", root, "-xdev", "-printf", "%i %s %T@ %p\n"]
        let clock = ContinuousClock()
        var first: [Double] = []
        var again: [Double] = []
        var baseline: [Double] = []
        var entries = 0
        var bytes: Int64 = 0
        for run in 0..<max(3, measure.runs) {
            removeCatalog()
            let timedFind = { seconds(clock.measure { _ = Spawn.quiet(find) }) }
            if run % 2 == 1 { baseline.append(timedFind()) }
            let catalog = try Catalog(path: catalogPath)
            var summary: ScanSummary?
            first.append(seconds(try clock.measure { summary = try catalog.scan(root: root) }))
            again.append(seconds(try clock.measure { _ = try catalog.scan(root: root) }))
            if run % 2 == 0 { baseline.append(timedFind()) }
            entries = summary?.entries ?? 0
            let size = (try? FileManager.default.attributesOfItem(atPath: catalogPath)[.size] as? Int64) ?? 0
            bytes = size ?? 0
        }
        let perEntry = entries > 0 ? Double(bytes) / Double(entries) : 0
        return [
            MetricResult(
                "catalog scan of the tree, first (Catalog.scan)", baseline: "find -xdev -printf '%i %s %T@ %p'",
                target: .ratioAtMost(1.5), Comparison(ours: first, baseline: baseline),
                note: "\(entries) entries; statx + name_to_handle_at per entry, SQLite inserts; \(format(perEntry, 0)) bytes per entry on disk"),
            MetricResult(
                "catalog re-scan, nothing changed (Catalog.scan)", baseline: "find -xdev -printf '%i %s %T@ %p'",
                target: .none, Comparison(ours: again, baseline: baseline),
                note: "an identity look-up and an update per entry"),
        ]
    }
}

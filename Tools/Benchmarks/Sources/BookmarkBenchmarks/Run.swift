// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Makes a volume and a tree of `entries` entries, warms the cache with one `find` walk, writes
/// the tree back (`sync`), runs `body`, and destroys the volume whatever happens.
func withWorkload<T>(entries: Int, seed: UInt64, _ body: (Workload) throws -> T) throws -> T {
    let volume = try BenchVolume(entries: entries)
    defer { volume.destroy() }
    var generator = TreeGenerator(root: volume.mountPoint, entries: entries, seed: seed)
    let clock = ContinuousClock()
    let start = clock.now
    let workload = try generator.build()
    let built = clock.now - start
    _ = Spawn.quiet(["find", volume.mountPoint, "-xdev"])
    // The new tree is written back now, not by kernel threads while the first metrics run.
    sync()
    print(
        "tree: \(workload.entries) entries (\(workload.directories) folders, \(workload.projectFiles.count) project "
            + "source files) on \(volume.mountPoint), built in \(format(seconds(built), 1)) s (seed \(seed))")
    return try body(workload)
}

/// Every metric of the table, in order.
/// With `only`, just the named groups (see ``Options/metricGroups``).
func allMetrics(_ workload: Workload, measure: Measure, batch: Int, oneByOne: Bool,
                only: Set<String>? = nil) throws -> [MetricResult] {
    func wanted(_ group: String) -> Bool { only?.contains(group) ?? true }
    var bench = try Bench(workload: workload, measure: measure)
    var rows: [MetricResult] = []
    func add(_ new: [MetricResult]) {
        new.forEach(printProgress)
        rows += new
    }
    if wanted("unmoved") { add(try bench.unmoved()) }
    if wanted("default") { add(try bench.defaultPaths()) }
    if wanted("create") { add(try bench.create()) }
    if wanted("moved") { add([try bench.movedWithinProject()]) }
    if wanted("deleted") { add([try bench.deleted()]) }
    if wanted("batch") { add(try bench.batch(bookmarks: batch, runs: measure.runs, oneByOne: oneByOne)) }
    if wanted("handles"), geteuid() == 0 { add(try bench.movedWithHandles()) }
    if wanted("codec") { add(try bench.codec()) }
    if wanted("open") { add([try bench.openBeneathRoot()]) }
    if wanted("package") { add(try bench.packageSave(children: min(10_000, max(100, workload.entries / 2)))) }
    if wanted("catalog") { add(try bench.catalogScan()) }
    return rows
}

/// The moved- and deleted-file cases on one tree size.
struct SweepPoint: Codable {
    var entries: Int
    var moved: MetricResult
    var deleted: MetricResult
}

/// Prints the sweep as a Markdown table.
func printSweep(_ points: [SweepPoint]) {
    print("")
    print("| entries | moved: ours | moved: find | moved ratio | deleted: ours | deleted: find | deleted ratio |")
    print("|---|---|---|---|---|---|---|")
    for point in points {
        let moved = point.moved.comparison
        let deleted = point.deleted.comparison
        print(
            "| \(point.entries) | \(formatTime(moved.oursMedian)) | \(formatTime(moved.baselineMedian ?? .nan)) | "
                + "\(point.moved.ratioText) | \(formatTime(deleted.oursMedian)) | "
                + "\(formatTime(deleted.baselineMedian ?? .nan)) | \(point.deleted.ratioText) |")
    }
    print("")
}

/// The machine a run was measured on.
struct Machine: Codable {
    var cpus: Int
    var kernel: String
    var cpuModel: String

    static func current() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { String($0).trimmingWhitespace() } ?? "unknown"
        let kernel = (try? Spawn.check(["uname", "-r"])) ?? "unknown"
        return Machine(cpus: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), kernel: kernel, cpuModel: model)
    }

    var summary: String { "\(cpus) CPUs (\(cpuModel)), Linux \(kernel)" }
}

/// Everything a run measured, for `--json`.
struct RunReport: Codable {
    var machine: Machine
    var arguments: [String]
    var results: [MetricResult] = []
    var sweep: [SweepPoint] = []
    var library: [LibraryPoint] = []

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}

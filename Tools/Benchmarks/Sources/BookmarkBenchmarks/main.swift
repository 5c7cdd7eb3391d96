// SPDX-License-Identifier: Apache-2.0
// The benchmark tool of issue 7: builds a home-directory-shaped tree on a loop-mounted ext4
// volume and times resolution against the kernel floor, as ratios measured in the same run.
// Docs/PERFORMANCE.md has the results and the commands.
import CBenchBaseline
import Foundation

cbb_line_buffered_stdout()

// The library metric's child process (LibraryMetric.swift): runs unprivileged, so before the root check.
// `--library-child LIBRARY EXPECTED [VOLUME]`: with VOLUME, the floor in C is timed too.
if (4...5).contains(CommandLine.arguments.count), CommandLine.arguments[1] == "--library-child" {
    let arguments = CommandLine.arguments
    exit(LibraryMetric.childMain(library: arguments[2], expected: arguments[3], volume: arguments.count == 5 ? arguments[4] : nil))
}

// For working on the batch: the library child's batch alone, `N` times in one process, with each
// run's wall time and CPU time (`--library-repeat LIB N`, on a library kept by BOOKMARK_BENCH_HOLD).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--library-repeat" {
    exit(LibraryMetric.repeatMain(library: CommandLine.arguments[2], times: Int(CommandLine.arguments[3]) ?? 1))
}

guard let options = Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
    exit(2)
}
guard geteuid() == 0 else {
    print("benchmark: skipped: needs root (loop devices and mount)")
    exit(77)
}
BenchVolume.sweepDead()
Cleanup.installSignalHandlers()

let machine = Machine.current()
print("machine: \(machine.summary)")
let measure = Measure(runs: options.runs, minimumTime: .milliseconds(options.minimumMilliseconds))
var report = RunReport(machine: machine, arguments: Array(CommandLine.arguments.dropFirst()))
do {
    if let name = options.profile {
        try withWorkload(entries: options.entries, seed: options.seed) { workload in
            var bench = try Bench(workload: workload, measure: measure)
            try bench.profile(name, iterations: options.iterations)
        }
        Cleanup.all()
        exit(0)
    }
    if !options.sweepOnly {
        report.results = try withWorkload(entries: options.entries, seed: options.seed) { workload in
            try allMetrics(workload, measure: measure, batch: options.batch, oneByOne: options.oneByOne,
                           only: options.only)
        }
        printTable(report.results)
    }
    for size in options.sweep {
        let point = try withWorkload(entries: size, seed: options.seed) { workload in
            var bench = try Bench(workload: workload, measure: measure)
            return SweepPoint(entries: workload.entries, moved: try bench.movedWithinProject(), deleted: try bench.deleted())
        }
        print("sweep \(point.entries): moved \(point.moved.ratioText), deleted \(point.deleted.ratioText)")
        report.sweep.append(point)
    }
    if !report.sweep.isEmpty { printSweep(report.sweep) }
    for size in options.library {
        report.library.append(try LibraryMetric.run(count: size, runs: options.libraryRuns, seed: options.seed))
    }
    if !report.library.isEmpty { LibraryMetric.printTable(report.library) }
    if let path = options.json { try report.write(to: path) }
    print("peak RSS (getrusage ru_maxrss) of this process: \(format(peakMemoryMiB(), 1)) MiB")
} catch {
    print("benchmark: failed: \(error)")
    Cleanup.all()
    exit(1)
}
Cleanup.all()

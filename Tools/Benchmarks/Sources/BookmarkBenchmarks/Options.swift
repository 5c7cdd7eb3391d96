// SPDX-License-Identifier: Apache-2.0
/// Command-line options.
struct Options {
    /// Entries of the main tree.
    var entries = 100_000
    /// Tree sizes for the growth sweep (moved and deleted file only); empty: no sweep.
    var sweep: [Int] = []
    /// Runs per metric.
    var runs = 5
    /// The least time one measurement repeats for, in milliseconds.
    var minimumMilliseconds = 200
    /// The generator's seed.
    var seed: UInt64 = 7
    /// Bookmarks in the batch metric.
    var batch = 10_000
    /// Also time the batch one bookmark at a time.
    var oneByOne = false
    /// Only these metric groups (`--only`); `nil`: all.
    var only: Set<String>?
    static let metricGroups = ["unmoved", "default", "create", "moved", "deleted", "batch", "handles", "codec", "open", "package", "catalog"]
    /// Skip the all-metrics run (sweep only).
    var sweepOnly = false
    /// Where to write the results as JSON.
    var json: String?
    /// Library sizes for the cold-start metric (`--library`); empty: not run.
    var library: [Int] = []
    /// Runs of each library size.
    var libraryRuns = 3
    /// Repeat one operation for a profiler instead of measuring (see Profile.swift).
    var profile: String?
    /// Iterations of ``profile``.
    var iterations = 1000

    static let usage = """
        usage: BookmarkBenchmarks [--entries N] [--runs R] [--min-ms MS] [--seed S] [--batch N] [--one-by-one]
                                  [--sweep N,N,...] [--sweep-only] [--json FILE] [--smoke]
                                  [--library N,N,... [--library-runs R]]
                                  [--only GROUP,...] [--profile unmoved|first|create|create-cold|moved|handles|deleted|codec|codec-apple|codec-edit|open|batch|default-resolve|apple-resolve|apple-create|apple-create-each|ref-resolve|catalog-scan|package-save|document-save [--iterations K]]
          --entries N     entries of the main tree (default 100000)
          --runs R        runs per metric; medians are reported (default 5)
          --min-ms MS     least time one measurement repeats an operation for (default 200)
          --seed S        seed of the tree generator (default 7)
          --batch N       bookmarks in the batch metric (default 10000)
          --sweep LIST    also time the moved- and deleted-file cases on trees of these sizes
          --sweep-only    skip the all-metrics run (only --sweep and --library run)
          --only LIST     only these metrics: unmoved, default, create, moved, deleted, batch, handles,
                          codec, open, package, catalog (comma-separated; for quick re-measurement of one fix)
          --library LIST  also time the cold start of libraries of these many bookmarks (each on a
                          volume of 1.2 times as many entries; LibraryMetric.swift)
          --library-runs R  runs of each library size (default 3)
          --one-by-one    also time the batch with one resolve(_:volumes:) per bookmark
          --json FILE     write every result as JSON (for Tools/Benchmarks/plot.py)
          --profile NAME  build the tree, then repeat one operation K times (default 1000) in
                          profileLoop, for valgrind --tool=callgrind --toggle-collect='*profileLoop*'
          --smoke         tiny tree (2000 entries), one run, 1 ms measurements, batch of 200
        Needs root (loop-mounted ext4). Exit status: 0 ran, 1 failed, 2 usage, 77 not root (skipped).
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var rest = arguments[...]
        func value() -> String? { rest.popFirst() }
        while let argument = rest.popFirst() {
            switch argument {
            case "--entries": guard let n = value().flatMap({ Int($0) }), n > 0 else { return nil }; options.entries = n
            case "--runs": guard let n = value().flatMap({ Int($0) }), n > 0 else { return nil }; options.runs = n
            case "--min-ms": guard let n = value().flatMap({ Int($0) }), n >= 0 else { return nil }; options.minimumMilliseconds = n
            case "--seed": guard let n = value().flatMap({ UInt64($0) }) else { return nil }; options.seed = n
            case "--batch": guard let n = value().flatMap({ Int($0) }), n > 0 else { return nil }; options.batch = n
            case "--sweep":
                guard let list = value() else { return nil }
                let sizes = list.split(separator: ",").compactMap { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { return nil }
                options.sweep = sizes
            case "--sweep-only": options.sweepOnly = true
            case "--library":
                guard let list = value() else { return nil }
                let sizes = list.split(separator: ",").compactMap { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ $0 >= 100 }) else { return nil }
                options.library = sizes
            case "--library-runs": guard let n = value().flatMap({ Int($0) }), n > 0 else { return nil }; options.libraryRuns = n
            case "--one-by-one": options.oneByOne = true
            case "--only":
                guard let list = value() else { return nil }
                let groups = Set(list.split(separator: ",").map(String.init))
                guard !groups.isEmpty, groups.isSubset(of: metricGroups) else { return nil }
                options.only = groups
            case "--json": guard let path = value() else { return nil }; options.json = path
            case "--profile": guard let name = value() else { return nil }; options.profile = name
            case "--iterations": guard let n = value().flatMap({ Int($0) }), n > 0 else { return nil }; options.iterations = n
            case "--smoke":
                options.entries = 2_000
                options.runs = 1
                options.minimumMilliseconds = 1
                options.batch = 200
            case "--help", "-h": print(usage); return nil
            default: return nil
            }
        }
        return options
    }
}

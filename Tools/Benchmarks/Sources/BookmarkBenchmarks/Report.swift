// SPDX-License-Identifier: Apache-2.0
/// A metric's target.
enum Target: Codable {
    /// Ours ÷ baseline must not exceed this.
    case ratioAtMost(Double)
    /// Operations per second must reach this.
    case rateAtLeast(Double)
    /// Reported only.
    case none

    var text: String {
        switch self {
        case .ratioAtMost(let limit): return "≤ \(format(limit, limit < 0.1 ? 2 : 1))×"
        case .rateAtLeast(let rate): return "≥ \(Int(rate))/s"
        case .none: return "—"
        }
    }
}

/// One row of the results.
struct MetricResult: Codable {
    var name: String
    var baselineName: String
    var target: Target
    /// Seconds per operation, one sample per run.
    var ours: [Double]
    var baseline: [Double]
    /// Peak RSS of this process after the metric, MiB.
    var peakMiB: Double
    var note: String

    init(_ name: String, baseline: String, target: Target, _ comparison: Comparison, note: String = "") {
        self.name = name
        baselineName = baseline
        self.target = target
        ours = comparison.ours
        self.baseline = comparison.baseline
        peakMiB = peakMemoryMiB()
        self.note = note
    }

    var comparison: Comparison { Comparison(ours: ours, baseline: baseline) }

    /// Whether the target is met (`nil` when there is none).
    var met: Bool? {
        switch target {
        case .ratioAtMost(let limit): return comparison.ratio.map { $0 <= limit }
        case .rateAtLeast(let rate): return 1 / comparison.oursMedian >= rate
        case .none: return nil
        }
    }

    /// `ratio 1.23×` or `812,345/s`.
    var ratioText: String {
        switch target {
        case .rateAtLeast: return "\(Int(1 / comparison.oursMedian))/s"
        default:
            // A row without a baseline (a rate measured alone) shows its rate.
            if baseline.isEmpty, comparison.oursMedian > 0 { return "\(Int(1 / comparison.oursMedian))/s" }
            return comparison.ratio.map { format($0, $0 < 0.1 ? 4 : 2) + "×" } ?? "—"
        }
    }
}

/// Prints results as a Markdown table (what Docs/PERFORMANCE.md quotes).
func printTable(_ results: [MetricResult]) {
    print("")
    print("| metric | ours (median) | baseline | baseline (median) | ratio / rate | target | met | peak RSS | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in results {
        let met = row.met.map { $0 ? "yes" : "**no**" } ?? "—"
        let baseline = row.comparison.baselineMedian.map(formatTime) ?? "—"
        print(
            "| \(row.name) | \(formatTime(row.comparison.oursMedian)) | \(row.baselineName) | \(baseline) | "
                + "\(row.ratioText) | \(row.target.text) | \(met) | \(format(row.peakMiB, 1)) MiB | \(row.note) |")
    }
    print("")
}

/// A line as each metric finishes, so a long run shows progress.
func printProgress(_ row: MetricResult) {
    let baseline = row.comparison.baselineMedian.map { " vs \(formatTime($0))" } ?? ""
    print("  \(row.name): \(formatTime(row.comparison.oursMedian))\(baseline) → \(row.ratioText) (target \(row.target.text))")
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Timing: each measurement repeats an operation until a minimum time has passed and reports the
/// time per operation; a metric alternates ours and the baseline for several runs and reports the
/// medians and the median of the per-run ratios (ours ÷ baseline), which cancels most of the noise
/// of a shared machine.
struct Measure {
    /// How many runs of (ours, baseline) per metric.
    var runs: Int
    /// The least time one measurement repeats its operation for.
    var minimumTime: Duration

    /// Seconds per call of `body`, repeating it for at least ``minimumTime`` (at least once).
    func perCall(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        var calls = 0
        var batch = 1
        let start = clock.now
        var elapsed = Duration.zero
        while true {
            for _ in 0..<batch { try body() }
            calls += batch
            elapsed = clock.now - start
            if elapsed >= minimumTime { break }
            batch = min(batch * 2, 1 << 16)
        }
        return seconds(elapsed) / Double(calls)
    }

    /// Runs ours and the baseline ``runs`` times, alternating which goes first.
    func compare(ours: () throws -> Void, baseline: () throws -> Void) rethrows -> Comparison {
        var samples: [(Double, Double)] = []
        for run in 0..<runs {
            if run % 2 == 0 {
                let a = try perCall(ours)
                samples.append((a, try perCall(baseline)))
            } else {
                let b = try perCall(baseline)
                samples.append((try perCall(ours), b))
            }
        }
        return Comparison(ours: samples.map(\.0), baseline: samples.map(\.1))
    }

    /// Runs ours ``runs`` times (metrics without a baseline).
    func alone(_ body: () throws -> Void) rethrows -> Comparison {
        var samples: [Double] = []
        for _ in 0..<runs { samples.append(try perCall(body)) }
        return Comparison(ours: samples, baseline: [])
    }
}

/// The samples of one metric, in seconds per operation.
struct Comparison {
    var ours: [Double]
    var baseline: [Double]

    var oursMedian: Double { median(ours) }
    var baselineMedian: Double? { baseline.isEmpty ? nil : median(baseline) }
    /// The median of the per-run ratios.
    var ratio: Double? {
        guard !baseline.isEmpty else { return nil }
        return median(zip(ours, baseline).map { $1 > 0 ? $0 / $1 : .infinity })
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func seconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}

/// The process's peak resident set so far (`getrusage` `ru_maxrss`), in MiB.
func peakMemoryMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// `12.3 µs`, `4.56 ms`, `1.23 s`.
func formatTime(_ value: Double) -> String {
    if value.isNaN { return "—" }
    if value < 1e-6 { return format(value * 1e9, 1) + " ns" }
    if value < 1e-3 { return format(value * 1e6, 2) + " µs" }
    if value < 1 { return format(value * 1e3, 2) + " ms" }
    return format(value, 2) + " s"
}

/// `value` with `digits` decimals.
func format(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        if digits == 0 { text = String(text[..<dot]) }
    }
    return text
}

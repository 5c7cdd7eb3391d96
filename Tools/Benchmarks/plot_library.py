#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws Docs/performance-library.png from a benchmark run's JSON (--library ... --json FILE).

    python3 Tools/Benchmarks/plot_library.py RESULTS.json Docs/performance-library.png

Needs matplotlib (pip install matplotlib). Cost per bookmark of a library's cold start against
the number of bookmarks (each library on a volume of 1.2 times as many entries): the whole batch
beside one find walk's share per bookmark and (when the run measured it) the batch's system
calls alone in C, and the unmoved-only batch beside a bare statx of each path. Flat lines mean no
per-bookmark cost grows with the count.
"""
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_library.py RESULTS.json OUTPUT.png")
    with open(sys.argv[1]) as f:
        report = json.load(f)
    points = sorted(report.get("library", []), key=lambda p: p["count"])
    if not points:
        sys.exit("plot_library.py: the results have no library points (run with --library 10000,100000,1000000)")
    counts = [p["count"] for p in points]

    def per(p, key, divisor):
        return statistics.median(p[key]) / divisor * 1e6

    series = [
        ("whole batch (10 % moved, 1 % deleted), per bookmark", [per(p, "batch", p["count"]) for p in points],
         "tab:blue", "-", "o"),
        ("one find walk of the volume, per bookmark (baseline)", [per(p, "find", p["count"]) for p in points],
         "tab:gray", "--", "s"),
        ("unmoved-only batch, per bookmark (decode included)", [per(p, "unmoved", p["unmovedCount"]) for p in points],
         "tab:green", "-", "o"),
        ("a bare statx of each path (baseline)", [per(p, "statx", p["unmovedCount"]) for p in points],
         "tab:olive", ":", "^"),
    ]
    # The batch's floor in C (read, a statx of each path, the walk), in runs that measured it.
    if all(p.get("floor") for p in points):
        series.insert(1, ("the whole batch's system calls alone, in C, per bookmark",
                          [per(p, "floor", p["count"]) for p in points], "tab:purple", "-.", "D"))
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    for label, values, color, style, marker in series:
        ax.plot(counts, values, style, color=color, marker=marker, label=label)
        for x, y in zip(counts, values):
            ax.annotate(f"{y:.2f} µs", (x, y), textcoords="offset points", xytext=(6, 6), fontsize=8, color=color)
    ax.set_xscale("log")
    ax.set_xticks(counts)
    ax.set_xticklabels([f"10^{len(str(c)) - 1}" if str(c).strip("0") == "1" else str(c) for c in counts])
    ax.set_xlim(counts[0] / 1.6, counts[-1] * 1.8)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("bookmarks in the library (volume of 1.2× as many entries, loop-mounted ext4, warm cache)")
    ax.set_ylabel("µs per bookmark (median of runs)")
    machine = report.get("machine", {})
    ax.set_title(
        f"Cold start of a library ({machine.get('cpus', '?')} CPUs, Linux {machine.get('kernel', '?')}), "
        "a fresh process as uid 65534", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws Docs/performance-tree-size.png from a benchmark run's JSON (--sweep ... --json FILE).

    python3 Tools/Benchmarks/plot.py RESULTS.json Docs/performance-tree-size.png

Needs matplotlib (pip install matplotlib). Time per resolution against tree size, for the file
moved within its project folder and the deleted file, each beside its `find -xdev -inum N` baseline.
"""
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def medians(points, case, side):
    return [statistics.median(p[case][side]) * 1000 for p in points]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py RESULTS.json OUTPUT.png")
    with open(sys.argv[1]) as f:
        report = json.load(f)
    points = sorted(report["sweep"], key=lambda p: p["entries"])
    if not points:
        sys.exit("plot.py: the results have no sweep (run with --sweep 10000,100000,400000)")
    sizes = [p["entries"] for p in points]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    series = [
        ("deleted", "baseline", "find -xdev -inum N, deleted file's inode (baseline)", "tab:gray", "--", "s"),
        ("moved", "baseline", "find -xdev -inum N, moved file's inode (baseline)", "tab:cyan", ":", "^"),
        ("deleted", "ours", "resolve a deleted file (whole-volume search)", "tab:red", "-", "o"),
        ("moved", "ours", "resolve a file moved within its project", "tab:blue", "-", "o"),
    ]
    for case, side, label, color, style, marker in series:
        values = medians(points, case, side)
        ax.plot(sizes, values, style, color=color, marker=marker, label=label)
        for x, y in zip(sizes, values):
            if case == "moved" and side == "baseline":
                continue  # the two find walks overlap; label one
            text = f"{y:.0f} ms" if y >= 100 else f"{y:.3g} ms"
            ax.annotate(text, (x, y), textcoords="offset points", xytext=(6, -12 if side == "ours" else 6),
                        fontsize=8, color=color)
    ax.set_xscale("log")
    ax.set_xlim(sizes[0] / 1.5, sizes[-1] * 1.8)
    ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([f"{s // 1000}k" for s in sizes])
    ax.set_xlabel("entries in the tree (loop-mounted ext4, warm cache)")
    ax.set_ylabel("time per resolution, ms (median of runs, log scale)")
    machine = report.get("machine", {})
    ax.set_title(f"Resolution time against tree size ({machine.get('cpus', '?')} CPUs, Linux {machine.get('kernel', '?')})",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()

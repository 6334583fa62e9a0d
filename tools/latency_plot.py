"""The server-latency picture of docs/performance.md, from ``tools/load_server.py --json`` files.

    python tools/latency_plot.py BEFORE.json ... --after AFTER.json ... --timeline N \\
        --out docs/images/server-latency.png

Left: p50 and p99 against the number of human-paced tables, before (Python's collector) and
after (the server's policy), or what ``--labels BEFORE AFTER`` names. Right: the moves of the
``--timeline`` run, before and after, by the time they were sent and their latency, with each
collection that took 50 ms or more marked (a full one in red). Needs matplotlib (not a
dependency of the project).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def runs_of(paths: list[str]) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    for path in paths:
        runs += json.loads(Path(path).read_text())["runs"]
    return sorted(runs, key=lambda r: r["tables"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", nargs="+", help="runs with Python's collector settings")
    parser.add_argument("--after", nargs="+", required=True, help="runs with the server's")
    parser.add_argument("--timeline", type=int, required=True, help="tables of the right panel")
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--labels", nargs=2, default=("Python's collector", "gcpolicy"), help="BEFORE AFTER"
    )
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before, after = runs_of(args.before), runs_of(args.after)
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), width_ratios=(1, 1.5))
    for runs, label, colour in (
        (before, args.labels[0], "tab:red"),
        (after, args.labels[1], "tab:blue"),
    ):
        tables = [r["tables"] for r in runs]
        left.plot(tables, [r["p99_ms"] for r in runs], "o-", color=colour, label=f"p99, {label}")
        left.plot(
            tables,
            [r["p50_ms"] for r in runs],
            "s--",
            color=colour,
            alpha=0.6,
            label=f"p50, {label}",
        )
    left.axhline(100, color="grey", lw=0.8, ls=":")
    left.set_yscale("log")
    left.set_xlabel("tables (two clients each, 0.5-2 s before each move)")
    left.set_ylabel("move latency, ms")
    left.legend(fontsize=8)
    left.set_title("latency by number of tables")
    for runs, label, colour, offset in (
        (before, args.labels[0], "tab:red", 0),
        (after, args.labels[1], "tab:blue", 1),
    ):
        chosen = [r for r in runs if r["tables"] == args.timeline]
        if not chosen:
            sys.exit(f"no run of {args.timeline} tables")
        run = chosen[0]
        points = run["series_latency"]
        right.scatter(
            [t for t, _ in points],
            [1000 * x for _, x in points],
            s=1,
            color=colour,
            alpha=0.25 if offset == 0 else 0.35,
            label=f"{label}: p99 {run['p99_ms']:.0f} ms",
            rasterized=True,
        )
        for at, generation, seconds, _ in run.get("series_gc", []):
            if seconds >= 0.05:
                right.axvline(at, color="red" if generation == 2 else colour, lw=0.8, alpha=0.8)
    right.set_yscale("log")
    right.set_xlabel("seconds into the measured window (lines: a collection of 50 ms or more)")
    right.set_ylabel("move latency, ms")
    right.set_title(f"{args.timeline} tables, every move")
    right.legend(fontsize=8, markerscale=8, loc="upper right")
    figure.tight_layout()
    figure.savefig(args.out, dpi=80)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The PostgreSQL picture of docs/performance.md, from ``tools/load_workers.py --json`` files.

    python tools/workers_plot.py RUNS.json ... --out docs/images/server-workers.png

Left: the human-paced runs (``--think`` above 0), p99 and p50 against the number of tables for
each set-up, with the 100 ms line. Right: the full-speed runs, each set-up's moves a second
(every run a dot, the mean a bar) and the servers' CPU a move. Needs matplotlib (not a
dependency of the project).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

COLOURS = {
    "SQLite, 1 process": "tab:grey",
    "1 worker": "tab:red",
    "2 workers": "tab:orange",
    "2 processes, by table": "tab:blue",
}


def rows_of(paths: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        rows += json.loads(Path(path).read_text())
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="files written by load_workers.py --json")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = rows_of(args.runs)
    paced = [r for r in rows if r["think"] > 0]
    full = [r for r in rows if r["think"] == 0]
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), width_ratios=(1.3, 1))
    for setup, colour in COLOURS.items():
        by_tables: dict[int, list[dict[str, Any]]] = {}
        for r in paced:
            if r["setup"] == setup:
                by_tables.setdefault(r["tables"], []).append(r)
        if not by_tables:
            continue
        tables = sorted(by_tables)
        p99 = [max(r["p99_ms"] for r in by_tables[n]) for n in tables]
        p50 = [statistics.median(r["p50_ms"] for r in by_tables[n]) for n in tables]
        left.plot(tables, p99, "o-", color=colour, label=f"p99, {setup}")
        left.plot(tables, p50, "s--", color=colour, alpha=0.6, label=f"p50, {setup}")
    left.axhline(100, color="black", lw=0.8, ls=":")
    left.set_yscale("log")
    left.set_xlabel("tables (two clients each, 0-1 s before each move; p99: the worse run)")
    left.set_ylabel("move latency, ms")
    left.set_title("human-paced: latency by number of tables")
    left.legend(fontsize=8)
    setups = [s for s in COLOURS if any(r["setup"] == s for r in full)]
    for i, setup in enumerate(setups):
        runs = [r for r in full if r["setup"] == setup]
        rates = [r["moves_per_s"] for r in runs]
        right.bar(i, statistics.mean(rates), color=COLOURS[setup], alpha=0.5)
        right.scatter([i] * len(rates), rates, color=COLOURS[setup], zorder=3)
        cpu = statistics.mean(r["cpu_ms_per_move"] for r in runs)
        right.annotate(
            f"{statistics.mean(rates):,.0f}/s\n{cpu:.2f} ms CPU a move",
            (i, statistics.mean(rates)),
            ha="center",
            va="bottom",
            fontsize=8,
            xytext=(0, 4),
            textcoords="offset points",
        )
    right.set_xticks(range(len(setups)), setups, fontsize=8)
    right.set_ylabel("moves a second")
    right.set_title("full speed: every client answers at once")
    right.margins(y=0.2)
    figure.tight_layout()
    figure.savefig(args.out, dpi=80)
    return 0


if __name__ == "__main__":
    sys.exit(main())

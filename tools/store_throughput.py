"""The stores alone, without the server: how many moves a second they commit, and how long a
commit and (PostgreSQL) its notification take, with N writer processes sharing one database.

    python tools/store_throughput.py --db /tmp/x.sqlite
    python tools/store_throughput.py --db postgresql://user@127.0.0.1:5432/db --processes 1 2

Each process opens its own store and drives ``--tables`` tables (ids of its own) for
``--seconds``, each table appending its next move as soon as the last one is committed (as a
table at full speed does: a table's moves are sequential), so the store commits whatever is
waiting in one group. A PostgreSQL run also listens, in each process, and times each of its own
moves from the call to the notification's arrival. Prints one line per run: moves/s over all
processes, the commit latency p50/p99, the notification delay p50/p99.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import sys
import time
import uuid

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.server.store import SeatRow
from buraco_rules.server.stores import is_postgres_url, open_store

START = br.GameRecord.from_game(br.new_game(variants.ITALIAN, 2, seed=1), ())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def drive(db: str, prefix: str, tables: int, seconds: float) -> dict[str, list[float]]:
    store = open_store(db)
    ids = [f"{prefix}-{t}" for t in range(tables)]
    for table_id in ids:
        await store.create(table_id, START, [SeatRow("human")] * 2, {})
    sent: dict[tuple[str, int], float] = {}
    heard: list[float] = []

    def on_move(table_id: str, number: int) -> None:
        began = sent.pop((table_id, number), None)
        if began is not None:
            heard.append(time.perf_counter() - began)

    listener = None
    if is_postgres_url(db):
        listener = await store.listen(on_move)  # type: ignore[attr-defined]
    commits: list[float] = []
    stop = time.perf_counter() + seconds

    async def table(table_id: str) -> None:
        number = 0
        while time.perf_counter() < stop:
            began = time.perf_counter()
            sent[(table_id, number)] = began
            await store.append(table_id, number, number % 2, number + 1, "draw", False)
            commits.append(time.perf_counter() - began)
            number += 1

    await asyncio.gather(*(table(t) for t in ids))
    await asyncio.sleep(0.2)  # the last notifications
    if listener is not None:
        await listener.close()
    store.close()
    return {"commits": commits, "heard": heard}


def worker(db: str, tables: int, seconds: float, out: multiprocessing.Queue[object]) -> None:
    out.put(asyncio.run(drive(db, uuid.uuid4().hex[:8], tables, seconds)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a SQLite file or a postgresql:// URL")
    parser.add_argument("--tables", type=int, default=100, help="tables per process")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--processes", type=int, nargs="+", default=[1])
    args = parser.parse_args()
    for processes in args.processes:
        queue: multiprocessing.Queue[object] = multiprocessing.Queue()
        runs = [
            multiprocessing.Process(target=worker, args=(args.db, args.tables, args.seconds, queue))
            for _ in range(processes)
        ]
        for run in runs:
            run.start()
        results = [queue.get(timeout=args.seconds + 120) for _ in runs]
        for run in runs:
            run.join()
        commits = [c for r in results for c in r["commits"]]  # type: ignore[index]
        heard = [h for r in results for h in r["heard"]]  # type: ignore[index]
        line = (
            f"{processes} process(es) x {args.tables} tables: {len(commits) / args.seconds:,.0f}"
            f" moves/s, commit p50 {1000 * statistics.median(commits):.1f} ms"
            f" p99 {1000 * percentile(commits, 0.99):.1f} ms"
        )
        if heard:
            line += (
                f", notified p50 {1000 * statistics.median(heard):.1f} ms"
                f" p99 {1000 * percentile(heard, 0.99):.1f} ms"
            )
        print(line, f"(load {os.getloadavg()[0]:.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

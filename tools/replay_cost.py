"""What restoring a table from its record costs: ``from_json`` + ``replay`` of long legal records.

Three cases, each record built once here and then decoded and replayed in a fresh interpreter
(so that no memo cache warmed by building it is counted), timed and measured (peak traced
memory with ``tracemalloc`` in a second run, and the child's peak resident size):

- ``loop``: an Italian hand of take-one/discard-one turns, the first seat having taken a pile of
  60 cards (a hand of about 70 cards, which lists thousands of melds);
- ``house``: the same under house rules written in the record (``hand_size=1,
  extra_pile_size=2``, a hand of about 100 cards);
- ``match``: a match with ``stock_reserve=62``, in which each hand is one draw and one discard,
  by the number of hands (time per hand must not grow with the hands).

Run from the project root: ``python tools/replay_cost.py [--src DIR] [--actions N ...]
[--hands N ...]``; ``--src`` replays with another checkout's sources (to compare with an older
commit). Timings vary with the machine's load: compare figures taken in one session.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import buraco_rules as br  # noqa: E402
from buraco_rules import bench  # noqa: E402

CHILD = r"""
import gc, json, resource, sys, time, tracemalloc
import buraco_rules as br
text = open(sys.argv[1], encoding="utf-8").read()
best = float("inf")
for _ in range(int(sys.argv[2])):
    br.clear_caches()
    gc.collect()
    start = time.perf_counter()
    replayed = br.replay(br.from_json(text))
    best = min(best, time.perf_counter() - start)
    del replayed
br.clear_caches()
gc.collect()
tracemalloc.start()
replayed = br.replay(br.from_json(text))
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"seconds": best, "traced_peak_mb": peak / 2**20,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(record: object, src: Path, repeat: int) -> dict[str, float]:
    """Decode and replay ``record`` in a fresh interpreter importing ``src``."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        file.write(br.to_json(record))
    try:
        env = dict(os.environ, PYTHONPATH=str(src))
        out = subprocess.run(
            [sys.executable, "-c", CHILD, file.name, str(repeat)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        os.unlink(file.name)
    result: dict[str, float] = json.loads(out)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the sources to measure")
    parser.add_argument("--actions", type=int, nargs="+", default=[4000, 10000])
    parser.add_argument("--hands", type=int, nargs="+", default=[5, 20, 50])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (the best is kept)")
    parser.add_argument("--cases", nargs="+", default=["loop", "house", "match"])
    args = parser.parse_args()
    print(f"sources: {args.src}")
    for case in ("loop", "house"):
        if case not in args.cases:
            continue
        for n in args.actions:
            record = bench.adversarial_record(n, house=case == "house")
            size = len(br.to_json(record))
            figures = measure(record, args.src, args.repeat)
            print(
                f"{case:>5}: {len(record.actions):>6} actions ({size:,} chars): "
                f"{figures['seconds']:.2f} s, "
                f"{figures['seconds'] / len(record.actions) * 1e6:.0f} us/action, "
                f"traced peak {figures['traced_peak_mb']:.0f} MB, "
                f"maxrss {figures['maxrss_mb']:.0f} MB",
                flush=True,
            )
    if "match" in args.cases:
        for hands in args.hands:
            record = bench.short_hands_match_record(hands)
            hands = len(record.scores or ())  # a match ends after MAX_MATCH_HANDS hands (R20)
            figures = measure(record, args.src, args.repeat)
            print(
                f"match: {hands:>6} hands, {len(record.actions)} actions: "
                f"{figures['seconds']:.2f} s, {figures['seconds'] / hands * 1e6:.0f} us/hand, "
                f"traced peak {figures['traced_peak_mb']:.0f} MB, "
                f"maxrss {figures['maxrss_mb']:.0f} MB",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""CPU time per decision on a fixed workload, to compare two versions of the engine on a busy
machine.

Plays ``--warmup`` seeded uniform random games (unmeasured, so that the memo caches are warm), then
``--games`` more, each from ``new_game`` to the end (``legal_actions`` and ``apply`` at every
decision), and reports the process's CPU time (``time.process_time``) per decision, best of
``--repeat`` rounds of the same games. The games are the same from run to run and build to build,
so two builds or two commits can be compared in alternated runs even when the machine is loaded
(wall-clock figures are not). ``--profile`` prints a cProfile of one measured round instead.

Run from the project root: ``python tools/decision_cost.py [--variant V ...] [--players N]
[--games G] [--warmup W] [--repeat R] [--json] [--profile]``. With ``PYTHONPATH`` unset, the
installed engine is measured (the compiled build, say); the build is printed with the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import time

import buraco_rules as br
from buraco_rules import bench


def playouts(rules: br.RuleSet, players: int, seeds: list[int]) -> int:
    """Play one uniform random game per seed; the number of decisions."""
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = br.new_game(rules, players, seed=seed)
        while not state.is_over:
            actions = br.legal_actions(state)
            state = br.apply(state, actions[int(rng.random() * len(actions))])
            steps += 1
    return steps


def measure(variant: str, players: int, games: int, warmup: int, repeat: int) -> dict[str, object]:
    """Warm up, then the best CPU µs per decision of ``repeat`` rounds of the same ``games``."""
    rules = br.variants.get(variant)
    br.clear_caches()
    playouts(rules, players, list(range(10_000, 10_000 + warmup)))
    seeds = list(range(games))
    best = float("inf")
    steps = 0
    for _ in range(repeat):
        start = time.process_time()
        steps = playouts(rules, players, seeds)
        best = min(best, time.process_time() - start)
    return {
        "variant": variant,
        "players": players,
        "build": bench.build(),
        "decisions": steps,
        "cpu_us_per_decision": round(best / steps * 1e6, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    names = args.variant or ["italian", "buraco-fechado"]
    for name in names:
        if args.profile:
            rules = br.variants.get(name)
            playouts(rules, args.players, list(range(10_000, 10_000 + args.warmup)))
            profile = cProfile.Profile()
            profile.runcall(playouts, rules, args.players, list(range(args.games)))
            pstats.Stats(profile).sort_stats("tottime").print_stats(25)
            continue
        figures = measure(name, args.players, args.games, args.warmup, args.repeat)
        print(
            json.dumps(figures) if args.json else " ".join(f"{k}={v}" for k, v in figures.items())
        )


if __name__ == "__main__":
    main()

"""CPU time per decision (``legal_actions`` and ``apply`` of random playouts), robust to a loaded
machine: each game of a fixed set of seeds is timed alone with ``time.process_time``, ``--reps``
times, and the figure is the sum of each game's best time over its decisions. Compare two source
trees by running it alternately under each, several times, and keeping each one's best:

    PYTHONPATH=src python tools/decision_cpu.py --games 8 --reps 4

With ``--is-legal``, the CPU time of ``is_legal`` on states whose actions were never listed
instead (the checker's one-action path), per call.
"""

from __future__ import annotations

import argparse
import random
import time

import attrs

import buraco_rules as br
from buraco_rules import variants

CONFIGS = (("buraco-fechado", 4), ("canasta-stbl", 2), ("italian", 4), ("italian", 2))


def per_decision(name: str, players: int, games: int, reps: int) -> float:
    """Microseconds of CPU per decision of ``games`` random playouts, each game's best of
    ``reps``."""
    rules = variants.get(name)
    seeds = [random.Random(777 + i).getrandbits(32) for i in range(games)]
    best = [float("inf")] * games
    steps = [0] * games
    for _ in range(reps):
        for g, seed in enumerate(seeds):
            rng = random.Random(seed)
            state = br.new_game(rules, players, seed=seed)
            count = 0
            start = time.process_time()
            while not state.is_over:
                actions = br.legal_actions(state)
                state = br.apply(state, actions[int(rng.random() * len(actions))])
                count += 1
            best[g] = min(best[g], time.process_time() - start)
            steps[g] = count
    return sum(best) / sum(steps) * 1e6


def is_legal_unlisted(name: str, players: int, games: int, reps: int) -> float:
    """Microseconds of CPU per ``is_legal`` of a legal action on a state never listed."""
    rules = variants.get(name)
    rng = random.Random(5)
    pairs = []
    for _ in range(games):
        state = br.new_game(rules, players, seed=rng.getrandbits(32))
        while not state.is_over:
            actions = br.legal_actions(state)
            if rng.random() < 0.1:
                pairs.append((state, rng.choice(actions)))
            state = br.apply(state, actions[int(rng.random() * len(actions))])
    best = float("inf")
    for _ in range(reps):
        fresh = [(attrs.evolve(s), a) for s, a in pairs]  # attrs.evolve: no listing kept
        start = time.process_time()
        for state, action in fresh:
            br.is_legal(state, action)
        best = min(best, (time.process_time() - start) / len(fresh) * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--is-legal", action="store_true")
    args = parser.parse_args()
    measure = is_legal_unlisted if args.is_legal else per_decision
    figures = {f"{n}/{p}": measure(n, p, args.games, args.reps) for n, p in CONFIGS}
    print(" ".join(f"{k}={v:.2f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()

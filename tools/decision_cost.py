"""CPU time per decision on deals never played before in the process, to compare two builds or
two versions of the engine on a busy machine.

The engine memoises its meld searches, so a game played a second time in one process finds every
position's answers in the memo caches: a benchmark that replays the same games and keeps the best
round measures cache hits, not what a server, a bot or a trainer pays on the deals it meets. So
this tool plays ``--warmup`` uniform random games (unmeasured, so that the caches hold what a
process that has been playing for a while holds), then ``--rounds`` rounds of ``--games`` games
each on deals never played before in the process (each round's seeds its own), and reports the
process's CPU time (``time.process_time``) per decision of each fresh round, and of all of them
as ``fresh_us`` (their time over their decisions, so that the garbage collector's full
collections, a pause of a few hundred ms now and then once the caches are full, count at their
rate: ``full_collections`` and ``full_collections_us`` say how many fell in the rounds and what
they cost a decision). Then it replays the last fresh round's games ``--repeat`` times and
reports the best as ``cache_hit_us``: the figure a benchmark of repeated games would give, kept
under its own name so that it is never read as the engine's speed. A game is ``new_game`` to the
end, with ``legal_actions`` and ``apply`` at every decision.

The seeds are the same from run to run and build to build (``--seed`` moves them all), so two
builds or two commits play the same deals and can be compared in alternated runs even when the
machine is loaded (wall-clock figures are not). ``--run COMMAND`` (repeatable) does the
alternation: each command (an interpreter, with ``NAME=VALUE`` settings before it, such as
``"PYTHONPATH=src python"``) runs this tool in a process of its own with the same settings,
command after command, ``--cycles`` times; ``PYTHONPATH`` is unset for a command that does not
set it, so that an installed build is measured as installed. ``--openspiel`` times the
reference instead, OpenSpiel's C++ gin rummy, in the same terms (``4 * --games`` games a round,
from a clone of one initial state); with ``--run``, it runs after each cycle's commands.
``--profile`` prints a cProfile of one fresh round instead.

Run from the project root: ``python tools/decision_cost.py [--variant V ...] [--players N]
[--option NAME=VALUE ...] [--games G] [--warmup W] [--rounds R] [--repeat K] [--seed S] [--json]
[--profile] [--openspiel] [--run COMMAND ... [--cycles C]]``; ``--option`` puts a house rule in
force in every variant measured (``variants.with_options``). With ``PYTHONPATH`` unset, the
installed engine is measured (the compiled build, say); the build is printed with the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import random
import shlex
import statistics
import subprocess
import sys
import time

import buraco_rules as br
from buraco_rules import bench

WARMUP_SEEDS = 1_000_000
"""The warm-up's deals are seeds from here on (``--seed`` added), far from the measured ones."""


def playouts(rules: br.RuleSet, players: int, seeds: range) -> int:
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


def timed(rules: br.RuleSet, players: int, seeds: range) -> tuple[float, int]:
    """CPU µs per decision of one round of ``seeds``, and its decisions."""
    start = time.process_time()
    steps = playouts(rules, players, seeds)
    return (time.process_time() - start) / steps * 1e6, steps


class FullCollections:
    """The garbage collector's full (generation 2) collections while it is installed: how many,
    and their CPU seconds. Each walks every tracked object, the caches' included, so a process
    whose caches are full pays a pause of a few hundred ms now and then: a round of games holds
    one or none, which is why the fresh figure is the rounds' total over their decisions."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.process_time()
        elif info["generation"] == 2:
            self.count += 1
            self.seconds += time.process_time() - self._start


def fresh_rounds(seed: int, games: int, rounds: int) -> list[range]:
    """The seeds of each fresh round: disjoint from each other and from the warm-up's."""
    return [range(seed + r * games, seed + (r + 1) * games) for r in range(rounds)]


def rules_of(variant: str, options: list[str]) -> br.RuleSet:
    """The preset ``variant`` with the house rules ``options`` (``NAME=VALUE`` each)."""
    if not options:
        return br.variants.get(variant)
    return br.variants.with_options(variant, **dict(map(br.variants.parse_option, options)))


def measure(
    variant: str,
    players: int,
    games: int,
    warmup: int,
    rounds: int,
    repeat: int,
    seed: int,
    options: list[str] | None = None,
) -> dict[str, object]:
    """Warm up on other deals, then CPU µs per decision on fresh deals (each round, and all of
    them: their CPU time over their decisions, the full collections they held included) and on
    the last round's deals replayed (the best of ``repeat``: the cache-hit figure)."""
    rules = rules_of(variant, options or [])
    br.clear_caches()
    playouts(rules, players, range(WARMUP_SEEDS + seed, WARMUP_SEEDS + seed + warmup))
    fresh: list[float] = []
    decisions = 0
    total = 0.0
    collections = FullCollections()
    gc.callbacks.append(collections)
    for seeds in fresh_rounds(seed, games, rounds):
        cost, steps = timed(rules, players, seeds)
        fresh.append(round(cost, 2))
        decisions += steps
        total += cost * steps
    gc.callbacks.remove(collections)
    replayed = fresh_rounds(seed, games, rounds)[-1]
    cache_hit = min(timed(rules, players, replayed)[0] for _ in range(repeat))
    return {
        "variant": variant,
        "options": options or [],
        "players": players,
        "build": bench.build(),
        "fresh_decisions": decisions,
        "fresh_us_rounds": fresh,
        "fresh_us": round(total / decisions, 2),
        "full_collections": collections.count,
        "full_collections_us": round(collections.seconds / decisions * 1e6, 2),
        "cache_hit_us": round(cache_hit, 2),
    }


def profile(variant: str, players: int, games: int, warmup: int, seed: int) -> None:
    """A cProfile of one round of fresh deals after the warm-up, by own time."""
    rules = br.variants.get(variant)
    playouts(rules, players, range(WARMUP_SEEDS + seed, WARMUP_SEEDS + seed + warmup))
    profiler = cProfile.Profile()
    profiler.runcall(playouts, rules, players, fresh_rounds(seed, games, 1)[0])
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def openspiel_gin_rummy(games: int, rounds: int, seed: int) -> dict[str, object]:
    """The reference: OpenSpiel's C++ gin rummy, timed the same way (CPU µs per decision, uniform
    random decisions, chance nodes sampled by their probabilities), each game from a clone of one
    initial state (its ``new_initial_state`` rebuilds its meld tables, about 2 ms); needs the
    ``openspiel`` extra. It memoises nothing, so repeated and fresh deals cost the same: the
    median of ``rounds`` rounds of ``games`` games."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    root = game.new_initial_state()
    rng = random.Random(seed)
    costs = []
    for _ in range(rounds):
        decisions = 0
        start = time.process_time()
        for _ in range(games):
            state = root.clone()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, weights)[0])
                else:
                    actions = state.legal_actions()
                    state.apply_action(actions[int(rng.random() * len(actions))])
                    decisions += 1
        costs.append(round((time.process_time() - start) / decisions * 1e6, 2))
    return {
        "variant": "openspiel-gin-rummy",
        "fresh_us_rounds": costs,
        "fresh_us": statistics.median(costs),
    }


def alternate(commands: list[str], cycles: int, forwarded: list[str], reference: bool) -> None:
    """Run this tool under each command in turn, ``cycles`` times, each in a process of its own
    (and with ``reference``, OpenSpiel's gin rummy under this interpreter after each cycle), and
    print each run's figures with its command, its cycle and the machine's load average (one
    minute) when it ended."""
    runs = [(command, []) for command in commands]
    if reference:
        runs.append((f"{sys.executable} --openspiel", ["--openspiel"]))
    for cycle in range(1, cycles + 1):
        for command, extra in runs:
            words = shlex.split(command)
            settings = {}
            while words and "=" in words[0] and not words[0].startswith(("/", ".")):
                name, _, value = words.pop(0).partition("=")
                settings[name] = value
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | settings
            interpreter = [sys.executable] if extra else words
            argv = [*interpreter, os.path.abspath(__file__), *forwarded, *extra, "--json"]
            out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
            load = round(os.getloadavg()[0], 1)
            for line in out.splitlines():
                figures = {"cycle": cycle, "command": command} | json.loads(line) | {"load": load}
                print(json.dumps(figures), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=40, help="games per round (default 40)")
    parser.add_argument("--warmup", type=int, default=40, help="warm-up games (default 40)")
    parser.add_argument("--rounds", type=int, default=3, help="fresh rounds (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="cache-hit replays (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="moves every seed (default 0)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--run", action="append", metavar="COMMAND")
    parser.add_argument(
        "--openspiel",
        action="store_true",
        help="time OpenSpiel's gin rummy instead, as the reference (needs the openspiel extra)",
    )
    parser.add_argument("--cycles", type=int, default=3, help="alternations of --run (default 3)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a house rule"
    )
    args = parser.parse_args()
    names = args.variant or ["italian", "buraco-fechado"]
    if args.openspiel and not args.run:
        figures = openspiel_gin_rummy(4 * args.games, args.rounds, args.seed)
        print(
            json.dumps(figures) if args.json else " ".join(f"{k}={v}" for k, v in figures.items())
        )
        return
    if args.run:
        forwarded = [a for name in names for a in ("--variant", name)]
        forwarded += [a for option in args.option for a in ("--option", option)]
        for option in ("players", "games", "warmup", "rounds", "repeat", "seed"):
            forwarded += [f"--{option}", str(getattr(args, option))]
        alternate(args.run, args.cycles, forwarded, args.openspiel)
        return
    for name in names:
        if args.profile:
            profile(name, args.players, args.games, args.warmup, args.seed)
            continue
        figures = measure(
            name,
            args.players,
            args.games,
            args.warmup,
            args.rounds,
            args.repeat,
            args.seed,
            args.option,
        )
        print(
            json.dumps(figures) if args.json else " ".join(f"{k}={v}" for k, v in figures.items())
        )


if __name__ == "__main__":
    sys.exit(main())

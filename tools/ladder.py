"""The bots' strength campaign: every pair of bots on the same deals, each deal from both seat
orders, in every variant and player count, hand by hand into a JSON-lines file that a later run
continues and ``--summarise`` turns into the tables of docs/bots.md.

The full campaign of the issue (200 deals per pairing, ISMCTSBot, MonteCarloBot and GreedyBot,
every variant with 2 players, then 4):

    PYTHONPATH=src python tools/ladder.py --deals 200 --bots greedy,montecarlo,ismcts \\
        --seed 2026 --out ladder.jsonl
    PYTHONPATH=src python tools/ladder.py --summarise ladder.jsonl

Each line is one hand: the variant, the players, the pairing (``first``, ``second``), the deal's
index, ``swapped`` (false: ``first`` is team 0), each team's total, and each bot's decisions
and CPU seconds (``time.thread_time`` around ``choose``). Hands already in ``--out`` are skipped,
so an interrupted campaign goes on where it stopped. Deal ``i`` is dealt from
``game_seed(seed, i)`` with seat ``i % players`` first (as ``buraco-rules ladder`` and
``simulate`` deal it), the same deal for every pairing.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

from buraco_rules import variants
from buraco_rules.bots import bot_from_name
from buraco_rules.ladder import bradley_terry
from buraco_rules.simulate import game_seed, play_game, seat_bots, wilson_interval
from buraco_rules.state import TEAM


def _key(line: dict[str, Any]) -> tuple[Any, ...]:
    return (line["variant"], line["players"], line["first"], line["second"], line["deal"],
            line["swapped"])  # fmt: skip


def play(args: argparse.Namespace) -> None:
    names = [n.strip() for n in args.bots.split(",")]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    if args.against:
        pairs = [(a, b) for a, b in pairs if args.against in (a, b)]
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {_key(json.loads(line)) for line in out.read_text().splitlines() if line}
    chosen = [v.strip() for v in args.variants.split(",")]
    with out.open("a", encoding="utf-8") as file:
        for deal in range(args.first, args.first + args.deals):
            for name in chosen:
                rules = variants.get(name)
                players = args.players or rules.default_players
                if players not in rules.player_counts:
                    continue
                for a, b in pairs:
                    for swapped in (False, True):
                        line = {"variant": name, "players": players, "first": a, "second": b,
                                "deal": deal, "swapped": swapped}  # fmt: skip
                        if _key(line) in done:
                            continue
                        order = (b, a) if swapped else (a, b)
                        seats = seat_bots(order, players)
                        bots = [bot_from_name(s) for s in seats]
                        result = play_game(
                            rules, bots, seed=game_seed(args.seed, deal),
                            first_player=deal % players, index=deal,
                        )  # fmt: skip
                        cpu = {a: 0.0, b: 0.0}
                        moves = {a: 0, b: 0}
                        for seat in range(players):
                            who = order[TEAM[seat]]
                            cpu[who] += result.cpu[seat]
                            moves[who] += result.decisions[seat]
                        line.update(scores=list(result.scores), cpu=cpu, moves=moves)
                        file.write(json.dumps(line) + "\n")
                        file.flush()
                        first_ahead = result.scores[0] - result.scores[1]
                        if swapped:
                            first_ahead = -first_ahead
                        print(f"{name} {players}p deal {deal} {a} vs {b} swapped={swapped}: "
                              f"{a} {first_ahead:+d}", file=sys.stderr, flush=True)  # fmt: skip


def summarise(path: str) -> str:
    lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for line in lines:
        groups.setdefault((line["variant"], line["players"]), []).append(line)
    out = []
    for (variant, players), hands in sorted(groups.items()):
        out += [f"### {variants.get(variant).title}, {players} players", ""]
        pairs: dict[tuple[str, str], dict[int, dict[bool, dict[str, Any]]]] = {}
        for h in hands:
            pairs.setdefault((h["first"], h["second"]), {}).setdefault(h["deal"], {})[
                h["swapped"]
            ] = h
        out += [
            "| first | second | deals (hands) | first's wins | win rate | 95 % interval "
            "| points ahead per hand (95 %) | CPU s per move (first, second) |",
            "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |",
        ]
        results = []
        for (a, b), deals in sorted(pairs.items()):
            both = [d for d in deals.values() if len(d) == 2]
            wins = ties = 0
            differences = []
            for d in both:
                ahead = []
                for swapped, h in d.items():
                    mine, theirs = h["scores"][::-1] if swapped else h["scores"]
                    ahead.append(mine - theirs)
                    wins += mine > theirs
                    ties += mine == theirs
                differences.append(statistics.fmean(ahead))
            n = 2 * len(both)
            if not n:
                continue
            score = wins + ties / 2
            low, high = wilson_interval(round(score), n)
            mean = statistics.fmean(differences)
            half = (
                1.96 * statistics.stdev(differences) / math.sqrt(len(differences))
                if len(differences) > 1
                else math.inf
            )
            per_move = []
            for who in (a, b):
                spent = sum(h["cpu"][who] for d in both for h in d.values())
                made = sum(h["moves"][who] for d in both for h in d.values())
                per_move.append(spent / max(1, made))
            out.append(
                f"| {a} | {b} | {len(both)} ({n}) | {wins} ({ties} tied) | {score / n:.1%} "
                f"| {low:.1%}–{high:.1%} | {mean:+.0f} ± {half:.0f} "
                f"| {per_move[0]:.3g}, {per_move[1]:.3g} |"
            )
            results.append((a, b, score, n - score))
        names = sorted({n for r in results for n in r[:2]})
        if len(names) >= 2:
            out += ["", "| bot | rating (Bradley–Terry, Elo scale) | 95 % interval |",
                    "| --- | ---: | --- |"]  # fmt: skip
            for name, rating, low, high in bradley_terry(names, results):
                out.append(f"| {name} | {rating:+.0f} | {low:+.0f} to {high:+.0f} |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="greedy,montecarlo,ismcts")
    parser.add_argument("--against", help="only the pairings of this bot")
    parser.add_argument("--variants", default=",".join(variants.NAMES))
    parser.add_argument("--players", type=int, help="default: each variant's own")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="the first deal's index")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default="ladder.jsonl")
    parser.add_argument("--summarise", metavar="FILE", help="print the tables of FILE")
    args = parser.parse_args()
    if args.summarise:
        print(summarise(args.summarise))
    else:
        play(args)


if __name__ == "__main__":
    main()

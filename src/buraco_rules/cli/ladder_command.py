"""``buraco-rules ladder``: a rated round robin among bots, every deal from both seat orders."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..bots.ladder import Ladder, ladder
from .executors import add_executor_options, executor_of, progress_bar
from .options import (
    add_variant,
    bot_list,
    players_of,
    positive_int,
    whole_number,
    with_policies,
)

__all__ = ["add_parser", "format_ladder", "run"]

DEFAULT_HANDS = 50
DEFAULT_BOTS = ("random", "greedy", "montecarlo", "ismcts")


def add_parser(commands: Any) -> None:
    """Add ``ladder`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "ladder",
        help="a round robin among bots: Bradley-Terry ratings and the pairwise table",
        description="Play every pair of bots on the same deals, each deal from both seat orders, "
        "and print their ratings (Bradley-Terry, on the Elo scale, with 95 %% intervals) and, "
        "for each pair, the win rate and the points ahead per hand with their 95 %% intervals "
        "and each bot's CPU seconds per move.",
    )
    add_variant(parser, "buraco-fechado")
    parser.add_argument(
        "--hands",
        type=positive_int,
        default=DEFAULT_HANDS,
        help=f"deals per pairing, each played twice (default {DEFAULT_HANDS})",
    )
    parser.add_argument(
        "--bots",
        type=bot_list,
        default=DEFAULT_BOTS,
        metavar="A,B[,...]",
        help="two bots or more, each named once; a search bot may carry its budget, as in "
        f"ismcts:200 or ismcts:0.25s, and a trained token policy is named policy:PATH.npz "
        f"(default: {','.join(DEFAULT_BOTS)})",
    )
    parser.add_argument("--seed", type=whole_number, default=1, help="default 1")
    add_executor_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Play the round robin the arguments describe and print its tables."""
    parser: argparse.ArgumentParser = args.parser
    rules = args.variant
    players = players_of(parser, rules, args.players)
    if len(args.bots) < 2 or len(set(args.bots)) != len(args.bots):
        parser.error("--bots takes two bots or more, each named once: " + ",".join(args.bots))
    show_progress = not args.json and sys.stderr.isatty()
    with (
        executor_of(parser, args) as executor,
        progress_bar(sys.stderr, enabled=show_progress) as progress,
    ):
        result = ladder(
            rules,
            players,
            bots=with_policies(parser, args.bots, rules, players),
            hands=args.hands,
            seed=args.seed,
            executor=executor,
            progress=progress,
        )
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_ladder(result))
    return 0


def _seconds(value: float) -> str:
    """CPU seconds per move with enough digits for the fastest bot."""
    return f"{value:.2g}" if value < 0.01 else f"{value:.3f}"


def format_ladder(result: Ladder) -> str:
    """The ratings and the pairwise table of a ladder, as Markdown tables (plain text that also
    pastes into the documentation)."""
    from .. import variants

    title = variants.get(result.variant).title
    cpu = result.cpu_per_move()
    lines = [
        f"{title}, {result.players} players, {result.deals} deal{'s' * (result.deals != 1)} per "
        f"pairing, each from both seat orders, seed {result.seed}",
        "",
        "| bot | rating (Bradley-Terry, Elo scale) | 95 % interval | CPU s per move |",
        "| --- | ---: | --- | ---: |",
    ]
    for name, rating, low, high in result.ratings():
        lines.append(
            f"| {name} | {rating:+.0f} | {low:+.0f} to {high:+.0f} | {_seconds(cpu[name])} |"
        )
    lines += [
        "",
        "| first | second | hands | first's wins (ties) | win rate | 95 % interval "
        "| points ahead per hand (95 %) | CPU s per move (first, second) |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for p in result.pairings:
        a, _, ties = p.wins
        rate, low, high = p.win_rate()
        mean, half = p.points_ahead()
        spread = f"{mean:+.0f} ± {half:.0f}" if math.isfinite(half) else f"{mean:+.0f}"
        first, second = p.cpu_per_move()
        lines.append(
            f"| {p.first} | {p.second} | {p.hands} | {a} ({ties}) | {rate * 100:.1f} % "
            f"| {low * 100:.1f}–{high * 100:.1f} % | {spread} "
            f"| {_seconds(first)}, {_seconds(second)} |"
        )
    return "\n".join(lines)

"""``buraco-rules simulate``: bots against bots, with the statistics of the results."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..bots.simulate import Simulation, simulate
from ..variants import options_of
from .executors import add_executor_options, executor_of, progress_bar
from .house_options import add_house_options, house_rules_line, rules_of
from .options import (
    add_montecarlo_budget,
    add_variant,
    bot_list,
    check_bot_count,
    montecarlo_bots,
    players_of,
    positive_int,
    whole_number,
    with_policies,
)

__all__ = ["add_parser", "format_table", "run"]

DEFAULT_GAMES = 200


def add_parser(commands: Any) -> None:
    """Add ``simulate`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "simulate",
        help="bots against bots: wins with confidence intervals, scores, speed",
        description="Play hands between bots and print their statistics. The same seed gives "
        "the same results whatever the number of workers.",
    )
    add_variant(parser, "buraco-fechado")
    add_house_options(parser)
    parser.add_argument(
        "--games", type=positive_int, default=DEFAULT_GAMES, help=f"default {DEFAULT_GAMES}"
    )
    parser.add_argument(
        "--bots",
        type=bot_list,
        default=("greedy", "random"),
        metavar="A,B",
        help="one bot per team (team 0 first) or one per seat: random, greedy, montecarlo, "
        "ismcts, a search bot with its budget as in ismcts:200 or ismcts:0.25s, or a trained "
        "token policy saved as numpy weights, policy:PATH.npz (default: greedy,random)",
    )
    parser.add_argument("--seed", type=whole_number, default=1, help="default 1")
    add_montecarlo_budget(parser)
    add_executor_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Play the simulation the arguments describe and print its result."""
    parser: argparse.ArgumentParser = args.parser
    rules = rules_of(parser, args, single_hand=True)
    players = players_of(parser, rules, args.players)
    check_bot_count(parser, args.bots, players)
    show_progress = not args.json and sys.stderr.isatty()
    with (
        executor_of(parser, args) as executor,
        progress_bar(sys.stderr, enabled=show_progress) as progress,
    ):
        result = simulate(
            rules,
            players,
            games=args.games,
            bots=with_policies(parser, montecarlo_bots(parser, args), rules, players),
            seed=args.seed,
            executor=executor,
            progress=progress,
        )
    summary = result.to_dict()
    summary["options"] = options_of(rules)  # the house rules in force, {} for a preset
    summary["workers"] = args.workers
    if args.dask_scheduler:
        summary["dask_scheduler"] = args.dask_scheduler
    if args.json:
        print(json.dumps(summary))
    else:
        where = f"Dask at {args.dask_scheduler}" if args.dask_scheduler else _workers(args.workers)
        print(format_table(result, where, house=house_rules_line(rules)))
    return 0


def _workers(n: int) -> str:
    return "1 worker" if n == 1 else f"{n} workers"


def _figure(value: float) -> str:
    """A measured figure with three significant digits at least: ``22.6``, ``0.0412``, never
    ``0.0`` for a slow bot's rate."""
    if value == 0 or value >= 100:
        return f"{value:.0f}"
    return f"{value:#.3g}"


def format_table(result: Simulation, where: str = "1 worker", house: str = "") -> str:
    """The statistics of a simulation as a plain-text table; ``house`` is a line naming the
    house rules in force, under the title (none for a preset)."""
    from .. import variants

    title = variants.get(result.variant).title
    lines = [
        f"{title}, {result.players} players, {result.games} hand{'s' * (result.games != 1)}, "
        f"seed {result.seed}",
        *([house] if house else []),
        "",
        f"{'team':<6}{'bots':<20}{'wins':>6}{'win rate':>10}{'95 % CI':>17}"
        f"{'mean score':>12}{'sd':>8}",
    ]
    for team in (0, 1):
        rate, low, high = result.win_rate(team)
        lines.append(
            f"{team:<6}{result.team_bots[team]:<20}{result.wins[team]:>6}"
            f"{rate * 100:>9.1f}%{f'{low * 100:.1f}-{high * 100:.1f} %':>17}"
            f"{result.mean_score(team):>12.1f}{result.score_spread(team):>8.1f}"
        )
    endings = result.endings
    games = result.games
    per_move = ", ".join(
        f"{name} {_figure(s * 1000)} ms" for name, s in result.seconds_per_move().items()
    )
    lines += [
        f"ties: {result.ties}",
        "",
        f"mean turns per hand: {result.mean_turns:.1f}",
        "hands ended: "
        + ", ".join(f"{how.replace('-', ' ')} {n} ({n / games:.0%})" for how, n in endings.items()),
        f"time per move: {per_move}",
        f"{_figure(result.seconds)} s, {_figure(result.games_per_s)} hands/s ({where})",
    ]
    return "\n".join(lines)

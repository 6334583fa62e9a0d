"""``buraco-rules match``: a whole match between bots (R20), hand by hand with the running
totals."""

from __future__ import annotations

import argparse
from typing import Any

from ..bots.simulate import play_match
from ..engine.state import TEAM
from ..play.match import Match
from ..play.rendering import ending_text, escape
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

__all__ = ["add_parser", "run"]

MAX_HANDS = 100


def add_parser(commands: Any) -> None:
    """Add ``match`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "match",
        help="a whole match between bots (R20), hand by hand",
        description="Play hands between bots until a team reaches the variant's target (R20), "
        "printing each hand's scores and the running totals.",
    )
    add_variant(parser, "buraco-fechado")
    add_house_options(parser)
    parser.add_argument(
        "--bots",
        type=bot_list,
        default=("greedy", "greedy"),
        metavar="A,B",
        help="one bot per team or one per seat: random, greedy, montecarlo, ismcts, a search "
        "bot with its budget as in ismcts:200 or ismcts:0.25s, or a trained token policy "
        "saved as numpy weights, policy:PATH.npz (default: greedy,greedy)",
    )
    add_montecarlo_budget(parser)
    parser.add_argument("--seed", type=whole_number, default=1, help="default 1")
    parser.add_argument(
        "--max-hands",
        type=positive_int,
        default=MAX_HANDS,
        help=f"stop after this many hands without a winner (default {MAX_HANDS})",
    )
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Play the match and print it hand by hand."""
    parser: argparse.ArgumentParser = args.parser
    rules = rules_of(parser, args)
    players = players_of(parser, rules, args.players)
    check_bot_count(parser, args.bots, players)
    specs = with_policies(parser, montecarlo_bots(parser, args), rules, players)
    seats = [
        escape(args.bots[TEAM[s]] if len(args.bots) == 2 else args.bots[s]) for s in range(players)
    ]
    teams = [",".join(dict.fromkeys(seats[t::2])) for t in (0, 1)]
    print(
        f"{rules.title} match to {rules.match_target}, {players} players, seed {args.seed}: "
        f"team 0 {teams[0]}, team 1 {teams[1]}"
    )
    if house := house_rules_line(rules):
        print(house)
    print(f"{'hand':>4}  {'team 0':>7}  {'team 1':>7}  {'totals':>13}  ended")

    def show(match: Match) -> None:
        first, second = match.scores[-1]
        last = match.finished_hands[-1]
        ending = ending_text(last.outcome) if last.outcome else "over"
        total0, total1 = match.totals
        print(
            f"{len(match.scores):>4}  {first.total:>+7}  {second.total:>+7}  "
            f"{total0:>6} {total1:>6}  {ending}"
        )

    match = play_match(
        rules, players, bots=specs, seed=args.seed, max_hands=args.max_hands, on_hand=show
    )
    total0, total1 = match.totals
    if match.winner is None:
        print(f"no winner after {_hands(len(match.scores))}: {total0} to {total1}")
        return 0
    print(
        f"team {match.winner} ({teams[match.winner]}) wins the match {max(total0, total1)} to "
        f"{min(total0, total1)} after {_hands(len(match.scores))}"
    )
    return 0


def _hands(n: int) -> str:
    """``1 hand``, ``2 hands``."""
    return "1 hand" if n == 1 else f"{n} hands"

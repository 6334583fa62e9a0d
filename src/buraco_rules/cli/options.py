"""Argument types shared by the subcommands: each refuses bad input with a clear message."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any, NoReturn

from .. import variants
from ..arguments import NUMBER_CHARS as _NUMBER_CHARS  # the number checks, re-exported here
from ..arguments import non_negative_float, positive_float, positive_int, shown, whole_number
from ..bots import BOT_NAMES, Bot, ISMCTSBot, MonteCarloBot, bot_from_name
from ..core.rules import RuleSet
from ..play.rendering import escape

__all__ = [
    "add_montecarlo_budget",
    "add_variant",
    "bot_list",
    "check_bot_count",
    "montecarlo_bots",
    "non_negative_float",
    "players_of",
    "positive_float",
    "positive_int",
    "shown",
    "variant",
    "whole_number",
    "with_policies",
]

POLICY_PREFIX = "policy:"
"""A bot named ``policy:PATH.npz`` on the command line is the trained token policy saved there
(:func:`buraco_rules.rl.policy.load_policy_bot`; needs numpy). Only the command line reads such
files: the server takes bots by name alone."""


def variant(text: str) -> RuleSet:
    """A variant by name."""
    try:
        return variants.get(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def bot_list(text: str) -> tuple[str, ...]:
    """Comma-separated bot names: ``greedy,random``."""
    names = tuple(name.strip() for name in text.split(","))
    if not any(names):
        raise argparse.ArgumentTypeError(f"no bot named in {shown(text)}")
    if not all(names):
        blank = names.index("") + 1
        raise argparse.ArgumentTypeError(
            f"bot {blank} of {len(names)} has no name in {shown(text)}: "
            f"name one of {', '.join(BOT_NAMES)} for each"
        )
    for name in names:
        if name.startswith(POLICY_PREFIX):
            _policy_bot(name, argparse.ArgumentTypeError)
            continue
        try:
            bot_from_name(name)
        except ValueError as error:
            if ":" in name and len(name) <= _NUMBER_CHARS:  # a budget's own message says more
                raise argparse.ArgumentTypeError(escape(str(error))) from None
            raise argparse.ArgumentTypeError(
                f"unknown bot {shown(name)} in {shown(text)}; choose from {', '.join(BOT_NAMES)} "
                f"or {POLICY_PREFIX}PATH.npz"
            ) from None
    return names


def _policy_bot(name: str, error: type[Exception]) -> Any:
    """The :class:`~buraco_rules.rl.PolicyBot` of ``policy:PATH``, or ``error`` of one line."""
    try:
        from ..rl import policies
        from ..rl.policy import load_policy_bot
    except ImportError:
        raise error(f"{shown(name)} needs numpy: pip install 'buraco-rules[rl]'") from None
    path = name[len(POLICY_PREFIX) :]
    try:
        if path in policies.SHIPPED and not os.path.exists(path):
            return policies.policy_bot(path)  # a shipped policy, by its name
        if not os.path.exists(path):
            raise ValueError(
                f"no file {shown(path)}, and no shipped policy of that name (there are: "
                + ", ".join(policies.SHIPPED)
                + ")"
            )
        return load_policy_bot(path, name=escape(name))
    except ValueError as problem:
        raise error(escape(str(problem))) from None


def _refuse(parser: argparse.ArgumentParser, reason: str) -> NoReturn:
    """Exit 2 with one line, ``PROG: error: REASON``: what ``parser.error`` says, without the
    usage it prints first (the arguments parsed; a policy named in them will not play)."""
    parser.exit(2, f"{parser.prog}: error: {reason}\n")


def with_policies(
    parser: argparse.ArgumentParser, specs: Sequence[str | Bot], rules: RuleSet, players: int
) -> tuple[str | Bot, ...]:
    """``specs`` with each ``policy:PATH`` name replaced by the policy's bot (refused, exit 2,
    if its file will not load, or if it is a shipped policy of another game than ``rules``
    with ``players``)."""
    loaded: list[str | Bot] = []
    for spec in specs:
        if isinstance(spec, str) and spec.startswith(POLICY_PREFIX):
            try:
                bot = _policy_bot(spec, ValueError)
            except ValueError as problem:
                _refuse(parser, str(problem))
            if bot.refusal(rules, players) is not None:
                from ..rl.policy import game_name  # numpy is there: the policy loaded

                _refuse(
                    parser,
                    f"{escape(spec)} plays {game_name(*bot.trained_for)} only, "
                    f"not {game_name(rules, players)}",
                )
            loaded.append(bot)
        else:
            loaded.append(spec)
    return tuple(loaded)


def add_variant(parser: argparse.ArgumentParser, default: str) -> None:
    """``--variant NAME`` and ``--players N``."""
    parser.add_argument(
        "--variant",
        type=variant,
        default=variants.get(default),
        metavar="NAME",
        help=f"one of {', '.join(variants.NAMES)} (default: {default})",
    )
    parser.add_argument(
        "--players", type=int, choices=(2, 4), help="2 or 4 (default: the variant's)"
    )


def players_of(parser: argparse.ArgumentParser, rules: RuleSet, players: int | None) -> int:
    """The player count, refused (exit 2) if the variant is not played by that many."""
    if players is None:
        return rules.default_players
    if players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        parser.error(f"{rules.title} is played by {counts} players, not {players}")
    return players


def check_bot_count(
    parser: argparse.ArgumentParser, bots: tuple[str, ...], players: int, alone: bool = False
) -> None:
    """Refuse (exit 2) a ``--bots`` list that is neither one per team nor one per seat (nor,
    with ``alone``, one bot for every seat)."""
    counts = {2, players} | ({1} if alone else set())
    if len(bots) in counts:
        return
    if players == 2:
        takes = "1 or 2 bots (one per seat)" if alone else "2 bots (one per seat)"
    else:
        takes = (
            "1 bot, 2 (one per team) or 4 (one per seat)"
            if alone
            else ("2 bots (one per team) or 4 (one per seat)")
        )
    parser.error(f"--bots takes {takes} with {players} players, not {len(bots)}: " + ",".join(bots))


def add_montecarlo_budget(parser: argparse.ArgumentParser) -> None:
    """``--playouts N`` and ``--seconds-per-move S``: the search bots' budget (montecarlo and
    ismcts)."""
    parser.add_argument(
        "--playouts",
        type=positive_int,
        metavar="N",
        help="the search bots' (montecarlo, ismcts) sampled deals per decision (defaults: "
        f"montecarlo {MonteCarloBot().playouts}, ismcts {ISMCTSBot().playouts}; with "
        "--seconds-per-move alone, no limit); a bot named with its own budget, as in "
        "ismcts:200 or ismcts:0.25s, keeps it",
    )
    parser.add_argument(
        "--seconds-per-move",
        type=positive_float,
        metavar="S",
        help="the search bots' CPU time per decision, whichever of the two budgets ends first "
        "(default: no limit)",
    )


def montecarlo_bots(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[str | MonteCarloBot | ISMCTSBot, ...]:
    """``args.bots`` with each search bot named without a budget (``montecarlo``, ``mc``,
    ``ismcts``) given the budget of ``--playouts`` and ``--seconds-per-move``; a budget with no
    such bot to take it is refused (exit 2)."""
    playouts, seconds = args.playouts, args.seconds_per_move
    if playouts is None and seconds is None:
        return tuple(args.bots)
    plain = {"montecarlo": MonteCarloBot, "mc": MonteCarloBot, "ismcts": ISMCTSBot}
    if not any(name in plain for name in args.bots):
        parser.error(
            "--playouts and --seconds-per-move set the search bots (montecarlo, ismcts) named "
            "without a budget, and --bots has none"
        )
    if playouts is None and seconds is not None:
        return tuple(
            plain[name](playouts=None, seconds=seconds) if name in plain else name
            for name in args.bots
        )
    return tuple(
        plain[name](playouts=playouts, seconds=seconds) if name in plain else name
        for name in args.bots
    )

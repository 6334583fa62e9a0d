"""Argument types shared by the subcommands: each refuses bad input with a clear message."""

from __future__ import annotations

import argparse

from .. import variants
from ..bots import BOT_NAMES, bot_from_name
from ..rules import RuleSet

__all__ = ["add_variant", "bot_list", "positive_int", "variant"]


def positive_int(text: str) -> int:
    """A whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def whole_number(text: str) -> int:
    """Any whole number."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def variant(text: str) -> RuleSet:
    """A variant by name."""
    try:
        return variants.get(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def bot_list(text: str) -> tuple[str, ...]:
    """Comma-separated bot names: ``greedy,random``."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"no bot named in {text!r}")
    for name in names:
        try:
            bot_from_name(name)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"unknown bot {name!r} in {text!r}; choose from {', '.join(BOT_NAMES)}"
            ) from None
    return names


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

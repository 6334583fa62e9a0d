"""``buraco-rules replay FILE``: a game record, move by move, with its final score."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import GameRecord, from_json, replay, score
from ..formats import DecodeError, ReplayError
from .render import action_text, can_show, render_score

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add ``replay`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "replay",
        help="replay a game record (JSON) move by move, with its final score",
        description="Replay a game record move by move and print its final score.",
    )
    parser.add_argument("file", metavar="FILE", help="a game record in the JSON format")
    parser.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Print every move of the record and the score it ends with."""
    parser: argparse.ArgumentParser = args.parser
    try:
        with open(args.file, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        parser.error(f"cannot read {args.file}: {getattr(error, 'strerror', None) or error}")
    try:
        record = from_json(text)
    except DecodeError as error:
        parser.error(f"{args.file} is not a valid record: {error}")
    if not isinstance(record, GameRecord):
        parser.error(f"{args.file} holds a {type(record).__name__}, not a game record")
    try:
        states = replay(record)
    except ReplayError as error:
        parser.error(f"{args.file} does not replay: {error}")
    ascii_only = args.ascii or not can_show(sys.stdout, "♠♥♦♣★")
    names = record.names or tuple(f"seat {s}" for s in range(record.players))
    print(f"{record.rules.title}, {record.players} players: " + ", ".join(names))
    for key, value in record.meta.items():
        print(f"  {key}: {value}")
    for number, (before, action) in enumerate(zip(states, record.actions, strict=False), 1):
        seat = before.current_player
        print(f"{number:>4}. {names[seat]} (seat {seat}): {action_text(action, ascii_only)}")
    last = states[-1]
    if not last.is_over:
        print("\nThe record stops before the end of the hand; the score so far:")
    elif last.went_out is None:
        print("\nThe stock ran out.")
    else:
        print(f"\nTeam {last.went_out} went out.")
    print(render_score(score(last)))
    return 0

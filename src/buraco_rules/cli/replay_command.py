"""``buraco-rules replay FILE``: a game record, move by move, with its final table and score.

A record is input from anywhere: the file's size is checked before it is read (and the read is
bounded, for files whose size the system does not know), and every text taken from it (names,
``meta``, a custom rule set's title) is printed with its control characters escaped
(:func:`buraco_rules.play.rendering.escape`), so that a record cannot drive the terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .. import GameRecord, from_json, replay, score, view
from ..formats import MAX_JSON_CHARS, DecodeError, ReplayError
from ..play.rendering import action_text, ending_text, escape, render, render_score
from .options import whole_number
from .render import can_show

__all__ = ["MAX_FILE_BYTES", "add_parser", "run"]

MAX_FILE_BYTES = 4 * MAX_JSON_CHARS
"""The largest file read: the most bytes that a document the decoder accepts takes in UTF-8."""
_NAME_CHARS = 40  # at most this many characters of a name or a meta value are printed


def add_parser(commands: Any) -> None:
    """Add ``replay`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "replay",
        help="replay a game record (JSON) move by move, with its final score",
        description="Replay a game record move by move and print its final table and score.",
    )
    parser.add_argument("file", metavar="FILE", help="a game record in the JSON format")
    parser.add_argument(
        "--seat",
        type=whole_number,
        default=0,
        help="draw the final table as this seat sees it (default 0)",
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    parser.set_defaults(run=run, parser=parser)


def read_bounded(path: str) -> bytes:
    """The bytes of the file at ``path``, refused with ``ValueError`` when it is larger than
    :data:`MAX_FILE_BYTES`: its size is checked first, and the read stops one byte past it
    (a pipe or a file growing meanwhile cannot make it read more)."""
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"it is {size:,} bytes, over the limit of {MAX_FILE_BYTES:,}")
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"it is over the limit of {MAX_FILE_BYTES:,} bytes")
    return data


def run(args: argparse.Namespace) -> int:
    """Print every move of the record and the table and score it ends with."""
    parser: argparse.ArgumentParser = args.parser
    shown = escape(args.file, 200)
    try:
        data = read_bounded(args.file)
    except OSError as error:
        parser.error(f"cannot read {shown}: {escape(error.strerror or str(error))}")
    except ValueError as error:
        parser.error(f"{shown} is too large to be a record: {error}")
    try:
        record = from_json(data, expected=GameRecord)
    except DecodeError as error:
        parser.error(f"{shown} is not a valid record: {escape(str(error))}")
    if not 0 <= args.seat < record.players:
        seats = " or ".join(", ".join(map(str, range(record.players))).rsplit(", ", 1))
        parser.error(
            f"--seat must be {seats} with the record's {record.players} players, not {args.seat}"
        )
    try:
        states = replay(record)
    except ReplayError as error:
        parser.error(f"{shown} does not replay: {escape(str(error))}")
    ascii_only = args.ascii or not can_show(sys.stdout, "♠♥♦♣★")
    names = [escape(n, _NAME_CHARS) for n in record.names or ()] or [
        f"seat {s}" for s in range(record.players)
    ]
    title = escape(record.rules.title, _NAME_CHARS)
    print(f"{title}, {record.players} players: " + ", ".join(names))
    for key, value in record.meta.items():
        print(f"  {escape(key, _NAME_CHARS)}: {escape(value, _NAME_CHARS)}")
    for number, (before, action) in enumerate(zip(states, record.actions, strict=False), 1):
        seat = before.current_player
        print(f"{number:>4}. {names[seat]} (seat {seat}): {action_text(action, ascii_only)}")
    last = states[-1]
    if not last.is_over:
        print("\nThe record stops before the end of the hand; the score so far:")
    elif last.outcome is not None:
        print(f"\n{ending_text(last.outcome).capitalize()}.")
    print("\n" + render(view(last, args.seat), ascii_only=ascii_only) + "\n")
    print(render_score(score(last)))
    return 0

"""``buraco-rules tables``: the operator's list of a server's tables, read from its SQLite file
(with the server running or not): each table's state, moves and age, and why a table that cannot
be loaded was set aside.

Imported by the command line for every subcommand, so it imports the server's store only when
run.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ..play.rendering import escape

__all__ = ["add_parser", "run"]

_STATES = {0: "playing", 1: "over", 2: "expired"}


def add_parser(commands: Any) -> None:
    """Add ``tables`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "tables",
        help="list a game server's tables (its SQLite file), and those it set aside",
        description="List every table in a server's SQLite file: id, state (playing, over, "
        "expired, or set aside with the reason: a table the server cannot load), moves and "
        "age. Safe while the server runs (it changes no table).",
    )
    parser.add_argument(
        "--db",
        default="buraco.sqlite",
        help="the SQLite file (default buraco.sqlite), or a postgresql:// URL",
    )
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Print the tables; 2 if the file cannot be read. The file is opened read-only, so that
    the operator can list it when the server cannot write it (a full disk, a read-only mount):
    when the listing is most needed."""
    import sqlite3
    from pathlib import Path

    from ..server.store import GOING, StoreError
    from ..server.stores import is_postgres_url, open_store
    from ..server.tables import load_table
    from ..server.thinking import one_line

    # The path given and the table ids of a hand-edited database are printed escaped.

    if not is_postgres_url(args.db) and not Path(args.db).is_file():
        print(f"buraco-rules tables: no database {escape(args.db)}", file=sys.stderr)
        return 2
    try:
        store = open_store(args.db, read_only=True)  # a full disk or a read-only mount: still read
    except StoreError as error:
        print(f"buraco-rules tables: {escape(str(error))}", file=sys.stderr)
        return 2
    try:
        print(f"{'table':<18} {'state':<10} {'moves':>6} {'age':>8}")
        for table_id, finished, created, moves in store.summary():
            state = _STATES.get(finished, "?")
            if finished == GOING:
                try:  # the server's own loading: what it sets aside, listed so
                    stored = store.load(table_id)
                    if stored is not None:
                        load_table(stored)
                except (Exception, sqlite3.Error) as error:
                    state = f"set aside: {one_line(error)}"
            age = _age(time.time() - created)
            print(f"{escape(table_id):<18} {state:<10} {moves:>6} {age:>8}")
    finally:
        store.close()
    return 0


def _age(seconds: float) -> str:
    if seconds != seconds:  # NaN: a hand-edited creation time that does not read
        return "?"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"

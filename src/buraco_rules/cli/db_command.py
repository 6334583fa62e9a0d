"""``buraco-rules db copy --from FILE --to URL``: a server's SQLite store copied into PostgreSQL
(the ``server`` and ``postgres`` extras), every table with it, so that a server started on the
PostgreSQL database goes on with the unfinished ones (docs/deployment.md).

Imported by the command line for every subcommand, so it imports the stores only when run. The
target's URL is never printed: it may hold a password.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.quoting import describe

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add ``db`` (with its one action, ``copy``) to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "db",
        help="the server's database: copy a SQLite store into PostgreSQL",
        description="Manage the game server's database.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    copy: argparse.ArgumentParser = actions.add_parser(
        "copy",
        help="copy every table of a SQLite store into a PostgreSQL database",
        description="Copy every table of a server's SQLite file (read, never written) into a "
        "PostgreSQL database, in one transaction: all or nothing. Stop the server first.",
    )
    copy.add_argument("--from", dest="source", required=True, metavar="FILE", help="SQLite file")
    copy.add_argument(
        "--to", dest="target", required=True, metavar="URL", help="postgresql://... database"
    )
    copy.set_defaults(run=run, parser=copy)


def run(args: argparse.Namespace) -> int:
    """Copy, and say what was copied; status 2 with one line on stderr if nothing was."""
    from ..server.stores import is_postgres_url

    if not is_postgres_url(args.target):
        args.parser.error("--to takes a postgresql:// URL")
    try:
        import psycopg

        from ..server.dbcopy import CopyError, copy_to_postgres
        from ..server.store import StoreError
    except ImportError as error:
        print(
            f"buraco-rules db copy needs the 'postgres' extra ({error.name} is missing): "
            "pip install 'buraco-rules[server,postgres]'",
            file=sys.stderr,
        )
        return 2
    try:
        copied = copy_to_postgres(args.source, args.target)
    except CopyError as error:
        print(f"buraco-rules db copy: {error}; nothing copied", file=sys.stderr)
        return 2
    except StoreError as error:  # the target cannot be reached (said without its URL)
        print(f"buraco-rules db copy: the target failed: {error}", file=sys.stderr)
        return 2
    except psycopg.Error as error:
        reason = describe(str(error).strip().splitlines()[-1] if str(error).strip() else "")
        print(f"buraco-rules db copy: the target failed: {reason}", file=sys.stderr)
        return 2
    print(
        f"copied {copied.tables} tables ({copied.unfinished} unfinished), "
        f"{copied.tokens} seat tokens' digests, {copied.moves} moves"
    )
    return 0

"""``buraco-rules serve``: the game server (the ``server`` extra), on Uvicorn.

Imported by the command line for every subcommand, so it imports the server only when run: the
other subcommands need nothing beyond the core.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from typing import Any

from ..bots.names import MAX_PLAYOUTS, MAX_SECONDS, bot_from_name
from ..core.quoting import describe

__all__ = ["add_parser", "run"]

_TOKEN = re.compile(r"(token=)[^&\s\"']*")


class _NoTokens(logging.Filter):
    """Blanks anything that looks like a seat token in a log line: the protocol never puts one
    in a URL, so this only guards against a client that does."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(
                _TOKEN.sub(r"\1...", a) if isinstance(a, str) else a
                for a in (record.args if isinstance(record.args, tuple) else (record.args,))
            )
        record.msg = _TOKEN.sub(r"\1...", str(record.msg))
        return True


def add_parser(commands: Any) -> None:
    """Add ``serve`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "serve",
        help="run the game server: tables in the browser (needs the 'server' extra)",
        description="Serve the game page and its tables on a WebSocket, keeping every table "
        "in a SQLite file (created on first use). Open the address it prints in a browser.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--db", default="buraco.sqlite", help="the SQLite file (default buraco.sqlite)"
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="pause before each bot move (default 0.5)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=20.0,
        metavar="N",
        help="messages per second one connection may send (default 20)",
    )
    parser.add_argument(
        "--max-tables", type=int, default=1000, help="most unfinished tables (default 1000)"
    )
    parser.add_argument(
        "--search-budget",
        metavar="BUDGET",
        help="the search bots' (montecarlo, ismcts) thinking budget a move: CPU seconds as in "
        "0.25s, or sampled deals as in 200 (default: their own, 48 and 32 deals)",
    )
    parser.add_argument(
        "--max-tables-per-client",
        type=int,
        default=20,
        metavar="N",
        help="most unfinished tables one address may create (default 20)",
    )
    parser.add_argument(
        "--turn-seconds",
        type=int,
        default=120,
        metavar="SECONDS",
        help="the turn clock of a table with two people or more that names none "
        "(default 120; 0: no clock); a table of one person and bots has none",
    )
    parser.add_argument(
        "--expire-after",
        type=float,
        default=24.0,
        metavar="HOURS",
        help="close an unfinished table after this many hours without a move, unscored "
        "(default 24; 0: never)",
    )
    parser.add_argument(
        "--search-threads",
        type=int,
        default=1,
        metavar="N",
        help="search-bot decisions thought at once for the whole server (default 1)",
    )
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        import uvicorn

        from ..server import create_app
    except ImportError as error:
        print(
            f"buraco-rules serve needs the 'server' extra ({error.name} is missing): "
            "pip install 'buraco-rules[server]'",
            file=sys.stderr,
        )
        return 1
    if not 0 <= args.port <= 65535:
        args.parser.error(f"--port must be 0 to 65535, not {args.port}")
    if args.bot_delay < 0 or args.rate <= 0 or args.max_tables < 1:
        args.parser.error("--bot-delay must be 0 or more, --rate and --max-tables above 0")
    if args.max_tables_per_client < 1 or args.search_threads < 1:
        args.parser.error("--max-tables-per-client and --search-threads must be above 0")
    if args.turn_seconds < 0 or not 0 <= args.expire_after < 1e6:
        args.parser.error("--turn-seconds and --expire-after must be 0 or more")
    if args.search_budget is not None:
        try:
            bot_from_name(f"ismcts:{args.search_budget}")
        except ValueError:
            args.parser.error(
                f"--search-budget takes CPU seconds as in 0.25s or sampled deals as in 200 "
                f"(at most {MAX_SECONDS:g}s or {MAX_PLAYOUTS}), not {describe(args.search_budget)}"
            )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(message)s")
    for name in ("uvicorn.access", "uvicorn.error", "buraco_rules.server"):
        logging.getLogger(name).addFilter(_NoTokens())
    from ..server.store import StoreError, TableStore

    try:  # opened here, so that a database the server cannot use is one line and exit 2
        store = TableStore(args.db, exclusive=True)
    except StoreError as error:
        print(f"buraco-rules serve: {error}", file=sys.stderr)
        return 2
    app = create_app(
        store,
        bot_delay=args.bot_delay,
        rate=args.rate,
        max_tables=args.max_tables,
        search_budget=args.search_budget,
        max_tables_per_client=args.max_tables_per_client,
        turn_seconds=args.turn_seconds or None,
        expire_after=args.expire_after * 3600 or None,
        search_threads=args.search_threads,
    )
    print(f"buraco-rules: serving on http://{args.host}:{args.port}/ (tables in {args.db})")
    sys.stdout.flush()
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        ws_max_size=16 * 1024,
        ws_per_message_deflate=False,  # a view is ~1 KB: compressing it costs more than it saves
        log_level="info",
        timeout_graceful_shutdown=2,
    )
    return 0

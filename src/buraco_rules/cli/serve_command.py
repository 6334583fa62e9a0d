"""``buraco-rules serve``: the game server (the ``server`` extra), on Uvicorn.

Imported by the command line for every subcommand, so it imports the server only when run: the
other subcommands need nothing beyond the core.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from ..bots.names import MAX_PLAYOUTS, MAX_SECONDS, bot_from_name
from ..core.quoting import describe
from ..play.rendering import escape

if TYPE_CHECKING:
    from ..server.stores import Store

__all__ = ["add_parser", "run"]

_TOKEN = re.compile(r"(token=)[^&\s\"']*", re.IGNORECASE)
# A seat token is 43 URL-safe characters (secrets.token_urlsafe(32)); no path or query of the
# server's has a run of 40 or more (a table id is 16), so such a run is taken for a token.
_TOKEN_SHAPED = re.compile(r"[A-Za-z0-9_-]{40,}")
_LOGGED = 300  # characters of one argument of a log line (a 30 KB URL is not a 30 KB line)


class _Quiet(logging.Filter):
    """Drops the WebSocket library's "connection open", "connection closed" and "connection
    rejected": Uvicorn's own line ("WebSocket /ws" [accepted], or 403) already says it, once a
    connection."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(
            ("connection open", "connection closed", "connection rejected")
        )


def _without_tokens(text: str) -> str:
    """``text`` with anything that looks like a seat token blanked: ``token=`` in any case, or
    a run of characters shaped like one anywhere, as in a path."""
    return _TOKEN_SHAPED.sub("...", _TOKEN.sub(r"\1...", text))


def _blanked(text: str) -> str:
    """A log line's argument :func:`_without_tokens`, cut to :data:`_LOGGED`."""
    text = _without_tokens(text)
    if len(text) > _LOGGED:
        text = f"{text[:_LOGGED]}... ({len(text)} characters)"
    return text


class _NoTokens(logging.Filter):
    """Blanks anything that looks like a seat token in a log line, and cuts each of its
    arguments (a request's path) short: the protocol never puts a token in a URL, so this only
    guards against a client that does (in a query, in any case, or in the path itself)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(
                _blanked(a) if isinstance(a, str) else a
                for a in (record.args if isinstance(record.args, tuple) else (record.args,))
            )
        record.msg = _without_tokens(str(record.msg))
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
        "--db",
        default="buraco.sqlite",
        help="the SQLite file (default buraco.sqlite), or a postgresql:// URL (the 'postgres' "
        "extra): a database any number of servers share",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes sharing the port (default 1); more than one needs a "
        "postgresql:// --db",
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
    abuse = parser.add_argument_group(
        "closed to abuse", "limits for a server that strangers can reach (docs/server.md)"
    )
    abuse.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the server answers to, besides the --host it listens on (and localhost): "
        "needed for a DNS name; repeatable",
    )
    abuse.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="another site whose pages may use the server, as in https://example.org; repeatable",
    )
    abuse.add_argument(
        "--create-rate",
        type=float,
        default=10.0,
        metavar="N",
        help="tables one client address may create a minute (default 10; 0: no limit)",
    )
    abuse.add_argument(
        "--create-burst",
        type=int,
        default=8,
        metavar="N",
        help="...at once, a search bot's seat counting one more (default 8)",
    )
    abuse.add_argument(
        "--join-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a WebSocket that has not joined a seat by then is closed (default 10)",
    )
    abuse.add_argument(
        "--request-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a connection whose request (headers and body) is not complete by then is closed "
        "(default 10)",
    )
    abuse.add_argument(
        "--max-connections",
        type=int,
        default=4096,
        metavar="N",
        help="the most connections open at once, WebSockets included (default 4096)",
    )
    abuse.add_argument(
        "--max-per-address",
        type=int,
        default=64,
        metavar="N",
        help="...from one client address (an IPv6 /64); a --proxy is not counted (default 64)",
    )
    abuse.add_argument(
        "--request-rate",
        type=float,
        default=50.0,
        metavar="N",
        help="HTTP requests a second from one client address, in bursts of 4N (WebSocket "
        "handshakes aside); more are answered 429 (default 50; 0: no limit)",
    )
    abuse.add_argument(
        "--bar-after",
        type=int,
        default=20,
        metavar="N",
        help="refuse an address's connections unread once it was refused N times in a burst "
        "(403, 413, too many requests or connections, a WebSocket closed for its fault), one "
        "forgiven a second (default 20; 0: never)",
    )
    abuse.add_argument(
        "--proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="the address of a reverse proxy in front (as in 127.0.0.1): only its connections' "
        "X-Forwarded-For names the client; by default no forwarded header is believed; "
        "repeatable",
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
        "--expire-unplayed",
        type=float,
        default=60.0,
        metavar="MINUTES",
        help="close a table with no move at all and nobody connected after this many minutes, "
        "unscored: a table nobody sat down at (default 60; 0: only --expire-after)",
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="on PostgreSQL: a process silent this long (frozen, not dead) loses the tables it "
        "drives to the others (default 10)",
    )
    parser.add_argument(
        "--search-processes",
        type=int,
        default=1,
        metavar="N",
        help="search-bot decisions thought at once for the whole server, each in a process "
        "of its own (default 1)",
    )
    parser.set_defaults(run=run, parser=parser)


def _allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The names a server listening on ``host`` answers to: ``localhost``, ``host`` itself when
    it is a name, and ``extra`` (an IP address is always accepted, see
    :class:`~buraco_rules.server.guard.OriginGuard`)."""
    return ["localhost", host, *extra]


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        import uvicorn

        from ..server import create_app  # noqa: F401  (the extra is there)
    except ImportError as error:
        print(
            f"buraco-rules serve needs the 'server' extra ({error.name} is missing): "
            "pip install 'buraco-rules[server]'",
            file=sys.stderr,
        )
        return 1
    if not 0 <= args.port <= 65535:
        args.parser.error(f"--port must be 0 to 65535, not {args.port}")
    if not 1 <= args.workers <= 256:
        args.parser.error(f"--workers must be 1 to 256, not {args.workers}")
    from ..server.stores import is_postgres_url

    if args.workers > 1 and not is_postgres_url(args.db):
        print(
            "buraco-rules serve: --workers needs a postgresql:// --db (a SQLite file is served "
            "by one process)",
            file=sys.stderr,
        )
        return 2
    if args.bot_delay < 0 or args.rate <= 0 or args.max_tables < 1:
        args.parser.error("--bot-delay must be 0 or more, --rate and --max-tables above 0")
    if (
        args.create_rate < 0
        or min(args.create_burst, args.max_connections, args.max_per_address) < 1
        or args.bar_after < 0
        or args.request_rate < 0
    ):
        args.parser.error(
            "--create-rate, --request-rate and --bar-after must be 0 or more, --create-burst, "
            "--max-connections and --max-per-address above 0"
        )
    if not (args.join_timeout > 0 and args.request_timeout > 0):
        args.parser.error("--join-timeout and --request-timeout must be above 0")
    for proxy in args.proxy:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            args.parser.error(f"--proxy takes an IP address or network, not {describe(proxy)}")
    if args.max_tables_per_client < 1 or args.search_processes < 1:
        args.parser.error("--max-tables-per-client and --search-processes must be above 0")
    if args.turn_seconds < 0 or not 0 <= args.expire_after < 1e6:
        args.parser.error("--turn-seconds and --expire-after must be 0 or more")
    if not 0 <= args.expire_unplayed < 1e8:
        args.parser.error("--expire-unplayed must be 0 or more")
    if not 1 <= args.lease_seconds <= 3600:
        args.parser.error("--lease-seconds must be 1 to 3600")
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
    logging.getLogger("uvicorn.error").addFilter(_Quiet())
    from ..server.store import StoreError
    from ..server.stores import open_store

    try:  # opened here, so that a database the server cannot use is one line and exit 2
        store = open_store(args.db, exclusive=True)
    except StoreError as error:
        print(f"buraco-rules serve: {escape(str(error))}", file=sys.stderr)
        return 2
    label = store.label
    if args.workers > 1:
        store.close()  # each worker opens its own (after the fork: no connection is shared)
        return _supervise(args, label)
    print(
        f"buraco-rules: serving on http://{escape(args.host)}:{args.port}/ "
        f"(tables in {escape(label)})"
    )
    sys.stdout.flush()
    from ..server import gcpolicy

    options = _uvicorn_options(args)
    gcpolicy.tune_for_server()  # the collector's settings for a server: docs/performance.md
    uvicorn.run(_app(args, store), **options)
    return 0


def _app(args: argparse.Namespace, store: str | Store) -> Any:
    """The application ``args`` describe, around ``store`` (an open store, or the ``--db``)."""
    from ..server import create_app

    return create_app(
        store,
        bot_delay=args.bot_delay,
        rate=args.rate,
        max_tables=args.max_tables,
        search_budget=args.search_budget,
        join_timeout=args.join_timeout,
        allowed_hosts=_allowed_hosts(args.host, args.allow_host),
        allowed_origins=args.allow_origin,
        create_rate=args.create_rate,
        create_burst=args.create_burst,
        max_tables_per_client=args.max_tables_per_client,
        turn_seconds=args.turn_seconds or None,
        expire_after=args.expire_after * 3600 or None,
        expire_unplayed=args.expire_unplayed * 60 or None,
        search_processes=args.search_processes,
        lease_seconds=args.lease_seconds,
    )


def _uvicorn_options(args: argparse.Namespace) -> dict[str, Any]:
    """Uvicorn's settings for ``args``, closed to abuse (docs/server.md)."""
    from ..server.http_limits import MAX_HEADER_BYTES, limited_protocols

    max_connections = _open_files_for(args.max_connections)
    http, ws = limited_protocols(
        request_timeout=args.request_timeout,
        max_connections=max_connections,
        per_address=args.max_per_address,
        # only the proxies the operator names carry many clients' connections
        trusted=args.proxy,
        bar_after=args.bar_after,
        request_rate=args.request_rate,
    )
    return {
        "host": args.host,
        "port": args.port,
        "ws_max_size": 16 * 1024,
        "ws_per_message_deflate": False,  # a view is ~1 KB: compressing costs more than it saves
        "log_level": "info",
        "timeout_graceful_shutdown": 2,
        # The h11 parser bounds unfinished headers (httptools keeps them without limit), the
        # protocols add the request deadline, the connection cap and a short WebSocket close;
        # uvicorn's own cap bounds the requests in progress.
        "http": http,
        "ws": ws,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "limit_concurrency": max_connections + 1,
        "backlog": min(max_connections, 2048),
        # Forwarded headers are believed from the named proxies only: Uvicorn's default trusts
        # any from loopback, so a client there could name itself any address it likes.
        "proxy_headers": bool(args.proxy),
        "forwarded_allow_ips": ",".join(args.proxy) or None,
    }


def _supervise(args: argparse.Namespace, label: str) -> int:
    """``--workers N``: bind the port once, fork N workers that accept on it (each with its
    own connections to the database), and fork a new one for each that dies, until SIGINT or
    SIGTERM, which each worker gets to stop gracefully."""
    import signal
    import socket

    if not hasattr(os, "fork"):
        print("buraco-rules serve: --workers needs a system with fork", file=sys.stderr)
        return 2
    options = _uvicorn_options(args)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((args.host, args.port))
    except OSError as error:
        print(
            f"buraco-rules serve: cannot listen on {args.port}: {error.strerror}", file=sys.stderr
        )
        return 2
    listener.listen(options["backlog"])
    print(
        f"buraco-rules: serving on http://{escape(args.host)}:{args.port}/ with {args.workers} "
        f"workers (tables in {escape(label)})"
    )
    sys.stdout.flush()
    stopping = False
    workers: set[int] = set()

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def fork() -> None:
        pid = os.fork()
        if pid == 0:  # the worker: default signals (Uvicorn sets its own), serve, exit
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            code = 1
            try:
                import uvicorn

                from ..server import gcpolicy
                from ..server.parent import follow_parent

                # A parent killed outright cannot stop its workers: each stops itself, as
                # for SIGTERM, so that the port and its tables' leases are free for a new server.
                follow_parent(lambda: os.kill(os.getpid(), signal.SIGTERM))
                config = uvicorn.Config(_app(args, args.db), **options)
                gcpolicy.tune_for_server()  # each worker is a server process of its own
                uvicorn.Server(config).run(sockets=[listener])
                code = 0
            finally:
                os._exit(code)
        workers.add(pid)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for _ in range(args.workers):
        fork()
    while workers:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:  # pragma: no cover (PEP 475 retries it)
            continue
        workers.discard(pid)
        if not stopping:
            print(
                f"buraco-rules: worker {pid} ended ({_how(status)}); starting another",
                file=sys.stderr,
            )
            fork()
    listener.close()
    return 0


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit {os.WEXITSTATUS(status)}"


_SPARE_FILES = 256  # the database, its journal, the static files, the log: what is not a client


def _open_files_for(connections: int) -> int:
    """Raise the soft limit on open files so that ``connections`` fit (within the hard limit),
    so that the connection cap, not the system, is what refuses a connection; the cap that fits
    when the system allows fewer (said once on stderr)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return connections
    wanted = connections + _SPARE_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return connections
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    with contextlib.suppress(ValueError, OSError):  # a sandbox may forbid it: keep the soft
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft >= wanted:
        return connections
    fitting = max(1, soft - _SPARE_FILES)
    print(
        f"buraco-rules: {soft} open files allowed: at most {fitting} connections, "
        f"not {connections}",
        file=sys.stderr,
    )
    return fitting

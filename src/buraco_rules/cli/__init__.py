"""The ``buraco-rules`` command (also ``python -m buraco_rules``).

Subcommands: ``simulate`` (bots against bots, with statistics), ``ladder`` (a rated round
robin among bots), ``play`` (you against bots in the
terminal), ``match`` (a whole match between bots, R20), ``replay`` (a game record, move by move)
``bench`` (the engine's benchmark), ``serve`` (the game server) and ``tables`` (a server's
tables, for its operator). Bad arguments print a message and exit with status 2.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from .. import __version__
from . import (
    bench_command,
    db_command,
    ladder_command,
    match_command,
    play_command,
    replay_command,
    serve_command,
    simulate_command,
    tables_command,
)

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="buraco-rules",
        description="Bots, simulations and a terminal game on the buraco-rules engine.",
    )
    parser.add_argument("--version", action="version", version=f"buraco-rules {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (
        simulate_command,
        ladder_command,
        play_command,
        match_command,
        replay_command,
        bench_command,
    ):
        module.add_parser(commands)
    serve_command.add_parser(commands)
    db_command.add_parser(commands)
    tables_command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command with ``argv`` (default: ``sys.argv[1:]``); the exit status."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            # A terminal without the suit symbols shows '?' rather than stopping with an error.
            stream.reconfigure(errors="replace")
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["bench"]:  # everything after it is the benchmark's own
        return bench_command.run_bench(arguments[1:])
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was closed (e.g. piped into head)
        return 0
    return status

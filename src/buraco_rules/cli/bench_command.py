"""``buraco-rules bench``: the engine's benchmark (:mod:`buraco_rules.bench`) under the command."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .. import bench

__all__ = ["add_parser", "run_bench"]


def add_parser(commands: Any) -> None:
    """List ``bench`` among the subcommands (:func:`buraco_rules.cli.main` hands everything after
    it to the benchmark)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "bench",
        help="the engine's benchmark: playouts per second and the cost of each call",
        add_help=False,  # --help goes to the benchmark's own parser
    )
    parser.set_defaults(run=lambda args: run_bench([]), parser=parser)


def run_bench(arguments: Sequence[str]) -> int:
    """``python -m buraco_rules.bench`` with ``arguments``, under the command."""
    return bench.main(list(arguments))

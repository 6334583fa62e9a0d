"""The benchmark's command line: ``python -m buraco_rules.bench`` and ``buraco-rules bench``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from .. import variants
from ..arguments import non_negative_float, positive_float, positive_int, whole_number
from .adapters import ADAPTER_HANDS, _format_adapters, adapter_figures
from .memory import cache_memory
from .playouts import ROUNDS, run
from .replay import replay_figures
from .scaling import default_variants, format_rows, hand_size_figures


def _format(result: dict[str, Any]) -> str:
    lines = [f"{result['variant']}, {result['players']} players (median of {ROUNDS} rounds)"]
    for key, value in result.items():
        if key in ("variant", "players"):
            continue
        text = f"{value:,.2f}" if isinstance(value, float) else str(value)
        lines.append(f"  {key:<28}{text:>14}")
    return "\n".join(lines)


def _configurations(names: Sequence[str], counts: Sequence[int] | None) -> list[tuple[str, int]]:
    return [
        (name, players)
        for name in names
        for players in variants.get(name).player_counts
        if counts is None or players in counts
    ]


def _bare_run_minutes(seconds: float) -> int:
    """The expected length of a run with no arguments, in whole minutes: each configuration
    takes about twice its budget (warm-up and measuring) plus a few seconds of sampling."""
    configs = len(_configurations(variants.NAMES, None))
    return max(1, round(configs * (2.1 * seconds + 5) / 60))


def parser() -> argparse.ArgumentParser:
    """The benchmark's arguments, as ``buraco-rules bench`` takes them."""
    seconds = 10.0
    minutes = _bare_run_minutes(seconds)
    configs = len(_configurations(variants.NAMES, None))
    parser = argparse.ArgumentParser(
        prog="buraco-rules bench",
        description="Benchmark the engine: random playouts per second and the cost of each call, "
        "per variant and player count.",
        epilog=f"With no arguments it measures all {configs} pairs of variant and player count, "
        f"{seconds:g} s each after as long a warm-up: about {minutes} minutes. "
        "docs/performance.md explains each figure.",
    )
    parser.add_argument(
        "--variant",
        choices=variants.NAMES,
        action="append",
        metavar="NAME",
        help=f"measure this variant, one of {', '.join(variants.NAMES)} (repeat for more; "
        "default: all)",
    )
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 4),
        action="append",
        help="measure this player count, 2 or 4 (repeat for both; default: each variant's)",
    )
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=seconds,
        metavar="S",
        help=f"the measuring budget of each variant and player count (default {seconds:g})",
    )
    parser.add_argument(
        "--seed", type=whole_number, default=12345, help="the playouts' seed (default 12345)"
    )
    parser.add_argument(
        "--warmup",
        type=non_negative_float,
        metavar="S",
        help="seconds of play before measuring (default: as long as --seconds)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per line (default: a table)"
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="measure the memo caches' memory and bound instead, for --seconds of play",
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="measure restoring tables from long records instead (a few seconds)",
    )
    parser.add_argument(
        "--by-hand-size",
        action="store_true",
        help="measure legal_actions and legal_tokens by hand size instead (11, 22, 44 and 72 "
        "cards): µs per call and per listed action (default variants: italian, buraco-fechado)",
    )
    parser.add_argument(
        "--adapters",
        type=positive_int,
        nargs="?",
        const=ADAPTER_HANDS,
        metavar="HANDS",
        help="measure the RL adapters instead: µs per token step and per engine decision through "
        "the OpenSpiel game and the PettingZoo env beside the engine's, over HANDS random hands "
        f"(default {ADAPTER_HANDS}) of each variant and player count (needs the openspiel and "
        "pettingzoo extras)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``buraco-rules bench``); bad arguments exit with status 2."""
    arguments = parser()
    args = arguments.parse_args(argv)
    if args.replay:
        print(json.dumps(replay_figures(), indent=None if args.json else 2))
        return 0
    if args.memory:
        print(json.dumps(cache_memory(args.seconds, args.seed), indent=None if args.json else 2))
        return 0
    if args.by_hand_size:
        chosen = tuple(map(variants.get, args.variant or ())) or default_variants()
        for rules in chosen:
            rows = hand_size_figures(rules, seed=args.seed)
            text = "\n".join(json.dumps(r) for r in rows) if args.json else format_rows(rows)
            print(text, flush=True)
        return 0
    names = args.variant or variants.NAMES
    for name in names:
        rules = variants.get(name)
        if args.players and not _configurations([name], args.players):
            counts = " or ".join(map(str, rules.player_counts))
            given = " or ".join(map(str, sorted(set(args.players))))
            arguments.error(f"{rules.title} is played by {counts} players, not {given}")
    for name, players in _configurations(names, args.players):
        if args.adapters is not None:
            figures = adapter_figures(variants.get(name), players, args.adapters, args.seed)
            print(json.dumps(figures) if args.json else _format_adapters(figures), flush=True)
            continue
        result = run(variants.get(name), players, args.seconds, args.seed, args.warmup)
        print(json.dumps(result) if args.json else _format(result), flush=True)
    return 0

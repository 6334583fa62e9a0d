"""The bots' strength campaign: every pair of bots on the same deals, each deal from both seat
orders, in every variant and player count, hand by hand into a JSON-lines file that a later run
continues and ``--summarise`` turns into the tables of docs/bots.md.

The campaign of docs/bots.md (ISMCTSBot against GreedyBot, 100 deals from both seat orders,
every variant with 2 players, then 4; ISMCTSBot against MonteCarloBot at equal time, 0.1 and
0.25 CPU s a move; ISMCTSBot with recall and promise against both; with two root candidates,
with the fitted leaf, and with melds unsearched where the pile is open and their budgets
carried, against MonteCarloBot), then the page's tables written from the kept
hands:

    python tools/ladder.py --bots greedy,ismcts --players 2 --deals 100 --seed 2026 \\
        --workers 2 --out docs/data/strength/greedy-ismcts-2p.jsonl
    python tools/ladder.py --bots greedy,ismcts --players 4 --deals 100 --seed 2026 \\
        --workers 2 --out docs/data/strength/greedy-ismcts-4p.jsonl
    python tools/ladder.py --bots mc:0.1s,ismcts:0.1s --players 2 --deals 26 --seed 2026 \\
        --workers 2 --out docs/data/strength/mc-ismcts-equal-2p.jsonl
    python tools/ladder.py --bots mc:0.1s,ismcts:0.1s --players 4 --deals 30 --seed 2026 \\
        --workers 2 --out docs/data/strength/mc-ismcts-equal-4p.jsonl
    python tools/ladder.py --bots mc:0.25s,ismcts:0.25s --players 2 --deals 23 --seed 2026 \\
        --workers 2 --out docs/data/strength/mc-ismcts-equal-quarter-2p.jsonl
    python tools/ladder.py --bots ismcts:0.1s+recall+promise=1,mc:0.1s --players 4 \\
        --deals 100 --seed 2026 --workers 2 \\
        --out docs/data/strength/mc-ismcts-recall-promise-4p.jsonl   # and 2 players
    python tools/ladder.py --bots ismcts:0.1s+recall+promise=1+candidates=2,mc:0.1s \\
        --players 4 --deals 100 --seed 2026 --workers 2 \\
        --out docs/data/strength/mc-ismcts-candidates-2-4p.jsonl
    python tools/ladder.py --bots ismcts:0.1s+recall+fitted_leaf,mc:0.1s --players 4 \\
        --deals 100 --seed 2026 --workers 2 \\
        --out docs/data/strength/mc-ismcts-fitted-leaf-4p.jsonl   # and 2 players, 25 deals
    python tools/ladder.py --players 4 --deals 120 --seed 2027 --workers 2 \\
        --bots ismcts:0.1s+recall+promise=1+greedy_melds+open_pile_only+carry,mc:0.1s \\
        --out docs/data/strength/mc-ismcts-carry-4p.jsonl        # seed 2027: held out
    python tools/ladder.py --bots ismcts:0.1s+recall+promise=1,greedy --players 2 --deals 50 \\
        --seed 2026 --out docs/data/strength/greedy-ismcts-recall-promise-2p.jsonl  # and 4
    python tools/ladder.py --bots random,greedy --players 2 --deals 100 --seed 2026 \\
        --out docs/data/strength/random-greedy-2p.jsonl        # and 4 players
    python tools/ladder.py --summarise docs/data/strength/*.jsonl --side ismcts \\
        --into docs/bots.md --plot docs/images/strength.svg

A bot's name may carry settings to change after its budget, ``+name=value`` or ``+name`` for a
setting turned on (``ismcts:0.1s+racing=2.5+reserve=4+reuse``): the tuning runs of
docs/bots.md, played on seed 100 into docs/data/tuning/, are named so (the ``+bank`` run was
played by commit e612af9, whose ISMCTSBot had that setting).

Each line is one hand: the variant, the players, the pairing (``first``, ``second``), the deal's
index, ``swapped`` (false: ``first`` is team 0), each team's total, and each bot's decisions
and CPU seconds (``time.thread_time`` around ``choose``). Hands already in ``--out`` are skipped,
so an interrupted campaign goes on where it stopped; one campaign at a time writes a file (a
second is refused: it would play the same hands again). ``--split-replicas REPLICAS`` mends a
file two campaigns wrote at once before that lock: it keeps one copy of each hand, chosen by
``random.Random(--seed)``, and moves the others to REPLICAS. Deal ``i`` is dealt from
``game_seed(seed, i)`` with seat ``i % players`` first (as ``buraco-rules ladder`` and
``simulate`` deal it), the same deal for every pairing.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import attrs

from buraco_rules import variants
from buraco_rules.bots import Bot, bot_from_name
from buraco_rules.bots.ladder import bradley_terry
from buraco_rules.bots.simulate import game_seed, play_game, wilson_interval
from buraco_rules.engine.state import TEAM


def bot_of(spec: str) -> Bot:
    """The bot a campaign's name stands for: a name ``bot_from_name`` takes, then settings to
    change, each ``+name=value`` (a number) or ``+name`` (a setting turned on), as in
    ``ismcts:0.1s+racing=2.5+reserve=4+reuse``; a bad setting is the bot's ``ValueError``."""
    name, *changes = spec.split("+")
    bot = bot_from_name(name)
    settings: dict[str, object] = {}
    for change in changes:
        key, equals, value = change.partition("=")
        if not equals:
            settings[key] = True
        elif value.isdigit():
            settings[key] = int(value)
        else:
            try:
                settings[key] = float(value)
            except ValueError:
                raise ValueError(f"bad setting {change!r} in {spec!r}: give a number") from None
    try:
        return attrs.evolve(bot, **settings)  # type: ignore[misc]
    except TypeError:
        raise ValueError(f"{spec!r} names a setting {type(bot).__name__} does not have") from None


def _key(line: dict[str, Any]) -> tuple[Any, ...]:
    return (line["variant"], line["players"], line["first"], line["second"], line["deal"],
            line["swapped"])  # fmt: skip


def _hand(line: dict[str, Any], seed: int) -> dict[str, Any]:
    """Play the hand ``line`` names (in a worker, with ``--workers``); the line with its
    result."""
    a, b, deal = line["first"], line["second"], line["deal"]
    rules = variants.get(line["variant"])
    players = line["players"]
    order = (b, a) if line["swapped"] else (a, b)
    bots = [bot_of(order[TEAM[seat]]) for seat in range(players)]  # a bot of its own a seat
    result = play_game(
        rules, bots, seed=game_seed(seed, deal), first_player=deal % players, index=deal
    )
    cpu = {a: 0.0, b: 0.0}
    moves = {a: 0, b: 0}
    for seat in range(players):
        who = order[TEAM[seat]]
        cpu[who] += result.cpu[seat]
        moves[who] += result.decisions[seat]
    return {**line, "scores": list(result.scores), "cpu": cpu, "moves": moves}


def play(args: argparse.Namespace) -> None:
    names = [n.strip() for n in args.bots.split(",")]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    if args.against:
        pairs = [(a, b) for a, b in pairs if args.against in (a, b)]
    out = Path(args.out)
    with out.open("a", encoding="utf-8") as file:
        try:  # a second campaign on the same file would play the same hands again
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit(f"another campaign is writing {out}: one at a time") from None
        _play_into(file, out, pairs, args)


def _play_into(
    file: TextIO, out: Path, pairs: list[tuple[str, str]], args: argparse.Namespace
) -> None:
    """Play the hands of ``pairs`` that ``out`` lacks, appending each to ``file``."""
    done = {_key(json.loads(line)) for line in out.read_text().splitlines() if line}
    todo = []
    for deal in range(args.first, args.first + args.deals):  # deal by deal: any stop is even
        for name in (v.strip() for v in args.variants.split(",")):
            rules = variants.get(name)
            players = args.players or rules.default_players
            if players not in rules.player_counts:
                continue
            for a, b in pairs:
                for swapped in (False, True):
                    line = {"variant": name, "players": players, "first": a, "second": b,
                            "deal": deal, "swapped": swapped}  # fmt: skip
                    if _key(line) not in done:
                        todo.append(line)
    with ExitStack() as stack:
        if args.workers > 1:
            pool = stack.enter_context(ProcessPoolExecutor(args.workers))
            played = pool.map(_hand, todo, [args.seed] * len(todo))
        else:
            played = (_hand(line, args.seed) for line in todo)
        for line in played:
            file.write(json.dumps(line) + "\n")
            file.flush()
            team = int(line["swapped"])
            ahead = line["scores"][team] - line["scores"][1 - team]
            print(f"{line['variant']} {line['players']}p deal {line['deal']} {line['first']} vs "
                  f"{line['second']} swapped={line['swapped']}: {line['first']} {ahead:+d}",
                  file=sys.stderr, flush=True)  # fmt: skip


def split_replicas(path: Path, replicas: Path, seed: int) -> int:
    """Keep in ``path`` one hand of each that was played more than once (two campaigns on one
    file, before the lock), chosen by a ``random.Random(seed)`` and not by its result, in the
    file's order; move the others to ``replicas``. The number moved."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    copies: dict[tuple[Any, ...], list[int]] = {}
    for i, line in enumerate(lines):
        copies.setdefault(_key(json.loads(line)), []).append(i)
    rng = random.Random(seed)
    kept = {rng.choice(at) for at in copies.values()}
    moved = [line for i, line in enumerate(lines) if i not in kept]
    path.write_text("".join(lines[i] + "\n" for i in sorted(kept)), encoding="utf-8")
    if moved:
        with replicas.open("a", encoding="utf-8") as file:
            file.writelines(line + "\n" for line in moved)
    return len(moved)


class Row(NamedTuple):
    """One line of the table, with ``bot``'s score (wins, ties half), the hands counted and the
    win rate's 95 % interval."""

    line: str
    score: float
    hands: int
    low: float
    high: float


def _row(label: str, bot: str, other: str, hands: list[dict[str, Any]]) -> Row:
    """One line of the table: ``bot`` against ``other`` over the deals of ``hands`` played from
    both seat orders."""
    deals: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for h in hands:
        deals.setdefault((h["variant"], h["players"], h["deal"]), []).append(h)
    both = [d for d in deals.values() if len(d) == 2]
    wins = ties = 0
    differences = []
    for d in both:
        ahead = []
        for h in d:
            team = int(h["swapped"]) if bot == h["first"] else 1 - int(h["swapped"])
            mine, theirs = h["scores"][team], h["scores"][1 - team]
            ahead.append(mine - theirs)
            wins += mine > theirs
            ties += mine == theirs
        differences.append(statistics.fmean(ahead))
    n = 2 * len(both)
    if not n:
        return Row("", 0.0, 0, 0.0, 1.0)
    score = wins + ties / 2
    low, high = wilson_interval(score, n)
    mean = statistics.fmean(differences)
    half = (
        1.96 * statistics.stdev(differences) / math.sqrt(len(differences))
        if len(differences) > 1
        else math.inf
    )
    per_move = []
    for who in (bot, other):
        spent = sum(h["cpu"][who] for d in both for h in d)
        made = sum(h["moves"][who] for d in both for h in d)
        per_move.append(spent / max(1, made))
    tied = f" ({ties} tied)" if ties else ""
    line = (
        f"| {label} | {bot} | {other} | {len(both)} ({n}) | {wins}{tied} | {score / n:.1%} "
        f"| {low:.1%}–{high:.1%} | {mean:+.0f} ± {half:.0f} "
        f"| {per_move[0]:.2g}, {per_move[1]:.2g} |"
    )
    return Row(line, score, n, low, high)


def _plays_as(name: str, side: str | None) -> bool:
    """Whether the bot ``name`` is ``side``, at any budget (``ismcts:0.1s`` is ``ismcts``)."""
    return side is not None and (name == side or name.startswith(side + ":"))


def summarise(paths: list[str], side: str | None = None) -> str:
    """The pairwise table of a campaign's files (from ``side``'s point of view when it plays),
    each variant and then all together, and the ratings where three bots or more met."""
    return _tables(paths, side)[0]


def _tables(paths: list[str], side: str | None) -> tuple[str, list[tuple[str, Row]]]:
    """The text of :func:`summarise`, and each variant's row with its label for the plot."""
    lines = [
        json.loads(line)
        for path in sorted(paths)
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line
    ]
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for line in lines:
        pairs.setdefault((line["first"], line["second"]), []).append(line)
    out = [
        "| variant, players | bot | against | deals (hands) | wins | win rate | 95 % interval "
        "| points ahead per hand (95 %) | CPU s per move (bot, against) |",
        "| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    plotted: list[tuple[str, Row]] = []
    ratings: dict[tuple[str, int], list[tuple[str, str, float, float]]] = {}
    for (a, b), hands in sorted(pairs.items()):
        bot, other = (b, a) if _plays_as(b, side) and not _plays_as(a, side) else (a, b)
        groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for h in hands:
            groups.setdefault((h["variant"], h["players"]), []).append(h)
        for (variant, players), group in sorted(groups.items()):
            row = _row(f"{variant}, {players}", bot, other, group)
            if row.hands:
                out.append(row.line)
                if _plays_as(bot, side):
                    plotted.append((f"{bot} vs {other}, {variant}, {players}p", row))
                ratings.setdefault((variant, players), []).append(
                    (bot, other, row.score, row.hands - row.score)
                )
        if len(groups) > 1:
            out.append(_row("**all**", bot, other, hands).line)
    for (variant, players), results in sorted(ratings.items()):
        names = sorted({n for r in results for n in r[:2]})
        if len(names) < 3:
            continue
        try:
            rated = bradley_terry(names, results)
        except ValueError:  # bots that no games link share no scale: no ratings
            continue
        out += ["", f"{variant}, {players} players:", "",
                "| bot | rating (Bradley–Terry, Elo scale) | 95 % interval |",
                "| --- | ---: | --- |"]  # fmt: skip
        for name, rating, low, high in rated:
            out.append(f"| {name} | {rating:+.0f} | {low:+.0f} to {high:+.0f} |")
    return "\n".join(out), plotted


def plot(paths: list[str], side: str | None = None) -> str:
    """An SVG picture of ``side``'s win rates in the table, each variant's with its 95 %
    interval, beside an even game (50 %) and the issue's bar (55 %)."""
    return _draw(_tables(paths, side)[1])


def _draw(plotted: list[tuple[str, Row]]) -> str:
    """The SVG of :func:`plot` from the table's rows."""
    # The labels' column fits the longest (about 6.5 px a character at 12 px sans-serif).
    longest = max((len(label) for label, _ in plotted), default=0)
    left, width, top, step = max(290, round(6.5 * longest) + 20), 380, 34, 22
    height = top + step * len(plotted) + 34

    def x(rate: float) -> float:
        return left + width * rate

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" '
        f'height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{left + width + 20}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="16">win rate and 95 % interval (a tie counts half); '
        f"dashed: 50 %, 55 %</text>",
    ]
    for rate in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{x(rate):.1f}" y1="{top - 8}" x2="{x(rate):.1f}" '
            f'y2="{height - 26}" stroke="#ddd"/>'
            f'<text x="{x(rate):.1f}" y="{height - 10}" text-anchor="middle">{rate:.0%}</text>'
        )
    for rate, colour in ((0.5, "#888"), (0.55, "#c33")):
        parts.append(
            f'<line x1="{x(rate):.1f}" y1="{top - 8}" x2="{x(rate):.1f}" y2="{height - 26}" '
            f'stroke="{colour}" stroke-dasharray="4 3"/>'
        )
    for i, (label, row) in enumerate(plotted):
        y = top + step * i + step / 2
        parts.append(
            f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{label}</text>'
            f'<line x1="{x(row.low):.1f}" y1="{y:.1f}" x2="{x(row.high):.1f}" y2="{y:.1f}" '
            f'stroke="#246" stroke-width="2"/>'
            f'<circle cx="{x(row.score / row.hands):.1f}" cy="{y:.1f}" r="4" fill="#246"/>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


BEGIN = "<!-- tools/ladder.py --summarise: begin -->"
END = "<!-- tools/ladder.py --summarise: end -->"


def replace_block(page: str, tables: str) -> str:
    """``page`` with what stands between its lines ``BEGIN`` and ``END`` replaced by
    ``tables``."""
    start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:start] + "\n\n" + tables + "\n\n" + page[end:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="greedy,montecarlo,ismcts")
    parser.add_argument("--against", help="only the pairings of this bot")
    parser.add_argument("--variants", default=",".join(variants.NAMES))
    parser.add_argument("--players", type=int, help="default: each variant's own")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="the first deal's index")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default="ladder.jsonl")
    parser.add_argument("--workers", type=int, default=1, help="processes to play in")
    parser.add_argument(
        "--summarise", metavar="FILE", nargs="+", help="print the tables of these files"
    )
    parser.add_argument("--side", help="with --summarise: the bot whose point of view to show")
    parser.add_argument(
        "--into",
        metavar="PAGE",
        help="with --summarise: write the tables into PAGE between its two marker lines "
        f"({BEGIN!r} and {END!r}) instead of printing them",
    )
    parser.add_argument(
        "--plot", metavar="SVG", help="with --summarise: also draw the win rates into SVG"
    )
    parser.add_argument(
        "--split-replicas",
        metavar="REPLICAS",
        help="keep in --out one hand of each played more than once (chosen by --seed's rng), "
        "the others moved to REPLICAS",
    )
    args = parser.parse_args()
    if args.split_replicas:
        moved = split_replicas(Path(args.out), Path(args.split_replicas), args.seed)
        print(f"{moved} replicas moved to {args.split_replicas}")
        return
    if not args.summarise:
        play(args)
        return
    tables, plotted = _tables(args.summarise, args.side)  # the files are read once
    if args.plot:
        Path(args.plot).write_text(_draw(plotted), encoding="utf-8")
    if args.into:
        page = Path(args.into)
        page.write_text(replace_block(page.read_text(encoding="utf-8"), tables), encoding="utf-8")
    else:
        print(tables)


if __name__ == "__main__":
    main()

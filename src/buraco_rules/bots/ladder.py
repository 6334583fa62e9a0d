"""A rated round robin among bots: every pair plays the same deals from both seat orders.

Each pairing is two :func:`~buraco_rules.bots.simulate.simulate` runs with the same seed, so the
same deals with the same first seats, once with each bot as team 0: what one bot's luck gives it in
a deal, the other gets back in the swapped game. Every pairing is played on the same deals. The
ratings are a Bradley–Terry fit of all the hands (on the Elo scale, with 95 % intervals).

>>> from buraco_rules.bots.ladder import ladder
>>> table = ladder("canasta-stbl", 2, bots=("random", "greedy"), hands=2, seed=1)
>>> [p.hands for p in table.pairings]
[4]
>>> [name for name, *_ in table.ratings()]
['greedy', 'random']
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any

import attrs

from .. import variants
from ..core.rules import RuleSet
from ..engine.state import TEAM
from .simulate import BotSpec, Simulation, bot_label, seat_bots, simulate, wilson_interval

__all__ = ["Ladder", "Pairing", "bradley_terry", "ladder"]

ELO: float = 400 / math.log(10)
"""Elo points per unit of Bradley–Terry log-strength (a 400-point gap is 10 to 1 odds)."""


@attrs.frozen
class Pairing:
    """Two bots on the same deals from both seat orders: ``forward`` with ``first`` as team 0,
    ``backward`` with ``second`` as team 0."""

    first: str
    second: str
    forward: Simulation
    backward: Simulation

    @property
    def hands(self) -> int:
        """Hands played (twice the deals)."""
        return self.forward.games + self.backward.games

    @property
    def wins(self) -> tuple[int, int, int]:
        """Hands won by ``first``, by ``second``, and tied."""
        a = self.forward.wins[0] + self.backward.wins[1]
        b = self.forward.wins[1] + self.backward.wins[0]
        return (a, b, self.forward.ties + self.backward.ties)

    def win_rate(self) -> tuple[float, float, float]:
        """``first``'s share of the hands (a tie counts half), with its 95 % Wilson interval."""
        a, _, ties = self.wins
        score = a + ties / 2
        low, high = wilson_interval(score, self.hands)
        return (score / self.hands, low, high)

    def deal_differences(self) -> list[float]:
        """Per deal, ``first``'s points ahead of ``second``'s, averaged over its two seat orders
        (the paired measurement: the deal's luck cancels)."""
        return [
            ((f.scores[0] - f.scores[1]) + (b.scores[1] - b.scores[0])) / 2
            for f, b in zip(self.forward.results, self.backward.results, strict=True)
        ]

    def points_ahead(self) -> tuple[float, float]:
        """``first``'s mean points ahead per hand and the half-width of its 95 % normal interval
        (over the deals, each one's two hands averaged)."""
        differences = self.deal_differences()
        mean = statistics.fmean(differences)
        if len(differences) < 2:
            return (mean, math.inf)
        return (mean, 1.96 * statistics.stdev(differences) / math.sqrt(len(differences)))

    def cpu_spent(self) -> tuple[tuple[float, int], tuple[float, int]]:
        """CPU seconds spent and decisions made by ``first``, and by ``second``."""
        spent = [0.0, 0.0]
        made = [0, 0]
        for run, order in ((self.forward, (0, 1)), (self.backward, (1, 0))):
            for result in run.results:
                for seat, decisions in enumerate(result.decisions):
                    who = order[TEAM[seat]]
                    made[who] += decisions
                    spent[who] += result.cpu[seat] if result.cpu else result.thinking[seat]
        return ((spent[0], made[0]), (spent[1], made[1]))

    def cpu_per_move(self) -> tuple[float, float]:
        """Mean CPU seconds per decision of ``first`` and of ``second``."""
        (a, m), (b, n) = self.cpu_spent()
        return (a / max(1, m), b / max(1, n))

    def to_dict(self) -> dict[str, Any]:
        """A summary made of JSON types."""
        rate, low, high = self.win_rate()
        mean, half = self.points_ahead()
        cpu = self.cpu_per_move()
        return {
            "first": self.first,
            "second": self.second,
            "hands": self.hands,
            "wins": list(self.wins),
            "win_rate": rate,
            "ci95": [low, high],
            "points_ahead": mean,
            "points_ci95": [mean - half, mean + half] if math.isfinite(half) else None,
            "cpu_per_move": {self.first: cpu[0], self.second: cpu[1]},
        }


def bradley_terry(
    names: Sequence[str], results: Sequence[tuple[str, str, float, float]]
) -> list[tuple[str, float, float, float]]:
    """Bradley–Terry ratings on the Elo scale from ``(a, b, a's wins, b's wins)`` (a tie counts
    half to each), best first, each ``(name, rating, low, high)`` with its 95 % interval; the
    ratings average 0.

    Each pair that met is given one more game, split even, so that a bot that never won (or never
    lost) has a finite rating. The intervals come from the curvature of the likelihood (the
    pseudo-inverse of its Fisher information, which has no direction along which every rating
    moves together).

    The bots must be linked by the games, directly or through others: two groups that never met
    have no common scale, and that is a ``ValueError`` naming them."""
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    groups = _linked_groups(names, [(a, b) for a, b, _, _ in results])
    if len(groups) > 1:
        shown = "; ".join(", ".join(group) for group in groups)
        raise ValueError(f"no games link these groups of bots, so they share no scale: {shown}")
    wins = [[0.0] * n for _ in range(n)]
    for a, b, won, lost in results:
        i, j = index[a], index[b]
        wins[i][j] += won + 0.5
        wins[j][i] += lost + 0.5
    games = [[wins[i][j] + wins[j][i] for j in range(n)] for i in range(n)]
    strength = [1.0] * n
    for _ in range(10_000):  # the MM iteration (Hunter 2004), which always converges here
        updated = []
        for i in range(n):
            total = sum(wins[i])
            below = sum(games[i][j] / (strength[i] + strength[j]) for j in range(n) if j != i)
            updated.append(total / below if below > 0 else strength[i])
        mean_log = statistics.fmean(math.log(s) for s in updated)
        updated = [s / math.exp(mean_log) for s in updated]
        change = max(abs(math.log(u / s)) for u, s in zip(updated, strength, strict=True))
        strength = updated
        if change < 1e-10:
            break
    theta = [math.log(s) for s in strength]
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j and games[i][j]:
                p = 1 / (1 + math.exp(theta[j] - theta[i]))
                w = games[i][j] * p * (1 - p)
                info[i][j] -= w
                info[i][i] += w
    # Pseudo-inverse of a connected Laplacian: (L + J/n)^-1 - J/n.
    covariance = _inverse([[info[i][j] + 1 / n for j in range(n)] for i in range(n)])
    rows = []
    for i, name in enumerate(names):
        variance = max(0.0, covariance[i][i] - 1 / n)
        half = 1.96 * math.sqrt(variance) * ELO
        rating = theta[i] * ELO
        rows.append((name, rating, rating - half, rating + half))
    rows.sort(key=lambda row: (-row[1], row[0]))
    return rows


def _linked_groups(names: Sequence[str], met: Sequence[tuple[str, str]]) -> list[list[str]]:
    """``names`` in groups that games link, directly or through other bots (in ``names``'
    order)."""
    group = {name: {name} for name in names}
    for a, b in met:
        if group[a] is not group[b]:
            merged = group[a] | group[b]
            for name in merged:
                group[name] = merged
    groups: list[list[str]] = []
    for name in names:
        if all(name not in g for g in groups):
            groups.append([other for other in names if other in group[name]])
    return groups


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a small invertible matrix, by Gauss–Jordan elimination with pivoting."""
    n = len(matrix)
    rows = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col][col]
        rows[col] = [x / head for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [row[n:] for row in rows]


@attrs.frozen
class Ladder:
    """The results of :func:`ladder`: every pairing, and the ratings they give."""

    variant: str
    players: int
    seed: int
    deals: int
    """Deals per pairing (each played twice, once from each seat order)."""
    bots: tuple[str, ...]
    pairings: tuple[Pairing, ...]

    def ratings(self) -> list[tuple[str, float, float, float]]:
        """``(bot, rating, low, high)``, best first: :func:`bradley_terry` of every hand."""
        results = []
        for p in self.pairings:
            a, b, ties = p.wins
            results.append((p.first, p.second, a + ties / 2, b + ties / 2))
        return bradley_terry(self.bots, results)

    def cpu_per_move(self) -> dict[str, float]:
        """Each bot's mean CPU seconds per decision over all its pairings."""
        spent: dict[str, float] = dict.fromkeys(self.bots, 0.0)
        made: dict[str, int] = dict.fromkeys(self.bots, 0)
        for p in self.pairings:
            for who, (seconds, moves) in zip((p.first, p.second), p.cpu_spent(), strict=True):
                spent[who] += seconds
                made[who] += moves
        return {name: spent[name] / made[name] if made[name] else 0.0 for name in self.bots}

    def to_dict(self) -> dict[str, Any]:
        """A summary made of JSON types (what ``buraco-rules ladder --json`` prints)."""
        return {
            "variant": self.variant,
            "players": self.players,
            "seed": self.seed,
            "deals": self.deals,
            "bots": list(self.bots),
            "ratings": [
                {"bot": name, "elo": rating, "ci95": [low, high]}
                for name, rating, low, high in self.ratings()
            ],
            "cpu_per_move": self.cpu_per_move(),
            "pairings": [p.to_dict() for p in self.pairings],
        }


def ladder(
    rules: RuleSet | str = variants.BURACO_FECHADO,
    players: int | None = None,
    *,
    bots: Sequence[BotSpec] = ("random", "greedy", "montecarlo", "ismcts"),
    hands: int = 100,
    seed: int = 0,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Ladder:
    """Play every pair of ``bots`` on ``hands`` deals each, every deal from both seat orders,
    the same deals for every pairing (``game_seed(seed, i)``); each pair is two :func:`simulate`
    runs, on ``executor`` if given. A bot is a name, as
    :func:`~buraco_rules.bots.bot_from_name` takes them (budgets included), or a bot object,
    such as a :class:`~buraco_rules.rl.PolicyBot`, which the tables call by
    :func:`~buraco_rules.bots.simulate.bot_label`. ``progress(done, total)`` counts hands. Bad
    arguments are a ``ValueError``."""
    if isinstance(rules, str):
        rules = variants.get(rules)
    if not isinstance(rules, RuleSet):
        raise ValueError(f"rules must be a RuleSet or a variant name, not {rules!r}")
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise ValueError(f"bots must be a sequence of bot names, not {bots!r}")
    specs = seat_bots(tuple(bots), len(bots))  # each a known name or a bot object
    names = tuple(bot_label(spec) for spec in specs)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"a ladder needs two bots or more, each named once, not {names!r}")
    by_name = dict(zip(names, specs, strict=True))
    if type(hands) is not int or hands < 1:
        raise ValueError(f"hands must be a positive whole number, not {hands!r}")
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    total = 2 * hands * len(pairs)
    played = 0

    def run(order: tuple[str, str]) -> Simulation:
        nonlocal played
        base = played

        def step(done: int, _: int) -> None:
            if progress is not None:
                progress(base + done, total)

        result = simulate(
            rules,
            players,
            games=hands,
            bots=(by_name[order[0]], by_name[order[1]]),
            seed=seed,
            executor=executor,
            chunk_size=chunk_size,
            progress=step,
        )
        played += hands
        return result

    pairings = tuple(Pairing(a, b, run((a, b)), run((b, a))) for a, b in pairs)
    first = pairings[0].forward
    return Ladder(
        variant=rules.name,
        players=first.players,
        seed=seed,
        deals=hands,
        bots=names,
        pairings=pairings,
    )

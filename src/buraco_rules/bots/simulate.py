"""Many hands between bots, on one core or on any :class:`concurrent.futures.Executor`.

Each game's seed is derived from the master seed and the game's index, the first seat moves on
one place from game to game, and results are gathered in game order, so the same seed gives the
same results whatever the executor and the number of workers: a process pool, a Dask cluster
(``distributed.Client(...).get_executor(pure=False)``) or none at all.

>>> from buraco_rules.bots.simulate import simulate
>>> result = simulate("canasta-stbl", games=4, bots=("greedy", "random"), seed=1)
>>> result.games, result.wins[0] + result.wins[1] + result.ties
(4, 4)
>>> result == simulate("canasta-stbl", games=4, bots=("greedy", "random"), seed=1)
True
"""

from __future__ import annotations

import hashlib
import importlib
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, as_completed
from contextlib import contextmanager
from typing import Any, TypeVar

import attrs

from .. import variants
from ..core.outcome import Termination
from ..core.rules import RuleSet
from ..engine.scoring import score
from ..engine.state import TEAM, Phase
from ..hidden.views import view
from ..play.face import apply, new_game
from ..play.match import Match, new_match
from . import Bot, bot_from_name

__all__ = [
    "GameResult",
    "Simulation",
    "bot_label",
    "dask_executor",
    "game_seed",
    "play_game",
    "play_match",
    "seat_bots",
    "simulate",
    "wilson_interval",
]

BotSpec = str | Bot
"""A bot by name (:data:`buraco_rules.bots.BOT_NAMES`) or a bot object (picklable, to run in
other processes)."""


Spec = TypeVar("Spec", bound=BotSpec)


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a simulation seeded ``seed``: a hash of both, the same in
    every process and on every machine."""
    digest = hashlib.blake2b(f"{seed}/{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (95 % by default); (0, 1) when there are no trials.
    ``successes`` may be a half (a tie counted half a win)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # The interval always holds p; min and max keep it so when rounding says otherwise at 0 or 1.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


@attrs.frozen
class GameResult:
    """One hand between bots: how it ended and each team's total (R16)."""

    index: int
    seed: int
    """The seed the hand was dealt from (:func:`game_seed`)."""
    first_player: int
    scores: tuple[int, int]
    """Each team's total."""
    turns: int
    """Turns played (one per draw or take of the pile, R4)."""
    steps: int
    """Actions played."""
    went_out: int | None
    """The team that went out (R13), or None."""
    termination: Termination
    """Why the hand ended: a team went out (R13) or the stock ran out (R15)."""
    decisions: tuple[int, ...]
    """Per seat, the decisions its bot made (a single legal action included)."""
    thinking: tuple[float, ...] = attrs.field(eq=False)
    """Per seat, the seconds its bot spent choosing (not part of equality: it varies)."""
    cpu: tuple[float, ...] = attrs.field(eq=False, default=())
    """Per seat, the CPU seconds its bot spent choosing (``time.thread_time``: what it costs,
    whatever else the machine runs; not part of equality)."""

    @property
    def winner(self) -> int | None:
        """The team with the higher total, or None for a tie."""
        a, b = self.scores
        return None if a == b else (0 if a > b else 1)


def play_game(
    rules: RuleSet,
    bots: Sequence[Bot],
    *,
    seed: int,
    first_player: int = 0,
    index: int = 0,
) -> GameResult:
    """Play one hand, one bot per seat; each bot is shown only its seat's view and plays with a
    ``random.Random`` of its own derived from ``seed``. A bot's illegal action raises
    :class:`~buraco_rules.IllegalAction`."""
    players = len(bots)
    state = new_game(rules, players, seed=seed, first_player=first_player)
    rngs = [random.Random(game_seed(seed, seat)) for seat in range(players)]
    decisions = [0] * players
    thinking = [0.0] * players
    cpu = [0.0] * players
    turns = steps = 0
    clock, cpu_clock = time.perf_counter, time.thread_time
    while not state.is_over:
        seat = state.current_player
        if state.phase is Phase.DRAW:
            turns += 1
        start, cpu_start = clock(), cpu_clock()
        action = bots[seat].choose(view(state, seat), rngs[seat])
        thinking[seat] += clock() - start
        cpu[seat] += cpu_clock() - cpu_start
        decisions[seat] += 1
        state = apply(state, action, player=seat)
        steps += 1
    totals = score(state)
    outcome = state.outcome  # never None here: the hand is over
    ending = Termination.STOCK_EXHAUSTED if outcome is None else outcome.termination
    return GameResult(
        index=index,
        seed=seed,
        first_player=first_player,
        scores=(totals[0].total, totals[1].total),
        turns=turns,
        steps=steps,
        went_out=state.went_out,
        termination=ending,
        decisions=tuple(decisions),
        thinking=tuple(thinking),
        cpu=tuple(cpu),
    )


def _table(rules: RuleSet | str, players: int | None) -> tuple[RuleSet, int]:
    """The rule set (a variant's name read) and the number of players (its default when None)
    that :func:`play_match` and :func:`simulate` play, checked: a ``ValueError`` otherwise."""
    if isinstance(rules, str):
        rules = variants.get(rules)
    if not isinstance(rules, RuleSet):
        raise ValueError(f"rules must be a RuleSet or a variant name, not {rules!r}")
    if players is None:
        players = rules.default_players
    if type(players) is not int or players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        raise ValueError(f"{rules.title} is played by {counts} players, not {players!r}")
    return rules, players


def play_match(
    rules: RuleSet | str,
    players: int | None = None,
    *,
    bots: Sequence[BotSpec],
    seed: int = 1,
    max_hands: int = 100,
    on_hand: Callable[[Match], None] | None = None,
) -> Match:
    """Play a whole match (R20) between ``bots`` (names or bot objects, one per team or one per
    seat, as :func:`simulate` takes them), dealt from ``seed``, until a team wins or after
    ``max_hands`` hands; ``on_hand(match)`` is called after each hand. The bots draw from one
    ``random.Random(seed)``. Bad arguments are a ``ValueError``."""
    rules, players = _table(rules, players)
    if type(max_hands) is not int or max_hands < 1:
        raise ValueError(f"max_hands must be a positive whole number, not {max_hands!r}")
    seated = [_make_bot(spec) for spec in seat_bots(bots, players)]
    rng = random.Random(seed)
    match = new_match(rules, players, seed=seed)
    while not match.is_over and len(match.scores) < max_hands:
        hands = len(match.scores)
        while len(match.scores) == hands:
            seat = match.hand.current_player
            match = apply(match, seated[seat].choose(view(match.hand, seat), rng), player=seat)
        if on_hand is not None:
            on_hand(match)
    return match


@attrs.frozen
class _Task:
    """What a worker needs to play a run of games (picklable)."""

    rules: RuleSet
    seats: tuple[BotSpec, ...]
    seed: int


def _make_bot(spec: BotSpec) -> Bot:
    return bot_from_name(spec) if isinstance(spec, str) else spec


def _play_games(task: _Task, start: int, stop: int) -> list[GameResult]:
    """Games ``start`` to ``stop - 1`` of a simulation (run in a worker)."""
    bots = [_make_bot(spec) for spec in task.seats]
    players = len(bots)
    return [
        play_game(
            task.rules,
            bots,
            seed=game_seed(task.seed, i),
            first_player=i % players,
            index=i,
        )
        for i in range(start, stop)
    ]


def bot_label(spec: BotSpec) -> str:
    """The name a bot goes by in tables: a name as given, a bot object's ``name`` attribute if
    it has a string one (as :class:`~buraco_rules.rl.PolicyBot` does), else its class's name."""
    if isinstance(spec, str):
        return spec
    name = getattr(spec, "name", None)
    return name if isinstance(name, str) and name else type(spec).__name__


@attrs.frozen
class Simulation:
    """The results of :func:`simulate`, in game order, and what they add up to.

    Two simulations are equal when they played the same games with the same results; the
    timings are not part of equality.
    """

    variant: str
    players: int
    bots: tuple[str, ...]
    """The bot of each seat."""
    seed: int
    results: tuple[GameResult, ...]
    seconds: float = attrs.field(eq=False)
    """Wall-clock time of the whole simulation."""

    @property
    def games(self) -> int:
        """How many hands were played."""
        return len(self.results)

    @property
    def team_bots(self) -> tuple[str, str]:
        """Each team's bots, as ``"greedy"`` or ``"greedy+random"`` when its seats differ."""
        labels = []
        for team in (0, 1):
            names = list(dict.fromkeys(self.bots[team::2]))
            labels.append("+".join(names))
        return (labels[0], labels[1])

    @property
    def wins(self) -> tuple[int, int]:
        """Hands won by each team (the higher total, R16); ties are counted apart."""
        winners = Counter(r.winner for r in self.results)
        return (winners[0], winners[1])

    @property
    def ties(self) -> int:
        """Hands whose two totals were equal."""
        return sum(1 for r in self.results if r.winner is None)

    def win_rate(self, team: int) -> tuple[float, float, float]:
        """The share of hands ``team`` won, with its 95 % Wilson interval: (rate, low, high)."""
        wins = self.wins[team]
        low, high = wilson_interval(wins, self.games)
        return (wins / self.games if self.games else 0.0, low, high)

    def mean_score(self, team: int) -> float:
        """The team's mean total per hand."""
        return statistics.fmean(r.scores[team] for r in self.results) if self.results else 0.0

    def score_spread(self, team: int) -> float:
        """The standard deviation of the team's totals."""
        if len(self.results) < 2:
            return 0.0
        return statistics.stdev(r.scores[team] for r in self.results)

    @property
    def mean_turns(self) -> float:
        """Mean turns per hand."""
        return statistics.fmean(r.turns for r in self.results) if self.results else 0.0

    @property
    def endings(self) -> dict[str, int]:
        """How many hands ended each way, by :class:`~buraco_rules.Termination` value
        (``went-out``, R13; ``stock-exhausted``, R15)."""
        counts = Counter(r.termination for r in self.results)
        return {t.value: counts[t] for t in Termination}

    @property
    def games_per_s(self) -> float:
        """Hands per second of wall-clock time."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def seconds_per_move(self) -> dict[str, float]:
        """Mean seconds per decision, by bot."""
        spent: dict[str, float] = {}
        made: dict[str, int] = {}
        for r in self.results:
            for seat, name in enumerate(self.bots):
                spent[name] = spent.get(name, 0.0) + r.thinking[seat]
                made[name] = made.get(name, 0) + r.decisions[seat]
        return {name: spent[name] / made[name] if made[name] else 0.0 for name in made}

    def to_dict(self) -> dict[str, Any]:
        """A summary made of JSON types (what ``buraco-rules simulate --json`` prints)."""
        teams = []
        for team in (0, 1):
            rate, low, high = self.win_rate(team)
            teams.append(
                {
                    "team": team,
                    "bots": self.team_bots[team],
                    "wins": self.wins[team],
                    "win_rate": rate,
                    "ci95": [low, high],
                    "mean_score": self.mean_score(team),
                    "score_sd": self.score_spread(team),
                }
            )
        return {
            "variant": self.variant,
            "players": self.players,
            "bots": list(self.bots),
            "seed": self.seed,
            "games": self.games,
            "wins": list(self.wins),
            "ties": self.ties,
            "teams": teams,
            "mean_turns": self.mean_turns,
            "endings": self.endings,
            "seconds": self.seconds,
            "games_per_s": self.games_per_s,
            "seconds_per_move": self.seconds_per_move(),
        }


@contextmanager
def dask_executor(scheduler: str) -> Iterator[Executor]:
    """An executor on the Dask cluster whose scheduler is at ``scheduler`` (an address such as
    ``tcp://10.0.0.1:8786``); needs the ``distributed`` extra. Tasks are submitted with
    ``pure=False``: Dask would otherwise key a task by its arguments and could run two equal
    submissions once."""
    distributed: Any = importlib.import_module("distributed")
    client = distributed.Client(scheduler, timeout="10s")
    try:
        yield client.get_executor(pure=False)
    finally:
        client.close()


def seat_bots(bots: Sequence[Spec], players: int) -> tuple[Spec, ...]:
    """One bot per seat: two bots are the teams' (team 0 first), or one bot per seat."""
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise ValueError(f"bots must be a sequence of bots or bot names, not {bots!r}")
    bots = tuple(bots)
    for spec in bots:
        if isinstance(spec, str):
            bot_from_name(spec)  # an unknown name is refused here, before any game starts
        elif not isinstance(spec, Bot):
            raise ValueError(f"{spec!r} is neither a bot name nor a bot (no choose method)")
    if len(bots) == players:
        return bots
    if len(bots) == 2:
        return tuple(bots[TEAM[seat]] for seat in range(players))
    raise ValueError(f"give 2 bots (one per team) or {players} (one per seat), not {len(bots)}")


def simulate(
    rules: RuleSet | str = variants.BURACO_FECHADO,
    players: int | None = None,
    *,
    games: int = 100,
    bots: Sequence[BotSpec] = ("greedy", "random"),
    seed: int = 0,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Simulation:
    """Play ``games`` hands between ``bots`` and gather the results in game order.

    ``rules`` is a rule set or a variant's name; ``players`` defaults to the variant's. Game ``i``
    is dealt from ``game_seed(seed, i)`` with seat ``i % players`` first. With an ``executor``
    (a ``ProcessPoolExecutor``, Dask's ``Client.get_executor(pure=False)``...) the games are
    submitted in chunks of ``chunk_size``; the results do not depend on it or on the executor.
    ``progress(done, total)`` is called as games finish. Bad arguments are a ``ValueError``.
    """
    rules, players = _table(rules, players)
    if type(games) is not int or games < 1:
        raise ValueError(f"games must be a positive whole number, not {games!r}")
    if type(seed) is not int:
        raise ValueError(f"seed must be a whole number, not {seed!r}")
    seats = seat_bots(bots, players)
    task = _Task(rules=rules, seats=seats, seed=seed)
    if chunk_size is None:
        chunk_size = 1 if executor is None else max(1, min(25, games // 16))
    if type(chunk_size) is not int or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive whole number, not {chunk_size!r}")
    bounds = [(start, min(games, start + chunk_size)) for start in range(0, games, chunk_size)]
    started = time.perf_counter()
    chunks: list[list[GameResult]] = []
    if executor is None:
        done = 0
        for start, stop in bounds:
            chunks.append(_play_games(task, start, stop))
            done += stop - start
            if progress is not None:
                progress(done, games)
    else:
        futures: list[Future[list[GameResult]]] = [
            executor.submit(_play_games, task, start, stop) for start, stop in bounds
        ]
        done = 0
        for future in as_completed(futures):
            done += len(future.result())
            if progress is not None:
                progress(done, games)
        chunks = [future.result() for future in futures]
    results = tuple(r for chunk in chunks for r in chunk)
    return Simulation(
        variant=rules.name,
        players=players,
        bots=tuple(bot_label(spec) for spec in seats),
        seed=seed,
        results=results,
        seconds=time.perf_counter() - started,
    )

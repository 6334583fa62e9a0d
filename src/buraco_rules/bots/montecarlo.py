"""MonteCarloBot: flat Monte Carlo over sampled deals, with greedy rollouts."""

from __future__ import annotations

import random
import time
from typing import Any

import attrs

from .. import apply, determinize, legal_actions, score, view
from ..actions import Action
from ..scoring import TeamScore
from ..state import GameState
from ..views import PlayerView
from .heuristics import MELD_FIRST, Assessment, rank_actions

__all__ = ["MonteCarloBot"]

HELD_WEIGHT = 0.5
"""The share of their value that cards in hand and an untaken extra pile weigh in a hand that a
rollout leaves unfinished."""


def _positive(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ValueError(f"{attribute.name} must be a number or None, not {value!r}")
    if value is not None and value <= 0:
        raise ValueError(f"{attribute.name} must be positive, not {value!r}")


@attrs.frozen
class MonteCarloBot:
    """Flat Monte Carlo search from a player's view.

    At each decision with more than one legal action it keeps GreedyBot's ``candidates`` best
    actions, then, for each playout, samples a deal consistent with the view
    (:func:`buraco_rules.determinize`: the unseen cards shuffled among the other hands, the stock
    and the hidden piles), plays each candidate in that same deal and continues with GreedyBot's
    policy for every seat for ``horizon`` more turns (or to the end of the hand), and scores the
    result as the difference between the two teams' scores (R16). The candidate with the best
    mean wins; ties go to GreedyBot's preference. Sharing each sampled deal and rollout seed
    among the candidates compares them on the same luck.

    The budget is ``playouts`` sampled deals per decision, or ``seconds`` of thinking per
    decision, whichever ends first (at least one playout). Give ``playouts=None`` to think by time
    only.
    """

    playouts: int | None = attrs.field(default=24, validator=_positive)
    seconds: float | None = attrs.field(default=None, validator=_positive)
    candidates: int = attrs.field(default=4, validator=_positive)
    horizon: int = attrs.field(default=6, validator=_positive)

    def __attrs_post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError("give a budget: playouts=, seconds= or both")

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The candidate with the best mean rollout result in ``view``."""
        actions = legal_actions(view)
        if len(actions) == 1:
            return actions[0]
        ranked = rank_actions(Assessment(view), actions)
        if ranked[0][0] >= MELD_FIRST:
            # A meld that gains points is laid as GreedyBot would: the search is kept for the
            # choices that shape the hand (draw or take, what to discard, when to stop melding).
            return actions[ranked[0][1]]
        candidates = [actions[i] for _, i in ranked[: self.candidates]]
        if len(candidates) == 1:
            return candidates[0]
        team = view.seat % 2
        totals = [0.0] * len(candidates)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            world = determinize(view, rng)
            luck = rng.getrandbits(32)
            for j, action in enumerate(candidates):
                totals[j] += _rollout(apply(world, action), team, self.horizon, luck)
            done += 1
            if self.playouts is not None and done >= self.playouts:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
        return candidates[best]


def _rollout(state: GameState, team: int, horizon: int, luck: int) -> float:
    """Greedy play by every seat for ``horizon`` turn changes; the score difference for
    ``team``."""
    del luck  # GreedyBot is deterministic: the sampled deal is all the luck there is
    turns = 0
    seat = state.current_player
    while not state.is_over and turns < horizon:
        actions = legal_actions(state)
        if len(actions) == 1:
            action = actions[0]
        else:
            action = actions[rank_actions(Assessment(view(state, seat)), actions)[0][1]]
        state = apply(state, action)
        if state.current_player != seat:
            seat = state.current_player
            turns += 1
    values = [_standing(s, state.is_over) for s in score(state)]
    return values[team] - values[1 - team]


def _standing(points: TeamScore, over: bool) -> float:
    """A team's score (R16) at the end of a rollout. In a hand still going on, the cards in hand
    and the extra pile are counted at half: they cost their full value only if the hand ended now,
    and counting them in full would make every rollout flee from taking the pile."""
    if over:
        return float(points.total)
    return points.table + points.canastas - HELD_WEIGHT * (points.hands + points.extra_pile)

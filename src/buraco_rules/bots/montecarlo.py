"""MonteCarloBot: flat Monte Carlo over sampled deals, with greedy rollouts."""

from __future__ import annotations

import random
import time
from typing import Any

import attrs

from ..core.actions import Action
from ..hidden.determinize import determinize
from ..hidden.views import PlayerView
from ..play.face import apply, legal_actions
from .heuristics import Assessment, rank_actions
from .rollout import greedy_rollout

__all__ = ["MonteCarloBot"]


def _positive(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ValueError(f"{attribute.name} must be a number or None, not {value!r}")
    if value is not None and value <= 0:
        raise ValueError(f"{attribute.name} must be positive, not {value!r}")


def _number(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{attribute.name} must be a number, not {value!r}")


@attrs.frozen
class MonteCarloBot:
    """Flat Monte Carlo search from a player's view.

    At a decision with more than one legal action it keeps GreedyBot's ``candidates`` best
    actions; then, for each playout, it samples a deal consistent with the view
    (:func:`buraco_rules.determinize`: the unseen cards dealt at random to the other hands, the
    stock and the hidden piles), plays every candidate in that same deal, and lets GreedyBot's
    policy play every seat for ``horizon`` more turns or to the end of the hand. Each rollout is
    scored by the difference between the two teams' scores (R16; an unfinished hand as if it
    ended then, nobody going out, but with the cards still in hand counted at ``hand_weight`` of
    their value, since a card held mid-hand may yet be melded). Trying every candidate on the
    same sampled deals compares them on the same luck. The candidate with the best mean is
    played, if it beats GreedyBot's own choice by ``margin`` points or more on average (a margin
    keeps the search from following the luckiest of several candidates when the playouts are
    few); ties go to GreedyBot's choice.

    The budget is ``playouts`` sampled deals per decision, or ``seconds`` of CPU time per
    decision (``time.thread_time``: the thinking thread's own), whichever ends first (at least
    one playout). Give ``playouts=None`` to think by time only. Bad settings are a
    ``ValueError``.
    """

    playouts: int | None = attrs.field(default=48, validator=_positive)
    seconds: float | None = attrs.field(default=None, validator=_positive)
    candidates: int = attrs.field(default=4, validator=_positive)
    horizon: int = attrs.field(default=10, validator=_positive)
    margin: float = attrs.field(default=0.0, validator=_number)
    hand_weight: float = attrs.field(default=0.5, validator=_number)

    def __attrs_post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError("give a budget: playouts=, seconds= or both")

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The candidate with the best mean rollout result in ``view``."""
        actions = legal_actions(view)
        if len(actions) == 1:
            return actions[0]
        ranked = rank_actions(Assessment(view), actions)
        candidates = [actions[i] for _, i in ranked[: self.candidates]]
        if len(candidates) == 1:
            return candidates[0]
        team = view.team
        totals = [0.0] * len(candidates)
        deadline = None if self.seconds is None else time.thread_time() + self.seconds
        done = 0
        while True:
            world = determinize(view, rng)
            for j, action in enumerate(candidates):
                totals[j] += greedy_rollout(
                    apply(world, action), team, self.horizon, self.hand_weight
                )
            done += 1
            if self.playouts is not None and done >= self.playouts:
                break
            if deadline is not None and time.thread_time() >= deadline:
                break
        best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
        if (totals[best] - totals[0]) / done < self.margin:
            return candidates[0]  # not enough evidence against GreedyBot's choice
        return candidates[best]

"""MonteCarloBot: flat Monte Carlo over sampled deals, with greedy rollouts."""

from __future__ import annotations

import random

import attrs

from ..core.actions import Action
from ..hidden.determinize import determinize
from ..hidden.views import PlayerView
from ..play.face import apply, legal_actions
from .budget import (
    finite_number,
    positive_or_none,
    require_budget,
    sampled_deals,
    whole_or_none,
)
from .heuristics import Assessment, rank_actions
from .rollout import greedy_rollout

__all__ = ["MonteCarloBot"]


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

    playouts: int | None = attrs.field(default=48, validator=whole_or_none)
    seconds: float | None = attrs.field(default=None, validator=positive_or_none)
    candidates: int = attrs.field(default=4, validator=whole_or_none)
    horizon: int = attrs.field(default=10, validator=whole_or_none)
    margin: float = attrs.field(default=0.0, validator=finite_number)
    hand_weight: float = attrs.field(default=0.5, validator=finite_number)

    def __attrs_post_init__(self) -> None:
        require_budget(self.playouts, self.seconds)

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
        done = 0
        for _ in sampled_deals(self.playouts, self.seconds):
            world = determinize(view, rng)
            for j, action in enumerate(candidates):
                totals[j] += greedy_rollout(
                    apply(world, action), team, self.horizon, self.hand_weight
                )
            done += 1
        best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
        if (totals[best] - totals[0]) / done < self.margin:
            return candidates[0]  # not enough evidence against GreedyBot's choice
        return candidates[best]

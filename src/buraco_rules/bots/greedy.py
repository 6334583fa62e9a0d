"""GreedyBot: the best-looking action now, by the heuristics of :mod:`.heuristics`."""

from __future__ import annotations

import random

import attrs

from ..core.actions import Action
from ..hidden.views import PlayerView
from ..play.face import legal_actions
from .heuristics import Assessment, rank_actions

__all__ = ["GreedyBot"]


@attrs.frozen
class GreedyBot:
    """A heuristic player that looks one action ahead.

    It takes the discard pile when the pile (or, closed, the meld its top card makes plus the
    unseen cards below) is worth more than a card from the stock; lays every run and set and
    every addition that gains points or brings a canasta nearer, sparing wildcards and keeping
    the longest clean meld clean while going out still needs a clean canasta; goes out or takes
    the extra pile as soon as it may; and discards the card least useful to its own hand and
    least useful to the next opponents' melds. Every variant difference comes from the rule set.
    Deterministic: ``rng`` is not used, and ties go to the action listed first.
    """

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The greedy choice in ``view``."""
        actions = legal_actions(view)
        if len(actions) == 1:
            return actions[0]
        return actions[rank_actions(Assessment(view), actions)[0][1]]

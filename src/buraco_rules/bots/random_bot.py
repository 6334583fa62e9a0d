"""RandomBot: a legal action at random, the kind of action first."""

from __future__ import annotations

import random

import attrs

from ..core.actions import Action
from ..hidden.views import PlayerView
from ..play.face import legal_actions

__all__ = ["RandomBot"]


@attrs.frozen
class RandomBot:
    """Chooses uniformly among the kinds of legal action (draw, take, new meld, addition,
    discard), then uniformly among the actions of that kind.

    Choosing the kind first keeps random games short: with a plain uniform choice, a hand with
    thirty ways to meld would hardly ever discard.
    """

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """A random legal action of ``view``."""
        by_kind: dict[type, list[Action]] = {}
        for action in legal_actions(view):
            by_kind.setdefault(type(action), []).append(action)
        kinds = list(by_kind.values())  # in the listed order, so the choice is replayable
        return rng.choice(rng.choice(kinds))

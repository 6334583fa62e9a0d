"""The bot protocol: a bot chooses an action from a player's view, and from nothing else."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..core.actions import Action
from ..hidden.views import PlayerView

__all__ = ["Bot", "Forgetful"]


@runtime_checkable
class Bot(Protocol):
    """Anything with ``choose(view, rng) -> Action``.

    ``view`` is the view of the seat to act (:func:`buraco_rules.view`): a bot never sees another
    hand, the stock or a closed pile below its top. All its randomness comes from ``rng``, so a
    game between bots is replayable from its seeds. The action returned must be legal in the view.
    """

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The action to play in ``view``."""
        ...


class Forgetful:
    """A bot's memory between decisions (a search tree kept, the cards it saw go by): a copy or
    a pickle of the bot starts with an empty one, so a copied bot plays as a new one would.
    Subclasses build themselves empty with no arguments."""

    __slots__ = ()

    def __getstate__(self) -> dict[str, object]:
        return {}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__()  # type: ignore[misc]

    def __copy__(self) -> Forgetful:
        return type(self)()

    def __deepcopy__(self, memo: dict[int, object]) -> Forgetful:
        return type(self)()

"""What a listed meld's recipe makes: the meld, the team's melds once it is laid, and the error
for a hand that lacks its cards.

The move generator lists each meld with its recipe (the meld index and the cards), and the
reducer lays the listed meld from the same recipe; both read it here, so that neither imports the
other's module (the generator knows nothing of building states).
"""

from __future__ import annotations

from ..core.actions import AddToMeld, NewMeld
from ..core.errors import InvalidState
from ..melds.meld import Meld, classify, classify_kept
from .state import TEAM, GameState, Recipe

__all__ = ["corrupt_hand", "melds_with", "result_of"]


def result_of(state: GameState, recipe: Recipe, *, private: bool = True) -> Meld | None:
    """The meld that ``recipe`` makes in ``state`` (None if it makes none); ``private=False``
    for one to put in the next state (see :func:`~buraco_rules.melds.meld.classify_kept`)."""
    index, cards = recipe
    if index >= 0:
        cards = tuple(sorted(state.melds[TEAM[state.current_player]][index].multiset + cards))
    return classify_kept(cards, state.rules) if private else classify(cards, state.rules)


def melds_with(
    melds: tuple[Meld, ...], action: NewMeld | AddToMeld, result: Meld
) -> tuple[Meld, ...]:
    """The team's ``melds`` once ``action`` has made ``result`` (appended, or in place)."""
    if isinstance(action, AddToMeld):
        return melds[: action.meld] + (result,) + melds[action.meld + 1 :]
    return (*melds, result)


def corrupt_hand(state: GameState) -> InvalidState:
    """The error for a hand that lacks the cards of a listed action: only a state not made by the
    engine (an unsorted hand, say) shows it, and it must not be turned into a wrong state."""
    return InvalidState(
        f"seat {state.current_player}'s hand is corrupt (not sorted, or not the cards it should "
        "be); check the state with validate()"
    )

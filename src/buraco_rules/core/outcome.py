"""How a hand ended, as data: :attr:`GameState.outcome <buraco_rules.GameState.outcome>`.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> br.new_game(variants.ITALIAN, 2, seed=1).outcome is None
True
>>> br.Outcome(br.Termination.WENT_OUT, went_out=1).went_out
1
"""

from __future__ import annotations

import enum
from typing import Final

import attrs

__all__ = ["Outcome", "Termination"]


class Termination(enum.Enum):
    """Why a hand ended."""

    WENT_OUT = "went-out"
    """A player emptied their hand again after their team took its extra pile (R13)."""
    STOCK_EXHAUSTED = "stock-exhausted"
    """The player to draw found no card they could draw: the stock ran out and no extra pile
    could replace it (R15), or it ran down to the cards the rules leave in it (R21)."""
    STALEMATE = "stalemate"
    """So many turns in a row passed with no card drawn from the stock and none laid on the
    table (``RuleSet.stalemate_turns``) that the hand could go on for ever: it is scored as when
    the stock runs out (R24)."""


@attrs.frozen
class Outcome:
    """The end of a hand: why it ended, and the team that went out (None unless it went out)."""

    termination: Termination
    went_out: int | None = None
    """The team (0 or 1) that ended the hand by going out, or None."""


_WENT_OUT: Final = (Outcome(Termination.WENT_OUT, 0), Outcome(Termination.WENT_OUT, 1))
_EXHAUSTED: Final = Outcome(Termination.STOCK_EXHAUSTED, None)
_STALEMATE: Final = Outcome(Termination.STALEMATE, None)


def outcome_of(over: bool, went_out: int | None, stalemate: bool = False) -> Outcome | None:
    """The outcome of a hand that is ``over`` (or not) and that team ``went_out`` ended (or None),
    in ``stalemate`` (R24) or not.

    One home for the reading shared by states and views."""
    if not over:
        return None
    if went_out is not None:
        return _WENT_OUT[went_out]
    return _STALEMATE if stalemate else _EXHAUSTED

"""The game's own bounds: the longest hand (R24) and the longest match (R20), in actions.

The decoders' limits (:mod:`buraco_rules.formats.codec`) are derived from these, so that every
record or match that the engine can produce reads back. The derivation is in
``docs/decisions.md`` ("The longest hand"); a test plays adversarial loops to the stop and holds
the engine to it.

>>> from buraco_rules import variants
>>> longest_hand(variants.ITALIAN, 4), longest_hand(variants.BURACO_FECHADO, 4)
(3684, 344)
"""

from __future__ import annotations

from typing import Final

from .cards import DECK
from .rules import MAX_STALEMATE_TURNS, RuleSet

__all__ = ["MAX_HAND_ACTIONS", "MAX_MATCH_ACTIONS", "MAX_MATCH_HANDS", "longest_hand"]

_DECK_SIZE: Final = len(DECK)

MAX_MATCH_HANDS: Final = 50
"""The most hands a match has (R20): after its 50th hand a match is over whatever the target,
the higher total winning (equal totals: a drawn match, ``winner`` None). Scores can be negative,
so without it a match need never end; real matches to 2005 or 3000 last a few hands."""


def _bound(stalemate_turns: int | None, drawable: int, on_table: int) -> int:
    """The longest hand of ``drawable`` stock draws and ``on_table`` cards laid at most, with
    idle turns ended by ``stalemate_turns`` (R24), or none (None: a closed pile, R10)."""
    if stalemate_turns is None:
        # Every turn draws from the stock or lays a card: turns <= drawable + laying actions.
        return 2 * drawable + 2 * on_table
    n = stalemate_turns
    # At most n turns (n - 1 idle ones and one that progresses) per progress turn, two actions
    # per turn, and one more action for each card laid (see docs/decisions.md).
    return 2 * n * drawable + (2 * n + 1) * on_table


def longest_hand(rules: RuleSet, players: int) -> int:
    """An upper bound, in actions, on every hand of ``rules`` with ``players`` seats (R24): no
    sequence of legal actions from a deal is longer. Derived in ``docs/decisions.md``; the
    take-one-discard-one loop with one stock draw every ``stalemate_turns`` turns reaches its
    first term exactly.
    """
    dealt = players * rules.hand_size + 2 * rules.extra_pile_size
    dealt += int(rules.discard_pile_starts_face_up)
    drawable = _DECK_SIZE - dealt - rules.stock_reserve
    if rules.extra_pile_becomes_stock:
        drawable += 2 * rules.extra_pile_size  # R15: an untaken pile is drawn as stock
    on_table = _DECK_SIZE - rules.stock_reserve  # R21: the reserve is never drawn, never laid
    turns = None if rules.closed_discard_pile else rules.stalemate_turns
    return _bound(turns, drawable, on_table)


MAX_HAND_ACTIONS: Final = _bound(MAX_STALEMATE_TURNS, _DECK_SIZE - 2, _DECK_SIZE)
"""The longest hand under any rule set: :func:`longest_hand` at its extremes (an open pile with
``MAX_STALEMATE_TURNS``, two players dealt one card each, every other card drawable)."""

MAX_MATCH_ACTIONS: Final = MAX_MATCH_HANDS * MAX_HAND_ACTIONS
"""The longest match under any rule set, in actions."""

"""The set search (Italian Buraco): every new set, and every addition to a set, that some cards
allow, by the counts of a rank's cards in each suit and the wild kinds held (R5, R7). Memoised on
those small integers, as the run search is (:mod:`buraco_rules.melds.search`).
"""

from __future__ import annotations

from itertools import product
from typing import Final

from ..core.cards import Card, all_cards
from ..core.memo import memoised
from .meld import Meld

__all__ = ["counted_set_options", "set_options", "set_shapes"]

_CARDS: Final = all_cards()
_RANK_CARDS: Final = tuple(tuple(_CARDS[r + 13 * s] for s in range(4)) for r in range(13))
"""By rank (0 = ace): its card in each suit."""


def set_options(
    rank: int, hand: tuple[Card, ...], wilds: tuple[Card, ...], meld: Meld | None, max_size: int
) -> tuple[tuple[Card, ...], ...]:
    """Every sub-multiset S of the sorted ``hand``'s cards of ``rank`` (0 = ace) and its wild
    kinds ``wilds`` such that ``meld`` + S is a valid set (with no meld: S alone is a new set),
    in id order, sorted (R5, R7)."""
    counts = tuple([hand.count(c) for c in _RANK_CARDS[rank]])
    return counted_set_options(rank, counts, wilds, meld, max_size)


def counted_set_options(
    rank: int, counts: tuple[int, ...], wilds: tuple[Card, ...], meld: Meld | None, max_size: int
) -> tuple[tuple[Card, ...], ...]:
    """:func:`set_options`, given how many of each suit's card of ``rank`` the hand holds
    (``counts``, by suit): the generator counts a hand's cards once for all ranks."""
    # Positional, as in run_options: the memo key is built at C speed.
    if meld is None:
        return _set_cards(rank, counts, wilds, max_size, True, True)
    room = max_size - len(meld.cards)
    return _set_cards(rank, counts, wilds, room, meld.wildcard is None, False)


@memoised(maxsize=1 << 13)
def _set_cards(
    rank: int,
    counts: tuple[int, ...],
    wilds: tuple[Card, ...],
    room: int,
    wild_allowed: bool,
    new: bool,
) -> tuple[tuple[Card, ...], ...]:
    naturals = _RANK_CARDS[rank]
    found = []
    for *taken, wild in set_shapes(counts, len(wilds), room, wild_allowed=wild_allowed, new=new):
        chosen = tuple(c for c, k in zip(naturals, taken, strict=True) for _ in range(k))
        if wild >= 0:
            chosen = tuple(sorted((*chosen, wilds[wild])))
        found.append(chosen)
    found.sort()
    return tuple(found)


@memoised(maxsize=1 << 12)
def set_shapes(
    counts: tuple[int, ...], wilds: int, room: int, *, wild_allowed: bool, new: bool
) -> tuple[tuple[int, ...], ...]:
    """The ways to take cards for a set: how many of each suit's card of the rank (``counts``
    held), and which of the ``wilds`` wild kinds (-1 for none), at most ``room`` cards in all; a
    new set needs two natural cards and three cards (R5), and a set holds one wildcard (R7)."""
    found = []
    for taken in product(*(range(n + 1) for n in counts)):
        size = sum(taken)
        for wild in range(-1, wilds if wild_allowed else 0):
            total = size + (wild >= 0)
            if not 0 < total <= room or (new and (size < 2 or total < 3)):
                continue
            found.append((*taken, wild))
    return tuple(found)

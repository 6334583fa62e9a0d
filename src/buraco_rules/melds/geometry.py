"""The run geometry (R5-R8): run positions as bitmasks, where each card may stand, how many holes
a run's wildcard fills, when it floats, and how aces sit. The one home of what a run may look
like: the classifier (:func:`buraco_rules.melds.meld.classify`), the search
(:mod:`buraco_rules.melds.search`), the bots' sense of a card's neighbours and the testing kit's
runs all read it, so that a ruling about runs is one edit here, which the brute-force tests of
the search against the classifier guard.

A run's natural cards fill positions 1-14: the ace is 1 (low) or 14 (high), a 2 of the run's suit
is 2 (its own place, R7), and ranks 3-K are 3-13. A set of positions is an ``int`` whose bit ``p``
stands for position ``p``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ACE_BITS",
    "ACE_HIGH",
    "ACE_LOW",
    "FULL_SPAN",
    "MAX_HOLES",
    "MIDDLE",
    "MIN_RUN",
    "TWO_BIT",
    "TWO_PLACE",
    "ace_allowed",
    "ace_layouts",
    "aces_in",
    "card_at",
    "highest",
    "interval",
    "lays_out",
    "lowest",
    "natural_twos_in",
    "places_of",
    "wildcard_floats",
]

ACE_LOW: Final = 1
"""The position of an ace below a 2 (A-2-3)."""
ACE_HIGH: Final = 14
"""The position of an ace above a king (Q-K-A)."""
TWO_PLACE: Final = 2
"""The position of a 2 standing naturally in a run of its suit (R7)."""
ACE_BITS: Final = 1 << ACE_LOW | 1 << ACE_HIGH
"""The two places an ace can fill."""
TWO_BIT: Final = 1 << TWO_PLACE
"""The bit of :data:`TWO_PLACE`."""
MIDDLE: Final = 0b11111111111000
"""Positions 3-13, where the natural cards 3-K sit."""
FULL_SPAN: Final = ACE_HIGH - ACE_LOW + 1
"""The positions of a run from ace to ace (14): it leaves no end for a wildcard to float at."""
MAX_HOLES: Final = 1
"""A run holds at most one wildcard, so its natural cards leave at most one hole (R7, R8)."""
MIN_RUN: Final = 3
"""The fewest cards of a run (R5: ``rules.MIN_MELD_SIZE``, which a test holds equal)."""
_ACE_LAYOUTS: Final = ((0,), (1 << ACE_LOW, 1 << ACE_HIGH), (ACE_BITS,))
_LOW_ACE_LAYOUTS: Final = ((0,), (1 << ACE_LOW,), ())


def ace_layouts(aces: int, low_only: bool = False) -> tuple[int, ...]:
    """The places that ``aces`` natural aces (0-2) of a run may take (R6), low first: none; low
    or high; both (an ace-to-ace run). Where the ace is low only (``RuleSet.ace_low_only``, a
    house rule), one ace stands below the 2 and two aces fit no run."""
    return _LOW_ACE_LAYOUTS[aces] if low_only else _ACE_LAYOUTS[aces]


def ace_allowed(naturals: int, low_only: bool) -> bool:
    """Whether the positions ``naturals`` put no ace where the rules forbid one: above the king
    where the ace is low only (``RuleSet.ace_low_only``)."""
    return not (low_only and naturals >> ACE_HIGH & 1)


def wildcard_floats(span: int) -> bool:
    """Whether a wildcard with no hole to fill may stand at an end of a run whose natural cards
    span ``span`` positions (R8): not beyond an ace-to-ace run."""
    return span < FULL_SPAN


def lays_out(naturals: int, wilds: int) -> bool:
    """Whether natural cards at the positions ``naturals`` (non-empty) and ``wilds`` wildcards
    (0 or 1) make a run (R5-R8): no more holes than wildcards, three cards at least, and a
    wildcard with no hole to fill floating at an end."""
    span = highest(naturals) - lowest(naturals) + 1
    count = naturals.bit_count()
    gaps = span - count
    if gaps > wilds or count + wilds < MIN_RUN:
        return False
    return gaps > 0 or wilds == 0 or wildcard_floats(span)


def places_of(rank_index: int) -> tuple[int, ...]:
    """The positions a natural card of rank index ``rank_index`` (0 the ace ... 12 the king, as
    ``card % 13``) may fill: the ace both ends, every other rank its own place."""
    return (ACE_LOW, ACE_HIGH) if rank_index == 0 else (rank_index + 1,)


def card_at(suit: int, position: int) -> int:
    """The id of the natural card of ``suit`` (0-3) that fills ``position`` (1-14)."""
    return suit * 13 + (position - 1) % 13


def lowest(mask: int) -> int:
    """The lowest position in the non-empty ``mask``."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """The highest position in the non-empty ``mask``."""
    return mask.bit_length() - 1


def interval(lo: int, hi: int) -> int:
    """The positions ``lo`` to ``hi``, both included."""
    return (2 << hi) - (1 << lo)


def aces_in(naturals: int) -> int:
    """How many aces the run positions ``naturals`` hold (0-2: low, high, or both)."""
    return (naturals >> ACE_LOW & 1) + (naturals >> ACE_HIGH & 1)


def natural_twos_in(naturals: int) -> int:
    """Whether (1) or not (0) a 2 stands naturally in its place in ``naturals``."""
    return naturals >> TWO_PLACE & 1

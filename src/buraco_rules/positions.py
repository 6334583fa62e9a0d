"""Run positions as bitmasks: the names that :mod:`buraco_rules.melds` and
:mod:`buraco_rules.meldsearch` share.

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
    "MIDDLE",
    "TWO_BIT",
    "TWO_PLACE",
    "aces_in",
    "highest",
    "interval",
    "lowest",
    "natural_twos_in",
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

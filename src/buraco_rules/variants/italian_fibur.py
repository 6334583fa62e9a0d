"""Italian Buraco by the competition code of the Italian federation (FIBUR): the site's Italian
Buraco with the hand ending when two cards are left in the stock, a semi-clean burraco worth 150,
and an extra pile taken by discarding that is still unplayed scored as cards held."""

from __future__ import annotations

import attrs

from ..core.rules import CanastaBonuses
from .italian import ITALIAN

__all__ = ["ITALIAN_FIBUR"]

ITALIAN_FIBUR = attrs.evolve(
    ITALIAN,
    name="italian-fibur",
    title="Italian Buraco (FIBUR)",
    stock_reserve=2,  # R21
    canasta_bonuses=CanastaBonuses(  # R18, R22
        mixed=100, clean=200, all_ranks=200, ace_to_ace=200, semi_clean=150
    ),
    untouched_extra_pile_is_void=False,  # R23
)
"""The Italian Buraco rule set of the FIBUR competition code."""

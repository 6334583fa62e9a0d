"""Canasta STBL: Buraco Fechado STBL played one on one, with no 500-point canasta."""

from __future__ import annotations

import attrs

from ..core.rules import CanastaBonuses
from .buraco_fechado import BURACO_FECHADO

__all__ = ["CANASTA_STBL"]

CANASTA_STBL = attrs.evolve(
    BURACO_FECHADO,
    name="canasta-stbl",
    title="Canasta STBL",
    player_counts=(2,),  # R1
    default_players=2,
    canasta_bonuses=CanastaBonuses(mixed=100, clean=200, all_ranks=200, ace_to_ace=1000),  # R18
)
"""The Canasta STBL rule set."""

"""Italian Buraco (Burraco): runs and sets, an open discard pile started face up, and going out
by discarding, with any canasta; two or four players."""

from __future__ import annotations

from ..core.rules import CanastaBonuses, CardValues, RuleSet

__all__ = ["ITALIAN"]

ITALIAN = RuleSet(
    name="italian",
    title="Italian Buraco",
    player_counts=(2, 4),  # R1
    default_players=4,
    discard_pile_starts_face_up=True,  # R3
    sets_allowed=True,  # R5
    max_natural_aces_in_run=1,  # R6
    closed_discard_pile=False,  # R11
    single_taken_card_discard_banned=True,  # R11
    going_out_needs_clean_canasta=False,  # R13
    may_go_out_by_melding=False,  # R13: the last card must be discarded
    may_go_out_discarding_wildcard=False,  # R13
    extra_pile_becomes_stock=False,  # R15
    stalemate_turns=12,  # R24: the open pile lets "take one, discard one" go on for ever
    card_values=CardValues(joker=30, two=20, ace=15, eight_to_king=10, three_to_seven=5),  # R17
    canasta_bonuses=CanastaBonuses(mixed=100, clean=200, all_ranks=200, ace_to_ace=200),  # R18
    match_target=2005,  # R20
)
"""The Italian Buraco rule set."""

"""Buraco Fechado STBL (Sem Trinca, Bate Limpo): runs only, a closed discard pile, and going out
only with a clean canasta; two or four players."""

from __future__ import annotations

from ..core.rules import CanastaBonuses, CardValues, RuleSet

__all__ = ["BURACO_FECHADO"]

BURACO_FECHADO = RuleSet(
    name="buraco-fechado",
    title="Buraco Fechado STBL",
    player_counts=(2, 4),  # R1
    default_players=4,
    discard_pile_starts_face_up=False,  # R3
    sets_allowed=False,  # R5
    max_natural_aces_in_run=2,  # R6: ace to ace
    closed_discard_pile=True,  # R10
    single_taken_card_discard_banned=False,
    going_out_needs_clean_canasta=True,  # R13
    may_go_out_by_melding=True,
    may_go_out_discarding_wildcard=True,
    extra_pile_becomes_stock=True,  # R15
    # R24 (stalemate_turns) keeps its default, 12: a closed pile is taken only by laying its top
    # card, so every turn makes progress and it never ends a hand here; it stays on for a house
    # rule that opens the pile.
    card_values=CardValues(joker=50, two=10, ace=15, eight_to_king=10, three_to_seven=5),  # R17
    canasta_bonuses=CanastaBonuses(mixed=100, clean=200, all_ranks=500, ace_to_ace=1000),  # R18
    match_target=3000,  # R20
)
"""The Buraco Fechado STBL rule set."""

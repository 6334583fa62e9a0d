"""The rule set: every ruling that differs between variants is a field here, never a name check.

Build house rules with ``attrs.evolve(variants.BURACO_FECHADO, max_natural_aces_in_run=1)``.
"""

from __future__ import annotations

from typing import Final

import attrs

from .cards import JOKER, all_cards

__all__ = ["CanastaBonuses", "CardValues", "RuleSet"]

CANASTA_SIZE: Final = 7
"""A meld of this many cards or more is a canasta (R9)."""
MIN_MELD_SIZE: Final = 3
"""The fewest cards a meld may hold (R5)."""


@attrs.frozen
class CardValues:
    """Points of each card, counted on the table and against the hand (R17)."""

    joker: int
    two: int
    ace: int
    eight_to_king: int
    three_to_seven: int

    def by_id(self) -> tuple[int, ...]:
        """The value of each of the 53 cards, indexed by card id."""
        values = []
        for card in all_cards():
            if card == JOKER:
                values.append(self.joker)
                continue
            rank = card % 13 + 1
            if rank == 1:
                values.append(self.ace)
            elif rank == 2:
                values.append(self.two)
            elif rank >= 8:
                values.append(self.eight_to_king)
            else:
                values.append(self.three_to_seven)
        return tuple(values)


@attrs.frozen
class CanastaBonuses:
    """Bonus for each canasta, by kind; a canasta scores only its highest kind (R18)."""

    mixed: int
    """A canasta holding a wildcard."""
    clean: int
    """A canasta with no wildcard."""
    all_ranks: int
    """A clean run of all thirteen ranks (13 cards)."""
    ace_to_ace: int
    """A clean run from ace to ace (14 cards)."""
    semi_clean: int | None = None
    """R22: a semi-clean canasta (:attr:`Meld.is_semi_clean <buraco_rules.Meld.is_semi_clean>`),
    or None where the rules have no such kind and it scores as mixed."""


def _check_player_counts(
    instance: RuleSet, attribute: attrs.Attribute[object], value: object
) -> None:
    if not isinstance(value, tuple) or not value or any(n not in (2, 4) for n in value):
        raise ValueError(
            f"player_counts must be a non-empty tuple drawn from (2, 4), not {value!r}"
        )


@attrs.frozen(kw_only=True)
class RuleSet:
    """Everything a variant decides. Each field names the ruling (``R``-id) it implements."""

    name: str
    """Short name, as accepted by ``variants.get``."""
    title: str
    """The variant's name for people."""
    player_counts: tuple[int, ...] = attrs.field(validator=_check_player_counts)
    """R1: the allowed numbers of players."""
    default_players: int
    """R1: the number of players when none is given."""
    hand_size: int = 11
    """R2: cards dealt to each player."""
    extra_pile_size: int = 11
    """R2: cards in each team's extra pile (morto, pozzetto)."""
    discard_pile_starts_face_up: bool
    """R3: a card is turned face up to start the discard pile."""
    sets_allowed: bool
    """R5: melds of one rank (sets) are allowed, besides runs."""
    max_set_size: int = 9
    """R5: the most cards a set may hold."""
    max_natural_aces_in_run: int
    """R6: natural aces a run may hold (2 lets a run span ace to ace)."""
    closed_discard_pile: bool
    """R10: taking the pile needs its top card in a meld at once; otherwise it is open (R11)."""
    single_taken_card_discard_banned: bool
    """R11: a pile of one card, once taken, may not be discarded again in the same turn."""
    going_out_needs_clean_canasta: bool
    """R13: ending the hand needs a clean canasta (otherwise any canasta)."""
    may_go_out_by_melding: bool
    """R13: the hand may end by melding the last card (otherwise only by discarding it)."""
    may_go_out_discarding_wildcard: bool
    """R13: the last card, discarded to end the hand, may be a wildcard."""
    extra_pile_becomes_stock: bool
    """R15: when the stock runs out, an untaken extra pile becomes the stock."""
    stock_reserve: int = 0
    """R21: cards at the bottom of the stock that are never drawn: the hand ends when the player
    to draw finds this many or fewer (0: only an empty stock ends it, R15)."""
    going_out_bonus: int = 100
    """R16: points for the team that ends the hand by going out."""
    extra_pile_penalty: int = 100
    """R16: points lost by a team that never took its extra pile."""
    untouched_extra_pile_is_void: bool = True
    """R19, R23: an extra pile taken by discarding and still untouched when the opponents end the
    hand counts as never taken (True), or as taken, its cards lost as cards held (False)."""
    card_values: CardValues
    """R17: the points of each card."""
    canasta_bonuses: CanastaBonuses
    """R18: the bonus of each kind of canasta."""
    match_target: int
    """R20: the total that wins a match."""
    value_by_id: tuple[int, ...] = attrs.field(init=False, eq=False, repr=False)
    """R17 as a table indexed by card id (derived from ``card_values``)."""

    @property
    def is_preset(self) -> bool:
        """True when these are exactly the rules of the preset called :attr:`name` (``variants.get
        (name) == self``); False for a customised copy that kept a preset's name, or any rule set
        of another name. Only a preset may be stored by its name: store any other rule set whole.
        """
        from . import variants  # the presets are built from this module

        return self.name in variants.NAMES and variants.get(self.name) == self

    @value_by_id.default
    def _value_by_id(self) -> tuple[int, ...]:
        return self.card_values.by_id()

    def __attrs_post_init__(self) -> None:
        if self.default_players not in self.player_counts:
            raise ValueError(
                f"default_players {self.default_players} is not one of {self.player_counts}"
            )
        if self.max_natural_aces_in_run not in (1, 2):
            raise ValueError("max_natural_aces_in_run must be 1 or 2")

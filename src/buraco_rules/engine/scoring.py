"""Itemised scores of a hand (R16-R19, R22, R23)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..core.rules import RuleSet
from ..melds.meld import CanastaKind, Meld
from .state import GameState, team_seats

__all__ = ["TeamScore", "canasta_bonus", "score"]


@attrs.frozen(repr=False)
class TeamScore:
    """One team's score for a hand; every item is a non-negative number of points (R16), and
    the two penalties, ``hands`` and ``extra_pile``, are the points *lost*: ``total`` subtracts
    them. The repr shows the total too."""

    table: int
    """Values of the cards in the team's melds (R17)."""
    canastas: int
    """Canasta bonuses (R18)."""
    going_out: int
    """The bonus for ending the hand by going out (R13, R16)."""
    hands: int
    """Values of the cards left in the team's hands, lost (R16, R19)."""
    extra_pile: int
    """The penalty for never taking the extra pile, lost (R16, R19)."""

    @property
    def total(self) -> int:
        """``table + canastas + going_out - hands - extra_pile``."""
        return self.table + self.canastas + self.going_out - self.hands - self.extra_pile

    def __repr__(self) -> str:
        return (
            f"TeamScore(table={self.table!r}, canastas={self.canastas!r}, "
            f"going_out={self.going_out!r}, hands={self.hands!r}, "
            f"extra_pile={self.extra_pile!r}, total={self.total!r})"
        )


def canasta_bonus(meld: Meld, rules: RuleSet) -> int:
    """The bonus one meld earns: only its highest canasta kind counts (R18); a long meld earns
    the house rule's bonus on top (R28, ``RuleSet.long_meld_bonus``)."""
    kind = meld.canasta_kind
    if kind is None:
        return 0
    long_size = rules.long_meld_size
    if long_size and len(meld.cards) >= long_size:  # R28
        return _kind_bonus(meld, kind, rules) + rules.long_meld_bonus
    return _kind_bonus(meld, kind, rules)


def _kind_bonus(meld: Meld, kind: CanastaKind, rules: RuleSet) -> int:
    """The bonus of the canasta ``meld``'s highest ``kind`` (R18, R22)."""
    bonuses = rules.canasta_bonuses
    if kind is CanastaKind.MIXED:
        semi_clean = bonuses.semi_clean
        return bonuses.mixed if semi_clean is None or not meld.is_semi_clean else semi_clean  # R22
    if kind is CanastaKind.ACE_TO_ACE:
        return max(bonuses.ace_to_ace, bonuses.clean)
    if kind is CanastaKind.ALL_RANKS:
        return max(bonuses.all_ranks, bonuses.clean)
    return bonuses.clean


def table_points(melds: Sequence[Meld], rules: RuleSet) -> tuple[int, int]:
    """A team's points on the table: its melded cards' values (R17) and its canasta bonuses
    (R18). The one sum that :func:`score` and :attr:`PlayerView.public_points` (and so the bots)
    share."""
    values = rules.value_by_id
    return (
        sum(values[c] for m in melds for c in m.cards),
        sum(canasta_bonus(m, rules) for m in melds),
    )


def score(state: GameState) -> tuple[TeamScore, TeamScore]:
    """Each team's score; an unfinished hand is scored as if it ended now with nobody going out."""
    rules = state.rules
    values = rules.value_by_id
    results = []
    for team in (0, 1):
        melds = state.melds[team]
        untouched = state.untouched_extra_pile[team]
        # R19: an extra pile taken by discarding, still untouched when the hand ends (other than
        # by the team's own going out), counts as never taken: its cards count for no one. Under
        # R23 it counts as taken instead, and its cards, in the taker's hand, are lost.
        void = (
            untouched is not None and state.went_out != team and rules.untouched_extra_pile_is_void
        )
        hands = sum(
            values[c]
            for seat in team_seats(team, state.players)
            if not (void and seat == untouched)
            for c in state.hands[seat]
        )
        table, canastas = table_points(melds, rules)
        results.append(
            TeamScore(
                table=table,
                canastas=canastas,
                going_out=rules.going_out_bonus if state.went_out == team else 0,
                hands=hands,
                extra_pile=rules.extra_pile_penalty
                if void or not state.extra_pile_taken[team]
                else 0,
            )
        )
    return results[0], results[1]

"""What one player may see: the hidden-information boundary of a game server.

A :class:`PlayerView` holds the seat's own hand and everything public, and nothing else: not the
other hands, not the order or content of the stock or of an untaken extra pile, and, where the
discard pile is closed (R10), not the cards below its top. Send views, never states, to players.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.BURACO_FECHADO, 4, seed=1)
>>> seen = br.view(state, 2)
>>> len(seen.hand), seen.hand_sizes, seen.stock_size
(11, (11, 11, 11, 11), 42)
"""

from __future__ import annotations

import attrs

from .cards import Card
from .melds import Meld
from .rules import RuleSet
from .state import GameState, Phase

__all__ = ["PlayerView", "view"]


@attrs.frozen(kw_only=True)
class PlayerView:
    """A seat's view of a state: its own hand and the public information (R10, R11)."""

    rules: RuleSet
    players: int
    seat: int
    """The seat whose view this is."""
    current_player: int
    phase: Phase
    hand: tuple[Card, ...]
    """The seat's own hand, sorted."""
    hand_sizes: tuple[int, ...]
    """How many cards each seat holds."""
    stock_size: int
    discard_pile: tuple[Card, ...]
    """The visible part of the discard pile, top card last: all of it where the pile is open
    (R11), only the top card where it is closed (R10)."""
    discard_pile_size: int
    melds: tuple[tuple[Meld, ...], tuple[Meld, ...]]
    """Both teams' melds (they lie face up)."""
    extra_pile_sizes: tuple[int | None, int | None]
    """The size of each team's untaken extra pile, or None once taken or moved into the stock."""
    extra_pile_taken: tuple[bool, bool]
    untouched_extra_pile: tuple[int | None, int | None]
    """Per team, the seat that took its extra pile by discarding and has not played since (R19)."""
    taken_single_card: Card | None
    """The single card taken from an open pile this turn (everyone saw it, R11)."""
    went_out: int | None

    @property
    def is_over(self) -> bool:
        """True once the hand has ended."""
        return self.phase is Phase.OVER

    @property
    def is_my_turn(self) -> bool:
        """True when this seat is the one to act (and the hand is not over)."""
        return self.current_player == self.seat and self.phase is not Phase.OVER


def view(state: GameState, seat: object) -> PlayerView:
    """What ``seat`` may see of ``state``; a seat that does not exist is a ``ValueError``."""
    if type(seat) is not int or not 0 <= seat < state.players:
        raise ValueError(f"seat must be 0 to {state.players - 1}, not {seat!r}")
    pile = state.discard_pile
    visible = pile[-1:] if state.rules.closed_discard_pile else pile
    extra = state.extra_piles
    return PlayerView(
        rules=state.rules,
        players=state.players,
        seat=seat,
        current_player=state.current_player,
        phase=state.phase,
        hand=state.hands[seat],
        hand_sizes=tuple(map(len, state.hands)),
        stock_size=len(state.stock),
        discard_pile=visible,
        discard_pile_size=len(pile),
        melds=state.melds,
        extra_pile_sizes=(
            None if extra[0] is None else len(extra[0]),
            None if extra[1] is None else len(extra[1]),
        ),
        extra_pile_taken=state.extra_pile_taken,
        untouched_extra_pile=state.untouched_extra_pile,
        taken_single_card=state.taken_single_card,
        went_out=state.went_out,
    )

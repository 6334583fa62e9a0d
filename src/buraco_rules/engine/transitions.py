"""Building the next state of a legal action. Nothing here checks legality: the engine calls these
only for actions of ``legal_actions``, with the meld the move generator worked out."""

from __future__ import annotations

import enum
from bisect import bisect
from typing import Any, Final

from ..core.actions import AddToMeld, NewMeld
from ..core.cards import Card
from ..melds.meld import Meld
from .going_out import (
    banned_after,
    hand_after_take,
    kept_after_take,
    pile_to_take,
    remove_cards,
    stock_exhausted,
)
from .recipes import corrupt_hand, melds_with
from .state import TEAM, GameState, Phase

__all__ = [
    "discard",
    "draw",
    "meld",
    "melds_with",
    "open_take",
    "refuse_first_draw",
    "take_with_meld",
]


def draw(state: GameState) -> GameState:
    """Draw the top card of the stock (R4)."""
    seat = state.current_player
    card = state.stock[0]  # never empty here: the turn change handles an empty stock (R15)
    hand = state.hands[seat]
    i = bisect(hand, card)
    return replace(
        state,
        phase=Phase.PLAY,
        stock=state.stock[1:],
        hands=set_item(state.hands, seat, hand[:i] + (card,) + hand[i:]),
        idle_turns=0,  # R24: a card drawn from the stock is progress
        first_draw=card if state.first_turn else None,  # R32: the card that may be refused
    )


def refuse_first_draw(state: GameState) -> GameState:
    """Refuse the hand's first card drawn (R32): it goes face up on top of the discard pile and
    the next stock card is drawn in its place, which may not be refused."""
    seat = state.current_player
    refused = state.first_draw
    remaining = None if refused is None else remove_cards(state.hands[seat], (refused,))
    if refused is None or remaining is None:
        raise corrupt_hand(state)
    card = state.stock[0]  # never empty on the hand's first turn (R2)
    i = bisect(remaining, card)
    return replace(
        state,
        stock=state.stock[1:],
        hands=set_item(state.hands, seat, remaining[:i] + (card,) + remaining[i:]),
        discard_pile=(*state.discard_pile, refused),
        idle_turns=0,  # R24: a card drawn from the stock is progress
        first_turn=False,
        first_draw=None,
    )


def _first_turn_over(state: GameState) -> GameState:
    """``state`` once the first player has done something else than draw (R32: the card drawn
    may no longer be refused)."""
    return replace(state, first_turn=False, first_draw=None)


def open_take(state: GameState) -> GameState:
    """Take the whole open discard pile (R11), remembering a single card that must stay."""
    if state.first_turn:
        state = _first_turn_over(state)
    seat = state.current_player
    pile = state.discard_pile
    single = pile[0] if len(pile) == 1 and state.rules.single_taken_card_discard_banned else None
    return replace(
        state,
        phase=Phase.PLAY,
        discard_pile=(),
        hands=set_item(state.hands, seat, tuple(sorted(state.hands[seat] + pile))),
        taken_single_card=single,
        idle_turns=state.idle_turns + 1,  # R24: idle unless a card is laid before the discard
    )


def take_with_meld(state: GameState, inner: NewMeld | AddToMeld, result: Meld) -> GameState:
    """Take a closed pile: its top card goes into ``result`` with cards from the hand, and the rest
    of the pile joins the hand (R10)."""
    if state.first_turn:
        state = _first_turn_over(state)
    seat = state.current_player
    team = TEAM[seat]
    pile = state.discard_pile
    kept = kept_after_take(state.hands[seat], pile[-1], inner.cards)
    if kept is None:
        raise corrupt_hand(state)
    hand = hand_after_take(kept, pile)
    after = replace(
        state,
        phase=Phase.PLAY,
        discard_pile=(),
        hands=set_item(state.hands, seat, hand),
        melds=set_item(state.melds, team, melds_with(state.melds[team], inner, result)),
        idle_turns=0,  # R24: the top card is laid
    )
    return after if hand else _emptied_by_meld(after)


def meld(state: GameState, action: NewMeld | AddToMeld, result: Meld) -> GameState:
    """Lay a new meld or add to one, ``result`` being the meld it makes (R5-R9)."""
    if state.first_turn:
        state = _first_turn_over(state)
    seat = state.current_player
    team = TEAM[seat]
    remaining = remove_cards(state.hands[seat], action.cards)
    if remaining is None:
        raise corrupt_hand(state)
    after = replace(
        state,
        hands=set_item(state.hands, seat, remaining),
        melds=set_item(state.melds, team, melds_with(state.melds[team], action, result)),
        taken_single_card=banned_after(state, action.cards),
        idle_turns=0,  # R24: cards laid on the table are progress
    )
    return after if remaining else _emptied_by_meld(after)


def _emptied_by_meld(state: GameState) -> GameState:
    """The hand is empty after a meld: take the extra pile directly, or end the hand (R12, R13)."""
    seat = state.current_player
    team = TEAM[seat]
    owner = pile_to_take(state, team)
    if owner == team:
        return replace(
            state,
            hands=set_item(state.hands, seat, tuple(sorted(state.extra_piles[team] or ()))),
            extra_piles=set_item(state.extra_piles, team, None),
            extra_pile_taken=set_item(state.extra_pile_taken, team, True),
        )
    if owner is not None:  # R31: the other team's pile, which that team then never takes
        return replace(
            state,
            hands=set_item(state.hands, seat, tuple(sorted(state.extra_piles[owner] or ()))),
            extra_piles=set_item(state.extra_piles, owner, None),
            extra_pile_lost=owner,
        )
    return replace(state, phase=Phase.OVER, went_out=team)


def discard(state: GameState, card: Card) -> GameState:
    """Discard ``card``, ending the turn (R4): take the extra pile indirectly or end the hand if it
    was the last card (R12, R13), then pass the turn on, refilling an empty stock (R15)."""
    if state.first_turn:
        state = _first_turn_over(state)
    seat = state.current_player
    team = TEAM[seat]
    remaining = remove_cards(state.hands[seat], (card,))
    if remaining is None:
        raise corrupt_hand(state)
    hands = set_item(state.hands, seat, remaining)
    discard_pile = (*state.discard_pile, card)
    shared: Any = state  # see Shared
    extra_piles: Shared = shared.extra_piles
    extra_pile_taken: Shared = shared.extra_pile_taken
    untouched: Shared = shared.untouched_extra_pile
    lost = state.extra_pile_lost
    if not remaining:
        owner = pile_to_take(state, team)
        if owner is None:  # R13: the hand ends
            return replace(
                state, hands=hands, discard_pile=discard_pile, phase=Phase.OVER, went_out=team
            )
        # R12: indirectly; the pile is played from the next turn (and is untouched until then, R19)
        hands = set_item(hands, seat, tuple(sorted(extra_piles[owner] or ())))
        extra_piles = set_item(extra_piles, owner, None)
        if owner == team:
            extra_pile_taken = set_item(extra_pile_taken, team, True)
            untouched = set_item(untouched, team, seat)
        else:  # R31: the other team's pile, held as cards in the hand from now on (no R19)
            lost = owner
    rules = state.rules
    if state.idle_turns >= rules.stalemate_turns:  # R24: the stalemate ends the hand
        return replace(
            state,
            hands=hands,
            discard_pile=discard_pile,
            extra_piles=extra_piles,
            extra_pile_taken=extra_pile_taken,
            untouched_extra_pile=untouched,
            phase=Phase.OVER,
            taken_single_card=None,
            extra_pile_lost=lost,
        )
    seat = (seat + 1) % state.players  # R1
    team = TEAM[seat]
    stock = state.stock
    if stock_exhausted(rules, stock):  # R15, R21
        if rules.extra_pile_becomes_stock:
            for t in (team, 1 - team):
                pile = extra_piles[t]
                if pile is not None:
                    # In deal order, its first card drawn first, above the cards never drawn.
                    stock = pile + stock
                    extra_piles = set_item(extra_piles, t, None)
                    break
        if stock_exhausted(rules, stock):
            return replace(
                state,
                hands=hands,
                discard_pile=discard_pile,
                extra_piles=extra_piles,
                extra_pile_taken=extra_pile_taken,
                untouched_extra_pile=untouched,
                phase=Phase.OVER,
                extra_pile_lost=lost,
            )
    if untouched[team] == seat:  # R19: the taker's next turn has come
        untouched = set_item(untouched, team, None)
    return replace(
        state,
        current_player=seat,
        phase=Phase.DRAW,
        hands=hands,
        stock=stock,
        discard_pile=discard_pile,
        extra_piles=extra_piles,
        extra_pile_taken=extra_pile_taken,
        untouched_extra_pile=untouched,
        taken_single_card=None,
        extra_pile_lost=lost,
    )


def set_item(values: tuple[Any, ...], index: int, value: Any) -> Any:
    """``values`` with item ``index`` replaced (a new tuple sharing the others)."""
    return values[:index] + (value,) + values[index + 1 :]


Shared = Any
"""A pair of team values (melds, extra piles, ...), passed on to the next state as the very same
object. Typed loosely on purpose, and read through a reference typed ``Any``: the compiled build
unpacks a value of a fixed-length tuple type into a C struct and builds a new tuple from it, so
each state would copy what it should share."""


class Keep(enum.Enum):
    """The type of :data:`KEEP`, the one value that means "leave this field as it is" to
    :func:`replace` (``None`` and ``-1`` are values that fields take). An enum rather than an
    ``object()``, so that the parameters keep exact types, which the compiled build enforces."""

    KEEP = enum.auto()


KEEP: Final = Keep.KEEP


def replace(
    state: GameState,
    *,
    current_player: int | Keep = KEEP,
    phase: Phase | Keep = KEEP,
    hands: tuple[tuple[Card, ...], ...] | Keep = KEEP,
    stock: tuple[Card, ...] | Keep = KEEP,
    discard_pile: tuple[Card, ...] | Keep = KEEP,
    melds: Shared = KEEP,
    extra_piles: Shared = KEEP,
    extra_pile_taken: Shared = KEEP,
    untouched_extra_pile: Shared = KEEP,
    taken_single_card: Card | Keep | None = KEEP,
    went_out: int | Keep | None = KEEP,
    idle_turns: int | Keep = KEEP,
    extra_pile_lost: int | Keep | None = KEEP,
    first_turn: bool | Keep = KEEP,
    first_draw: Card | Keep | None = KEEP,
) -> GameState:
    """``state`` with the given fields changed, every other one kept (spelled out rather than
    ``attrs.evolve``: this is on every step's path; a test holds it to the fields of
    :class:`GameState`)."""
    shared: Any = state  # see Shared: read the pairs as the objects they are
    return GameState(
        rules=state.rules,
        players=state.players,
        current_player=state.current_player if current_player is KEEP else current_player,
        phase=state.phase if phase is KEEP else phase,
        hands=state.hands if hands is KEEP else hands,
        stock=state.stock if stock is KEEP else stock,
        discard_pile=state.discard_pile if discard_pile is KEEP else discard_pile,
        melds=shared.melds if melds is KEEP else melds,
        extra_piles=shared.extra_piles if extra_piles is KEEP else extra_piles,
        extra_pile_taken=shared.extra_pile_taken if extra_pile_taken is KEEP else extra_pile_taken,
        untouched_extra_pile=shared.untouched_extra_pile
        if untouched_extra_pile is KEEP
        else untouched_extra_pile,
        taken_single_card=state.taken_single_card
        if taken_single_card is KEEP
        else taken_single_card,
        went_out=state.went_out if went_out is KEEP else went_out,
        idle_turns=state.idle_turns if idle_turns is KEEP else idle_turns,
        extra_pile_lost=state.extra_pile_lost if extra_pile_lost is KEEP else extra_pile_lost,
        first_turn=state.first_turn if first_turn is KEEP else first_turn,
        first_draw=state.first_draw if first_draw is KEEP else first_draw,
    )

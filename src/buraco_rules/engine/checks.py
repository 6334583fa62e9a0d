"""The checker: why an action is or is not legal, in the fixed order game over, whose turn, what
kind of object, phase, then the move's own rules (R4-R14).

The engine applies only actions of ``legal_actions``; this module explains every refusal with an
:class:`IllegalAction` whose code and message a player understands, and serves the tests as an
oracle that the move generator must agree with. Each ruling's refusal is one predicate of
:mod:`buraco_rules.engine.constraints` (or, for the minimum opening across a turn,
:mod:`buraco_rules.engine.opening`), which the generator asks too: this module orders them and
raises what they return.
"""

from __future__ import annotations

from typing import cast

from ..core.actions import (
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from ..core.cards import Card, is_card
from ..core.errors import IllegalAction
from ..core.quoting import describe
from ..melds.meld import Meld, classify
from . import constraints as verify
from .constraints import Refusal
from .going_out import banned_after, remove_cards
from .opening import discard_refusal, meld_refusal, take_refusal
from .state import TEAM, GameState

__all__ = ["check", "describe", "well_formed"]


def _cards_ok(cards: object) -> bool:
    return type(cards) is tuple and bool(cards) and all(is_card(c) for c in cards)


def well_formed(action: object) -> bool:
    """``action`` is an action object made of real cards and meld indexes (as opposed to an
    object that merely compares equal to one, such as ``Discard(42.0)``)."""
    kind = type(action)
    if kind is DrawFromStock or kind is RefuseFirstDraw:
        return True
    if kind is Discard:
        return is_card(action.card)  # type: ignore[attr-defined]
    if kind is NewMeld:
        return _cards_ok(action.cards)  # type: ignore[attr-defined]
    if kind is AddToMeld:
        return type(action.meld) is int and _cards_ok(action.cards)  # type: ignore[attr-defined]
    if kind is TakeDiscardPile:
        inner = action.meld  # type: ignore[attr-defined]
        return inner is None or (type(inner) in (NewMeld, AddToMeld) and well_formed(inner))
    return False


def _raise(refusal: Refusal | None) -> None:
    """Raise the refusal a constraint returned, if any."""
    if refusal is not None:
        raise IllegalAction(*refusal)


def check(state: GameState, action: object, player: object = None) -> Meld | None:
    """Raise the :class:`IllegalAction` that says why ``action`` is illegal in ``state``; if it is
    legal, return the meld it makes or changes (None for draws, refusals and discards)."""
    _raise(verify.game_over(state))
    _raise(verify.turn(state, player))
    kind = type(action)
    if kind is DrawFromStock or kind is TakeDiscardPile:
        _raise(verify.draw_phase(state))
        if kind is DrawFromStock:
            _raise(verify.empty_stock(state))
            return None
        return _check_take(state, cast(TakeDiscardPile, action))
    if kind is NewMeld or kind is AddToMeld or kind is Discard:
        _raise(verify.play_phase(state))
        if kind is Discard:
            _check_discard(state, cast(Discard, action))
            return None
        return _check_meld(state, cast(NewMeld | AddToMeld, action))
    if kind is RefuseFirstDraw:
        _raise(verify.first_draw_refusal(state))  # R32, a house rule
        return None
    raise IllegalAction(*verify.not_an_action(action))


def _cards_of(cards: object) -> tuple[Card, ...]:
    _raise(verify.not_cards(cards))
    for c in cast(tuple[object, ...], cards):
        _raise(verify.not_a_card(c))
    return cast(tuple[Card, ...], cards)


def _take_from_hand(
    hand: tuple[Card, ...], cards: tuple[Card, ...], hint: str = ""
) -> tuple[Card, ...]:
    remaining = remove_cards(hand, cards)
    if remaining is None:  # the refusal of in_hand, which holds this test too
        raise IllegalAction(*cast(Refusal, verify.in_hand(hand, cards, hint)))
    return remaining


def _team_melds_after(
    state: GameState, action: NewMeld | AddToMeld, cards: tuple[Card, ...]
) -> tuple[Meld, ...]:
    melds = state.melds[TEAM[state.current_player]]
    if isinstance(action, AddToMeld):
        index = action.meld
        _raise(verify.meld_index(state, index))
        old = melds[index]
        union = tuple(sorted(old.multiset + cards))
        meld = classify(union, state.rules)
        _raise(verify.addition(state, index, cards, union, meld, old))
        _raise(verify.locked_wildcard(state, index, old, cast(Meld, meld)))
        return melds[:index] + (cast(Meld, meld),) + melds[index + 1 :]
    meld = classify(cards, state.rules)
    _raise(verify.new_meld(state, cards, meld, melds))
    return (*melds, cast(Meld, meld))


def _check_take(state: GameState, action: TakeDiscardPile) -> Meld | None:
    _raise(verify.empty_pile(state))
    pile = state.discard_pile
    seat = state.current_player
    hand = state.hands[seat]
    top = pile[-1]
    inner = action.meld
    if not state.rules.closed_discard_pile:
        _raise(verify.open_take(state, inner))
        return None
    _raise(verify.closed_take(state, inner))
    inner = cast(NewMeld | AddToMeld, inner)
    cards = _cards_of(inner.cards)
    _raise(verify.uses_top(state, cards))
    from_hand = cast(tuple[Card, ...], remove_cards(cards, (top,)))
    # Whatever lies below the top, a card the taker does not hold is not-in-hand: the answer
    # may depend only on what the taker sees (R10).
    remaining = _take_from_hand(
        hand, from_hand, " (only the pile's top card may join the meld, R10)"
    )
    melds = _team_melds_after(state, inner, cards)
    _raise(verify.take_naturals(state, from_hand, _changed_meld(melds, inner)))
    _raise(verify.leaves_after_take(state, TEAM[seat], remaining, pile, melds))
    _raise(take_refusal(state, melds))
    return _changed_meld(melds, inner)


def _changed_meld(melds: tuple[Meld, ...], action: NewMeld | AddToMeld) -> Meld:
    return melds[-1] if type(action) is NewMeld else melds[action.meld]  # type: ignore[union-attr]


def _check_meld(state: GameState, action: NewMeld | AddToMeld) -> Meld:
    cards = _cards_of(action.cards)
    seat = state.current_player
    remaining = _take_from_hand(state.hands[seat], cards)
    melds = _team_melds_after(state, action, cards)
    _raise(verify.leaves(state, TEAM[seat], remaining, melds, banned_after(state, cards)))
    meld = _changed_meld(melds, action)
    _raise(meld_refusal(state, action, meld))
    return meld


def _check_discard(state: GameState, action: Discard) -> None:
    card = action.card
    _raise(verify.not_a_card(card))
    seat = state.current_player
    team = TEAM[seat]
    hand = state.hands[seat]
    remaining = _take_from_hand(hand, (card,))
    _raise(verify.taken_card(hand, card, state.taken_single_card))
    if not remaining:
        melds = state.melds[team]
        _raise(verify.last_discard(state, team, card, melds, state.taken_single_card))
    _raise(discard_refusal(state))

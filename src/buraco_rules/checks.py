"""The checker: why an action is or is not legal, in the fixed order game over, whose turn, what
kind of object, phase, then the move's own rules (R4-R14).

The engine applies only actions of ``legal_actions``; this module explains every refusal with an
:class:`IllegalAction` whose code and message a player understands, and serves the tests as an
oracle that the move generator must agree with.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final, cast

from .actions import AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from .cards import Card, is_card
from .errors import ErrorCode, IllegalAction
from .going_out import (
    banned_after,
    hand_after_take,
    has_required_canasta,
    hides_last_card,
    may_discard,
    may_discard_last,
    may_keep_after_take,
    may_leave,
    remove_cards,
    stock_exhausted,
)
from .melds import Meld, MeldKind, classify, meld_error, sets_by_rank
from .opening import Refusal, discard_refusal, meld_refusal, take_refusal
from .quoting import describe
from .state import TEAM, GameState, Phase

__all__ = ["check", "describe", "well_formed"]


def _cards_ok(cards: object) -> bool:
    return type(cards) is tuple and bool(cards) and all(is_card(c) for c in cards)


def well_formed(action: object) -> bool:
    """``action`` is an action object made of real cards and meld indexes (as opposed to an
    object that merely compares equal to one, such as ``Discard(42.0)``)."""
    kind = type(action)
    if kind is DrawFromStock:
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


def check(state: GameState, action: object, player: object = None) -> Meld | None:
    """Raise the :class:`IllegalAction` that says why ``action`` is illegal in ``state``; if it is
    legal, return the meld it makes or changes (None for draws and discards)."""
    if state.phase is Phase.OVER:
        raise IllegalAction(ErrorCode.GAME_OVER, "the hand is over")
    seat = state.current_player
    if player is not None and (type(player) is not int or player != seat):
        raise IllegalAction(
            ErrorCode.NOT_YOUR_TURN, f"it is seat {seat}'s turn, not seat {describe(player)}'s"
        )
    kind = type(action)
    if kind is DrawFromStock or kind is TakeDiscardPile:
        if state.phase is not Phase.DRAW:
            raise IllegalAction(
                ErrorCode.WRONG_PHASE, "you have already drawn this turn; meld or discard (R4)"
            )
        if kind is DrawFromStock:
            if stock_exhausted(state.rules, state.stock):  # the turn change ends the hand first
                raise IllegalAction(ErrorCode.EMPTY_STOCK, "no card may be drawn (R15, R21)")
            return None
        return _check_take(state, cast(TakeDiscardPile, action))
    if kind is NewMeld or kind is AddToMeld or kind is Discard:
        if state.phase is not Phase.PLAY:
            raise IllegalAction(
                ErrorCode.WRONG_PHASE, "draw first: from the stock or the discard pile (R4)"
            )
        if kind is Discard:
            _check_discard(state, cast(Discard, action))
            return None
        return _check_meld(state, cast(NewMeld | AddToMeld, action))
    raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{describe(action)} is not an action")


def _cards_of(cards: object) -> tuple[Card, ...]:
    if type(cards) is not tuple or not cards:
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{describe(cards)} is not a list of cards")
    for c in cards:
        if not is_card(c):
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{describe(c)} is not a card")
    return cards


def _take_from_hand(
    hand: tuple[Card, ...], cards: tuple[Card, ...], hint: str = ""
) -> tuple[Card, ...]:
    remaining = remove_cards(hand, cards)
    if remaining is None:
        missing = Counter(cards) - Counter(hand)
        card = min(missing)
        held = hand.count(card)
        detail = "" if held == 0 else f" {missing[card] + held} times (you hold {held})"
        raise IllegalAction(
            ErrorCode.NOT_IN_HAND, f"{card.pretty} is not in your hand{detail}{hint}"
        )
    return remaining


def _meld_index(state: GameState, index: object) -> int:
    melds = state.melds[TEAM[state.current_player]]
    if type(index) is not int:
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{describe(index)} is not a meld index")
    if not 0 <= index < len(melds):
        count = f"melds 0-{len(melds) - 1}" if melds else "no melds"
        raise IllegalAction(
            ErrorCode.NO_SUCH_MELD, f"your team has no meld {index} (it has {count})"
        )
    return index


_LOW_ONLY: Final = "but the ace is low only (a house rule, RuleSet.ace_low_only)"


def _laid_new_meld(
    state: GameState, cards: tuple[Card, ...], melds: tuple[Meld, ...]
) -> tuple[Meld, ...]:
    meld = classify(cards, state.rules)
    if meld is None:
        code = meld_error(cards, state.rules)
        what = " ".join(c.pretty for c in cards)
        if code is ErrorCode.TOO_MANY_WILDCARDS:
            raise IllegalAction(code, f"{what}: a meld may hold only one wildcard (R7)")
        if code is ErrorCode.ACE_LOW_ONLY:
            raise IllegalAction(code, f"{what} puts an ace above the king, {_LOW_ONLY}")
        kinds = "a run or a set" if state.rules.sets_allowed else "a run"
        raise IllegalAction(code, f"{what} is not {kinds} (R5, R6)")
    rank = meld.rank
    if meld.kind is MeldKind.SET and rank is not None and rank - 1 in sets_by_rank(melds):
        raise IllegalAction(
            ErrorCode.DUPLICATE_SET,
            f"your team already has a set of {rank.label}s; add to it instead (R5)",
        )
    return (*melds, meld)


def _laid_addition(
    state: GameState, index: int, cards: tuple[Card, ...], melds: tuple[Meld, ...]
) -> tuple[Meld, ...]:
    old = melds[index]
    union = tuple(sorted(old.multiset + cards))
    meld = classify(union, state.rules)
    if meld is None or meld.kind is not old.kind or meld.suit != old.suit or meld.rank != old.rank:
        code = meld_error(union, state.rules)
        what = " ".join(c.pretty for c in cards)
        if code is ErrorCode.TOO_MANY_WILDCARDS:
            raise IllegalAction(
                code, f"adding {what} would give meld {index} a second wildcard (R7)"
            )
        if code is ErrorCode.ACE_LOW_ONLY:
            raise IllegalAction(
                code, f"adding {what} to meld {index} puts an ace above the king, {_LOW_ONLY}"
            )
        raise IllegalAction(code, f"{what} cannot be added to meld {index} ({old}) (R5, R6, R8)")
    return melds[:index] + (meld,) + melds[index + 1 :]


def _team_melds_after(
    state: GameState, action: NewMeld | AddToMeld, cards: tuple[Card, ...]
) -> tuple[Meld, ...]:
    melds = state.melds[TEAM[state.current_player]]
    if isinstance(action, AddToMeld):
        return _laid_addition(state, _meld_index(state, action.meld), cards, melds)
    return _laid_new_meld(state, cards, melds)


def _check_take(state: GameState, action: TakeDiscardPile) -> Meld | None:
    pile = state.discard_pile
    if not pile:
        raise IllegalAction(ErrorCode.EMPTY_DISCARD_PILE, "the discard pile is empty")
    seat = state.current_player
    hand = state.hands[seat]
    top = pile[-1]
    inner = action.meld
    if not state.rules.closed_discard_pile:  # R11
        if inner is not None:
            raise IllegalAction(
                ErrorCode.MALFORMED_ACTION,
                "the discard pile is open: take it without a meld, then meld (R11)",
            )
        return None
    if type(inner) is not NewMeld and type(inner) is not AddToMeld:  # R10
        raise IllegalAction(
            ErrorCode.MUST_USE_TOP_CARD,
            f"to take the pile you must meld its top card {top.pretty} at once (R10)",
        )
    cards = _cards_of(inner.cards)
    from_hand = remove_cards(cards, (top,))
    if from_hand is None:
        raise IllegalAction(
            ErrorCode.MUST_USE_TOP_CARD,
            f"the meld must use the pile's top card {top.pretty} (R10)",
        )
    # Whatever lies below the top, a card the taker does not hold is not-in-hand: the answer
    # may depend only on what the taker sees (R10).
    remaining = _take_from_hand(
        hand, from_hand, " (only the pile's top card may join the meld, R10)"
    )
    melds = _team_melds_after(state, inner, cards)
    rest = pile[:-1]
    if not may_keep_after_take(state, TEAM[seat], remaining, rest, melds):
        if hides_last_card(remaining, rest):
            raise IllegalAction(
                ErrorCode.CANNOT_GO_OUT,
                "that would leave you only the card below the pile's top, which you might not "
                "be allowed to discard (R13, R14)",
            )
        _check_leaves(state, TEAM[seat], hand_after_take(remaining, pile), melds)
    _raise(take_refusal(state, melds))
    return _changed_meld(melds, inner)


def _raise(refusal: Refusal | None) -> None:
    """Raise the refusal a constraint returned, if any."""
    if refusal is not None:
        raise IllegalAction(*refusal)


def _changed_meld(melds: tuple[Meld, ...], action: NewMeld | AddToMeld) -> Meld:
    return melds[-1] if type(action) is NewMeld else melds[action.meld]  # type: ignore[union-attr]


def _check_meld(state: GameState, action: NewMeld | AddToMeld) -> Meld:
    cards = _cards_of(action.cards)
    seat = state.current_player
    remaining = _take_from_hand(state.hands[seat], cards)
    melds = _team_melds_after(state, action, cards)
    _check_leaves(state, TEAM[seat], remaining, melds, banned_after(state, cards))
    meld = _changed_meld(melds, action)
    _raise(meld_refusal(state, action, meld))
    return meld


def _check_leaves(
    state: GameState,
    team: int,
    remaining: tuple[Card, ...],
    melds: Sequence[Meld],
    banned: Card | None = None,
) -> None:
    if may_leave(state, team, remaining, melds, banned):
        return
    if not remaining:
        raise IllegalAction(
            ErrorCode.CANNOT_GO_OUT,
            "that would empty your hand, but your team may not go out now (R12-R14)",
        )
    raise IllegalAction(
        ErrorCode.CANNOT_GO_OUT,
        f"that would leave only {remaining[0].pretty}, which you could not discard (R13, R14)",
    )


def _check_discard(state: GameState, action: Discard) -> None:
    card = action.card
    if not is_card(card):
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{describe(card)} is not a card")
    seat = state.current_player
    team = TEAM[seat]
    hand = state.hands[seat]
    remaining = _take_from_hand(hand, (card,))
    if not may_discard(hand, card, state.taken_single_card):
        raise IllegalAction(
            ErrorCode.CANNOT_DISCARD_TAKEN_CARD,
            f"{card.pretty} was the only card of the pile you took; keep it this turn (R11)",
        )
    melds = state.melds[team]
    if not remaining and not may_discard_last(state, team, card, melds, state.taken_single_card):
        needs = "a clean canasta" if state.rules.going_out_needs_clean_canasta else "a canasta"
        if has_required_canasta(state.rules, melds):
            reason = "the last card may not be a wildcard (R13)"
        else:
            reason = f"your team needs {needs} to go out (R13)"
        raise IllegalAction(ErrorCode.CANNOT_GO_OUT, f"you cannot discard your last card: {reason}")
    _raise(discard_refusal(state))

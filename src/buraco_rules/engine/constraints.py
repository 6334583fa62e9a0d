"""The per-action constraints, one predicate each (the "verify" of pokerkit): each returns the
refusal a ruling makes of an action, an :data:`Refusal` (its code and the sentence for the
player), or None where the ruling allows it.

The checker (:mod:`buraco_rules.engine.checks`) raises what they return, in its fixed order. The
move generator (:mod:`buraco_rules.engine.movegen`) asks the same predicates as a yes/no (``is
None``) where it decides the same question: the stock (:func:`empty_stock`), R14 (:func:`leaves`,
:func:`leaves_after_take`), R11 (:func:`taken_card`) and R13 (:func:`last_discard`). Two kinds of
constraint it decides by a documented fast filter instead, which the brute-force tests
(``tests/test_movegen.py``) hold equal to the predicate on random states: the shape of a meld
(:func:`new_meld`, :func:`addition`), where the search of :mod:`buraco_rules.melds.search` lists
only melds that form, and the cards held (:func:`in_hand`), where it lists only cards of the hand.
A ruling across the whole turn, the minimum opening, is :mod:`buraco_rules.engine.opening`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from ..core.actions import AddToMeld, NewMeld
from ..core.cards import Card, Rank, is_card
from ..core.errors import ErrorCode
from ..core.quoting import describe
from ..core.rules import RuleSet
from ..melds.meld import Meld, MeldKind, meld_error, moves_locked, sets_by_rank, wild_among
from .going_out import (
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
from .state import TEAM, GameState, Phase

__all__ = [
    "Refusal",
    "addition",
    "closed_take",
    "draw_phase",
    "empty_pile",
    "empty_stock",
    "first_draw_refusal",
    "game_over",
    "in_hand",
    "last_discard",
    "leaves",
    "leaves_after_take",
    "locked_wildcard",
    "meld_index",
    "new_meld",
    "not_a_card",
    "not_an_action",
    "not_cards",
    "open_take",
    "play_phase",
    "take_naturals",
    "taken_card",
    "turn",
    "uses_top",
]

Refusal = tuple[ErrorCode, str]
"""A refusal: the :class:`~buraco_rules.core.errors.ErrorCode` and the sentence for the player,
which the checker raises as an :class:`~buraco_rules.core.errors.IllegalAction`."""

_LOW_ONLY: Final = "but at this table the ace is low only (a house rule)"


def _pretty(meld: Meld) -> str:
    """``meld``'s layout with suit symbols, as a player's message shows cards (3♥ 4♥ Joker)."""
    return " ".join(c.pretty for c in meld.cards)


def game_over(state: GameState) -> Refusal | None:
    """No action once the hand is over (R13, R15)."""
    if state.phase is Phase.OVER:
        return ErrorCode.GAME_OVER, "the hand is over"
    return None


def turn(state: GameState, player: object) -> Refusal | None:
    """``player``, when given, is the seat to act (R1, R4)."""
    seat = state.current_player
    if player is not None and (type(player) is not int or player != seat):
        return (
            ErrorCode.NOT_YOUR_TURN,
            f"it is seat {seat}'s turn, not seat {describe(player)}'s",
        )
    return None


def draw_phase(state: GameState) -> Refusal | None:
    """A draw or a take of the pile starts the turn (R4)."""
    if state.phase is not Phase.DRAW:
        return ErrorCode.WRONG_PHASE, "you have already drawn this turn; meld or discard (R4)"
    return None


def play_phase(state: GameState) -> Refusal | None:
    """A meld or a discard comes after the draw (R4)."""
    if state.phase is not Phase.PLAY:
        return ErrorCode.WRONG_PHASE, "draw first: from the stock or the discard pile (R4)"
    return None


def empty_stock(state: GameState) -> Refusal | None:
    """A card can be drawn from the stock (R15, R21; the turn change ends the hand first)."""
    if stock_exhausted(state.rules, state.stock):
        return ErrorCode.EMPTY_STOCK, "no card may be drawn (R15, R21)"
    return None


def first_draw_refusal(state: GameState) -> Refusal | None:
    """R32 (``RuleSet.first_draw_refusal``, a house rule): the card just drawn may be refused by
    the first player only, on the hand's first turn, right after the draw and before anything
    else, once. Decided by what every seat sees (which card was drawn is not needed)."""
    if state.first_turn and state.phase is Phase.PLAY:
        if not stock_exhausted(state.rules, state.stock):
            return None
        why = "there is no card left to draw in its place (R15, R32)"
    elif not state.rules.first_draw_refusal:
        why = "this table does not let the first card drawn be refused (R32, a house rule)"
    elif state.first_turn:
        why = "draw from the stock first: only the card just drawn may be refused (R32)"
    else:
        why = (
            "only the first player may refuse a card: the hand's first card drawn from the "
            "stock, once, right after drawing it (R32, a house rule)"
        )
    return ErrorCode.CANNOT_REFUSE, why


def empty_pile(state: GameState) -> Refusal | None:
    """There is a discard pile to take."""
    if not state.discard_pile:
        return ErrorCode.EMPTY_DISCARD_PILE, "the discard pile is empty"
    return None


def not_an_action(action: object) -> Refusal:
    """The refusal of an object that is none of the six kinds of action."""
    return ErrorCode.MALFORMED_ACTION, f"{describe(action)} is not an action"


def not_cards(cards: object) -> Refusal | None:
    """``cards`` is a non-empty tuple (each of its items is then asked :func:`not_a_card`)."""
    if type(cards) is not tuple or not cards:
        return ErrorCode.MALFORMED_ACTION, f"{describe(cards)} is not a list of cards"
    return None


def open_take(state: GameState, inner: object) -> Refusal | None:
    """R11: an open pile is taken without a meld (the melds come after it)."""
    if inner is not None:
        return (
            ErrorCode.MALFORMED_ACTION,
            "the discard pile is open: take it without a meld, then meld (R11)",
        )
    return None


def closed_take(state: GameState, inner: object) -> Refusal | None:
    """R10: a closed pile is taken with a meld (a new one or an addition) of its top card."""
    if type(inner) is not NewMeld and type(inner) is not AddToMeld:
        top = state.discard_pile[-1]
        return (
            ErrorCode.MUST_USE_TOP_CARD,
            f"to take the pile you must meld its top card {top.pretty} at once (R10)",
        )
    return None


def uses_top(state: GameState, cards: tuple[Card, ...]) -> Refusal | None:
    """R10: the take's meld holds the pile's top card (the rest of its ``cards`` must then be in
    the hand, :func:`in_hand`)."""
    top = state.discard_pile[-1]
    if remove_cards(cards, (top,)) is None:
        return (
            ErrorCode.MUST_USE_TOP_CARD,
            f"the meld must use the pile's top card {top.pretty} (R10)",
        )
    return None


def take_naturals(state: GameState, from_hand: tuple[Card, ...], meld: Meld) -> Refusal | None:
    """R26 (``RuleSet.closed_take_naturals_only``, a house rule): the cards ``from_hand`` that
    take a closed pile (R10) with the pile's top card stand as natural cards in the ``meld``
    they make or change; none is a wildcard."""
    if not state.rules.closed_take_naturals_only:
        return None
    wild = wild_among(from_hand, meld)
    if wild is None:
        return None
    return (
        ErrorCode.TAKE_WITH_WILDCARD,
        f"{wild.pretty} would stand in for another card there: at this table the pile is taken "
        "with its top card and natural cards of your hand only, no wildcard (R26, a house rule)",
    )


def not_a_card(value: object) -> Refusal | None:
    """``value`` is a card (a :class:`~buraco_rules.Card` of the deck, nothing that merely
    compares equal to one)."""
    if not is_card(value):
        return ErrorCode.MALFORMED_ACTION, f"{describe(value)} is not a card"
    return None


def in_hand(hand: tuple[Card, ...], cards: tuple[Card, ...], hint: str = "") -> Refusal | None:
    """``hand`` holds ``cards`` (copies counted; both in id order). ``hint`` ends the message."""
    if remove_cards(hand, cards) is not None:
        return None
    missing = Counter(cards) - Counter(hand)
    card = min(missing)
    held = hand.count(card)
    detail = "" if held == 0 else f" {missing[card] + held} times (you hold {held})"
    return ErrorCode.NOT_IN_HAND, f"{card.pretty} is not in your hand{detail}{hint}"


def meld_index(state: GameState, index: object) -> Refusal | None:
    """``index`` names one of the team's melds."""
    melds = state.melds[TEAM[state.current_player]]
    if type(index) is not int:
        return ErrorCode.MALFORMED_ACTION, f"{describe(index)} is not a meld index"
    if not 0 <= index < len(melds):
        count = f"melds 0-{len(melds) - 1}" if melds else "no melds"
        return ErrorCode.NO_SUCH_MELD, f"your team has no meld {index} (it has {count})"
    return None


def new_meld(
    state: GameState, cards: tuple[Card, ...], meld: Meld | None, melds: Sequence[Meld]
) -> Refusal | None:
    """``cards`` laid as a new meld form ``meld`` (their classification, None if they form none,
    R5-R8), and it is no second set of a rank the team's ``melds`` hold a set of (R5)."""
    if meld is None:
        code = meld_error(cards, state.rules)
        what = " ".join(c.pretty for c in cards)
        if code is ErrorCode.TOO_MANY_WILDCARDS:
            return code, f"{what}: a meld may hold only one wildcard (R7)"
        if code is ErrorCode.ACE_LOW_ONLY:
            return code, f"{what} puts an ace above the king, {_LOW_ONLY}"
        if code is ErrorCode.SET_RANK:
            return (
                code,
                f"{what} is a set of a rank the rules allow no sets of: sets are of "
                f"{_set_ranks_text(state.rules)} only (R27, a house rule)",
            )
        kinds = "a run or a set" if state.rules.sets_allowed else "a run"
        return code, f"{what} is not {kinds} (R5, R6)"
    rank = meld.rank
    if meld.kind is MeldKind.SET and rank is not None and rank - 1 in sets_by_rank(melds):
        return (
            ErrorCode.DUPLICATE_SET,
            f"your team already has a set of {rank.label}s; add to it instead (R5)",
        )
    return None


def _set_ranks_text(rules: RuleSet) -> str:
    """The ranks of which ``rules`` allow sets, for a message (``A, K``)."""
    return ", ".join(Rank(r + 1).label for r in range(13) if rules.set_rank_mask >> r & 1)


def addition(
    state: GameState,
    index: int,
    cards: tuple[Card, ...],
    union: tuple[Card, ...],
    meld: Meld | None,
    old: Meld,
) -> Refusal | None:
    """``cards`` added to meld ``index`` (``old``) make ``meld``, the classification of the
    ``union`` of both (None if it forms none), a meld of the same kind, suit and rank (R5-R8)."""
    if (
        meld is not None
        and meld.kind is old.kind
        and meld.suit == old.suit
        and meld.rank == old.rank
    ):
        return None
    code = meld_error(union, state.rules)
    what = " ".join(c.pretty for c in cards)
    if code is ErrorCode.TOO_MANY_WILDCARDS:
        return code, f"adding {what} would give meld {index} a second wildcard (R7)"
    if code is ErrorCode.ACE_LOW_ONLY:
        return code, f"adding {what} to meld {index} puts an ace above the king, {_LOW_ONLY}"
    return code, f"{what} cannot be added to meld {index} ({_pretty(old)}) (R5, R6, R8)"


def locked_wildcard(state: GameState, index: int, old: Meld, meld: Meld) -> Refusal | None:
    """R29 (``RuleSet.locked_wildcards``, a house rule): the addition that turns meld ``index``
    (``old``) into ``meld`` leaves a wildcard that stood between two natural cards where it
    stood."""
    if not state.rules.locked_wildcards or not moves_locked(old, meld):
        return None
    wild = old.wildcard
    what = "its wildcard" if wild is None else f"its wildcard {wild.pretty}"
    return (
        ErrorCode.LOCKED_WILDCARD,
        f"that would move {what} in meld {index} ({_pretty(old)}) from between two natural "
        "cards, where it is locked at this table (R29, a house rule)",
    )


def leaves(
    state: GameState,
    team: int,
    remaining: tuple[Card, ...],
    melds: Sequence[Meld],
    banned: Card | None = None,
) -> Refusal | None:
    """R14: a meld may leave ``remaining`` in the hand (see
    :func:`~buraco_rules.engine.going_out.may_leave`), the team's melds being ``melds`` after it."""
    if len(remaining) >= 2 or may_leave(state, team, remaining, melds, banned):
        return None
    if state.extra_pile_lost == team:
        return (
            ErrorCode.CANNOT_GO_OUT,
            "the other team took your team's extra pile, so your team may not go out and must "
            "keep two cards after melding (R31)",
        )
    if not remaining:
        return (
            ErrorCode.CANNOT_GO_OUT,
            "that would empty your hand, but your team may not go out now (R12-R14)",
        )
    return (
        ErrorCode.CANNOT_GO_OUT,
        f"that would leave only {remaining[0].pretty}, which you could not discard (R13, R14)",
    )


def leaves_after_take(
    state: GameState,
    team: int,
    remaining: tuple[Card, ...],
    pile: tuple[Card, ...],
    melds: Sequence[Meld],
) -> Refusal | None:
    """R14 for a closed-pile take (R10): the hand keeps ``remaining`` and gains ``pile`` below its
    top (see :func:`~buraco_rules.engine.going_out.may_keep_after_take`)."""
    rest = pile[:-1]
    if may_keep_after_take(state, team, remaining, rest, melds):
        return None
    if hides_last_card(remaining, rest):
        return (
            ErrorCode.CANNOT_GO_OUT,
            "that would leave you only the card below the pile's top, which you might not "
            "be allowed to discard (R13, R14)",
        )
    return leaves(state, team, hand_after_take(remaining, pile), melds)


def taken_card(hand: tuple[Card, ...], card: Card, banned: Card | None) -> Refusal | None:
    """R11: ``card`` is not the single card just taken from an open pile (``banned``), unless the
    hand holds another copy of it."""
    if may_discard(hand, card, banned):
        return None
    return (
        ErrorCode.CANNOT_DISCARD_TAKEN_CARD,
        f"{card.pretty} was the only card of the pile you took; keep it this turn (R11)",
    )


def last_discard(
    state: GameState, team: int, card: Card, melds: Sequence[Meld], banned: Card | None
) -> Refusal | None:
    """R12, R13: ``card``, the player's last, may be discarded (see
    :func:`~buraco_rules.engine.going_out.may_discard_last`)."""
    if may_discard_last(state, team, card, melds, banned):
        return None
    needs = "a clean canasta" if state.rules.going_out_needs_clean_canasta else "a canasta"
    if has_required_canasta(state.rules, melds):
        reason = "the last card may not be a wildcard (R13)"
    else:
        reason = f"your team needs {needs} to go out (R13)"
    return ErrorCode.CANNOT_GO_OUT, f"you cannot discard your last card: {reason}"

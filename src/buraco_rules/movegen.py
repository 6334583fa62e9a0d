"""The move generator: every legal action of a state, in a documented deterministic order.

Order: in the draw phase, ``DrawFromStock`` then the ways to take the discard pile (new melds
before additions); in the play phase, new melds (runs by suit, then sets by rank), additions (by
meld index), then discards (by card id). Within a group, by the cards' ids.

A hand is cut into suits (its ids are suit-major, so each suit is one slice) plus the kinds of
wild card it holds. The actions each suit allows, alone or on a meld, are a pure function of that
slice, memoised together with the action objects, so a state whose hand changed in one suit
rebuilds only that suit's part. R14 is applied afterwards, and only to options big enough to
matter.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Final

from .actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from .cards import Card, all_cards
from .going_out import banned_after, may_discard_last, may_leave, remove_cards
from .melds import Meld
from .meldsearch import run_options, set_options
from .state import GameState, Phase

_CARDS: Final = all_cards()
_IS_WILD: Final = tuple(c == 52 or c % 13 == 1 for c in range(53))
_JOKER: Final = _CARDS[52]
_DRAW: Final = DrawFromStock()
_TAKE_OPEN: Final = TakeDiscardPile()
_DISCARD: Final = tuple(Discard(c) for c in _CARDS)

Choice = tuple[Action, tuple[Card, ...], Meld]
"""An action, the cards it takes from the hand, and the meld it makes or changes."""


class _Part:
    """The actions one suit or rank allows: all of them, and how many cards the largest uses."""

    __slots__ = ("actions", "choices", "largest")

    def __init__(self, choices: tuple[Choice, ...]) -> None:
        self.choices = choices
        self.actions = tuple(c[0] for c in choices)
        self.largest = max((len(c[1]) for c in choices), default=0)


_EMPTY: Final = _Part(())


@lru_cache(maxsize=1 << 16)
def _new_runs(suit: int, cards: tuple[Card, ...], max_aces: int) -> _Part:
    return _Part(tuple((NewMeld(s), s, m) for s, m in run_options(suit, cards, None, max_aces)))


@lru_cache(maxsize=1 << 16)
def _new_sets(rank: int, cards: tuple[Card, ...], max_size: int) -> _Part:
    return _Part(tuple((NewMeld(s), s, m) for s, m in set_options(rank, cards, None, max_size)))


@lru_cache(maxsize=1 << 16)
def _additions(
    index: int, meld: Meld, cards: tuple[Card, ...], max_aces: int, max_size: int
) -> _Part:
    if meld.suit is not None:
        options = run_options(meld.suit, cards, meld, max_aces)
    else:
        assert meld.rank is not None
        options = set_options(meld.rank - 1, cards, meld, max_size)
    return _Part(tuple((AddToMeld(index, s), s, m) for s, m in options))


@lru_cache(maxsize=1 << 14)
def _take(meld: NewMeld | AddToMeld) -> TakeDiscardPile:
    return TakeDiscardPile(meld)


def _suits(hand: tuple[Card, ...]) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """The hand cut into its four suit slices, and the distinct wild cards it holds."""
    cut = [bisect_left(hand, 13 * s) for s in range(5)]
    slices = [hand[cut[s] : cut[s + 1]] for s in range(4)]
    wilds = [_CARDS[13 * s + 1] for s in range(4) if _CARDS[13 * s + 1] in slices[s]]
    if hand and hand[-1] == 52:
        wilds.append(_JOKER)
    return slices, tuple(wilds)


def _with(cards: tuple[Card, ...], wilds: tuple[Card, ...]) -> tuple[Card, ...]:
    """A suit's or rank's cards plus the other wild kinds the hand holds (the search's input; a
    suit's own 2s are already in its slice, with their count)."""
    if not wilds:
        return cards
    return tuple(sorted(cards + tuple(w for w in wilds if w not in cards)))


def _parts(state: GameState, hand: tuple[Card, ...], must: Card | None) -> list[_Part]:
    """Every new meld and addition ``hand`` allows (ignoring R14); with ``must``, only the parts
    that can use that card (its suit's runs, its rank's sets, or everything for a wildcard)."""
    rules = state.rules
    melds = state.melds[state.current_player % 2]
    slices, wilds = _suits(hand)
    only_suit = -1 if must is None or _IS_WILD[must] else must // 13
    only_rank = -1 if must is None or _IS_WILD[must] else must % 13
    max_aces = rules.max_natural_aces_in_run
    parts = []
    for s in range(4):
        if len(slices[s]) >= 2 and only_suit in (-1, s):
            parts.append(_new_runs(s, _with(slices[s], wilds), max_aces))
    groups: dict[int, tuple[Card, ...]] = {}
    if rules.sets_allowed:
        for c in hand:
            if not _IS_WILD[c]:
                groups[c % 13] = (*groups.get(c % 13, ()), c)
        held = {m.rank - 1 for m in melds if m.rank is not None}
        for r in sorted(groups):
            # R5: a team holds one set of a rank
            if len(groups[r]) >= 2 and r not in held and only_rank in (-1, r):
                parts.append(_new_sets(r, _with(groups[r], wilds), rules.max_set_size))
    for i, meld in enumerate(melds):
        if meld.suit is not None:
            if only_suit not in (-1, meld.suit):
                continue
            cards = _with(slices[meld.suit], wilds)
        else:
            assert meld.rank is not None
            r = meld.rank - 1
            if only_rank not in (-1, r):
                continue
            cards = _with(groups.get(r, ()), wilds)
        if cards:
            parts.append(_additions(i, meld, cards, max_aces, rules.max_set_size))
    return parts


def generate(state: GameState) -> tuple[Action, ...]:
    """Every legal action of ``state`` (none once the hand is over)."""
    if state.phase is Phase.PLAY:
        return _play_actions(state)
    if state.phase is Phase.DRAW:
        return _draw_actions(state)
    return ()


def _melds_with(state: GameState, action: Action, meld: Meld) -> tuple[Meld, ...]:
    melds = state.melds[state.current_player % 2]
    if type(action) is NewMeld:
        return (*melds, meld)
    assert isinstance(action, AddToMeld)
    i = action.meld
    return melds[:i] + (meld,) + melds[i + 1 :]


def _play_actions(state: GameState) -> tuple[Action, ...]:
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    size = len(hand)
    actions: list[Action] = []
    for part in _parts(state, hand, None):
        if size - part.largest >= 2:
            actions += part.actions
            continue
        for action, cards, meld in part.choices:  # R14 decides the big ones
            if size - len(cards) >= 2:
                actions.append(action)
                continue
            remaining = remove_cards(hand, cards)
            assert remaining is not None
            melds = _melds_with(state, action, meld)
            if may_leave(state, team, remaining, melds, banned_after(state, cards)):
                actions.append(action)
    banned = state.taken_single_card
    if size == 1:
        if may_discard_last(state, team, hand[0], state.melds[team], banned):
            actions.append(_DISCARD[hand[0]])
    elif banned is None or hand.count(banned) > 1:
        actions += [_DISCARD[c] for c in dict.fromkeys(hand)]
    else:
        # R11: the single card just taken stays in the hand this turn.
        actions += [_DISCARD[c] for c in dict.fromkeys(hand) if c != banned]
    return tuple(actions)


def _draw_actions(state: GameState) -> tuple[Action, ...]:
    pile = state.discard_pile
    if not pile:
        return (_DRAW,)
    if not state.rules.closed_discard_pile:
        return (_DRAW, _TAKE_OPEN)  # R11
    # R10: the top card goes at once into a meld with cards from the hand.
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    top = pile[-1]
    rest = pile[:-1]
    pool = tuple(sorted((*hand, top)))
    kept = len(hand) + len(rest)  # cards held after the take, before the meld's hand cards go
    actions: list[Action] = [_DRAW]
    for part in _parts(state, pool, top):
        for action, cards, meld in part.choices:
            if top not in cards:
                continue
            if kept - (len(cards) - 1) < 2:  # R14 decides the big ones
                from_hand = remove_cards(cards, (top,))
                assert from_hand is not None
                remaining = remove_cards(hand, from_hand)
                assert remaining is not None
                after = tuple(sorted(remaining + rest))
                if not may_leave(state, team, after, _melds_with(state, action, meld)):
                    continue
            assert isinstance(action, NewMeld | AddToMeld)
            actions.append(_take(action))
    return tuple(actions)

"""The move generator: every legal action of a state, in a documented deterministic order.

Order: ``DrawFromStock``, then the ways to take the discard pile; or, in the play phase, the melds
then the discards (by card id). Melds and takes come suit by suit (clubs, diamonds, hearts,
spades): the new runs, then the additions to that suit's runs by meld index; then rank by rank,
a new set or the additions to the team's set of that rank. Within each, by the cards' ids.

A hand is cut into suits (its ids are suit-major, so each suit is one slice) plus the kinds of
wild card it holds. The actions each suit allows, alone or on a meld, are a pure function of that
slice, memoised together with the action objects, so a state whose hand changed in one suit
rebuilds only that suit's part. R14 is applied afterwards, and only to options big enough to
matter.
"""

from __future__ import annotations

import sys
from bisect import bisect_left
from functools import lru_cache
from itertools import groupby
from typing import Final

from .actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from .cards import Card, all_cards
from .going_out import banned_after, may_discard_last, may_leave, remove_cards
from .melds import IS_WILD, POSITION_BITS, Meld, MeldKind
from .meldsearch import run_options, set_options, take_options
from .state import GameState, Phase
from .transitions import melds_with

_CARDS: Final = all_cards()
_RANK: Final = tuple(c % 13 for c in range(53))
_JOKER: Final = _CARDS[52]
_DRAW: Final = DrawFromStock()
_RUN: Final = MeldKind.RUN
_SET: Final = MeldKind.SET
_TAKE_OPEN: Final = TakeDiscardPile()
_DISCARD: Final = tuple(Discard(c) for c in _CARDS)

Choice = tuple[Action, tuple[Card, ...], Meld]
"""An action, the cards it takes from the hand, and the meld it makes or changes."""


class _Part:
    """The actions one suit or rank allows: all of them, and how many cards the largest uses."""

    __slots__ = ("actions", "choices", "largest", "results")

    def __init__(self, choices: tuple[Choice, ...]) -> None:
        self.choices = choices
        if choices:
            actions, cards, results = zip(*choices, strict=True)
            self.actions: tuple[Action, ...] = actions
            self.results: tuple[Meld, ...] = results
            self.largest = max(map(len, cards))
        else:
            self.actions, self.results, self.largest = (), (), 0


IndexedMelds = tuple[tuple[int, Meld], ...]


@lru_cache(maxsize=1 << 16)
def _part(
    kind: MeldKind,
    key: int,
    cards: tuple[Card, ...],
    melds: IndexedMelds,
    new: bool,
    limit: int,
) -> _Part:
    """From ``cards``: new melds of ``kind`` (if ``new``), then additions to ``melds`` (by index).
    Runs of suit ``key`` with at most ``limit`` natural aces, or sets of rank ``key`` of at most
    ``limit`` cards (R5, R6)."""
    search = run_options if kind is MeldKind.RUN else set_options
    choices: list[Choice] = []
    if new:
        choices += [(_new_meld(s), s, m) for s, m in search(key, cards, None, limit)]
    for i, meld in melds:
        choices += [(_add(i, s), s, m) for s, m in search(key, cards, meld, limit)]
    return _Part(tuple(choices))


@lru_cache(maxsize=1 << 16)
def _new_meld(cards: tuple[Card, ...]) -> NewMeld:
    return NewMeld(cards)


@lru_cache(maxsize=1 << 16)
def _add(index: int, cards: tuple[Card, ...]) -> AddToMeld:
    return AddToMeld(index, cards)


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
    slices, wilds = _suits(hand)
    only_suit = -1 if must is None or IS_WILD[must] else must // 13
    by_suit: list[list[tuple[int, Meld]]] = [[], [], [], []]
    by_rank: dict[int, tuple[int, Meld]] = {}
    for i, meld in enumerate(state.melds[state.current_player % 2]):
        if meld.suit is not None:
            by_suit[meld.suit].append((i, meld))
        else:
            assert meld.rank is not None
            by_rank[meld.rank - 1] = (i, meld)
    max_aces = rules.max_natural_aces_in_run
    parts = []
    for s in range(4):
        if only_suit in (-1, s) and (len(slices[s]) >= 2 or by_suit[s]):
            cards = _with(slices[s], wilds)
            if cards:
                parts.append(
                    _part(_RUN, s, cards, tuple(by_suit[s]), len(slices[s]) >= 2, max_aces)
                )
    if rules.sets_allowed:
        only_rank = -1 if must is None or IS_WILD[must] else must % 13
        naturals = sorted([c for c in hand if not IS_WILD[c]], key=_RANK.__getitem__)
        groups = {r: tuple(cs) for r, cs in groupby(naturals, _RANK.__getitem__)}
        for r in sorted(set(groups) | set(by_rank)):
            if only_rank not in (-1, r):
                continue
            held = by_rank.get(r)
            natural = groups.get(r, ())
            # R5: a team holds one set of a rank; more cards go onto it
            new = held is None and len(natural) >= 2
            if new or (held is not None and (natural or wilds)):
                melds: IndexedMelds = () if held is None else (held,)
                parts.append(_part(_SET, r, _with(natural, wilds), melds, new, rules.max_set_size))
    return parts


def clear_caches() -> None:
    """Forget every memoised search (for benchmarks that must start cold); no answer changes."""
    from . import melds, meldsearch

    for module in (melds, meldsearch, sys.modules[__name__]):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


Generated = tuple[tuple[Action, ...], tuple[Meld | None, ...]]
"""The legal actions, and for each the meld it makes or changes (None for draws and discards)."""


def generate(state: GameState) -> Generated:
    """Every legal action of ``state`` (none once the hand is over), with its meld."""
    if state.phase is Phase.PLAY:
        return _play_actions(state)
    if state.phase is Phase.DRAW:
        return _draw_actions(state)
    return (), ()


def _melds_with(state: GameState, action: Action, meld: Meld) -> tuple[Meld, ...]:
    assert isinstance(action, NewMeld | AddToMeld)
    return melds_with(state.melds[state.current_player % 2], action, meld)


def _play_actions(state: GameState) -> Generated:
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    size = len(hand)
    actions: list[Action] = []
    results: list[Meld | None] = []
    for part in _parts(state, hand, None):
        if size - part.largest >= 2:
            actions += part.actions
            results += part.results
            continue
        for action, cards, meld in part.choices:  # R14 decides the big ones
            if size - len(cards) >= 2 or may_leave(
                state,
                team,
                remove_cards(hand, cards) or (),
                _melds_with(state, action, meld),
                banned_after(state, cards),
            ):
                actions.append(action)
                results.append(meld)
    banned = state.taken_single_card
    if size == 1:
        if may_discard_last(state, team, hand[0], state.melds[team], banned):
            actions.append(_DISCARD[hand[0]])
    elif banned is None or hand.count(banned) > 1:
        actions += [_DISCARD[c] for c in dict.fromkeys(hand)]
    else:
        # R11: the single card just taken stays in the hand this turn.
        actions += [_DISCARD[c] for c in dict.fromkeys(hand) if c != banned]
    results += [None] * (len(actions) - len(results))
    return tuple(actions), tuple(results)


def _near(positions: int, mask: int, distance: int) -> bool:
    """Some position of ``positions`` lies within ``distance`` of one in ``mask``."""
    spread = mask
    for _ in range(distance):
        spread |= spread << 1 | spread >> 1
    return bool(positions & spread)


def _top_may_fit(state: GameState, hand: tuple[Card, ...], top: Card) -> bool:
    """A quick necessary condition for taking a closed pile (R10): the top card can only go into
    a run of its suit with two more cards near it, or onto a run of its suit that it is near
    (a run has at most one hole besides the one a 2 of its suit may leave). Most draws fail it,
    and skip the full search."""
    if IS_WILD[top]:
        return True
    suit = top // 13
    place = POSITION_BITS[top]
    own = [c for c in hand if c // 13 == suit]
    nearby = sum(1 for c in own if _near(POSITION_BITS[c] & ~place, place, 2))
    wild = any(IS_WILD[c] for c in hand)
    if nearby + wild >= 2:
        return True
    for meld in state.melds[state.current_player % 2]:
        if meld.suit == suit:
            span = meld.naturals | (2 | 1 << 14 if meld.naturals & (2 | 1 << 14) else 0)
            if _near(place, span, 3):
                return True
    return state.rules.sets_allowed  # sets: leave it to the full search


def _take_parts(state: GameState, hand: tuple[Card, ...], top: Card) -> list[_Part]:
    """The melds a closed pile's top card can go into with cards of ``hand`` (R10): for a natural
    card, searched around it; for a wildcard (or where sets are allowed), from the hand and the
    top card together, keeping those that use it."""
    rules = state.rules
    if IS_WILD[top] or rules.sets_allowed:
        return _parts(state, tuple(sorted((*hand, top))), top)
    suit = top // 13
    slices, wilds = _suits(hand)
    cards = _with(slices[suit], wilds)
    melds = tuple(
        (i, m) for i, m in enumerate(state.melds[state.current_player % 2]) if m.suit == suit
    )
    return [_take_part(suit, cards, top, melds, rules.max_natural_aces_in_run)]


@lru_cache(maxsize=1 << 15)
def _take_part(
    suit: int, cards: tuple[Card, ...], top: Card, melds: IndexedMelds, max_aces: int
) -> _Part:
    """New runs with the top card ``top``, then additions of it (and cards) to ``melds``."""
    choices: list[Choice] = [
        (_new_meld(s), s, m) for s, m in take_options(suit, cards, top, None, max_aces)
    ]
    for i, meld in melds:
        choices += [(_add(i, s), s, m) for s, m in take_options(suit, cards, top, meld, max_aces)]
    return _Part(tuple(choices))


def _draw_actions(state: GameState) -> Generated:
    pile = state.discard_pile
    draw: Generated = ((_DRAW,), (None,)) if state.stock else ((), ())  # always a stock (R15)
    if not pile:
        return draw
    if not state.rules.closed_discard_pile:
        return draw[0] + (_TAKE_OPEN,), draw[1] + (None,)  # R11
    # R10: the top card goes at once into a meld with cards from the hand.
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    top = pile[-1]
    if not _top_may_fit(state, hand, top):
        return draw
    rest = pile[:-1]
    kept = len(hand) + len(rest)  # cards held after the take, before the meld's hand cards go
    actions: list[Action] = list(draw[0])
    results: list[Meld | None] = list(draw[1])
    for part in _take_parts(state, hand, top):
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
            results.append(meld)
    return tuple(actions), tuple(results)

"""The move generator: every legal action of a state, in a documented deterministic order.

Order: in the draw phase, ``DrawFromStock`` then the ways to take the discard pile (new melds
before additions); in the play phase, new melds (runs by suit, then sets by rank), additions (by
meld index), then discards (by card id). Within a group, by the cards' ids.

The per-suit and per-rank searches are pure functions of small tuples, memoised in
:mod:`buraco_rules.melds`, so a hand that changed in one suit reuses the others' answers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from .actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from .cards import Card, all_cards
from .going_out import may_discard_last, may_leave, remove_cards
from .melds import Meld, MeldKind, run_options, set_options
from .state import GameState, Phase

_CARDS: Final = all_cards()
_IS_WILD: Final = tuple(c == 52 or c % 13 == 1 for c in range(53))
_DRAW: Final = DrawFromStock()
_TAKE_OPEN: Final = TakeDiscardPile()
_DISCARD: Final = tuple(Discard(c) for c in _CARDS)


@lru_cache(maxsize=1 << 16)
def _new_meld(cards: tuple[Card, ...]) -> NewMeld:
    return NewMeld(cards)


@lru_cache(maxsize=1 << 16)
def _add(meld: int, cards: tuple[Card, ...]) -> AddToMeld:
    return AddToMeld(meld, cards)


@lru_cache(maxsize=1 << 14)
def _take(meld: NewMeld | AddToMeld) -> TakeDiscardPile:
    return TakeDiscardPile(meld)


def generate(state: GameState) -> tuple[Action, ...]:
    """Every legal action of ``state`` (empty once the hand is over)."""
    if state.phase is Phase.PLAY:
        return _play_actions(state)
    if state.phase is Phase.DRAW:
        return _draw_actions(state)
    return ()


def meld_options(
    state: GameState, cards: tuple[Card, ...], melds: tuple[Meld, ...]
) -> tuple[list[tuple[tuple[Card, ...], Meld]], list[tuple[int, tuple[Card, ...], Meld]]]:
    """The new melds and the additions to ``melds`` that ``cards`` allow, ignoring R14."""
    rules = state.rules
    suits: list[list[Card]] = [[], [], [], []]
    wilds: list[Card] = []
    ranks: dict[int, int] = {}
    for c in cards:
        if _IS_WILD[c]:
            wilds.append(c)
        else:
            suits[c // 13].append(c)
            ranks[c % 13] = ranks.get(c % 13, 0) + 1
    suits_wild = [_with_wilds(suits[s], wilds, s) for s in range(4)]
    new: list[tuple[tuple[Card, ...], Meld]] = []
    max_aces = rules.max_natural_aces_in_run
    for s in range(4):
        own = suits[s]
        if len(own) + sum(1 for w in wilds if w == s * 13 + 1) >= 2:
            new.extend(run_options(s, suits_wild[s], None, max_aces))
    set_ranks: set[int] = set()
    if rules.sets_allowed:
        set_ranks = {m.rank - 1 for m in melds if m.rank is not None}
        for r in sorted(ranks):
            if ranks[r] >= 2 and r not in set_ranks:  # R5: one set of a rank per team
                rank_cards = tuple(
                    sorted([c for c in cards if not _IS_WILD[c] and c % 13 == r] + wilds)
                )
                new.extend(set_options(r, rank_cards, None, rules.max_set_size))
    additions: list[tuple[int, tuple[Card, ...], Meld]] = []
    for i, meld in enumerate(melds):
        if meld.kind is MeldKind.RUN:
            assert meld.suit is not None
            hand_part = suits_wild[meld.suit]
            if hand_part:
                for extra, result in run_options(meld.suit, hand_part, meld, max_aces):
                    additions.append((i, extra, result))
        else:
            assert meld.rank is not None
            r = meld.rank - 1
            rank_cards = tuple(
                sorted([c for c in cards if not _IS_WILD[c] and c % 13 == r] + wilds)
            )
            if rank_cards:
                for extra, result in set_options(r, rank_cards, meld, rules.max_set_size):
                    additions.append((i, extra, result))
    return new, additions


def _with_wilds(own: list[Card], wilds: list[Card], suit: int) -> tuple[Card, ...]:
    return tuple(sorted(own + wilds)) if wilds else tuple(own)


def _play_actions(state: GameState) -> tuple[Action, ...]:
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    melds = state.melds[team]
    new, additions = meld_options(state, hand, melds)
    actions: list[Action] = []
    size = len(hand)
    for cards, meld in new:
        if size - len(cards) >= 2 or _leaves_legal(state, team, hand, cards, (*melds, meld)):
            actions.append(_new_meld(cards))
    for i, cards, meld in additions:
        if size - len(cards) >= 2 or _leaves_legal(
            state, team, hand, cards, melds[:i] + (meld,) + melds[i + 1 :]
        ):
            actions.append(_add(i, cards))
    banned = state.taken_single_card
    if size == 1:
        if may_discard_last(state, team, hand[0], melds):
            actions.append(_DISCARD[hand[0]])
    else:
        previous = None
        for c in hand:
            if c is not previous and c != banned:
                actions.append(_DISCARD[c])
            previous = c
    return tuple(actions)


def _leaves_legal(
    state: GameState,
    team: int,
    hand: tuple[Card, ...],
    cards: tuple[Card, ...],
    melds: tuple[Meld, ...],
) -> bool:
    remaining = remove_cards(hand, cards)
    assert remaining is not None
    return may_leave(state, team, remaining, melds)


def _draw_actions(state: GameState) -> tuple[Action, ...]:
    actions: list[Action] = [_DRAW]
    pile = state.discard_pile
    if not pile:
        return tuple(actions)
    if not state.rules.closed_discard_pile:
        from .engine import open_take_is_dead_end  # the one shared guard for R11 + R14

        if not open_take_is_dead_end(state):
            actions.append(_TAKE_OPEN)
        return tuple(actions)
    # R10: the top card goes at once into a meld with cards from the hand.
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    melds = state.melds[team]
    top = pile[-1]
    rest = pile[:-1]
    pool = tuple(sorted((*hand, top)))
    new, additions = meld_options(state, pool, melds)
    for cards, meld in new:
        if top in cards and _take_leaves_legal(state, team, hand, cards, top, rest, (*melds, meld)):
            actions.append(_take(_new_meld(cards)))
    for i, cards, meld in additions:
        if top in cards and _take_leaves_legal(
            state, team, hand, cards, top, rest, melds[:i] + (meld,) + melds[i + 1 :]
        ):
            actions.append(_take(_add(i, cards)))
    return tuple(actions)


def _take_leaves_legal(
    state: GameState,
    team: int,
    hand: tuple[Card, ...],
    cards: tuple[Card, ...],
    top: Card,
    rest: tuple[Card, ...],
    melds: tuple[Meld, ...],
) -> bool:
    if len(hand) - len(cards) + 1 + len(rest) >= 2:
        return True
    from_hand = remove_cards(cards, (top,))
    assert from_hand is not None
    remaining = remove_cards(hand, from_hand)
    assert remaining is not None
    return may_leave(state, team, tuple(sorted(remaining + rest)), melds)

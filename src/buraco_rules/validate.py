"""Checking a state built by hand: every invariant that ``new_game`` and ``apply`` keep.

States come from ``new_game``, ``apply``, a decoder, or this check: ``apply`` assumes a valid
state and is not slowed down by checking one. Build a scenario with ``attrs.evolve`` if you like,
then ``validate`` it before playing on it.

>>> import attrs
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.ITALIAN, 2, seed=1)
>>> br.validate(state) is state
True
>>> br.validate(attrs.evolve(state, current_player=7))
Traceback (most recent call last):
...
buraco_rules.errors.InvalidState: current_player must be a seat from 0 to 1, not 7
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Final

from .cards import DECK, Card
from .errors import InvalidState
from .going_out import has_required_canasta, stock_exhausted
from .melds import Meld, MeldKind, classify
from .rules import RuleSet
from .state import GameState, Phase

__all__ = ["validate"]

_DECK_COUNTS: Final = Counter(DECK)


def validate(state: object) -> GameState:
    """Return ``state`` if it is a valid :class:`GameState`; otherwise raise
    :class:`~buraco_rules.errors.InvalidState` naming the first problem found.

    Checked: the types and ranges of every field; each hand sorted; the 108 cards (R2) exactly,
    across hands, stock, discard pile, melds and extra piles; each meld valid and laid as the
    engine lays it (R5-R9), one set per rank and team (R5); an untaken extra pile of its full size
    (R2); the phase and the fields that go with it — a non-empty stock to draw from (R15), no empty
    hand while the hand goes on (R12), the single card taken from an open pile (R11), the
    untouched extra pile (R19), the team that went out (R13).
    """
    for problem in _problems(state):
        raise InvalidState(problem)
    return state  # type: ignore[return-value]


def _is_cards(value: object) -> bool:
    return type(value) is tuple and all(type(c) is Card for c in value)


def _is_index(value: object, size: int) -> bool:
    return type(value) is int and 0 <= value < size


def _problems(state: object) -> Iterator[str]:
    """The problems of ``state``, the first found first; checks that need earlier ones to hold
    come after them, so that each runs on well-typed data."""
    if type(state) is not GameState:
        yield f"expected a GameState, not {type(state).__name__}"
        return
    rules = state.rules
    if not isinstance(rules, RuleSet):
        yield f"rules must be a RuleSet, not {type(rules).__name__}"
        return
    players = state.players
    if type(players) is not int or players not in rules.player_counts:
        yield f"players must be one of {rules.player_counts} for {rules.title}, not {players!r}"
        return
    if not _is_index(state.current_player, players):
        yield f"current_player must be a seat from 0 to {players - 1}, not {state.current_player!r}"
        return
    if type(state.phase) is not Phase:
        yield f"phase must be a Phase, not {state.phase!r}"
        return
    yield from _card_problems(state)
    yield from _meld_problems(state)
    yield from _pile_problems(state)
    yield from _phase_problems(state)


def _card_problems(state: GameState) -> Iterator[str]:
    hands = state.hands
    if type(hands) is not tuple or len(hands) != state.players:
        yield f"hands must be a tuple of {state.players} hands"
        return
    for seat, hand in enumerate(hands):
        if not _is_cards(hand):
            yield f"the hand of seat {seat} must be a tuple of cards, not {hand!r}"
            return
        if list(hand) != sorted(hand):
            yield f"the hand of seat {seat} is not sorted"
    for name in ("stock", "discard_pile"):
        if not _is_cards(getattr(state, name)):
            yield f"{name} must be a tuple of cards"
            return
    melds = state.melds
    if (
        type(melds) is not tuple
        or len(melds) != 2
        or any(type(team) is not tuple or any(type(m) is not Meld for m in team) for team in melds)
    ):
        yield "melds must be a pair (one per team) of tuples of Meld"
        return
    extra = state.extra_piles
    if type(extra) is not tuple or len(extra) != 2:
        yield "extra_piles must be a pair (one per team)"
        return
    for team, pile in enumerate(extra):
        if pile is not None and not _is_cards(pile):
            yield f"the extra pile of team {team} must be None or a tuple of cards"
            return
        if pile is not None and len(pile) != state.rules.extra_pile_size:
            yield (
                f"the untaken extra pile of team {team} holds {len(pile)} cards, not "
                f"{state.rules.extra_pile_size} (R2)"
            )
    counts: Counter[Card] = Counter()
    for hand in hands:
        counts.update(hand)
    counts.update(state.stock)
    counts.update(state.discard_pile)
    for team_melds in melds:
        for meld in team_melds:
            counts.update(meld.cards)
    for pile in extra:
        counts.update(pile or ())
    if counts != _DECK_COUNTS:
        wrong = [
            f"{counts.get(c, 0)} × {c.pretty}"
            for c in sorted(set(counts) | set(_DECK_COUNTS))
            if counts.get(c, 0) != _DECK_COUNTS[c]
        ]
        total = sum(counts.values())
        more = " …" if len(wrong) > 6 else ""
        yield (
            f"the state holds {total} cards, not the 108 of two decks (R2): "
            + ", ".join(wrong[:6])
            + more
        )


def _meld_problems(state: GameState) -> Iterator[str]:
    for team, melds in enumerate(state.melds):
        set_ranks = []
        for i, meld in enumerate(melds):
            if not _is_cards(meld.cards) or len(meld.cards) < 3:
                yield f"meld {i} of team {team} must hold 3 or more cards"
                continue
            laid = classify(tuple(sorted(meld.cards)), state.rules)
            if laid is None:
                cards = " ".join(map(str, meld.cards))
                yield f"meld {i} of team {team} ({cards}) is no meld (R5-R7)"
            elif laid != meld or laid.multiset != meld.multiset or laid.naturals != meld.naturals:
                yield f"meld {i} of team {team} is not laid as the engine lays it: {laid} (R8)"
            elif meld.kind is MeldKind.SET:
                set_ranks.append(meld.rank)
        if len(set_ranks) != len(set(set_ranks)):
            yield f"team {team} holds two sets of one rank (R5)"


def _pile_problems(state: GameState) -> Iterator[str]:
    taken = state.extra_pile_taken
    if type(taken) is not tuple or len(taken) != 2 or any(type(t) is not bool for t in taken):
        yield "extra_pile_taken must be a pair of bools"
        return
    for team in (0, 1):
        if taken[team] and state.extra_piles[team] is not None:
            yield f"team {team}'s extra pile is taken but still set aside (R12)"
    if not state.rules.extra_pile_becomes_stock and any(
        state.extra_piles[t] is None and not taken[t] for t in (0, 1)
    ):
        yield "an extra pile is gone, not taken, but these rules never turn one into stock (R15)"
    untouched = state.untouched_extra_pile
    if type(untouched) is not tuple or len(untouched) != 2:
        yield "untouched_extra_pile must be a pair (one per team)"
        return
    for team, seat in enumerate(untouched):
        if seat is None:
            continue
        if not _is_index(seat, state.players) or seat % 2 != team:
            yield f"untouched_extra_pile of team {team} must be a seat of that team, not {seat!r}"
        elif not taken[team]:
            yield f"team {team}'s extra pile is untouched by seat {seat} but not taken (R19)"
        elif len(state.hands[seat]) != state.rules.extra_pile_size:
            yield f"seat {seat} holds the untouched extra pile but not its size in cards (R19)"
        elif seat == state.current_player and state.phase is not Phase.OVER:
            yield f"seat {seat} is playing, so its extra pile is no longer untouched (R19)"


def _phase_problems(state: GameState) -> Iterator[str]:
    phase = state.phase
    seat = state.current_player
    single = state.taken_single_card
    if single is not None:
        if type(single) is not Card:
            yield f"taken_single_card must be a card or None, not {single!r}"
        elif phase is not Phase.PLAY or state.rules.closed_discard_pile:
            yield "a single card taken from the pile is remembered only while its taker plays (R11)"
        elif not state.rules.single_taken_card_discard_banned:
            yield "these rules do not ban discarding a single taken card (R11)"
        elif single not in state.hands[seat]:
            yield f"seat {seat} took {single.pretty} from the pile but does not hold it (R11)"
    went_out = state.went_out
    if went_out is not None and went_out not in (0, 1):
        yield f"went_out must be a team (0 or 1) or None, not {went_out!r}"
        return
    if type(went_out) is bool:
        yield f"went_out must be a team (0 or 1) or None, not {went_out!r}"
        return
    if phase is not Phase.OVER:
        if went_out is not None:
            yield "a team went out, but the hand is not over (R13)"
        for s, hand in enumerate(state.hands):
            if not hand:
                yield f"seat {s} holds no cards, but the hand goes on (R12, R13)"
        if phase is Phase.DRAW and stock_exhausted(state.rules, state.stock):
            yield "the seat to act must draw, but the stock has no card to draw (R15, R21)"
        return
    if went_out is None:  # the stock ran out (R15)
        if not stock_exhausted(state.rules, state.stock):
            yield "the hand is over with nobody going out, yet the stock has cards to draw (R15)"
        elif state.rules.extra_pile_becomes_stock and any(p is not None for p in state.extra_piles):
            yield "the stock ran out, but an untaken extra pile should have become the stock (R15)"
        return
    if went_out != seat % 2:
        yield f"team {went_out} went out, but seat {seat} (team {seat % 2}) acted last (R13)"
    elif state.hands[seat]:
        yield f"team {went_out} went out, but seat {seat} still holds cards (R13)"
    elif state.extra_piles[went_out] is not None:
        yield f"team {went_out} went out without taking its extra pile (R12, R13)"
    elif not has_required_canasta(state, state.melds[went_out]):
        yield f"team {went_out} went out without the canasta it needs (R13)"

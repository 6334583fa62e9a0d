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
buraco_rules.core.errors.InvalidState: current_player must be a seat from 0 to 1, not 7
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Final

from ..core.cards import Card, Rank, Suit, all_cards
from ..core.decks import DECK_COUNTS
from ..core.errors import InvalidState
from ..core.quoting import describe, kind_of
from ..core.rules import RuleSet
from ..melds.meld import Meld, MeldKind, classify
from .going_out import has_required_canasta, may_discard_last, pile_to_take, stock_exhausted
from .opening import need_of, reachable, short
from .state import TEAM, GameState, Phase

__all__ = ["validate"]

_CARD_IDS: Final = len(all_cards())


def validate(state: object) -> GameState:
    """Return ``state`` if it is a valid :class:`GameState`; otherwise raise
    :class:`~buraco_rules.core.errors.InvalidState` naming the first problem found.

    Checked: the types and ranges of every field; each hand sorted; the 108 cards (R2) exactly,
    across hands, stock, discard pile, melds and extra piles; each meld valid and laid as the
    engine lays it (R5-R9), one set per rank and team (R5); an untaken extra pile of its full size
    (R2); the phase and the fields that go with it — a non-empty stock to draw from (R15), no empty
    hand while the hand goes on (R12), no seat playing with one card it may not discard (R14),
    the single card taken from an open pile instead of drawing (R11), the untouched extra pile
    (R19), the team that went out (R13), the hand's first turn and its card drawn (R32). A
    message quotes a bad value in a bounded form, whatever it is.
    """
    for problem in _problems(state):
        raise InvalidState(problem)
    return state  # type: ignore[return-value]


def _is_card(value: object) -> bool:
    # One of the 53 cards: a Card made by int.__new__ with another id is none.
    return type(value) is Card and 0 <= value < _CARD_IDS


def _is_cards(value: object) -> bool:
    return type(value) is tuple and all(_is_card(c) for c in value)


def _is_index(value: object, size: int) -> bool:
    return type(value) is int and 0 <= value < size


def _is_pair(value: object) -> bool:
    return type(value) is tuple and len(value) == 2


def _problems(state: object) -> Iterator[str]:
    """The problems of ``state``, the first found first. The type of every field is checked
    before any field is used, and each later check needs only the earlier ones to hold."""
    if type(state) is not GameState:
        yield f"expected a GameState, not {kind_of(state)}"
        return
    for problem in _type_problems(state):
        yield problem
        return
    yield from _card_problems(state)
    yield from _meld_problems(state)
    yield from _pile_problems(state)
    yield from _phase_problems(state)


def _type_problems(state: GameState) -> Iterator[str]:
    rules = state.rules
    if type(rules) is not RuleSet:
        yield f"rules must be a RuleSet, not {kind_of(rules)}"
        return
    players = state.players
    if type(players) is not int or players not in rules.player_counts:
        yield (
            f"players must be one of {rules.player_counts} for {describe(rules.title)}, "
            f"not {describe(players)}"
        )
        return
    if not _is_index(state.current_player, players):
        yield (
            f"current_player must be a seat from 0 to {players - 1}, "
            f"not {describe(state.current_player)}"
        )
    if type(state.phase) is not Phase:
        yield f"phase must be a Phase, not {describe(state.phase)}"
    hands = state.hands
    if type(hands) is not tuple or len(hands) != players:
        yield f"hands must be a tuple of {players} hands, not {describe(hands)}"
        return
    for seat, hand in enumerate(hands):
        if not _is_cards(hand):
            yield f"the hand of seat {seat} must be a tuple of cards, not {describe(hand)}"
    for name in ("stock", "discard_pile"):
        if not _is_cards(getattr(state, name)):
            yield f"{name} must be a tuple of cards, not {describe(getattr(state, name))}"
    melds = state.melds
    if not _is_pair(melds) or any(type(team) is not tuple for team in melds):
        yield f"melds must be a pair (one per team) of tuples of Meld, not {describe(melds)}"
        return
    for team, team_melds in enumerate(melds):
        for i, meld in enumerate(team_melds):
            if not _is_meld(meld):
                yield f"meld {i} of team {team} must be a Meld of cards, not {describe(meld)}"
    extra = state.extra_piles
    if not _is_pair(extra) or any(p is not None and not _is_cards(p) for p in extra):
        yield f"extra_piles must be a pair of None or tuples of cards, not {describe(extra)}"
    taken = state.extra_pile_taken
    if not _is_pair(taken) or any(type(t) is not bool for t in taken):
        yield f"extra_pile_taken must be a pair of bools, not {describe(taken)}"
    untouched = state.untouched_extra_pile
    if not _is_pair(untouched) or any(s is not None and type(s) is not int for s in untouched):
        yield f"untouched_extra_pile must be a pair of seats or None, not {describe(untouched)}"
    lost = state.extra_pile_lost
    if lost is not None and (type(lost) is not int or lost not in (0, 1)):
        yield f"extra_pile_lost must be a team (0 or 1) or None, not {describe(lost)}"
    single = state.taken_single_card
    if single is not None and not _is_card(single):
        yield f"taken_single_card must be a card or None, not {describe(single)}"
    if type(state.first_turn) is not bool:
        yield f"first_turn must be a bool, not {describe(state.first_turn)}"
    drawn = state.first_draw
    if drawn is not None and not _is_card(drawn):
        yield f"first_draw must be a card or None, not {describe(drawn)}"
    went_out = state.went_out
    if went_out is not None and (type(went_out) is not int or went_out not in (0, 1)):
        yield f"went_out must be a team (0 or 1) or None, not {describe(went_out)}"
    idle = state.idle_turns
    if type(idle) is not int or not 0 <= idle <= rules.stalemate_turns:
        yield (
            f"idle_turns must be an int from 0 to {rules.stalemate_turns}, not {describe(idle)} "
            "(R24)"
        )


def _is_meld(meld: object) -> bool:
    """A Meld whose every field has its type (Meld itself checks nothing), so that comparing it
    with the meld the classifier lays is safe."""
    return (
        type(meld) is Meld
        and _is_cards(meld.cards)
        and type(meld.kind) is MeldKind
        and (meld.wildcard is None or _is_card(meld.wildcard))
        and (meld.suit is None or type(meld.suit) is Suit)
        and (meld.rank is None or type(meld.rank) is Rank)
        and type(meld.naturals) is int
        and _is_cards(meld.multiset)
    )


def _card_problems(state: GameState) -> Iterator[str]:
    hands = state.hands
    for seat, hand in enumerate(hands):
        if list(hand) != sorted(hand):
            yield f"the hand of seat {seat} is not sorted"
    melds = state.melds
    extra = state.extra_piles
    for team, pile in enumerate(extra):
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
    if counts != DECK_COUNTS:
        wrong = [
            f"{counts.get(c, 0)} × {c.pretty}"
            for c in sorted(set(counts) | set(DECK_COUNTS))
            if counts.get(c, 0) != DECK_COUNTS.get(c, 0)
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
    for team in (0, 1):
        if taken[team] and state.extra_piles[team] is not None:
            yield f"team {team}'s extra pile is taken but still set aside (R12)"
    lost = state.extra_pile_lost
    if lost is not None:
        if not state.rules.take_both_extra_piles:
            yield "an extra pile was taken by the other team, but these rules forbid it (R31)"
        elif state.extra_piles[lost] is not None or taken[lost] or not taken[1 - lost]:
            yield (
                f"team {lost}'s extra pile was taken by the other team, which must have taken "
                f"its own first, while team {lost} never took one (R31)"
            )
        elif state.went_out == lost:
            yield f"team {lost} went out after the other team took its extra pile (R31)"
    if not state.rules.extra_pile_becomes_stock and any(
        state.extra_piles[t] is None and not taken[t] and lost != t for t in (0, 1)
    ):
        yield "an extra pile is gone, not taken, but these rules never turn one into stock (R15)"
    untouched = state.untouched_extra_pile
    for team, seat in enumerate(untouched):
        if seat is None:
            continue
        if not _is_index(seat, state.players) or TEAM[seat] != team:
            yield (
                f"untouched_extra_pile of team {team} must be a seat of that team, "
                f"not {describe(seat)}"
            )
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
        if phase is not Phase.PLAY or state.rules.closed_discard_pile:
            yield "a single card taken from the pile is remembered only while its taker plays (R11)"
        elif not state.rules.single_taken_card_discard_banned:
            yield "these rules do not ban discarding a single taken card (R11)"
        elif single not in state.hands[seat]:
            yield f"seat {seat} took {single.pretty} from the pile but does not hold it (R11)"
        elif stock_exhausted(state.rules, state.stock):
            # Taking the pile leaves the stock as it was, and a seat to draw from an exhausted
            # stock never gets to take: the hand ends first (R15, R21).
            yield (
                f"seat {seat} took {single.pretty} from the pile instead of drawing, yet the "
                "stock has no card to draw (R11, R15)"
            )
    went_out = state.went_out
    yield from _idle_problems(state)
    yield from _opening_problems(state)
    yield from _first_turn_problems(state)
    if phase is not Phase.OVER:
        if went_out is not None:
            yield "a team went out, but the hand is not over (R13)"
        for s, hand in enumerate(state.hands):
            if not hand:
                yield f"seat {s} holds no cards, but the hand goes on (R12, R13)"
        if phase is Phase.DRAW and stock_exhausted(state.rules, state.stock):
            yield "the seat to act must draw, but the stock has no card to draw (R15, R21)"
        hand = state.hands[seat]
        team = TEAM[seat]
        if (
            phase is Phase.PLAY
            and len(hand) == 1
            and not may_discard_last(state, team, hand[0], state.melds[team], single)
        ):
            yield (
                f"seat {seat} plays holding only {hand[0].pretty}, which it may not discard: no "
                "move leads there (R14)"
            )
        return
    if went_out is None and state.idle_turns >= state.rules.stalemate_turns:
        return  # a stalemate (R24): the stock may still hold cards
    if went_out is None:  # the stock ran out (R15)
        if not stock_exhausted(state.rules, state.stock):
            yield "the hand is over with nobody going out, yet the stock has cards to draw (R15)"
        elif state.rules.extra_pile_becomes_stock and any(p is not None for p in state.extra_piles):
            yield "the stock ran out, but an untaken extra pile should have become the stock (R15)"
        return
    if went_out != TEAM[seat]:
        yield f"team {went_out} went out, but seat {seat} (team {TEAM[seat]}) acted last (R13)"
    elif state.hands[seat]:
        yield f"team {went_out} went out, but seat {seat} still holds cards (R13)"
    elif pile_to_take(state, went_out) is not None:
        yield f"team {went_out} went out with an extra pile still to take (R12, R13, R31)"
    elif not has_required_canasta(state.rules, state.melds[went_out]):
        yield f"team {went_out} went out without the canasta it needs (R13)"


def _first_turn_problems(state: GameState) -> Iterator[str]:
    """R32: the hand's first turn, whose card drawn may be refused, is remembered only under the
    rule, before anything is laid, and the card only by its drawer's hand, right after the draw."""
    drawn = state.first_draw
    if not state.first_turn:
        if drawn is not None:
            yield "a card drawn may be refused only on the hand's first turn (R32)"
        return
    if not state.rules.first_draw_refusal:
        yield "the hand's first turn is remembered, but these rules refuse no card drawn (R32)"
    elif state.phase is Phase.OVER or any(state.melds) or any(state.extra_pile_taken):
        yield "the hand's first turn is remembered, but cards were laid or taken since (R32)"
    elif state.idle_turns:
        yield "the hand's first turn is remembered, but a turn was played (R24, R32)"
    elif (state.phase is Phase.PLAY) != (drawn is not None):
        yield "the first card drawn is remembered exactly while it may be refused (R32)"
    elif drawn is not None and drawn not in state.hands[state.current_player]:
        yield f"seat {state.current_player} drew {drawn.pretty} but does not hold it (R32)"


def _opening_problems(state: GameState) -> Iterator[str]:
    # A team's table short of the minimum opening (R25) exists only within the turn that opened
    # it, and only while that turn can still reach the minimum: otherwise the seat to act would
    # have no legal action (the discard is refused, and no meld is listed).
    seat = state.current_player
    for team, melds in enumerate(state.melds):
        if not short(state, melds, team):
            continue
        need = need_of(state, team)
        if state.phase is not Phase.PLAY or team != TEAM[seat]:
            yield (
                f"team {team}'s table is short of the minimum opening of "
                f"{need} outside its opening turn: no move leads there (R25)"
            )
        elif not reachable(state):
            yield (
                f"team {team}'s table is short of the minimum opening of "
                f"{need} and seat {seat} cannot reach it this turn: no move "
                "leads there (R25)"
            )


def _idle_problems(state: GameState) -> Iterator[str]:
    """R24: only a turn that took the open pile and laid nothing is idle, and the count ends the
    hand when it reaches the rules' number."""
    idle = state.idle_turns
    if not idle:
        return
    rules = state.rules
    if rules.closed_discard_pile:
        yield "a closed pile is taken only by laying its top card, so no turn is idle (R10, R24)"
    elif state.went_out is not None:
        yield "a team went out, which lays cards, yet the turn is counted idle (R13, R24)"
    elif state.phase is Phase.DRAW and idle >= rules.stalemate_turns:
        yield f"{idle} turns in a row were idle, which ends the hand in stalemate (R24)"
    elif state.phase is Phase.PLAY and state.discard_pile:
        yield "the turn is counted idle, so it took the whole pile, yet the pile holds cards (R24)"
    elif state.phase is not Phase.PLAY and len(state.discard_pile) != 1:
        # The idle turn just played took the whole pile and discarded one card onto it.
        yield (
            f"the last turn was idle, so it took the whole pile and discarded one card, yet the "
            f"pile holds {len(state.discard_pile)} (R24)"
        )
    elif state.phase is Phase.OVER and idle < rules.stalemate_turns:
        # A hand ends on an idle turn only in stalemate: the stock runs out at the discard of a
        # turn that drew (had it run out before an idle turn, the hand would have ended then).
        yield f"the hand ended on an idle turn ({idle} in a row) other than by stalemate (R15, R24)"

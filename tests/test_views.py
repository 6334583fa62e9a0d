"""The hidden-information boundary: a seat's view shows its own hand and the public cards only.

The property: shuffle every card the seat cannot see (the other hands, the stock, untaken extra
piles and, with a closed pile, the discards below the top, R10) among those hidden places, keeping
each place's size; the seat's view must not change. Any leak of a hidden card would show.
"""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants

CONFIGS = [(variants.get(n), p) for n in variants.NAMES for p in variants.get(n).player_counts]


def scramble(state: br.GameState, seat: int, rng: random.Random) -> br.GameState:
    """``state`` with the cards hidden from ``seat`` dealt anew among their hidden places."""
    closed = state.rules.closed_discard_pile
    others = [s for s in range(state.players) if s != seat]
    below = state.discard_pile[:-1] if closed else ()
    extras = [p for p in state.extra_piles if p is not None]
    hidden = [c for s in others for c in state.hands[s]] + list(state.stock) + list(below)
    hidden += [c for p in extras for c in p]
    rng.shuffle(hidden)
    cards = iter(hidden)

    def deal(n: int) -> tuple[br.Card, ...]:
        return tuple(next(cards) for _ in range(n))

    hands = list(state.hands)
    for s in others:
        hands[s] = tuple(sorted(deal(len(state.hands[s]))))
    stock = deal(len(state.stock))
    pile = deal(len(below)) + state.discard_pile[-1:] if closed else state.discard_pile
    piles = tuple(None if p is None else deal(len(p)) for p in state.extra_piles)
    return attrs.evolve(
        state, hands=tuple(hands), stock=stock, discard_pile=pile, extra_piles=piles
    )


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=lambda x: getattr(x, "name", x))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_view_shows_no_hidden_card(rules: br.RuleSet, players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = br.new_game(rules, players, seed=seed)
    while True:
        if rng.random() < 0.2:
            for seat in range(players):
                seen = br.view(state, seat)
                assert seen.hand == state.hands[seat]
                assert seen == br.view(scramble(state, seat, rng), seat)
        if state.is_over:
            break
        actions = br.legal_actions(state)
        state = br.apply(state, actions[rng.randrange(len(actions))])


def test_R10_closed_pile_shows_only_its_top_and_R11_open_pile_shows_all() -> None:
    for rules in (variants.BURACO_FECHADO, variants.ITALIAN):
        state = br.new_game(rules, 2, seed=3)
        for _ in range(8):  # draw and discard, so that the pile grows
            actions = br.legal_actions(state)
            state = br.apply(state, actions[0] if state.phase is br.Phase.DRAW else actions[-1])
        seen = br.view(state, 0)
        assert seen.discard_pile_size == len(state.discard_pile) >= 2
        if rules.closed_discard_pile:
            assert seen.discard_pile == state.discard_pile[-1:]
        else:
            assert seen.discard_pile == state.discard_pile


def test_view_refuses_a_seat_that_does_not_exist() -> None:
    state = br.new_game(variants.CANASTA_STBL, seed=1)
    for seat in (-1, 2, "0", None, True):
        with pytest.raises(ValueError):
            br.view(state, seat)  # type: ignore[arg-type]

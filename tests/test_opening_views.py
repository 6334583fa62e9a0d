"""Views of an opening turn short of the minimum (R25; R30's minimums in a match use the same
check): another seat's view hides the hand that must still reach the minimum, so the view is
consistent when some hand of that size can, every view of a real state decodes, and every
re-deal (``determinize``) deals the seat to act a hand that can (a state ``validate`` accepts,
where the seat to act has a legal action)."""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.engine.opening import opening_turn
from buraco_rules.hidden.determinize import canonical_state
from buraco_rules.play.match import hand_rules

PRESETS = (variants.BURACO_FECHADO, variants.CANASTA_STBL, variants.ITALIAN, variants.ITALIAN_FIBUR)
CONFIGS = [(rules, n) for rules in PRESETS for n in rules.player_counts]


def short_of_90() -> br.GameState:
    """The outside tester's position: seat 0 has laid 2-8-9 (30 points), short of 90."""
    rules = variants.with_options("buraco-fechado", minimum_opening=90)
    state = br.apply(br.new_game(rules, 2, seed=10), br.DrawFromStock())
    return br.apply(state, br.NewMeld("2D 8H 9H"))


def check_views(state: br.GameState, rng: random.Random, redeals: int) -> None:
    """Every seat's view round-trips through JSON; every re-deal of it validates, shows the same
    view and leaves the seat to act a legal action, the same ones where that seat is the viewer."""
    for seat in range(state.players):
        seen = br.view(state, seat)
        assert br.from_json(br.to_json(seen)) == seen
        assert br.from_data(br.to_data(seen)) == seen
        for _ in range(redeals):
            other = br.determinize(seen, rng)
            assert br.validate(other) is other
            assert br.view(other, seat) == seen
            actions = br.legal_actions(other)
            assert actions, "a re-deal leaves the seat to act without a legal action"
            if seat == state.current_player:
                assert actions == br.legal_actions(state)


def test_R25_house_minimum_opening_the_other_seats_view_of_a_short_table_decodes() -> None:
    state = short_of_90()
    assert opening_turn(state) and br.validate(state) is state
    assert len(br.legal_actions(state)) == 1
    seen = br.view(state, 1)
    decoded = br.from_json(br.to_json(seen))
    assert decoded == seen
    # The decoded view answers on a state it found: seat 0's hidden hand can still reach 90.
    assert br.legal_actions(canonical_state(decoded))
    check_views(state, random.Random(0), 3)


def test_R25_house_minimum_opening_every_redeal_of_a_short_table_can_reach_it() -> None:
    seen = br.view(short_of_90(), 1)
    for k in range(100):
        other = br.determinize(seen, random.Random(k))
        assert br.validate(other) is other and br.legal_actions(other), k
        assert br.view(other, 1) == seen


def test_R25_house_minimum_opening_a_view_no_hand_can_reach_from_is_refused() -> None:
    """The check a view can make: some hand of its size reaches the minimum."""
    state = short_of_90()
    hand = state.hands[0]
    # Seat 0 keeps two cards (the rest go to the stock) under a minimum of 150: two cards cannot
    # lay the 120 points it lacks, whichever two they are.
    out_of_reach = attrs.evolve(
        state,
        rules=attrs.evolve(state.rules, minimum_opening=150),
        hands=(hand[:2], state.hands[1]),
        stock=state.stock + hand[2:],
    )
    text = br.to_json(br.view(out_of_reach, 1))
    with pytest.raises(br.DecodeError, match="short of the minimum opening of 150 and seat 0 "):
        br.from_json(text)
    # The same view with a hand of the size seat 0 really holds decodes.
    assert br.from_json(br.to_json(br.view(state, 1))) == br.view(state, 1)


def test_R30_house_opening_thresholds_short_table_views_decode_in_a_match() -> None:
    """R30: a match's hand with each team's own minimum (here 90 for team 0, 50 for team 1), as
    ``Match`` deals it, has the same views and re-deals as R25's."""
    match_rules = variants.with_options(
        "buraco-fechado", opening_thresholds=[[1000, 50], [2000, 90]]
    )
    rules = hand_rules(match_rules, (2100, 1200))
    assert rules.opening_minimums == (90, 50)
    state = br.apply(br.new_game(rules, 2, seed=10), br.DrawFromStock())
    state = br.apply(state, br.NewMeld("2D 8H 9H"))
    assert opening_turn(state)
    check_views(state, random.Random(30), 20)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    needs=st.sampled_from([50, 90, 150, (0, 90), (90, 50), (150, 120)]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R25_R30_house_every_view_of_random_play_decodes_and_redeals_consistently(
    config: tuple[br.RuleSet, int], needs: int | tuple[int, int], seed: int
) -> None:
    """Random play biased towards melding, with the minimum opening on (R25, the same for both
    teams) or each team's own (R30): in opening turns above all, every seat's view round-trips
    and every re-deal is a valid state with a legal action for the seat to act."""
    rules, players = config
    if isinstance(needs, int):
        rules = attrs.evolve(rules, minimum_opening=needs)  # R25: the same for both teams
    else:
        rules = attrs.evolve(rules, team_minimum_openings=needs)  # R30: as a match sets them
    rng = random.Random(seed)
    state = br.new_game(rules, players, seed=seed)
    for _ in range(60):
        if state.is_over:
            break
        if opening_turn(state) or rng.random() < 0.05:
            check_views(state, rng, 2)
        actions = br.legal_actions(state)
        melds = [a for a in actions if not isinstance(a, br.Discard)]
        state = br.apply(state, rng.choice(melds if melds and rng.random() < 0.8 else actions))

"""House rules: ``RuleSet`` fields that every preset leaves off, each one field, one geometry edit
or predicate, and one refusal code.

The ace low only (``RuleSet.ace_low_only``): A-2-3 but no Q-K-A, so no run holds two aces. The
minimum opening (``RuleSet.minimum_opening``, R25): a team's first cards on the table, laid in one
turn, must be worth at least N card points before the turn ends."""

from __future__ import annotations

import random
from collections.abc import Iterator

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.engine.checks import check
from buraco_rules.engine.recipes import result_of
from buraco_rules.engine.scoring import table_points
from buraco_rules.melds.meld import classify
from test_movegen import accepted

PRESETS = (variants.BURACO_FECHADO, variants.CANASTA_STBL, variants.ITALIAN, variants.ITALIAN_FIBUR)
LOW = [attrs.evolve(rules, ace_low_only=True) for rules in PRESETS]


def cards(text: str) -> tuple[br.Card, ...]:
    return tuple(sorted(br.parse_cards(text)))


def test_R6_house_ace_low_only_is_off_in_every_preset() -> None:
    assert not any(rules.ace_low_only for rules in PRESETS)
    assert all(not rules.is_preset for rules in LOW)
    with pytest.raises(br.InvalidRules, match="ace_low_only"):
        attrs.evolve(variants.ITALIAN, ace_low_only=1)


@pytest.mark.parametrize("rules", LOW, ids=lambda r: r.name)
def test_R6_house_ace_low_only_lays_no_ace_above_the_king(rules: br.RuleSet) -> None:
    preset = attrs.evolve(rules, ace_low_only=False)
    for text in ["QH KH AH", "JH QH KH AH", "QH JK AH", "KH AH JK"]:
        assert classify(cards(text), preset) is not None, text
        assert classify(cards(text), rules) is None, text
    for text in ["AH 2H 3H", "AH 3H 4H JK", "AH JK 3H", "2S 3H 4H AH"]:
        meld = classify(cards(text), rules)
        assert meld is not None and meld == classify(cards(text), preset), text
    # Both aces fit no run, and a lone ace sits low even with a wildcard beside the king.
    assert classify(cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), rules) is None
    low = classify(cards("AH JK KH QH"), rules)
    assert low is None


def deal(rules: br.RuleSet, hand: str) -> br.GameState:
    deck = br.arrange_deck(rules, 2, hands=[hand])
    state = br.new_game(rules, 2, deck=deck)
    return br.apply(state, br.DrawFromStock())


@pytest.mark.parametrize("rules", LOW, ids=lambda r: r.name)
def test_R6_house_ace_low_only_refuses_a_high_ace_with_its_code(rules: br.RuleSet) -> None:
    preset = attrs.evolve(rules, ace_low_only=False)
    hand = "QH KH AH 3S 4S 5S 7D 9D JD KC"
    high = br.NewMeld("QH KH AH")
    assert br.is_legal(deal(preset, hand), high)
    state = deal(rules, hand)
    assert not br.is_legal(state, high)
    with pytest.raises(br.IllegalAction) as error:
        br.apply(state, high)
    assert error.value.code is br.ErrorCode.ACE_LOW_ONLY
    assert "ace above the king" in str(error.value) and "low only" in str(error.value)
    assert br.is_legal(state, br.NewMeld("3S 4S 5S"))
    # A run of neither kind is still refused as before.
    wrong = br.why_illegal(state, br.NewMeld("QH KH 5S"))
    assert wrong is not None and wrong.code is br.ErrorCode.INVALID_MELD


@pytest.mark.parametrize("rules", LOW, ids=lambda r: r.name)
def test_R6_house_ace_low_only_refusal_depends_on_nothing_hidden(rules: br.RuleSet) -> None:
    """The refusal a seat receives is the same whatever the hidden cards: on its view, and on
    every re-deal of what it cannot see."""
    state = deal(rules, "QH KH AH 3S 4S 5S 7D 9D JD KC")
    seen = br.view(state, 0)
    action = br.NewMeld("QH KH AH")
    expected = br.why_illegal(state, action, 0)
    assert expected is not None and expected.code is br.ErrorCode.ACE_LOW_ONLY
    on_view = br.why_illegal(seen, action)
    assert on_view is not None and (on_view.code, str(on_view)) == (expected.code, str(expected))
    rng = random.Random(5)
    for _ in range(10):
        other = br.determinize(seen, rng)
        refusal = br.why_illegal(other, action, 0)
        assert refusal is not None and (refusal.code, str(refusal)) == (
            expected.code,
            str(expected),
        )


@pytest.mark.parametrize("rules", LOW[:1] + LOW[2:3], ids=lambda r: r.name)
def test_R6_house_ace_low_only_generator_lists_exactly_what_the_checker_accepts(
    rules: br.RuleSet,
) -> None:
    """Random games under the house rule: the generator's list is the checker's brute-force
    enumeration, each listed meld is the one the checker builds, and no meld on the table ever
    holds an ace above the king."""
    rng = random.Random(18)
    checked = 0
    for _ in range(2):
        state = br.new_game(rules, 2, seed=rng.getrandbits(32))
        while not state.is_over:
            actions = br.legal_actions(state)
            if len(state.hands[state.current_player]) <= 12 and rng.random() < 0.25:
                assert set(actions) == accepted(state)
                _, recipes = state._legal or ((), ())
                for action, recipe in zip(actions, recipes, strict=True):
                    if type(recipe) is tuple:
                        assert result_of(state, recipe) == check(state, action)
                        checked += 1
            melds = [a for a in actions if not isinstance(a, br.Discard)]
            state = br.apply(state, rng.choice(melds if melds and rng.random() < 0.7 else actions))
            for team in state.melds:
                assert all(not m.naturals >> 14 & 1 for m in team)
    assert checked > 0


# The minimum opening (R25, ``RuleSet.minimum_opening``): a team's first cards on the table, laid in
# one turn, must be worth at least N card points before the turn ends.

OPENING = [attrs.evolve(rules, minimum_opening=50) for rules in PRESETS]
CONFIGS = [(rules, n) for rules in PRESETS for n in rules.player_counts]


def test_R25_house_minimum_opening_is_off_in_every_preset() -> None:
    assert all(rules.minimum_opening == 0 for rules in PRESETS)
    assert all(not rules.is_preset for rules in OPENING)
    for wrong in (1, 14, 151, -15, 50.0, True, "50"):
        with pytest.raises(br.InvalidRules, match="minimum_opening"):
            attrs.evolve(variants.ITALIAN, minimum_opening=wrong)
    for right in (0, 15, 150):
        assert attrs.evolve(variants.ITALIAN, minimum_opening=right).minimum_opening == right


# F and C: 3-7 are worth 5, 8-K 10, the ace 15 (R17); I: the same for these cards.
OPENS = "3S 4S 5S 8H 9H 10H 4D 6D 9C KC QD"


def opening_turn(rules: br.RuleSet, drawn: str) -> br.GameState:
    deck = br.arrange_deck(rules, 2, hands=[OPENS], stock=drawn)
    return br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())


def code_of(state: br.GameState | br.PlayerView, action: br.Action) -> br.ErrorCode | None:
    refusal = br.why_illegal(state, action)
    return None if refusal is None else refusal.code


@pytest.mark.parametrize("rules", OPENING, ids=lambda r: r.name)
def test_R25_house_minimum_opening_no_discard_below_the_minimum(rules: br.RuleSet) -> None:
    state = opening_turn(rules, "JH")  # 3-4-5 (15) and 8-9-10-J (40) reach 55
    assert br.is_legal(state, br.Discard("KC"))  # the team may still not open at all
    low = br.NewMeld("3S 4S 5S")
    assert br.is_legal(state, low)
    short = br.apply(state, low)
    assert not any(isinstance(a, br.Discard) for a in br.legal_actions(short))
    refusal = br.why_illegal(short, br.Discard("KC"))
    assert refusal is not None and refusal.code is br.ErrorCode.MINIMUM_OPENING
    assert "15 points" in str(refusal) and "minimum opening of 50" in str(refusal)
    # 8-9-10 alone (45 with 3-4-5) leaves the jack to add: still reachable, so listed.
    assert br.is_legal(short, br.NewMeld("8H 9H 10H"))
    opened = br.apply(br.apply(short, br.NewMeld("8H 9H 10H")), br.AddToMeld(1, "JH"))
    assert br.is_legal(opened, br.Discard("KC"))
    # Once opened, the rule says nothing: the next turn's melds are free.
    free = attrs.evolve(opened, rules=attrs.evolve(rules, minimum_opening=0))
    assert br.legal_actions(opened) == br.legal_actions(free)


@pytest.mark.parametrize("rules", OPENING, ids=lambda r: r.name)
def test_R25_house_minimum_opening_refuses_a_meld_it_cannot_reach_from(rules: br.RuleSet) -> None:
    state = opening_turn(rules, "7C")  # 3-4-5 and 8-9-10: 45 at most
    preset = opening_turn(attrs.evolve(rules, minimum_opening=0), "7C")
    for meld in (br.NewMeld("3S 4S 5S"), br.NewMeld("8H 9H 10H")):
        assert br.is_legal(preset, meld)
        assert not br.is_legal(state, meld)
        refusal = br.why_illegal(state, meld)
        assert refusal is not None and refusal.code is br.ErrorCode.MINIMUM_OPENING
        assert "minimum opening of 50" in str(refusal)
    assert br.legal_actions(state) == tuple(
        a for a in br.legal_actions(preset) if isinstance(a, br.Discard)
    )
    # A meld the rules refuse anyway keeps its own code.
    assert code_of(state, br.NewMeld("3S 4S 6D")) is br.ErrorCode.INVALID_MELD


def closed_take_state(rules: br.RuleSet) -> br.GameState:
    """Seat 0 discards the 10♥; seat 1 holds 8♥ 9♥ J♥ Q♥ (R10: a closed pile)."""
    deck = br.arrange_deck(
        rules,
        2,
        hands=["10H 3C 5C 7C 9D JD KD 4S 6S 8S QS", "8H 9H JH QH 3D 5D 7D 9S JS 4C 6C"],
        stock="KH",
    )
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    return br.apply(state, br.Discard("10H"))


@pytest.mark.parametrize("rules", OPENING[:2], ids=lambda r: r.name)
def test_R25_house_minimum_opening_take_must_reach_it_by_its_own_meld(rules: br.RuleSet) -> None:
    state = closed_take_state(rules)
    preset = closed_take_state(attrs.evolve(rules, minimum_opening=0))
    short = br.TakeDiscardPile(br.NewMeld("8H 9H 10H"))  # 30
    enough = br.TakeDiscardPile(br.NewMeld("8H 9H 10H JH QH"))  # 50
    assert br.is_legal(preset, short) and br.is_legal(preset, enough)
    assert br.is_legal(state, enough)
    assert not br.is_legal(state, short)
    refusal = br.why_illegal(state, short)
    assert refusal is not None and refusal.code is br.ErrorCode.MINIMUM_OPENING
    assert "30 points" in str(refusal)


def refusals_everywhere(state: br.GameState, action: br.Action) -> None:
    """The refusal seat ``current_player`` receives is the same on the state, on its view and on
    every re-deal of what it cannot see."""
    seat = state.current_player
    expected = br.why_illegal(state, action, seat)
    assert expected is not None and expected.code is br.ErrorCode.MINIMUM_OPENING
    seen = br.view(state, seat)
    on_view = br.why_illegal(seen, action)
    assert on_view is not None and (on_view.code, str(on_view)) == (expected.code, str(expected))
    rng = random.Random(25)
    for _ in range(8):
        other = br.determinize(seen, rng)
        refusal = br.why_illegal(other, action, seat)
        assert refusal is not None
        assert (refusal.code, str(refusal)) == (expected.code, str(expected))
        assert br.legal_actions(other) == br.legal_actions(state)


@pytest.mark.parametrize("rules", OPENING, ids=lambda r: r.name)
def test_R25_house_minimum_opening_refusals_depend_on_nothing_hidden(rules: br.RuleSet) -> None:
    refusals_everywhere(opening_turn(rules, "7C"), br.NewMeld("3S 4S 5S"))
    short = br.apply(opening_turn(rules, "JH"), br.NewMeld("3S 4S 5S"))
    refusals_everywhere(short, br.Discard("KC"))
    if rules.closed_discard_pile:
        refusals_everywhere(closed_take_state(rules), br.TakeDiscardPile(br.NewMeld("8H 9H 10H")))


def play_randomly(state: br.GameState, rng: random.Random) -> Iterator[br.GameState]:
    """Every state of a random game from ``state``, biased towards melding."""
    while not state.is_over:
        yield state
        actions = br.legal_actions(state)
        assert actions, "a live state with no legal action"
        melds = [a for a in actions if not isinstance(a, br.Discard)]
        before = state
        state = br.apply(state, rng.choice(melds if melds and rng.random() < 0.7 else actions))
        if state.phase is not br.Phase.PLAY or state.current_player != before.current_player:
            # The turn ended: the team's table is bare or worth the minimum.
            team = before.current_player % 2
            laid = table_points(state.melds[team], state.rules)[0]
            assert not state.melds[team] or laid >= state.rules.minimum_opening


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    need=st.sampled_from([15, 50, 90, 150]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_R25_house_minimum_opening_never_leaves_a_seat_without_an_action(
    config: tuple[br.RuleSet, int], need: int, seed: int
) -> None:
    rules, players = config
    rules = attrs.evolve(rules, minimum_opening=need)
    rng = random.Random(seed)
    steps = sum(1 for _ in play_randomly(br.new_game(rules, players, seed=seed), rng))
    assert steps > 0


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=lambda c: getattr(c, "name", c))
def test_R25_house_minimum_opening_generator_lists_exactly_what_the_checker_accepts(
    rules: br.RuleSet, players: int
) -> None:
    """Random games under the house rule: the generator's list is the checker's brute-force
    enumeration (in the opening turns above all), and each listed meld is the one the checker
    builds."""
    rng = random.Random(25 + players)
    opening_states = 0
    for need in (50, 90):
        ruled = attrs.evolve(rules, minimum_opening=need)
        for state in play_randomly(br.new_game(ruled, players, seed=rng.getrandbits(32)), rng):
            team = state.current_player % 2
            below = table_points(state.melds[team], ruled)[0] < need
            if len(state.hands[state.current_player]) > 12 or rng.random() > (
                0.6 if below else 0.1
            ):
                continue
            actions = br.legal_actions(state)
            assert set(actions) == accepted(state)
            # The same list on a re-deal of what the seat cannot see (hidden information).
            seen = br.view(state, state.current_player)
            assert br.legal_actions(br.determinize(seen, rng)) == actions
            _, recipes = state._legal or ((), ())
            for action, recipe in zip(actions, recipes, strict=True):
                if type(recipe) is tuple:
                    assert result_of(state, recipe) == check(state, action)
                    if below and state.phase is br.Phase.PLAY:
                        # Consistent from one step to the next: every meld listed in an opening
                        # turn leads to a state with a legal action (opened, or a meld on).
                        after = br.apply(state, action)
                        assert after.is_over or br.legal_actions(after)
            opening_states += state.phase is br.Phase.PLAY and bool(state.melds[team]) and below
    assert opening_states > 0


@pytest.mark.parametrize("rules", OPENING, ids=lambda r: r.name)
def test_R25_house_minimum_opening_validate_refuses_a_short_table_no_move_makes(
    rules: br.RuleSet,
) -> None:
    short = br.apply(opening_turn(rules, "JH"), br.NewMeld("3S 4S 5S"))
    assert br.validate(short) is short  # the opening turn, still able to reach 50
    # The same table in the next seat's turn: no move leads there, the turn could not end.
    elsewhere = attrs.evolve(short, current_player=1, phase=br.Phase.DRAW)
    with pytest.raises(br.InvalidState, match=r"short of the minimum opening of 50 outside"):
        br.validate(elsewhere)
    # The same turn, but the 8-9-10 (with the jack) is gone from the hand: 50 is out of reach.
    # (the cards go to the stock, so that the deck stays whole)
    gone = {"8", "9", "10", "J"}
    hand = tuple(c for c in short.hands[0] if c.pretty[:-1] not in gone)
    moved = tuple(c for c in short.hands[0] if c.pretty[:-1] in gone)
    stuck = attrs.evolve(short, hands=(hand, *short.hands[1:]), stock=short.stock + moved)
    with pytest.raises(br.InvalidState, match=r"cannot reach it this turn"):
        br.validate(stuck)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_R25_house_minimum_opening_every_state_played_validates(
    config: tuple[br.RuleSet, int], seed: int
) -> None:
    rules, players = config
    rules = attrs.evolve(rules, minimum_opening=50)
    for state in play_randomly(br.new_game(rules, players, seed=seed), random.Random(seed)):
        assert br.validate(state) is state

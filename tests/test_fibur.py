"""The rulings after R20 (R21-R24), the Italian federation's preset ``variants.ITALIAN_FIBUR``,
and the identity of customised rule sets.

Each scenario is built from an explicit deck; the Hypothesis property plays random FIBUR hands.
"""

from __future__ import annotations

import pickle
import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants

F = variants.BURACO_FECHADO
CS = variants.CANASTA_STBL
IT = variants.ITALIAN
FI = variants.ITALIAN_FIBUR
PRESETS = (F, CS, IT, FI)
C = br.parse_cards

RUNS = "3S 4S 5S 6S 6H 7H 8H 9H 9D 10D JD"
MELD_RUNS = (br.NewMeld("3S 4S 5S 6S"), br.NewMeld("6H 7H 8H 9H"), br.NewMeld("9D 10D JD"))
MORTO_HIGH = "JK JK AH AH KH KH QH QH JH JH 10H"


def deal(rules, hands, players=2, **kw):
    deck = br.arrange_deck(rules, players, hands=hands, **kw)
    return br.new_game(rules, players, deck=deck)


def play(state, *actions):
    for action in actions:
        assert action in br.legal_actions(state), action
        state = br.apply(state, action)
    return state


def pass_turn(state):
    return play(state, br.DrawFromStock(), br.Discard(state.stock[0]))


def bonus(cards, rules):
    return br.canasta_bonus(br.Meld.from_cards(C(cards), rules), rules)


# --- the preset ---------------------------------------------------------------------------------


def test_fibur_preset_is_italian_buraco_with_the_federation_differences():
    assert variants.get("italian-fibur") is FI
    differences = {
        a.name
        for a in attrs.fields(br.RuleSet)
        if a.eq and getattr(FI, a.name) != getattr(IT, a.name)
    }
    assert differences == {
        "name",
        "title",
        "stock_reserve",
        "canasta_bonuses",
        "untouched_extra_pile_is_void",
    }
    assert FI.canasta_bonuses == attrs.evolve(IT.canasta_bonuses, semi_clean=150)


@pytest.mark.parametrize("rules", (F, CS, IT), ids=lambda r: r.name)
def test_new_fields_keep_the_existing_presets_unchanged(rules):
    assert rules.stock_reserve == 0
    assert rules.canasta_bonuses.semi_clean is None
    assert rules.untouched_extra_pile_is_void is True


# --- R21 the last two cards of the stock --------------------------------------------------------


def test_R21_fibur_hand_ends_with_two_cards_left_in_the_stock():
    state = deal(FI, [RUNS, RUNS])
    turns = 0
    while len(state.stock) > 3:
        state = pass_turn(state)
        turns += 1
    state = play(state, br.DrawFromStock())  # the third card from the end
    assert len(state.stock) == 2 and not state.is_over
    state = play(state, br.Discard(state.hands[state.current_player][0]))
    assert turns + 1 == 63 - 2
    assert state.is_over and len(state.stock) == 2
    assert state.outcome == br.Outcome(br.Termination.STOCK_EXHAUSTED)
    # the discard pile can no longer be taken, nor anything else be done
    assert br.legal_actions(state) == ()
    with pytest.raises(br.IllegalAction) as error:
        br.apply(state, br.TakeDiscardPile())
    assert error.value.code is br.ErrorCode.GAME_OVER
    assert all(s.going_out == 0 for s in br.score(state))


def test_R21_italian_draws_the_stock_to_its_last_card():
    state = deal(IT, [RUNS, RUNS])
    turns = 0
    while not state.is_over:
        state = pass_turn(state)
        turns += 1
    assert turns == 63 and state.stock == ()


def test_R21_a_reserve_stays_under_an_extra_pile_that_becomes_stock():
    rules = attrs.evolve(F, name="fechado-reserve", stock_reserve=2)
    state = deal(rules, [RUNS, RUNS])
    reserve = state.stock[-2:]
    piles = state.extra_piles
    for _ in range(64 - 3):
        state = pass_turn(state)
    assert len(state.stock) == 3
    state = pass_turn(state)
    turns = 64 - 2
    assert state.current_player == 0  # its team's pile first (R15), above the reserve (R21)
    assert state.stock[:11] == piles[0] and state.stock[11:] == reserve
    while not state.is_over:
        state = pass_turn(state)
        turns += 1
    assert turns == 62 + 11 + 11
    assert state.stock == reserve


def test_R21_draw_is_refused_from_a_stock_down_to_its_reserve():
    state = deal(FI, [RUNS, RUNS])
    crafted = attrs.evolve(state, stock=state.stock[:2])
    assert br.DrawFromStock() not in br.legal_actions(crafted)
    with pytest.raises(br.IllegalAction) as error:
        br.apply(crafted, br.DrawFromStock())
    assert error.value.code is br.ErrorCode.EMPTY_STOCK


# --- R22 the semi-clean canasta -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "semi_clean"),
    [
        ("3S 4S 5S 6S 7S 8S 9S JK", True),  # a wildcard at the end of seven naturals
        ("AS 2S 3S 4S 5S 6S 7S 2H", True),  # 2S stands naturally in its own place
        ("3S 4S 5S 6S 7S 8S 9S 10S 2D", True),
        ("3S 4S 5S 6S 7S 8S 10S JK", False),  # the joker fills the 9: mixed
        ("3S 4S 5S 6S 7S 8S JK", False),  # six naturals: mixed
        ("3S 4S 5S 6S 7S 8S 9S", False),  # clean
        ("7S 7H 7D 7C 7S 7H 7D JK", True),  # a set of eight with its wildcard
        ("7S 7H 7D 7C 7S 7H JK", False),  # a set of seven with its wildcard: mixed
    ],
)
def test_R22_semi_clean_canasta(cards, semi_clean):
    meld = br.Meld.from_cards(C(cards), FI)
    assert meld is not None and meld.is_semi_clean is semi_clean
    if meld.wildcard is not None:
        assert meld.canasta_kind in (br.CanastaKind.MIXED, None)
        expected = 150 if semi_clean else (100 if meld.is_canasta else 0)
        assert bonus(cards, FI) == expected
        assert bonus(cards, IT) == (100 if meld.is_canasta else 0)  # no such kind: mixed
    else:
        assert bonus(cards, FI) == 200


def test_R22_a_mixed_run_becomes_semi_clean_when_its_gap_is_filled():
    hand = "3S 4S 5S 6S 7S 8S 10S JK 9S 4H 5H"
    state = deal(FI, [hand], face_up="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S 6S 7S 8S 10S JK"))
    assert not state.melds[0][0].is_semi_clean  # the joker stands for the 9
    assert br.score(state)[0].canastas == 100
    state = play(state, br.AddToMeld(0, "9S"))  # the 9 takes its place; the joker floats (R8)
    meld = state.melds[0][0]
    assert meld.is_semi_clean and meld.cards[-1] == br.JOKER
    assert br.score(state)[0].canastas == 150


def test_R22_semi_clean_is_not_clean_for_going_out():
    rules = attrs.evolve(F, canasta_bonuses=attrs.evolve(F.canasta_bonuses, semi_clean=150))
    meld = br.Meld.from_cards(C("3S 4S 5S 6S 7S 8S 9S JK"), rules)
    assert meld.is_semi_clean and not meld.is_clean
    assert bonus("3S 4S 5S 6S 7S 8S 9S JK", rules) == 150
    assert bonus("3S 4S 5S 6S 7S 8S 9S JK", F) == 100


def test_R22_semi_clean_in_a_hands_score():
    hand = "3S 4S 5S 6S 7S 8S 9S JK 4H 5H 6H"
    state = deal(FI, [hand], face_up="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S 6S 7S 8S 9S JK"))
    assert br.score(state)[0].canastas == 150
    state = deal(IT, [hand], face_up="KD")
    state = play(state, br.DrawFromStock(), br.NewMeld("3S 4S 5S 6S 7S 8S 9S JK"))
    assert br.score(state)[0].canastas == 100


# --- R23 the extra pile taken by discarding and not played ----------------------------------------


def test_R23_fibur_unplayed_extra_pile_scores_as_cards_held():
    state = deal(FI, [RUNS], extra_piles=[MORTO_HIGH], face_up="KD")
    while len(state.stock) > 3:
        state = pass_turn(state)
    assert state.current_player == 0
    state = play(state, br.DrawFromStock(), *MELD_RUNS)
    state = play(state, br.Discard(state.hands[0][0]))  # its last card: the pile, indirectly
    assert state.is_over and state.outcome.termination is br.Termination.STOCK_EXHAUSTED
    assert state.untouched_extra_pile[0] == 0
    assert state.hands[0] == tuple(sorted(C(MORTO_HIGH)))
    ours, _ = br.score(state)
    assert ours.hands == 30 * 2 + 15 * 2 + 10 * 7  # the pile's cards, lost
    assert ours.extra_pile == 0  # it was taken
    italian = attrs.evolve(state, rules=attrs.evolve(FI, untouched_extra_pile_is_void=True))
    ours, _ = br.score(italian)
    assert (ours.hands, ours.extra_pile) == (0, 100)  # R19


def test_R23_unplayed_extra_pile_when_the_opponents_go_out():
    rules = attrs.evolve(F, name="fechado-r23", untouched_extra_pile_is_void=False)
    seat1 = "3C 4C 5C 6C 7C 8C 9C 10S JS QS KS"
    morto1 = "10C JC QC 5D 6D 7D 8D 9D 10D 4H KD"
    state = deal(rules, [RUNS, seat1], stock="KS AS KC JD", extra_piles=[MORTO_HIGH, morto1])
    state = play(state, br.DrawFromStock(), br.Discard("KS"))
    state = play(
        state, br.DrawFromStock(), br.NewMeld("3C 4C 5C 6C 7C 8C 9C"), br.NewMeld("10S JS QS KS AS")
    )
    state = play(
        state, br.AddToMeld(0, "10C JC QC"), br.NewMeld("5D 6D 7D 8D 9D 10D"), br.Discard("KD")
    )
    state = play(state, br.DrawFromStock(), *MELD_RUNS, br.Discard("KC"))
    assert state.untouched_extra_pile == (0, None)
    state = play(state, br.DrawFromStock(), br.AddToMeld(2, "JD"), br.Discard("4H"))
    assert state.outcome == br.Outcome(br.Termination.WENT_OUT, 1)
    ours, theirs = br.score(state)
    assert ours.hands == 50 * 2 + 15 * 2 + 10 * 7
    assert ours.extra_pile == 0
    assert theirs.going_out == 100


# --- decision 1: one multiset, so nothing to choose ----------------------------------------------


def test_decision_1_ace_low_and_ace_high_thirteen_card_runs_are_the_same_meld():
    ace_low = br.Meld.from_cards(C("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"), F)
    ace_high = br.Meld.from_cards(C("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"), F)
    assert ace_low == ace_high  # the same thirteen cards, laid ace low (R8)
    assert ace_low.cards[0] == br.Card("AS") and ace_low.canasta_kind is br.CanastaKind.ALL_RANKS


# --- custom rule sets keep their identity ---------------------------------------------------------


@pytest.mark.parametrize("rules", PRESETS, ids=lambda r: r.name)
def test_presets_are_presets_and_customised_copies_are_not(rules):
    assert rules.is_preset
    assert attrs.evolve(rules).is_preset  # the same rules, rebuilt
    custom = attrs.evolve(rules, going_out_bonus=250)
    assert custom.name == rules.name and not custom.is_preset
    assert variants.get(custom.name) != custom
    assert not attrs.evolve(rules, name="house").is_preset
    restored = pickle.loads(pickle.dumps(custom))  # a pickle keeps every field
    assert restored == custom and restored.going_out_bonus == 250 and not restored.is_preset


def test_a_match_pickle_keeps_customised_rules():
    custom = attrs.evolve(FI, going_out_bonus=250)
    match = br.new_match(custom, 2, seed=1)
    restored = pickle.loads(pickle.dumps(match))
    assert restored.rules == custom and restored.hand.rules == custom
    assert not restored.rules.is_preset


# --- property: random FIBUR hands -----------------------------------------------------------------


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from(FI.player_counts), seed=st.integers(0, 2**32 - 1))
def test_random_fibur_hands_never_draw_the_last_two_cards(players, seed):
    rng = random.Random(seed)
    state = br.new_game(FI, players, seed=seed)
    while not state.is_over:
        assert len(state.stock) >= 2
        if state.phase is br.Phase.DRAW:
            assert len(state.stock) > 2
        state = br.apply(state, rng.choice(br.legal_actions(state)))
    outcome = state.outcome
    if outcome.termination is br.Termination.STOCK_EXHAUSTED:
        assert len(state.stock) == 2 and outcome.went_out is None
    else:
        assert outcome.went_out == state.went_out
    cards = sum(map(len, state.hands)) + len(state.stock) + len(state.discard_pile)
    cards += sum(len(m.cards) for team in state.melds for m in team)
    cards += sum(len(p) for p in state.extra_piles if p is not None)
    assert cards == 108
    for team, team_score in enumerate(br.score(state)):
        untouched = state.untouched_extra_pile[team]
        if untouched is not None:  # R23: taken, its cards held
            assert team_score.extra_pile == 0
            assert team_score.hands >= sum(FI.value_by_id[c] for c in state.hands[untouched])


# --- validation of the new fields -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"stock_reserve": -1}, "stock_reserve"),
        ({"stock_reserve": "2"}, "stock_reserve"),
        ({"stock_reserve": True}, "stock_reserve"),
        ({"stock_reserve": 50}, "R21"),  # no stock left above it
        ({"untouched_extra_pile_is_void": 1}, "untouched_extra_pile_is_void"),
        ({"untouched_extra_pile_is_void": None}, "untouched_extra_pile_is_void"),
    ],
)
def test_R21_R23_bad_fields_are_invalid_rules(changes, field):
    with pytest.raises(br.InvalidRules) as error:
        attrs.evolve(FI, **changes)
    assert field in str(error.value)


@pytest.mark.parametrize("value", [-150, "150", 1.5, True])
def test_R22_a_bad_semi_clean_bonus_is_invalid(value):
    with pytest.raises(br.InvalidRules) as error:
        attrs.evolve(FI.canasta_bonuses, semi_clean=value)
    assert "semi_clean" in str(error.value) and "R22" in str(error.value)


def test_the_largest_stock_reserve_still_leaves_a_card_to_draw():
    # Four players: 44 cards dealt, 22 in the extra piles, 1 face up: 41 in the stock.
    rules = attrs.evolve(FI, stock_reserve=40)
    state = br.new_game(rules, 4, seed=1)
    assert len(state.stock) == 41 and br.DrawFromStock() in br.legal_actions(state)
    state = br.apply(state, br.DrawFromStock())
    state = br.apply(state, br.Discard(state.hands[0][0]))
    assert state.outcome == br.Outcome(br.Termination.STOCK_EXHAUSTED)
    with pytest.raises(br.InvalidRules):
        attrs.evolve(FI, stock_reserve=41)

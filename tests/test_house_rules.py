"""House rules: ``RuleSet`` fields that every preset leaves off, each one field, one geometry edit
or predicate, and one refusal code.

The ace low only (``RuleSet.ace_low_only``): A-2-3 but no Q-K-A, so no run holds two aces."""

from __future__ import annotations

import random

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.checks import check
from buraco_rules.melds import classify
from buraco_rules.recipes import result_of
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

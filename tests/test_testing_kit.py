"""The testing kit (`buraco_rules.testing`): its strategies give what they promise, and its state
machine, run here on every test run, checks the engine's invariants over legal play, illegal
actions and hidden reshuffles in all variants and player counts."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from typing import ClassVar

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HypothesisPhase
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.stateful import run_state_machine_as_test

import buraco_rules as br
from buraco_rules import testing, variants
from buraco_rules.testing import (
    BuracoStateMachine,
    cards,
    game_states,
    hands,
    illegal_actions_of,
    invalid_melds,
    legal_actions_of,
    matches,
    rule_sets,
    valid_melds,
    views,
)

VARIANTS = (variants.BURACO_FECHADO, variants.CANASTA_STBL, variants.ITALIAN)
DECK_COUNTS = Counter(br.DECK)


def examples(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cards_of(state: br.GameState) -> Counter[br.Card]:
    counts: Counter[br.Card] = Counter(state.stock)
    counts.update(state.discard_pile)
    for hand in state.hands:
        counts.update(hand)
    for team in state.melds:
        for meld in team:
            counts.update(meld.cards)
    for pile in state.extra_piles:
        counts.update(pile or ())
    return counts


# --- cards and melds ------------------------------------------------------------------------------


@examples(50)
@given(card=cards(), hand=hands(min_size=3, max_size=30))
def test_cards_and_hands_come_from_one_deck(card: br.Card, hand: tuple[br.Card, ...]) -> None:
    assert type(card) is br.Card and card in br.DECK
    assert 3 <= len(hand) <= 30 and list(hand) == sorted(hand)
    assert not Counter(hand) - DECK_COUNTS, "more copies than the 108-card deck holds"


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.name)
@examples(60)
@given(data=st.data())
def test_valid_melds_are_melds_the_engine_lays(rules: br.RuleSet, data: st.DataObject) -> None:
    kind = data.draw(
        st.sampled_from([None, br.MeldKind.RUN] + [br.MeldKind.SET] * rules.sets_allowed)
    )
    meld = data.draw(valid_melds(rules, kind=kind))
    assert br.Meld.from_cards(meld.cards, rules) == meld
    assert len(meld.cards) >= 3 and (kind is None or meld.kind is kind)
    assert not Counter(meld.cards) - DECK_COUNTS
    wildcards = [c for c in meld.cards if c.is_wild]
    assert (meld.wildcard is None) == (meld.is_clean)
    assert len(wildcards) <= 2  # a wildcard, and maybe a 2 standing in its own place (R7)


def test_valid_melds_of_sets_need_rules_with_sets() -> None:
    with pytest.raises(InvalidArgument, match="R5"):
        valid_melds(variants.BURACO_FECHADO, kind=br.MeldKind.SET)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.name)
@examples(40)
@given(data=st.data())
def test_invalid_melds_are_refused_with_their_code(rules: br.RuleSet, data: st.DataObject) -> None:
    bad = data.draw(invalid_melds(rules))
    assert br.Meld.from_cards(bad.cards, rules) is None, bad
    # Laid from the hand after the draw, the engine refuses them with the code the kit names.
    roomy = attrs.evolve(rules, hand_size=max(rules.hand_size, len(bad.cards)))
    deck = br.arrange_deck(roomy, players=2, hands=[bad.cards])
    state = br.apply(br.new_game(roomy, players=2, deck=deck), br.DrawFromStock())
    error = br.why_illegal(state, br.NewMeld(bad.cards))
    assert error is not None and error.code is bad.code, (bad, error)


# --- rule sets and states -------------------------------------------------------------------------


@examples(12)
@given(rules=rule_sets(), data=st.data())
def test_every_rule_set_plays_a_hand_to_its_end(rules: br.RuleSet, data: st.DataObject) -> None:
    players = data.draw(st.sampled_from(rules.player_counts))
    state = br.new_game(rules, players, seed=data.draw(testing.seeds()))
    steps = 0
    while not state.is_over:
        actions = br.legal_actions(state)
        assert actions and steps < 3000
        state = br.apply(state, actions[data.draw(st.integers(0, len(actions) - 1))])
        steps += 1
    assert cards_of(state) == DECK_COUNTS


def test_rule_sets_without_house_rules_are_the_presets() -> None:
    seen: set[str] = set()

    @examples(30)
    @given(rules=rule_sets(house_rules=False))
    def collect(rules: br.RuleSet) -> None:
        assert variants.get(rules.name) is rules
        seen.add(rules.name)

    collect()
    assert seen == set(variants.NAMES)


@examples(25)
@given(state=game_states(min_steps=5, max_steps=60))
def test_game_states_are_reachable(state: br.GameState) -> None:
    assert cards_of(state) == DECK_COUNTS
    assert all(list(hand) == sorted(hand) for hand in state.hands)
    assert state.is_over or br.legal_actions(state)
    assert pickle.loads(pickle.dumps(state)) == state


@examples(10)
@given(
    first=game_states(rules=variants.CANASTA_STBL, min_steps=1, max_steps=1),
    second=game_states(rules=variants.CANASTA_STBL, min_steps=2, max_steps=2),
)
def test_game_states_take_the_steps_asked(first: br.GameState, second: br.GameState) -> None:
    # Canasta STBL starts with no discard pile (R3): the first action is seat 0's draw, the second
    # a meld (seat 0 still to play) or a discard (seat 1 to draw).
    dealt_stock = 108 - 2 * 11 - 2 * 11
    assert first.phase is br.Phase.PLAY and len(first.stock) == dealt_stock - 1
    assert first.players == 2 and first.current_player == 0
    assert (second.current_player, second.phase) in ((0, br.Phase.PLAY), (1, br.Phase.DRAW))
    assert len(second.discard_pile) == (second.current_player == 1)


@pytest.mark.parametrize(
    "make",
    [
        lambda: hands(min_size=5, max_size=2),
        lambda: hands(max_size=109),
        lambda: game_states(max_steps=-1),
        lambda: game_states(min_steps=10, max_steps=5),
        lambda: game_states(rules=variants.CANASTA_STBL, players=4),
        lambda: game_states(rules="italian"),  # type: ignore[arg-type]
        lambda: rule_sets(house_rules=1),  # type: ignore[arg-type]
        lambda: invalid_melds(None),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_are_refused_at_once(make: object) -> None:
    with pytest.raises(InvalidArgument):
        make()  # type: ignore[operator]


@examples(20)
@given(seen=views(to_act=True, max_steps=60), any_seat=views(players=4, max_steps=30))
def test_views_are_of_reachable_states(seen: br.PlayerView, any_seat: br.PlayerView) -> None:
    assert seen.is_my_turn or seen.is_over
    assert any_seat.players == 4 and 0 <= any_seat.seat < 4
    assert len(any_seat.hand) == any_seat.hand_sizes[any_seat.seat]


@examples(15)
@given(match=matches(max_steps=600))
def test_matches_are_reachable_and_add_up(match: br.Match) -> None:
    assert len(match.scores) == len(match.finished_hands)
    assert match.totals == tuple(sum(pair[t].total for pair in match.scores) for t in (0, 1))
    for k, hand in enumerate(match.finished_hands):
        assert hand.is_over and br.score(hand) == match.scores[k]  # R20
    if match.is_over:
        assert max(match.totals) >= match.rules.match_target and br.legal_actions(match) == ()
    else:
        assert br.legal_actions(match) == br.legal_actions(match.hand) != ()
    br.validate(match.hand)


def test_matches_without_rules_come_to_an_end() -> None:
    decided: list[bool] = []

    @examples(20)
    @given(match=matches(players=2, min_steps=1500, max_steps=1500))
    def collect(match: br.Match) -> None:
        decided.append(match.is_over)

    collect()
    assert any(decided), "no match of a lowered target ended in 1,500 actions"


# --- actions --------------------------------------------------------------------------------------


@examples(30)
@given(data=st.data())
def test_legal_actions_of_apply(data: st.DataObject) -> None:
    state = data.draw(game_states(max_steps=80))
    if state.is_over:
        with pytest.raises(InvalidArgument):
            legal_actions_of(state)
        return
    action = data.draw(legal_actions_of(state))
    assert br.is_legal(state, action) and br.apply(state, action) != state


@examples(60)
@given(data=st.data())
def test_illegal_actions_of_are_refused_with_their_code(data: st.DataObject) -> None:
    state = data.draw(game_states(max_steps=120))
    probe = data.draw(illegal_actions_of(state))
    before = pickle.dumps(state)
    error = br.why_illegal(state, probe.action, probe.player)
    assert error is not None and error.code is probe.code, (probe, error)
    assert pickle.dumps(state) == before


def test_the_kit_is_split_by_job_and_each_name_is_also_the_kits() -> None:
    """``testing.strategies`` (states, matches, views, rule sets), ``testing.melds`` and
    ``testing.moves`` each define their own strategies; ``testing`` and ``testing.strategies``
    give every one of them (the old ``buraco_rules.strategies`` shim is gone)."""
    import importlib

    from buraco_rules.testing import melds, moves, strategies

    for module in (melds, moves, strategies):
        for name in module.__all__:
            assert getattr(testing, name) is getattr(module, name), name
            assert getattr(strategies, name) is getattr(module, name), name
    assert set(testing.__all__) == {*strategies.__all__, "BuracoStateMachine"}
    try:
        importlib.import_module("buraco_rules.strategies")
    except ModuleNotFoundError:
        pass
    else:
        raise AssertionError("the retired shim buraco_rules.strategies is back")


# --- the state machine ----------------------------------------------------------------------------


class EngineMachine(BuracoStateMachine):
    """The kit's machine as it ships, plus a count of what it did (so that a machine whose rules
    never run would fail here)."""

    applied: ClassVar[Counter[str]] = Counter()

    def on_apply(self, before: br.GameState, action: br.Action, after: br.GameState) -> None:
        self.applied["legal"] += 1

    def on_refuse(
        self, state: br.GameState, action: object, player: int | None, error: br.IllegalAction
    ) -> None:
        self.applied["illegal"] += 1

    def on_reshuffle(self, before: br.GameState, after: br.GameState) -> None:
        self.applied["reshuffle"] += 1


TestEngineMachine = EngineMachine.TestCase
TestEngineMachine.settings = settings(
    max_examples=12,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_the_machine_plays_every_kind_of_step() -> None:
    EngineMachine.applied.clear()
    run = settings(TestEngineMachine.settings, max_examples=6)
    run_state_machine_as_test(EngineMachine, settings=run)
    assert {"legal", "illegal", "reshuffle"} <= set(EngineMachine.applied)


class CorruptsAnEarlierState(BuracoStateMachine):
    """Changes a state after the machine has moved past it, as a buggy engine could."""

    reshuffles = False

    def on_apply(self, before: br.GameState, action: br.Action, after: br.GameState) -> None:
        first = self.history[0][0]  # the deal: the hand has moved past it
        object.__setattr__(first, "hands", (first.hands[1], *first.hands[1:]))


def test_the_machine_catches_a_state_changed_after_the_fact() -> None:
    run = settings(
        max_examples=5,
        stateful_step_count=10,
        deadline=None,
        database=None,
        phases=[HypothesisPhase.generate],  # the failure is certain: no need to shrink it
    )
    with pytest.raises(AssertionError, match="changed"):
        run_state_machine_as_test(CorruptsAnEarlierState, settings=run)


def test_R21_a_hand_ended_on_the_stock_reserve_validates() -> None:
    # Found by matches(): validate refused the last state of an Italian federation hand, which
    # ends with two cards left in the stock (R21), as if the stock had to be empty (R15).
    rules = variants.ITALIAN_FIBUR
    assert rules.stock_reserve == 2
    rng = random.Random(4)
    state = br.new_game(rules, 2, seed=11)
    while not state.is_over:
        actions = br.legal_actions(state)
        passive = [a for a in actions if isinstance(a, br.DrawFromStock | br.Discard)]
        state = br.apply(state, rng.choice(passive or actions))
    assert state.outcome is not None and state.outcome.termination is br.Termination.STOCK_EXHAUSTED
    assert len(state.stock) == rules.stock_reserve
    assert br.validate(state) is state


@examples(10)
@given(
    card=st.from_type(br.Card),
    rules=st.from_type(br.RuleSet),
    meld=st.from_type(br.Meld),
    seen=st.from_type(br.PlayerView),
)
def test_the_kit_registers_its_strategies_by_type(
    card: br.Card, rules: br.RuleSet, meld: br.Meld, seen: br.PlayerView
) -> None:
    assert type(card) is br.Card and isinstance(rules, br.RuleSet)
    presets = [variants.get(name) for name in variants.NAMES]
    assert any(br.Meld.from_cards(meld.cards, preset) == meld for preset in presets)
    assert len(seen.hand) == seen.hand_sizes[seen.seat]

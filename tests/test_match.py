"""Match play (R20) and the outcome of a hand as data.

Example tests name the ruling they check; a Hypothesis property plays random matches with a low
target and checks the bookkeeping of every one.
"""

from __future__ import annotations

import copy
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
VARIANTS = (F, CS, IT)
CONFIGS = [(rules, n) for rules in VARIANTS for n in rules.player_counts]
CONFIG_IDS = [f"{rules.name}-{n}p" for rules, n in CONFIGS]
configs = pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)


def random_action(target, rng):
    return rng.choice(br.legal_actions(target))


def finish_hand(match, rng):
    """Play random legal actions until the hand in play ends; the match after it."""
    hands = len(match.finished_hands)
    while len(match.finished_hands) == hands:
        match = br.apply(match, random_action(match, rng))
    return match


def last_step(state, rng):
    """Play a hand at random; the state before its final action, and that action."""
    while True:
        action = random_action(state, rng)
        after = br.apply(state, action)
        if after.is_over:
            return state, action
        state = after


def retarget(match, target):
    """``match`` with its rules' target changed (in the hand in play too)."""
    rules = attrs.evolve(match.rules, match_target=target)
    return attrs.evolve(match, rules=rules, hand=attrs.evolve(match.hand, rules=rules))


def scored(total):
    """A hand's score worth ``total`` (for a match record built by hand)."""
    return br.TeamScore(
        table=max(total, 0), canastas=0, going_out=0, hands=max(-total, 0), extra_pile=0
    )


def match_before_last_hand(rules, prior, seed=3):
    """A match whose finished hands scored ``prior`` (pairs of totals), one action before the end
    of its next hand; and that action."""
    rng = random.Random(seed)
    match = br.new_match(rules, 2, seed=seed)
    state, action = last_step(match.hand, rng)
    fake = [(scored(a), scored(b)) for a, b in prior]
    return attrs.evolve(
        match, hand=state, finished_hands=(state,) * len(fake), scores=tuple(fake)
    ), action


# --- R20 ------------------------------------------------------------------------------------------


@configs
def test_R20_first_player_moves_one_seat_each_hand(rules, players):
    rng = random.Random(1)
    match = br.new_match(attrs.evolve(rules, match_target=10**9), players, seed=5, first_player=1)
    for k in range(players + 1):
        assert match.hand.current_player == (1 + k) % players
        assert match.hand.phase is br.Phase.DRAW and not match.hand.melds[0]
        match = finish_hand(match, rng)
        assert len(match.finished_hands) == k + 1
    assert not match.is_over


@configs
def test_R20_each_hand_is_dealt_from_the_match_seed_alone(rules, players):
    rng = random.Random(2)
    match = br.new_match(attrs.evolve(rules, match_target=10**9), players, seed=11)
    for k in range(3):
        expected = br.new_game(
            match.rules, players, seed=br.Match.hand_seed(11, k), first_player=k % players
        )
        assert match.hand == expected
        match = finish_hand(match, rng)


def test_R20_hand_seed_is_fixed_by_the_documented_digest():
    import hashlib

    digest = hashlib.sha256(b"buraco-rules match 7 hand 2").digest()
    assert br.Match.hand_seed(7, 2) == int.from_bytes(digest[:8], "big")


def test_R20_explicit_decks_are_dealt_in_turn():
    decks = [br.arrange_deck(IT, 2, hands=["3S 4S 5S"]), br.arrange_deck(IT, 2, hands=["KH"])]
    match = br.new_match(IT, 2, decks=decks)
    assert match.hand == br.new_game(IT, 2, deck=decks[0])
    rng = random.Random(0)
    match = finish_hand(retarget(match, 10**9), rng)
    assert match.hand.hands == br.new_game(IT, 2, deck=decks[1], first_player=1).hands
    match = finish_hand(match, rng)
    assert match.hand.hands == br.new_game(IT, 2, deck=decks[0]).hands  # again from the first


@pytest.mark.parametrize("rules", VARIANTS)
def test_R20_match_ends_after_the_hand_that_reaches_the_target(rules):
    match, action = match_before_last_hand(rules, [(0, 0)])
    last = br.score(br.apply(match.hand, action))
    target = max(last[0].total, last[1].total)
    if last[0].total == last[1].total:
        pytest.skip("this hand's scores are equal")
    match = retarget(match, target)
    over = br.apply(match, action)
    assert over.is_over
    assert over.winner == (0 if last[0].total > last[1].total else 1)
    assert over.hand is over.finished_hands[-1] and over.hand.is_over
    assert over.scores[-1] == last
    assert br.legal_actions(over) == ()
    with pytest.raises(br.IllegalAction) as error:
        br.apply(over, br.DrawFromStock())
    assert error.value.code is br.ErrorCode.GAME_OVER


@pytest.mark.parametrize("rules", VARIANTS)
def test_R20_below_the_target_another_hand_is_dealt(rules):
    match, action = match_before_last_hand(rules, [])
    match = retarget(match, 10**6)
    after = br.apply(match, action)
    assert not after.is_over and after.winner is None
    assert len(after.finished_hands) == 1 and after.finished_hands[0].is_over
    assert after.hand.phase is br.Phase.DRAW and after.hand.current_player == 1


def test_R20_both_teams_over_the_target_the_higher_total_wins():
    match, action = match_before_last_hand(IT, [(0, 0)])
    last = br.score(br.apply(match.hand, action))
    # Before the last hand team 1 leads by 10; after it both are past the target.
    base = 5000
    prior = (base - last[0].total + 10, base - last[1].total + 20)
    match = attrs.evolve(match, scores=((scored(prior[0]), scored(prior[1])),))
    over = br.apply(match, action)
    assert over.totals == (base + 10, base + 20)
    assert min(over.totals) >= IT.match_target
    assert over.is_over and over.winner == 1


def test_R20_equal_totals_over_the_target_play_another_hand():
    match, action = match_before_last_hand(IT, [(0, 0)])
    last = br.score(br.apply(match.hand, action))
    prior = (3000 - last[0].total, 3000 - last[1].total)
    match = attrs.evolve(match, scores=((scored(prior[0]), scored(prior[1])),))
    tied = br.apply(match, action)
    assert tied.totals == (3000, 3000)
    assert not tied.is_over and tied.winner is None
    assert len(tied.finished_hands) == 2 and not tied.hand.is_over
    assert tied.hand.current_player == 0  # the third hand (k = 2) of two players


# --- the reducer on a match ----------------------------------------------------------------


def test_illegal_actions_on_a_match_raise_illegal_action_and_change_nothing():
    match = br.new_match(IT, 4, seed=9)
    before = copy.deepcopy(match)
    for action in (br.Discard("3S"), "draw", None, br.NewMeld("AS AS AS"), object()):
        with pytest.raises(br.IllegalAction):
            br.apply(match, action)
        assert br.why_illegal(match, action) is not None
        assert not br.is_legal(match, action)
    with pytest.raises(br.IllegalAction) as error:
        br.apply(match, br.legal_actions(match)[0], player=2)
    assert error.value.code is br.ErrorCode.NOT_YOUR_TURN
    assert match == before
    action = br.legal_actions(match)[0]
    assert br.is_legal(match, action) and br.why_illegal(match, action) is None


def test_new_match_refuses_bad_arguments():
    for kwargs in (
        {},
        {"seed": 1, "decks": [br.DECK]},
        {"seed": "1"},
        {"decks": []},
        {"decks": "AS"},
        {"decks": [br.DECK[:-1]]},
        {"seed": 1, "first_player": 4},
    ):
        with pytest.raises(ValueError):
            br.new_match(IT, 4, **kwargs)
    with pytest.raises(ValueError):
        br.new_match(CS, 4, seed=1)


def test_a_match_record_must_hang_together():
    match = br.new_match(IT, 2, seed=1)
    for changes in (
        {"hand": "a hand"},
        {"rules": F},
        {"players": 4},
        {"seed": None},
        {"decks": (br.DECK,)},
        {"scores": ((scored(0), scored(0)),)},
    ):
        with pytest.raises(ValueError):
            attrs.evolve(match, **changes)


def test_a_match_pickles_and_compares_by_value():
    match = br.apply(br.new_match(F, seed=4), br.DrawFromStock())
    assert pickle.loads(pickle.dumps(match)) == match


# --- the outcome ----------------------------------------------------------------------------------


@configs
def test_outcome_is_none_while_the_hand_runs_and_says_how_it_ended(rules, players):
    rng = random.Random(3)
    state = br.new_game(rules, players, seed=8)
    assert state.outcome is None and br.view(state, 0).outcome is None
    state, action = last_step(state, rng)
    assert state.outcome is None
    state = br.apply(state, action)
    outcome = state.outcome
    assert isinstance(outcome, br.Outcome)
    if state.went_out is None:
        assert outcome == br.Outcome(br.Termination.STOCK_EXHAUSTED, None)
    else:
        assert outcome == br.Outcome(br.Termination.WENT_OUT, state.went_out)
    assert all(br.view(state, seat).outcome == outcome for seat in range(players))


RUNS = "3S 4S 5S 6S 6H 7H 8H 9H 9D 10D JD"


def test_R13_outcome_of_going_out():
    extra = "7S 8S 9S JK 4C 5C 6C 7C 8C 9C 10C"
    deck = br.arrange_deck(F, 2, hands=[RUNS], stock="QD", extra_piles=[extra])
    state = br.new_game(F, 2, deck=deck)
    for action in (
        br.DrawFromStock(),
        br.NewMeld("3S 4S 5S 6S"),
        br.NewMeld("6H 7H 8H 9H"),
        br.NewMeld("9D 10D JD QD"),
        br.AddToMeld(0, "7S 8S 9S"),
        br.NewMeld("4C 5C 6C 7C 8C 9C 10C"),
    ):
        assert state.outcome is None
        state = br.apply(state, action)
    state = br.apply(state, br.Discard("JK"))
    assert state.outcome == br.Outcome(br.Termination.WENT_OUT, 0)
    assert br.view(state, 1).outcome == state.outcome


def test_R15_outcome_of_an_exhausted_stock():
    state = br.new_game(IT, 2, deck=br.arrange_deck(IT, 2, hands=[RUNS, RUNS]))
    while state.outcome is None:
        card = state.stock[0]
        state = br.apply(br.apply(state, br.DrawFromStock()), br.Discard(card))
    assert state.stock == () and state.is_over
    assert state.outcome == br.Outcome(br.Termination.STOCK_EXHAUSTED)
    assert state.outcome.went_out is None


# --- property: random matches ---------------------------------------------------------------

MAX_HANDS = 6


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**32 - 1),
    target=st.integers(50, 600),
    first=st.integers(0, 3),
)
def test_random_matches_keep_their_books(config, seed, target, first):
    rules, players = config
    rules = attrs.evolve(rules, match_target=target)
    rng = random.Random(seed)
    match = br.new_match(rules, players, seed=seed, first_player=first % players)
    while not match.is_over and len(match.finished_hands) < MAX_HANDS:
        match = finish_hand(match, rng)
    assert len(match.scores) == len(match.finished_hands)
    assert all(br.score(h) == s for h, s in zip(match.finished_hands, match.scores, strict=True))
    assert match.totals == tuple(sum(s[t].total for s in match.scores) for t in (0, 1))
    # No hand was played after the match was decided: every shorter record has no winner.
    for k in range(len(match.scores)):
        assert (
            attrs.evolve(
                match, scores=match.scores[:k], finished_hands=match.finished_hands[:k]
            ).winner
            is None
        )
    for hand in match.finished_hands:
        assert hand.outcome is not None
    if match.is_over:
        assert match.hand is match.finished_hands[-1]
        assert max(match.totals) >= target and match.totals[0] != match.totals[1]
        assert br.legal_actions(match) == ()
    else:
        assert match.hand.outcome is None
        assert match.hand.current_player == (first % players + len(match.scores)) % players

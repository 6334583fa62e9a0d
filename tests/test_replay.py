"""Replay is linear and bounded, and a record grows move by move (issues 15 and 16).

What a replay keeps, and how a match and a record grow, are checked by structure, never by timing
(``tools/replay_cost.py`` and ``python -m buraco_rules.bench --replay`` measure them): the states a
replay returns hold no listed legal actions, ``apply`` lists none to apply a draw, a discard or an
open take (a property holds that shortcut to the generator), a finished hand extends the match's
history without copying it, the totals are added to, not summed again, and ``GameRecord.append``
builds the record that ``from_game`` makes.
"""

from __future__ import annotations

import copy
import json
import operator
import pickle
import random
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import bench, variants
from buraco_rules.core.limits import MAX_MATCH_HANDS
from buraco_rules.testing import game_states, rule_sets

DATA = Path(__file__).resolve().parent / "data"


def uncached(state: br.GameState) -> br.GameState:
    """An equal state whose legal actions were never listed (copying drops the cache)."""
    twin = copy.copy(state)
    assert twin == state and twin._legal is None
    return twin


# --- item 1: a replay keeps its states, not their legal actions -----------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_replayed_states_hold_no_listed_legal_actions(name: str) -> None:
    # Fails on the previous code: every state but the last kept the legal actions apply listed
    # (2,000 states of a long hand held 2.77 million actions).
    record = br.from_json((DATA / name).read_text(encoding="utf-8"))
    states = br.replay(record)
    assert any(type(a) in (br.NewMeld, br.AddToMeld) for a in record.actions)
    assert [s for s in states if s._legal is not None] == []
    assert br.replay(record) == states  # and a replay is still every state


def test_an_adversarial_record_replays_without_listing_any_legal_actions() -> None:
    # The take-one/discard-one loop of issue 15 by a seat holding about 70 cards: each of its
    # states would list thousands of melds. Fails on the previous code (all were listed).
    # The record runs to R24's bound: 2 * 24 idle-or-drawing actions for each card of the stock.
    record = bench.adversarial_record(10_000)
    assert len(record.actions) == 2 * 24 * 63 and max(map(len, br.replay(record)[-1].hands)) >= 60
    states = br.replay(br.from_json(br.to_json(record)))
    assert len(states) == len(record.actions) + 1 and all(s._legal is None for s in states)


def test_a_match_replay_keeps_no_listed_legal_actions() -> None:
    record = bench.short_hands_match_record(20)
    matches = br.replay(record)
    hands = [m.hand for m in matches] + [h for m in matches for h in m.finished_hands]
    assert all(h._legal is None for h in hands)


def test_apply_lists_no_legal_actions_to_draw_discard_or_take_an_open_pile() -> None:
    # Fails on the previous code: apply listed every legal action of the state first.
    state = br.new_game(variants.ITALIAN, 2, seed=5)
    taken = br.apply(state, br.TakeDiscardPile())
    after = br.apply(
        taken, br.Discard(next(c for c in taken.hands[0] if c != taken.taken_single_card))
    )
    drawn = br.apply(after, br.DrawFromStock())
    assert [s._legal for s in (state, taken, after, drawn)] == [None] * 4


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    state=st.one_of(game_states(), rule_sets().flatmap(lambda r: game_states(rules=r))),
    data=st.data(),
)
def test_the_unlisted_shortcut_agrees_with_the_generator(
    state: br.GameState, data: st.DataObject
) -> None:
    # A draw, a discard or an open take applied to a state whose legal actions were never listed
    # (the checker alone decides) gives the same state, or the same refusal, as on the state
    # whose actions were listed (the generator decides).
    cards = sorted(set(br.DECK))
    candidates: list[object] = [br.DrawFromStock(), br.TakeDiscardPile()]
    candidates += [br.Discard(c) for c in data.draw(st.lists(st.sampled_from(cards), max_size=8))]
    if state.hands[state.current_player]:
        candidates.append(br.Discard(state.hands[state.current_player][-1]))
    if state.taken_single_card is not None:
        candidates.append(br.Discard(state.taken_single_card))
    br.legal_actions(state)  # listed
    for action in candidates:
        for player in (None, state.current_player, (state.current_player + 1) % state.players):
            listed = _outcome(state, action, player)
            unlisted = _outcome(uncached(state), action, player)
            assert unlisted == listed, action


def _outcome(state: br.GameState, action: object, player: int | None) -> object:
    try:
        return br.apply(state, action, player)
    except br.IllegalAction as error:
        return (error.code, str(error))


# --- item 2: a match grows by sharing, and adds to its totals -------------------------------------


def _play_hands(hands: int) -> tuple[br.Match, list[br.Action]]:
    record = bench.short_hands_match_record(hands)
    return br.replay(record)[-1], list(record.actions)


def test_a_finished_hand_extends_the_match_history_without_copying_it() -> None:
    # Fails on the previous code: each finished hand copied the tuples of finished hands and
    # scores, so that a replay of 5,000 hands kept 12.5 million references.
    before, _ = _play_hands(30)
    during = br.apply(before, br.DrawFromStock())
    after = br.apply(during, br.legal_actions(during)[-1])
    assert len(after.finished_hands) == 31 and not after.is_over
    assert during.finished_hands is before.finished_hands
    assert after.finished_hands[:30] is before.finished_hands
    assert after.scores[:30] is before.scores
    assert after.finished_hands == (*before.finished_hands, after.finished_hands[-1])
    assert after.scores[-1] == br.score(after.finished_hands[-1])


def test_a_finished_hand_adds_its_scores_to_the_totals_without_summing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Fails on the previous code: every is_over/winner/totals summed every finished hand again.
    before, _ = _play_hands(40)
    assert before.totals == tuple(sum(p[t].total for p in before.scores) for t in (0, 1))
    during = br.apply(before, br.DrawFromStock())
    read = []
    total = br.TeamScore.total
    monkeypatch.setattr(br.TeamScore, "total", property(lambda s: read.append(s) or total.fget(s)))
    after = br.apply(during, br.legal_actions(during)[-1])
    assert after.winner is None and not after.is_over
    new = after.scores[-1]
    assert after.totals == (before.totals[0] + new[0].total, before.totals[1] + new[1].total)
    assert len(read) <= 4  # the new hand's two scores (and the two just above)
    assert attrs.evolve(after, scores=after.scores).totals == after.totals  # summed when rebuilt


def test_match_replay_does_not_copy_the_history_per_hand() -> None:
    matches = br.replay(bench.short_hands_match_record(50))
    last = matches[-1]
    assert len(last.finished_hands) == 50
    for match in matches:  # every match's history is a prefix of the last one's: shared
        k = len(match.finished_hands)
        assert match.finished_hands is (last.finished_hands[:k] if k else match.finished_hands)


def test_a_long_match_pickles_copies_and_round_trips() -> None:
    last = br.replay(bench.short_hands_match_record(MAX_MATCH_HANDS))[-1]
    for twin in (pickle.loads(pickle.dumps(last)), copy.deepcopy(last)):
        assert twin == last and twin.totals == last.totals
    assert type(last.finished_hands) is br.History
    data = br.to_data(last)
    assert len(data["finished_hands"]) == MAX_MATCH_HANDS
    assert br.from_data(json.loads(json.dumps(data))) == last


# --- History --------------------------------------------------------------------------------------


def test_history_reads_and_compares_as_the_tuple_of_its_items() -> None:
    empty: br.History[int] = br.History()
    h = empty.append(1).append(2).append(3)
    assert h == (1, 2, 3) and operator.eq((1, 2, 3), h) and h != (1, 2) and h != [1, 2, 3]
    assert br.History((1, 2, 3)) == h and hash(h) == hash((1, 2, 3))
    assert list(h) == [1, 2, 3] and list(reversed(h)) == [3, 2, 1] and len(h) == 3
    assert (h[0], h[1], h[-1], h[-3]) == (1, 2, 3, 1)
    assert h[1:] == (2, 3) and h[::-1] == (3, 2, 1) and h[:0] == () and h[:99] == h
    assert h[:2] is h[:2] and h + (4,) == (1, 2, 3, 4) and h == (1, 2, 3)  # unchanged
    assert h.index(2) == 1 and h.count(3) == 1 and 2 in h and not empty and bool(h)
    assert repr(h) == "History((1, 2, 3))" and pickle.loads(pickle.dumps(h)) == h
    for index in (3, -4):
        with pytest.raises(IndexError):
            h[index]
    with pytest.raises(AttributeError):
        h._length = 7  # type: ignore[misc]
    branch = h[:2].append(9)  # a branch from a prefix leaves the other branch as it was
    assert branch == (1, 2, 9) and h == (1, 2, 3)


def test_matches_dealt_apart_share_no_history() -> None:
    # A history forced to change (through object.__setattr__) must not reach another table.
    one, two = (br.new_match(variants.ITALIAN, 2, seed=s) for s in (1, 2))
    assert one.finished_hands is not two.finished_hands and one.scores is not two.scores
    object.__setattr__(one.finished_hands, "_length", 5)
    assert (
        len(two.finished_hands) == 0 and len(br.new_match(variants.ITALIAN, 2, seed=3).scores) == 0
    )


# --- issue 16: a record grows move by move --------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    config=st.sampled_from(
        [(r, n) for r in map(variants.get, variants.NAMES) for n in r.player_counts]
    ),
)
def test_a_record_appended_move_by_move_equals_from_game(
    seed: int, config: tuple[br.RuleSet, int]
) -> None:
    rules, players = config
    start = br.new_game(rules, players, seed=seed)
    record = br.GameRecord.from_game(start, [], names=[f"p{i}" for i in range(players)])
    assert record.initial_state == start and record.initial_state is not start
    rng = random.Random(seed)
    state, actions = start, []
    while not state.is_over and len(actions) < 120:
        action = rng.choice(br.legal_actions(state))
        actions.append(action)
        state = br.apply(state, action)
        grown = record.append(str(action) if len(actions) % 2 else action)
        assert record.actions == tuple(actions[:-1])  # the record appended to is unchanged
        record = grown
    expected = br.GameRecord.from_game(start, actions, names=record.names)
    assert record == expected and record.actions == tuple(actions)
    assert record.scores == (br.score(state) if state.is_over else None)
    assert br.replay(record)[-1] == state and br.from_json(br.to_json(record)) == record


def test_append_refuses_an_illegal_move_with_the_engines_refusal() -> None:
    start = br.new_game(variants.CANASTA_STBL, 2, seed=11)
    record = br.GameRecord.from_game(start, ["draw"])
    with pytest.raises(br.IllegalAction) as refused:
        record.append(br.DrawFromStock())
    assert refused.value.code is br.ErrorCode.WRONG_PHASE
    with pytest.raises(br.IllegalAction) as refused:
        record.append("meld AC 2C 3C")
    assert record.actions == (br.DrawFromStock(),)  # unchanged by the refusals
    with pytest.raises(br.NotationError):
        record.append("fly")
    # A record decoded (or built by hand) replays once, at its first append.
    card = br.replay(record)[-1].hands[0][0]
    decoded = br.from_json(br.to_json(record))
    assert decoded.append(br.Discard(card)) == record.append(br.Discard(card))
    with pytest.raises(br.ReplayError):  # one that does not replay cannot be appended to
        attrs.evolve(record, actions=(br.DrawFromStock(),) * 2).append(br.Discard(card))

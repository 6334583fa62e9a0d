"""Symmetric limits: what ``to_json`` writes of a legal record or match, ``from_json`` reads back.

The decoders' limits are derived from the game's bounds (``buraco_rules.core.limits``: the longest
hand of R24, the hands of a match of R20), so the tests build values at those bounds, cheaply, and
read them back.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.limits import MAX_HAND_ACTIONS, MAX_MATCH_ACTIONS, MAX_MATCH_HANDS
from buraco_rules.core.rules import MAX_STALEMATE_TURNS, TEXT_CHARS
from buraco_rules.formats import MAX_JSON_CHARS
from buraco_rules.formats.records import (
    MAX_META_ITEMS,
    MAX_META_KEY_CHARS,
    MAX_META_VALUE_CHARS,
    MAX_NAME_CHARS,
)

IT = variants.ITALIAN
FI = variants.ITALIAN_FIBUR
F = variants.BURACO_FECHADO

# The rule set of the longest hand (tests/test_stalemate.py), written in full in every document,
# with the longest name and title, of characters JSON escapes (six characters each).
LONGEST = attrs.evolve(
    IT,
    name="\x01" * TEXT_CHARS,
    title="\x02" * TEXT_CHARS,
    hand_size=1,
    extra_pile_size=2,
    discard_pile_starts_face_up=False,
    extra_pile_becomes_stock=True,
    stalemate_turns=MAX_STALEMATE_TURNS,
)
NAMES = ("\x03" * MAX_NAME_CHARS, '"' * MAX_NAME_CHARS)
META = {
    f"{i:02d}" + "\x04" * (MAX_META_KEY_CHARS - 2): "\x05" * MAX_META_VALUE_CHARS
    for i in range(MAX_META_ITEMS)
}
# The longest notation of a draw, take or discard; and a hand's cards laid (108 at most), in the
# longest notation, as the one laying action of a hand.
LONG = br.Discard("10H")
LAID = br.TakeDiscardPile(br.AddToMeld(br.MAX_MELD_INDEX, ["10H"] * br.MAX_ACTION_CARDS))


def hand_actions(n):
    """``n`` actions of a hand whose document is as long as any legal hand's of ``n`` actions."""
    return (LAID, *[LONG] * (n - 1)) if n else ()


def round_trip(value):
    text = br.to_json(value)
    assert len(text) <= MAX_JSON_CHARS
    assert br.from_json(text) == value
    return text


# --- records ------------------------------------------------------------------------------------


def test_a_record_of_10001_actions_reads_back_where_a_hand_can_be_that_long():
    """Item 3 of issue 15: a GameRecord of 10,001 actions was written, then refused ("a list of
    10,001 is longer than any list of the game"). Fails on the previous code, whose decoder
    refused every list over 10,000 (checked there with a preset's record)."""
    assert br.longest_hand(LONGEST, 2) == MAX_HAND_ACTIONS > 10_001
    deck = br.new_game(LONGEST, 2, seed=1)
    record = br.GameRecord.from_game(deck, [])
    record = attrs.evolve(record, actions=[br.DrawFromStock()] * 10_001)
    round_trip(record)


@pytest.mark.parametrize("rules", [F, IT, FI], ids=lambda r: r.name)
def test_R24_a_record_longer_than_any_hand_is_refused_when_built(rules):
    start = br.new_game(rules, 2, seed=1)
    most = br.longest_hand(rules, 2)
    record = attrs.evolve(br.GameRecord.from_game(start, []), actions=hand_actions(most))
    assert len(record.actions) == most
    with pytest.raises(br.InvalidRecord, match=r"more than any hand .* can last"):
        attrs.evolve(record, actions=hand_actions(most + 1))


def test_records_bound_their_names_and_meta():
    start = br.new_game(IT, 2, seed=1)
    record = br.GameRecord.from_game(start, [], names=NAMES, meta=META)
    for names in [("x" * (MAX_NAME_CHARS + 1), "y")]:
        with pytest.raises(br.InvalidRecord, match="at most 100 characters"):
            attrs.evolve(record, names=names)
    for meta in [
        META | {"one more": ""},
        {"k" * (MAX_META_KEY_CHARS + 1): ""},
        {"k": "v" * (MAX_META_VALUE_CHARS + 1)},
    ]:
        with pytest.raises(br.InvalidRecord, match="meta holds at most"):
            attrs.evolve(record, meta=meta)
    with pytest.raises(br.InvalidRules, match="at most 200 characters"):
        attrs.evolve(IT, title="t" * (TEXT_CHARS + 1))


_configs = st.sampled_from([(LONGEST, 2), (LONGEST, 4), (IT, 2), (IT, 4), (FI, 2), (F, 2), (F, 4)])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=_configs, data=st.data())
def test_every_record_up_to_the_longest_hand_reads_back(config, data):
    rules, players = config
    most = br.longest_hand(rules, players)
    n = data.draw(st.sampled_from([0, 1, most]) | st.integers(0, most), label="actions")
    start = br.new_game(rules, players, seed=data.draw(st.integers(0, 2**64), label="seed"))
    record = br.GameRecord(
        rules=rules,
        players=players,
        deck=br.GameRecord.from_game(start, []).deck,
        actions=hand_actions(n),
        scores=br.score(start),
        names=tuple(NAMES[i % 2] for i in range(players)),
        meta=META,
    )
    round_trip(record)


# --- matches ------------------------------------------------------------------------------------

# One draw per hand (R21 leaves one card to draw), nothing laid: each hand scores below zero for
# both teams, so no team ever reaches the target and only the limit on hands ends the match.
SHORT = attrs.evolve(
    IT,
    name="one-draw",
    player_counts=(2,),
    default_players=2,
    stock_reserve=len(br.DECK) - 22 - 22 - 1 - 1,
)


def _one_draw_hand(match):
    match = br.apply(match, br.DrawFromStock())
    return br.apply(match, br.legal_actions(match)[-1])  # a discard: the hand ends (R21)


def test_R20_a_match_ends_after_its_last_hand_whatever_the_target():
    """Item 3 of issue 15: a match of 1,700 hands wrote 2.4 million characters, which its reader
    refused. Now a match has at most MAX_MATCH_HANDS hands. Fails on the previous code, whose
    match went on."""
    match = br.new_match(SHORT, 2, seed=4)
    start = match
    while not match.is_over:
        before = len(match.finished_hands)
        match = _one_draw_hand(match)
        assert len(match.finished_hands) == before + 1
    assert len(match.finished_hands) == MAX_MATCH_HANDS
    assert max(match.totals) < SHORT.match_target  # the target was never reached
    first, second = match.totals
    assert match.winner == (None if first == second else int(second > first))
    assert match.hand is match.finished_hands[-1] and br.legal_actions(match) == ()
    with pytest.raises(br.IllegalAction) as error:
        br.apply(match, br.DrawFromStock())
    assert error.value.code is br.ErrorCode.GAME_OVER
    round_trip(match)
    record = br.MatchRecord.from_match(start, _actions_of(start, match))
    assert br.replay(record)[-1] == match
    round_trip(record)


def _actions_of(start, match):
    """The actions that played ``match`` from ``start``: one draw and one discard per hand."""
    actions = []
    for hand in match.finished_hands:
        actions += [br.DrawFromStock(), br.Discard(hand.discard_pile[-1])]
    return actions


def test_R20_a_match_holds_no_more_than_its_last_hand():
    match = br.new_match(SHORT, 2, seed=4)
    while not match.is_over:
        match = _one_draw_hand(match)
    with pytest.raises(ValueError, match="at most 50 hands"):
        attrs.evolve(
            match,
            finished_hands=(*match.finished_hands, match.hand),
            scores=(*match.scores, match.scores[-1]),
        )
    data = br.to_data(match)
    data["finished_hands"].append(data["hand"])
    data["scores"].append(data["scores"][-1])
    with pytest.raises(br.DecodeError):
        br.from_data(data)
    deck = br.GameRecord.from_game(br.new_game(IT, 2, seed=1), []).deck
    with pytest.raises(ValueError, match="more than the 50 hands"):
        br.new_match(IT, 2, decks=[deck] * (MAX_MATCH_HANDS + 1))
    assert len(br.new_match(IT, 2, decks=[deck] * MAX_MATCH_HANDS).decks) == MAX_MATCH_HANDS


def test_a_long_match_record_over_a_million_characters_reads_back():
    """Item 3 of issue 15: documents of legal matches run past the old limit of 1,000,000
    characters. Fails on the previous code (its limit refused this document unread)."""
    start = br.new_match(IT, 2, seed=1)
    most = MAX_MATCH_HANDS * br.longest_hand(IT, 2)
    record = br.MatchRecord(
        rules=IT,
        players=2,
        seed=1,
        actions=[br.TakeDiscardPile(), br.Discard("10H")] * (most // 2),
        names=("Ana", "Bo"),
    )
    assert record.start() == start
    text = round_trip(record)
    assert len(text) > 1_000_000
    with pytest.raises(br.InvalidRecord, match="more than any match"):
        attrs.evolve(record, actions=record.actions + (br.DrawFromStock(),) * 2)


def test_the_longest_match_record_under_any_rules_reads_back():
    """At the bound itself: MAX_MATCH_ACTIONS actions of the longest notations, the most decks,
    scores for every hand, the longest names and meta, and a rule set written in full."""
    deck = br.GameRecord.from_game(br.new_game(LONGEST, 2, seed=1), []).deck
    scores = br.score(br.new_game(LONGEST, 2, seed=1))
    actions = [
        action
        for _ in range(MAX_MATCH_HANDS)
        for action in hand_actions(MAX_MATCH_ACTIONS // MAX_MATCH_HANDS)
    ]
    record = br.MatchRecord(
        rules=LONGEST,
        players=2,
        decks=[deck] * MAX_MATCH_HANDS,
        actions=actions,
        scores=(scores,) * MAX_MATCH_HANDS,
        names=NAMES,
        meta=META,
    )
    assert len(record.actions) == MAX_MATCH_ACTIONS
    round_trip(record)


@settings(max_examples=10, deadline=None)
@given(
    hands=st.sampled_from([1, MAX_MATCH_HANDS - 1, MAX_MATCH_HANDS])
    | st.integers(1, MAX_MATCH_HANDS),
    seed=st.integers(0, 2**64),
)
def test_every_match_up_to_its_last_hand_reads_back(hands, seed):
    """Matches (and their records) of any number of hands up to the limit, at the limit
    included, read back: the hands are one draw each (SHORT), so even 50 are cheap."""
    start = br.new_match(SHORT, 2, seed=seed)
    match = start
    for _ in range(hands):
        match = _one_draw_hand(match)
    assert len(match.finished_hands) == hands
    assert match.is_over == (hands == MAX_MATCH_HANDS)
    round_trip(match)
    record = br.MatchRecord.from_match(start, _actions_of(start, match), names=NAMES, meta=META)
    assert br.replay(record)[-1] == match
    round_trip(record)

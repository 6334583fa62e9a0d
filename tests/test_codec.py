"""The JSON codec: round trips over reachable states in every variant and player count, the
documented refusals, and two fuzzers (random JSON, and random mutations of valid documents)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from forging import forged
from formats_games import CONFIG_IDS, CONFIGS, play, play_match, sample

FUZZ = int(os.environ.get("BURACO_FUZZ_EXAMPLES", "500"))
"""Examples of each fuzzer; set ``BURACO_FUZZ_EXAMPLES`` to fuzz longer than CI does."""

configs = pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)


def examples(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck))


def round_trip(value: object) -> object:
    text = br.to_json(value)
    back = br.from_json(text)
    assert back == value and type(back) is type(value)
    assert br.to_json(back) == text  # equal values, equal text
    assert br.from_data(json.loads(text)) == value == br.from_data(br.to_data(value))
    return back


# --- round trips ------------------------------------------------------------------------------


@configs
@examples(8)
@given(seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_states_actions_views_and_scores_round_trip(
    rules: br.RuleSet, players: int, seed: int, greedy: bool
) -> None:
    states, actions = play(rules, players, seed, greedy=greedy)
    for state in sample(states, 12, seed):
        round_trip(state)
        for seat in range(players):
            round_trip(br.view(state, seat))
        for team_score in br.score(state):
            round_trip(team_score)
        for action in br.legal_actions(state):
            round_trip(action)
    for action in actions:
        round_trip(action)


def test_a_decoded_state_plays_on_like_the_original() -> None:
    states, actions = play(variants.BURACO_FECHADO, 4, 11, greedy=True)
    middle = len(states) // 2
    decoded = br.from_json(br.to_json(states[middle]))
    assert br.legal_actions(decoded) == br.legal_actions(states[middle])
    assert br.apply(decoded, actions[middle]) == states[middle + 1]


@pytest.mark.parametrize("name", variants.NAMES)
def test_a_preset_is_written_by_name_and_read_as_the_very_preset(name: str) -> None:
    rules = variants.get(name)
    assert br.to_data(rules) == {"format": 1, "type": "rules", "rules": name}
    assert br.from_json(br.to_json(rules)) is rules
    assert br.from_json(br.to_json(attrs.evolve(rules))) is rules


def test_a_customised_rule_set_is_written_in_full_with_every_field() -> None:
    house = attrs.evolve(variants.BURACO_FECHADO, max_natural_aces_in_run=1, match_target=2000)
    data = br.to_data(house)["rules"]
    assert list(data) == [f.name for f in attrs.fields(br.RuleSet) if f.init]
    assert round_trip(house) == house
    state = br.new_game(house, 2, seed=5)
    assert br.from_json(br.to_json(state)).rules == house


def test_every_field_of_every_record_is_written_in_declared_order() -> None:
    state = br.new_game(variants.ITALIAN, 4, seed=2)
    record = br.GameRecord.from_game(state, ["draw"])
    match = br.new_match(variants.ITALIAN, 2, seed=2)
    values = {
        "state": state,
        "view": br.view(state, 1),
        "score": br.score(state)[0],
        "record": record,
        "match": match,
        "match-record": br.MatchRecord.from_match(match, ["draw"]),
    }
    for kind, value in values.items():
        data = br.to_data(value)
        names = [f.name for f in attrs.fields(type(value)) if f.init]
        assert list(data) == ["format", "type", *names] and data["type"] == kind


def test_a_rule_set_field_left_out_takes_its_default() -> None:
    data = br.to_data(attrs.evolve(variants.ITALIAN, match_target=1500))
    del data["rules"]["hand_size"], data["rules"]["going_out_bonus"]
    rules = br.from_data(data)
    assert rules.hand_size == 11 and rules.going_out_bonus == 100 and rules.match_target == 1500


# --- refusals ---------------------------------------------------------------------------------


@cache
def mid_game() -> dict[str, Any]:
    states, _ = play(variants.BURACO_FECHADO, 2, 3, greedy=True)
    state = next(s for s in states[len(states) // 2 :] if s.melds[0] and s.melds[1])
    return br.to_data(state)


def refuse(data: object, *words: str) -> str:
    text = data if isinstance(data, str | bytes) else json.dumps(data)
    with pytest.raises(br.DecodeError) as info:
        br.from_json(text)
    message = str(info.value)
    assert len(message) < 400, "a refusal quotes a bounded part of the input"
    for word in words:
        assert word in message
    return message


def edited(**changes: object) -> dict[str, Any]:
    return mid_game() | changes


def test_truncated_or_non_json_text_is_refused() -> None:
    text = json.dumps(mid_game())
    for cut in (0, 1, len(text) // 2, len(text) - 1):
        refuse(text[:cut], "not a JSON document")
    refuse("hello", "not a JSON document")
    refuse(text.replace(":", "=", 1), "not a JSON document")
    refuse(b"\xff\xfe{}", "not UTF-8")
    refuse('{"format": NaN}', "NaN")


def test_R2_a_tampered_card_is_refused() -> None:
    hand = mid_game()["hands"][0].split()
    other = "KH" if hand[0] != "KH" else "QH"
    refuse(edited(hands=[" ".join([other, *hand[1:]]), mid_game()["hands"][1]]))


def test_R2_a_card_three_times_is_refused() -> None:
    hands = mid_game()["hands"]
    first = hands[0].split()
    three = " ".join(sorted(["5S"] * 3 + first[3:], key=lambda c: br.Card(c)))
    refuse(edited(hands=[three, hands[1]]))


def test_R5_an_invalid_meld_is_refused() -> None:
    melds = mid_game()["melds"]
    refuse(edited(melds=[["5S 9H KC"], melds[1]]), "not a meld")
    refuse(edited(melds=[["5S 6S 7S 8S", "JK 2C 9S"], melds[1]]), "not a meld")


def test_a_hand_of_500_cards_is_refused() -> None:
    refuse(edited(hands=[" ".join(["5S"] * 500), mid_game()["hands"][1]]), "more cards")
    refuse(edited(stock=["5S"] * 500), "cards as one string")


def test_unknown_rule_sets_fields_and_types_are_refused() -> None:
    refuse(edited(rules="poker"), "unknown rule set 'poker'")
    refuse(edited(colour="red"), "no field 'colour'")
    rules = br.to_data(attrs.evolve(variants.ITALIAN, match_target=9))["rules"]
    refuse(edited(rules=rules | {"jokers_wild": True}), "no field 'jokers_wild'")
    refuse(edited(rules=rules | {"max_natural_aces_in_run": 7}), "rules")
    refuse(edited(format=2), "format 2")
    refuse(edited(format="1"), "format '1'")
    refuse({k: v for k, v in mid_game().items() if k != "format"}, "the key 'format' is missing")
    refuse(edited(type="chessboard"), "unknown document type")
    refuse({k: v for k, v in mid_game().items() if k != "stock"}, "needs the field 'stock'")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("players", "2"),
        ("players", True),
        ("players", 2.0),
        ("players", 10**30),
        ("current_player", None),
        ("phase", "lunch"),
        ("hands", "5S"),
        ("hands", [["5S"], ["6S"]]),
        ("stock", "5s 6S"),
        ("stock", "5S  6S"),
        ("melds", [[], [], []]),
        ("extra_pile_taken", [0, 1]),
        ("untouched_extra_pile", [True, None]),
        ("taken_single_card", "JOKER!"),
        ("went_out", True),
        ("went_out", 7),
        ("current_player", -1),
    ],
)
def test_wrong_types_and_values_are_refused(field: str, value: object) -> None:
    refuse(edited(**{field: value}))


def test_deep_nesting_and_huge_documents_are_refused_before_parsing() -> None:
    refuse("[" * 5000 + "]" * 5000, "nested deeper than 32")
    refuse('{"a":' * 5000 + "1" + "}" * 5000, "nested deeper than 32")
    refuse(" " * 100_000_000 + json.dumps(mid_game()), "over the limit")
    refuse(b" " * 100_000_000, "over the limit")
    refuse("[" + "[],[]," * 150_000 + "[]]", "expected a JSON object")
    assert br.from_json(json.dumps(mid_game(), indent=1)) == br.from_data(mid_game())


def test_a_key_twice_is_refused() -> None:
    refuse('{"format":1,"type":"action","action":"draw","action":"take"}', "twice")


def test_to_data_refuses_what_has_no_format() -> None:
    for value in (object(), forged(br.Discard, 1.5), {"format": 1}, None):
        with pytest.raises(TypeError):
            br.to_data(value)


# --- fuzzers -----------------------------------------------------------------------------------

DECK_COUNTS = Counter(br.DECK)


def check_decoded(value: object) -> None:
    """What decoding accepted is a consistent value: it encodes to the same document again and,
    for a state, holds the 108 cards and plays on."""
    assert br.from_json(br.to_json(value)) == value
    if isinstance(value, br.GameState):
        cards = [c for hand in value.hands for c in hand] + list(value.stock + value.discard_pile)
        cards += [c for team in value.melds for m in team for c in m.cards]
        cards += [c for pile in value.extra_piles if pile is not None for c in pile]
        assert Counter(cards) == DECK_COUNTS
        actions = br.legal_actions(value)
        if actions:
            br.apply(value, actions[-1])
    if isinstance(value, br.GameRecord):
        with contextlib.suppress(br.ReplayError):
            br.replay(value)


def decode(text: str) -> None:
    try:
        value = br.from_json(text)
    except br.DecodeError:
        event("refused")
        return
    check_decoded(value)
    event(f"accepted a {type(value).__name__}")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=20,
)


@examples(FUZZ)
@given(value=JSON, kind=st.sampled_from(br.formats.KINDS))
def test_fuzz_random_json_is_decoded_or_refused(value: object, kind: str) -> None:
    decode(json.dumps(value))
    if isinstance(value, dict):
        decode(json.dumps({"format": 1, "type": kind, **value}))


@cache
def valid_documents() -> tuple[dict[str, Any], ...]:
    docs = []
    for rules, players in CONFIGS:
        states, actions = play(rules, players, 7, greedy=True)
        for state in sample(states, 3, 7):
            docs += [
                br.to_data(state),
                br.to_data(br.view(state, 1)),
                br.to_data(br.score(state)[1]),
            ]
        docs.append(
            br.to_data(br.GameRecord.from_game(states[0], actions[:30], names=["a"] * players))
        )
        docs.append(br.to_data(actions[len(actions) // 2]))
    docs.append(br.to_data(attrs.evolve(variants.ITALIAN, max_set_size=8)))
    matches, actions = play_match(variants.BURACO_FECHADO, 2, 1)
    hand_two = next(i for i, m in enumerate(matches) if m.finished_hands) + 10
    docs += [br.to_data(matches[hand_two]), br.to_data(matches[-1])]
    docs.append(br.to_data(br.MatchRecord.from_match(matches[0], actions[:hand_two])))
    return tuple(docs)


CARD_TEXTS = [str(c) for c in br.DECK[::2]] + ["XX", "", "5s", "10♥"]


def places(data: object, trail: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path into ``data`` (a key or index per level)."""
    found = [trail]
    if isinstance(data, dict):
        for key, value in data.items():
            found += places(value, (*trail, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += places(value, (*trail, i))
    return found


def mutate(data: Any, path: tuple[object, ...], how: str, draw: st.DrawFn) -> Any:
    if not path:
        return draw(JSON) if how == "replace" else data
    *head, last = path
    parent = data
    for step in head:
        parent = parent[step]
    old = parent[last]
    if how == "replace":
        parent[last] = draw(JSON)
    elif how == "delete":
        del parent[last]
    elif how == "nudge" and type(old) is int:
        parent[last] = old + draw(st.sampled_from([-1, 1, 2, -100]))
    elif how == "nudge" and type(old) is bool:
        parent[last] = not old
    elif how == "cards" and type(old) is str:
        words = old.split(" ")
        i = draw(st.integers(0, len(words) - 1))
        edit = draw(st.sampled_from(["swap", "drop", "double", "change"]))
        if edit == "swap":
            j = draw(st.integers(0, len(words) - 1))
            words[i], words[j] = words[j], words[i]
        elif edit == "drop":
            del words[i]
        elif edit == "double":
            words.insert(i, words[i])
        else:
            words[i] = draw(st.sampled_from(CARD_TEXTS))
        parent[last] = " ".join(words)
    elif how == "copy":
        other = draw(st.sampled_from(places(data)))
        source = data
        for step in other:
            source = source[step]
        parent[last] = json.loads(json.dumps(source))
    return data


MUTATIONS = ["replace", "delete", "nudge", "cards", "cards", "cards", "copy"]


@examples(2 * FUZZ)
@given(st.data())
def test_fuzz_mutated_documents_are_decoded_consistently_or_refused(data: st.DataObject) -> None:
    doc = json.loads(json.dumps(data.draw(st.sampled_from(valid_documents()))))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(places(doc)))
        doc = mutate(doc, path, data.draw(st.sampled_from(MUTATIONS)), data.draw)
    text = json.dumps(doc, ensure_ascii=False)
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(0, len(text)))
        text = (
            text[:cut]
            + data.draw(st.sampled_from(["", "]", "}", '"', "\x00", "9" * 5000]))
            + text[cut:]
        )
    decode(text)


def test_fuzz_every_single_card_change_of_a_state_is_refused() -> None:
    """Brute force: in a mid-game state, each card of each hand replaced by each other card
    breaks the 108-card multiset, and every such document is refused."""
    data = mid_game()
    rng = random.Random(1)
    for seat, hand in enumerate(data["hands"]):
        words = hand.split()
        for i in range(len(words)):
            for card in rng.sample(CARD_TEXTS[:-4], 8):
                if card == words[i]:
                    continue
                hands = list(data["hands"])
                hands[seat] = " ".join(
                    sorted([*words[:i], card, *words[i + 1 :]], key=lambda c: br.Card(c))
                )
                refuse(data | {"hands": hands})


def test_R10_a_view_no_game_could_show_is_refused() -> None:
    states, _ = play(variants.BURACO_FECHADO, 2, 3, greedy=True)
    state = next(s for s in states if len(s.discard_pile) >= 3)
    data = br.to_data(br.view(state, 0))
    assert br.from_data(data) == br.view(state, 0)
    pile = " ".join(str(c) for c in state.discard_pile)
    refuse(data | {"discard_pile": pile}, "no game shows this view")  # closed: the top only
    refuse(data | {"stock_size": data["stock_size"] + 1}, "no game shows this view")
    # The view's shape is canonical_state's to check, in its words (not the codec's own copy).
    refuse(data | {"hand_sizes": [data["hand_sizes"][0]]}, "hand_sizes must be 2 counts")
    refuse(data | {"seat": 2}, "seat must be a seat from 0 to 1")
    refuse(data | {"hand_sizes": [-1, data["hand_sizes"][1]]}, "hand_sizes must be 2 counts")
    hand = data["hand"].split()
    refuse(data | {"hand": " ".join(["JK"] * 5 + hand[5:])}, "no game shows this view")


# --- the documented examples ---------------------------------------------------------------------

FORMATS_DOC = Path(__file__).resolve().parent.parent / "docs" / "formats.md"
JSON_BLOCK = re.compile(r"^```json\n(.*?)^```", re.S | re.M)


def contained(part: object, whole: object) -> bool:
    """``part`` is ``whole``, but for fields with defaults that a later version may add."""
    if isinstance(part, dict) and isinstance(whole, dict):
        return all(k in whole and contained(v, whole[k]) for k, v in part.items())
    return part == whole


def test_every_json_example_of_the_docs_decodes_and_encodes_again() -> None:
    blocks = JSON_BLOCK.findall(FORMATS_DOC.read_text(encoding="utf-8"))
    kinds = set()
    for block in blocks:
        value = br.from_json(block)
        assert contained(json.loads(block), br.to_data(value))
        assert br.from_json(br.to_json(value)) == value
        kinds.add(json.loads(block)["type"])
    assert kinds == set(br.formats.KINDS)
    documents = [br.from_json(b) for b in blocks]
    record = next(d for d in documents if isinstance(d, br.GameRecord))
    state = next(d for d in documents if isinstance(d, br.GameState))
    assert br.replay(record)[-1] == state
    assert next(d for d in documents if isinstance(d, br.PlayerView)) == br.view(state, 1)


def test_to_data_refuses_a_state_forged_past_its_checks() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    for hands in [((99,), state.hands[1]), (("5S",), state.hands[1]), (None, None)]:
        forged_state = attrs.evolve(state, hands=hands)
        with pytest.raises(TypeError):
            br.to_data(forged_state)


def test_the_codec_reads_each_class_field_types_as_its_source_writes_them() -> None:
    """The schema of every class the codec writes is its attrs fields, each with the type its
    source writes: in the pure build from the annotations, in the compiled one (where mypyc
    erases them) from the source beside the extension."""
    import sys

    from buraco_rules.formats import schema, values

    data = br.to_data(br.new_match(variants.ITALIAN, 2, seed=1))  # fills the codec's table
    assert data
    br.to_data(attrs.evolve(variants.ITALIAN, match_target=1500))
    classes = set(values._OBJECT_CODECS) | {br.GameState, br.PlayerView, br.TeamScore, br.Match}
    assert br.RuleSet in classes
    for cls in classes:
        fields = [f for f in attrs.fields(cls) if f.init]
        read = schema.schema_of(cls)
        assert [(f.name, f.alias) for f in read] == [(f.name, f.alias) for f in fields]
        assert [f.required for f in read] == [f.default is attrs.NOTHING for f in fields]
        written = schema._written_annotations(cls)
        namespace = vars(sys.modules[cls.__module__])
        assert [f.type for f in read] == [eval(written[f.name], namespace) for f in fields], cls


ERASED_MODULE = """
from __future__ import annotations

import attrs

from buraco_rules.core.cards import Card


@attrs.frozen
class Hand:
    cards: tuple[Card, ...]
    owner: int | None = None


# What mypyc leaves of Hand: the same fields, each type erased to its bare class.
Erased = attrs.make_class(
    "Hand",
    {"cards": attrs.field(type=tuple), "owner": attrs.field(type=type, default=None)},
    frozen=True,
)
Erased.__module__ = __name__
"""


def test_a_compiled_class_is_read_from_its_source_or_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mypyc keeps a compiled class's field names but erases each type to its bare class
    (``tuple[Card, ...]`` to ``tuple``, ``int | None`` to ``type``; checked with mypyc 2.4 on an
    attrs class): the schema reads such a class's types from its module's source, and refuses by
    name a class whose source it cannot find, rather than encoding its fields wrongly."""
    import importlib

    from buraco_rules.core.cards import Card
    from buraco_rules.formats.schema import schema_of
    from buraco_rules.formats.values import Context, object_codec

    (tmp_path / "erased_module.py").write_text(ERASED_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("erased_module")
    assert [f.type for f in attrs.fields(module.Erased)] == [tuple, type]
    assert [f.type for f in schema_of(module.Erased)] == [tuple[Card, ...], int | None]
    encode, decode = object_codec(module.Erased)
    hand = module.Erased(cards=(Card("5S"), Card("JK")), owner=1)
    assert encode(hand) == {"cards": "5S JK", "owner": 1}
    assert decode(encode(hand), Context()) == hand

    orphan = attrs.make_class("Orphan", {"cards": attrs.field(type=tuple)}, frozen=True)
    orphan.__module__ = __name__  # this file has no class Orphan to read
    with pytest.raises(
        TypeError, match=r"Orphan\.cards is annotated tuple: its module is compiled"
    ):
        schema_of(orphan)
    assert [f.type for f in schema_of(br.TeamScore)] == [int] * 5


def test_from_data_refuses_keys_and_values_that_are_not_json_without_comparing_them() -> None:
    class Hostile:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("comparison refused")

        def __hash__(self) -> int:
            return 1

        def __repr__(self) -> str:
            raise RuntimeError("repr refused")

    good = br.to_data(br.new_game(variants.ITALIAN, 2, seed=1))
    for bad in [
        {Hostile(): 1, "format": 1, "type": "state"},
        good | {"players": Hostile()},
        good | {"players": 10**5000},
        br.to_data(attrs.evolve(variants.ITALIAN, match_target=2001)) | {"rules": 10**5000},
        good | {"rules": {Hostile(): 1}},
        good | {"hands": [Hostile(), ""]},
    ]:
        with pytest.raises(br.DecodeError) as info:
            br.from_data(bad)
        assert len(str(info.value)) < 400


def test_a_lone_surrogate_is_refused_in_every_string_of_a_document() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    record = br.GameRecord.from_game(state, ["draw"], names=("a", "b"), meta={"k": "v"})
    data = br.to_data(record)
    for bad in [
        data | {"names": ["a", "b\udfff"]},
        data | {"meta": {"k\ud800": "v"}},
        data | {"meta": {"k": "\ud800"}},
    ]:
        with pytest.raises(br.DecodeError):
            br.from_json(json.dumps(bad))
        with pytest.raises(br.DecodeError):
            br.from_data(bad)
    with pytest.raises(br.InvalidRecord):
        attrs.evolve(record, meta={"k": "\ud800"})


@pytest.mark.parametrize(
    "text",
    [
        "[" * 33 + '"' + '\\"' * 100_000,
        "[" * 33 + '"' + "\\" * 100_001,
        "[" * 33 + ('"\\\n' * 50_000),
        "[" * 33 + '"' + "]" * 40 + '"' + "[" * 40,
    ],
    ids=["escaped-quotes", "backslashes", "backslash-newline", "brackets-in-a-string"],
)
def test_the_depth_check_reads_strings_once_and_refuses_what_json_does(text: str) -> None:
    with pytest.raises(br.DecodeError):
        br.from_json(text)


def test_brackets_inside_strings_do_not_count_towards_the_depth() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    record = br.GameRecord.from_game(state, ["draw"], meta={"note": "[" * 100 + "{" * 100})
    assert br.from_json(br.to_json(record)) == record


def test_R20_the_codec_refuses_a_match_by_the_cores_check_match() -> None:
    """``match.check_match`` holds every match a played match goes through, and the codec's
    refusal of a forged one is its refusal, word for word."""
    from buraco_rules.play.match import check_match

    matches, _ = play_match(variants.BURACO_FECHADO, 2, 1)
    for match in matches[:: max(1, len(matches) // 40)] + matches[-1:]:
        check_match(match)
    forged = attrs.evolve(matches[-1], first_player=2)
    with pytest.raises(ValueError, match="no seat 2 of 2") as core:
        check_match(forged)
    with pytest.raises(br.DecodeError) as decoded:
        br.from_data(br.to_data(forged))
    assert str(decoded.value) == str(core.value)

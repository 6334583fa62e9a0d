"""Game records and replay: recorded real hands of each variant (``tests/data``), records of
random games, and every way a record or its replay is refused.

Run ``python tests/test_records.py`` to write the recorded hands again: each is a full hand played
by the greedy player of ``formats_games`` from a fixed seed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from forging import forged
from formats_games import CONFIG_IDS, CONFIGS, play, play_match

DATA = Path(__file__).resolve().parent / "data"
RECORDED = {  # file: (rules, players, seed)
    "buraco-fechado-4p.json": (variants.BURACO_FECHADO, 4, 2026),
    "canasta-stbl-2p.json": (variants.CANASTA_STBL, 2, 2028),
    "italian-4p.json": (variants.ITALIAN, 4, 2029),
    "italian-fibur-2p.json": (variants.ITALIAN_FIBUR, 2, 2031),
}


def recorded_game(rules: br.RuleSet, players: int, seed: int) -> br.GameRecord:
    states, actions = play(rules, players, seed, greedy=True)
    names = ["North", "East", "South", "West"] if players == 4 else ["North", "South"]
    return br.GameRecord.from_game(
        states[0], actions, names=names, meta={"player": "greedy", "seed": str(seed)}
    )


def write_recorded_games() -> None:
    for name, (rules, players, seed) in RECORDED.items():
        data = br.to_data(recorded_game(rules, players, seed))
        text = json.dumps(data, ensure_ascii=False, indent=1)
        (DATA / name).write_text(text + "\n", encoding="utf-8")


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_each_recorded_hand_replays_to_its_recorded_end(name: str) -> None:
    record = br.from_json((DATA / name).read_text(encoding="utf-8"))
    rules, players, _ = RECORDED[name]
    assert isinstance(record, br.GameRecord)
    assert record.rules is rules and record.players == players and record.scores is not None
    states = br.replay(record)  # checks every action and the recorded scores
    assert len(states) == len(record.actions) + 1 and states[-1].is_over
    assert states[-1].went_out is not None  # a real hand, played out to someone going out
    assert br.score(states[-1]) == record.scores
    assert any(m.is_canasta for team in states[-1].melds for m in team)


def test_the_recorded_hands_cover_every_variant() -> None:
    assert {rules.name for rules, _, _ in RECORDED.values()} == set(variants.NAMES)


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_a_record_of_a_game_replays_every_state_and_round_trips(
    rules: br.RuleSet, players: int, seed: int, greedy: bool
) -> None:
    states, actions = play(rules, players, seed, greedy=greedy)
    record = br.GameRecord.from_game(states[0], actions)
    assert br.new_game(rules, players, deck=record.deck) == states[0]
    assert br.replay(record) == tuple(states)
    assert record.scores == br.score(states[-1])
    assert br.from_json(br.to_json(record)) == record
    partial = br.GameRecord.from_game(states[0], actions[: len(actions) // 2])
    assert partial.scores is None and br.replay(partial)[-1] == states[len(actions) // 2]


def record_of(seed: int = 5, steps: int = 40) -> tuple[br.GameRecord, list[br.GameState]]:
    states, actions = play(variants.ITALIAN, 2, seed, greedy=True)
    return br.GameRecord.from_game(states[0], actions[:steps]), states


def test_an_illegal_action_is_a_replay_error_with_its_index_and_cause() -> None:
    record, _ = record_of()
    for index in (0, 7, 39):
        actions = list(record.actions)
        actions.insert(index, br.Discard("JK") if index % 2 else br.NewMeld("5S 9H KC"))
        with pytest.raises(br.ReplayError) as info:
            br.replay(attrs.evolve(record, actions=actions))
        error = info.value
        assert error.index == index and isinstance(error, ValueError)
        assert isinstance(error.__cause__, br.IllegalAction)
        assert str(error.__cause__) in str(error)


def test_R4_an_action_after_the_end_of_the_hand_is_refused() -> None:
    states, actions = play(variants.CANASTA_STBL, 2, 9, greedy=True)
    record = br.GameRecord.from_game(states[0], actions)
    with pytest.raises(br.ReplayError) as info:
        br.replay(attrs.evolve(record, actions=(*record.actions, br.DrawFromStock())))
    assert info.value.index == len(actions)
    assert info.value.__cause__.code is br.ErrorCode.GAME_OVER  # type: ignore[union-attr]


def test_R16_a_recorded_score_the_game_does_not_give_is_refused() -> None:
    states, actions = play(variants.BURACO_FECHADO, 2, 4, greedy=True)
    record = br.GameRecord.from_game(states[0], actions)
    assert record.scores is not None
    wrong = (attrs.evolve(record.scores[0], going_out=0), record.scores[1])
    with pytest.raises(br.ReplayError, match="scores") as info:
        br.replay(attrs.evolve(record, scores=wrong))
    assert info.value.index is None
    with pytest.raises(br.ReplayError):
        br.replay(attrs.evolve(record, actions=record.actions[:-1]))  # the score needs the end


def test_a_record_takes_cards_and_actions_in_notation_and_keeps_them_as_values() -> None:
    start = br.new_game(variants.ITALIAN, 2, seed=3)
    record = br.GameRecord(
        rules=variants.ITALIAN,
        players=2,
        deck=[str(c) for c in br.GameRecord.from_game(start, []).deck],
        actions=["draw"],
        meta={"b": "2", "a": "1"},
    )
    assert record.actions == (br.DrawFromStock(),) and list(record.meta) == ["a", "b"]
    assert br.replay(record)[0] == start and hash(record) == hash(attrs.evolve(record))
    with pytest.raises(TypeError):
        record.meta["c"] = "3"  # type: ignore[index]


@pytest.mark.parametrize(
    "change",
    [
        {"rules": "italian"},
        {"players": 3},
        {"first_player": 2},
        {"deck": br.DECK[:-1]},
        {"deck": (br.JOKER,) * 108},
        {"actions": ["fly"]},
        {"actions": [42]},
        {"actions": "draw"},
        {"names": ("Ana",)},
        {"names": ("Ana", 5)},
        {"meta": {"a": 1}},
        {"meta": ["a"]},
        {"scores": (1, 2)},
    ],
)
def test_a_record_of_no_game_is_an_invalid_record(change: dict[str, object]) -> None:
    fields = {"rules": variants.ITALIAN, "players": 2, "deck": br.DECK}
    with pytest.raises(br.InvalidRecord):
        br.GameRecord(**(fields | change))  # type: ignore[arg-type]


def test_from_game_needs_the_first_state_of_a_hand() -> None:
    states, actions = play(variants.ITALIAN, 2, 1)
    with pytest.raises(br.InvalidRecord):
        br.GameRecord.from_game(states[1], actions[1:])
    with pytest.raises(br.ReplayError):
        br.GameRecord.from_game(states[0], actions[1:])


if __name__ == "__main__":
    write_recorded_games()
    sys.exit(0)


# --- matches ----------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=CONFIGS, ids=CONFIG_IDS)
def match_played(request: pytest.FixtureRequest) -> tuple[list[br.Match], list[br.Action]]:
    rules, players = request.param
    return play_match(rules, players, 17)


def test_R20_a_match_round_trips_through_json_with_every_hand(
    match_played: tuple[list[br.Match], list[br.Action]],
) -> None:
    matches, _ = match_played
    last = matches[-1]
    assert last.is_over and len(last.finished_hands) >= 1
    for match in (matches[0], matches[len(matches) // 2], matches[-2], last):
        text = br.to_json(match)
        assert br.from_json(text) == match and br.to_json(br.from_json(text)) == text
    assert br.from_json(br.to_json(last)).finished_hands == last.finished_hands


def test_R20_a_match_record_replays_every_match_state_and_each_hand(
    match_played: tuple[list[br.Match], list[br.Action]],
) -> None:
    matches, actions = match_played
    record = br.MatchRecord.from_match(
        matches[0], actions, names=["N", "E", "S", "W"][: matches[0].players]
    )
    assert record.scores == matches[-1].scores
    assert br.replay(record) == tuple(matches)
    assert br.from_json(br.to_json(record)) == record
    hands = record.hands()
    assert len(hands) == len(matches[-1].finished_hands)
    for hand, finished, scores in zip(
        hands, matches[-1].finished_hands, record.scores, strict=True
    ):
        assert br.replay(hand)[-1] == finished and hand.scores == scores
        assert hand.names == record.names


def test_R20_a_match_record_refuses_an_illegal_action_and_wrong_scores() -> None:
    matches, actions = play_match(variants.CANASTA_STBL, 2, 5)
    record = br.MatchRecord.from_match(matches[0], actions)
    second_hand = next(i for i, m in enumerate(matches) if m.finished_hands)  # its first action
    bad = [*actions[:second_hand], br.Discard("JK"), *actions[second_hand:]]  # before a draw
    with pytest.raises(br.ReplayError) as info:
        br.replay(attrs.evolve(record, actions=bad))
    assert info.value.index == second_hand
    assert isinstance(info.value.__cause__, br.IllegalAction)
    assert record.scores is not None
    first = record.scores[0]
    wrong = ((attrs.evolve(first[0], table=first[0].table + 5), first[1]), *record.scores[1:])
    with pytest.raises(br.ReplayError, match="scores"):
        br.replay(attrs.evolve(record, scores=wrong))
    with pytest.raises(br.InvalidRecord):
        br.MatchRecord(rules=variants.CANASTA_STBL, players=2)  # neither a seed nor decks
    with pytest.raises(br.InvalidRecord):
        br.MatchRecord.from_match(matches[1], actions[1:])


def test_R20_a_match_document_that_no_match_gives_is_refused() -> None:
    matches, _ = play_match(variants.ITALIAN, 2, 3)
    last = matches[-1]
    assert len(last.finished_hands) >= 2
    data = br.to_data(last)
    twice = {"finished_hands": data["finished_hands"] * 2, "scores": data["scores"] * 2}
    with pytest.raises(br.DecodeError, match="decided before"):
        br.from_data(data | twice)
    swapped = data["scores"][::-1]
    with pytest.raises(br.DecodeError, match="not its own"):
        br.from_data(data | {"scores": swapped})
    with pytest.raises(br.DecodeError, match="one pair of scores"):
        br.from_data(data | {"scores": data["scores"][:-1]})
    middle = br.to_data(next(m for m in matches if m.finished_hands and not m.is_over))
    with pytest.raises(br.DecodeError, match="in play"):
        br.from_data(middle | {"hand": middle["finished_hands"][0]})
    fibur = br.to_data(br.new_match(variants.ITALIAN_FIBUR, 2, seed=1))
    with pytest.raises(br.DecodeError, match="rule"):
        br.from_data(data | {"hand": fibur["hand"]})


@pytest.mark.parametrize("index", [-1, 10**30, 10**5000], ids=["negative", "huge", "5000-digits"])
def test_a_record_refuses_an_action_forged_past_its_constructor(index: int) -> None:
    # Its notation would be refused by parse_action (or could not be written at all), so the
    # record could be built but neither written as JSON nor replayed with a readable message.
    rules = variants.ITALIAN
    action = forged(br.AddToMeld, index, (br.Card("5S"),))
    for actions in [(action,), (br.TakeDiscardPile(action),)]:
        with pytest.raises(br.InvalidRecord):
            br.GameRecord(rules=rules, players=2, deck=br.arrange_deck(rules), actions=actions)

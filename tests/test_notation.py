"""The action notation: every form, what it refuses, and the round trip over reachable states."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from forging import forged
from formats_games import CONFIG_IDS, CONFIGS, play, sample

C = br.Card
SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("draw", br.DrawFromStock()),
        ("take", br.TakeDiscardPile()),
        ("take meld 8H 9H JK", br.TakeDiscardPile(br.NewMeld((C("8H"), C("9H"), br.JOKER)))),
        ("take add 0 8H", br.TakeDiscardPile(br.AddToMeld(0, (C("8H"),)))),
        ("meld 5S 6S 7S", br.NewMeld((C("5S"), C("6S"), C("7S")))),
        ("add 1 9D", br.AddToMeld(1, (C("9D"),))),
        ("add 12 10C JC", br.AddToMeld(12, (C("10C"), C("JC")))),
        ("discard KC", br.Discard(C("KC"))),
    ],
)
def test_each_form_reads_and_writes_the_same_text(text: str, action: br.Action) -> None:
    assert br.parse_action(text) == action
    assert br.format_action(action) == str(action) == text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("DISCARD k♣", "discard KC"),
        ("  Take   Meld 9♥ 8♥ joker ", "take meld 8H 9H JK"),
        ("meld TS 10♠ 9♤", "meld 9S 10S 10S"),
        ("add 007 2D", "add 7 2D"),
    ],
)
def test_input_may_use_suit_symbols_any_case_and_spaces(text: str, canonical: str) -> None:
    assert br.format_action(br.parse_action(text)) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "discard",
        "discard XX",
        "discard KC KD",
        "fly 5S",
        "draw 5S",
        "take take",
        "take discard KC",
        "take meld",
        "meld",
        "add 5S",
        "add x 5S",
        "add -1 5S",
        "add 1000 5S",
        "add ٣ 5S",
        "draw\x00",
        "discard\tKC",
        "discard KC\n",
        "discard\u00a0KC",
        "discard\u200bKC",
    ],
)
def test_text_that_is_no_action_is_a_notation_error_quoting_it(text: str) -> None:
    with pytest.raises(br.NotationError) as info:
        br.parse_action(text)
    assert isinstance(info.value, ValueError)
    assert repr(text) in str(info.value)


def test_a_megabyte_is_refused_unread_and_quoted_only_in_part() -> None:
    text = "discard " + "K" * 1_000_000 + "C"
    with pytest.raises(br.NotationError) as info:
        br.parse_action(text)
    message = str(info.value)
    assert len(message) < 300 and "longer than" in message and "1,000,009 characters" in message


@pytest.mark.parametrize("value", [None, 5, b"draw", ["draw"]])
def test_what_is_not_a_string_is_a_notation_error(value: object) -> None:
    with pytest.raises(br.NotationError):
        br.parse_action(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value",
    [
        None,
        "draw",
        forged(br.Discard, 1.0),
        forged(br.NewMeld, (1.5,)),
        forged(br.AddToMeld, True, br.parse_cards("5S")),
    ],
)
def test_only_well_formed_actions_have_a_notation(value: object) -> None:
    with pytest.raises(br.NotationError):
        br.format_action(value)  # type: ignore[arg-type]


def test_R4_with_a_state_an_illegal_action_raises_what_apply_raises() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    with pytest.raises(br.IllegalAction) as info:
        br.parse_action("discard KH", state)
    assert info.value.code is br.ErrorCode.WRONG_PHASE
    assert br.parse_action("draw", state) == br.DrawFromStock()
    with pytest.raises(br.NotationError):
        br.parse_action("discard", state)  # text that is no action is refused before the state


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_every_legal_action_round_trips_through_its_notation(
    rules: br.RuleSet, players: int, seed: int, greedy: bool
) -> None:
    states, _ = play(rules, players, seed, greedy=greedy)
    for state in sample(states, 25, seed):
        for action in br.legal_actions(state):
            text = br.format_action(action)
            assert text == str(action)
            assert br.parse_action(text, state) == action
            assert br.parse_action(text) == action


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=CONFIG_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_parse_with_a_state_gives_exactly_the_code_of_apply(
    rules: br.RuleSet, players: int, seed: int
) -> None:
    """Actions legal somewhere else in the game, tried everywhere: parse_action with the state
    accepts exactly what apply accepts, and refuses with the very same code."""
    states, actions = play(rules, players, seed)
    rng = random.Random(seed)
    texts = [str(a) for a in rng.sample(actions, min(40, len(actions)))]
    for state in sample(states, 15, seed):
        for text in texts:
            expected = None
            try:
                br.apply(state, br.parse_action(text))
            except br.IllegalAction as error:
                expected = error
            try:
                got = br.parse_action(text, state)
            except br.IllegalAction as error:
                assert expected is not None and error.code is expected.code
                assert str(error) == str(expected)
            else:
                assert expected is None and got in br.legal_actions(state)


def test_R10_with_a_view_the_refusal_is_the_one_that_seat_receives() -> None:
    states, _ = play(variants.CANASTA_STBL, 2, 8, greedy=True)
    for state in sample(states, 20, 8):
        if state.is_over:
            continue
        seen = br.view(state, state.current_player)
        for action in br.legal_actions(state):
            assert br.parse_action(str(action), seen) == action
        with pytest.raises(br.IllegalAction) as info:
            br.parse_action("meld 5S 9H KC", seen)
        expected = br.why_illegal(state, br.NewMeld("5S 9H KC"), state.current_player)
        assert expected is not None and info.value.code is expected.code


def test_R20_with_a_match_the_action_is_checked_in_the_hand_in_play() -> None:
    match = br.new_match(variants.ITALIAN, 2, seed=4)
    assert br.parse_action("draw", match) == br.DrawFromStock()
    with pytest.raises(br.IllegalAction) as info:
        br.parse_action("discard KH", match)
    assert info.value.code is br.ErrorCode.WRONG_PHASE


@pytest.mark.parametrize(
    "index",
    [-1, br.MAX_MELD_INDEX + 1, 10**30, 10**5000, True, 1.0],
    ids=["negative", "past-the-bound", "huge", "5000-digits", "bool", "float"],
)
def test_an_addition_takes_only_an_index_the_notation_writes(index: object) -> None:
    with pytest.raises(br.MalformedAction) as info:
        br.AddToMeld(index, "5S")  # type: ignore[arg-type]
    assert len(str(info.value)) < 200  # a huge int is quoted by its size, not written out


def test_an_action_holds_at_most_the_decks_number_of_cards() -> None:
    with pytest.raises(br.MalformedAction):
        br.NewMeld(["5S"] * (br.MAX_ACTION_CARDS + 1))
    longest = br.TakeDiscardPile(br.AddToMeld(br.MAX_MELD_INDEX, ["10H"] * br.MAX_ACTION_CARDS))
    text = br.format_action(longest)
    assert len(text) <= br.formats.MAX_NOTATION_CHARS and br.parse_action(text) == longest
    with pytest.raises(br.NotationError):  # short enough to read, too many cards to be an action
        br.parse_action("meld " + " ".join(["5S"] * (br.MAX_ACTION_CARDS + 1)))


@pytest.mark.parametrize("word", ["5\u017f", "\u212a\u2660", "\uff15S", "5\u0405"])
def test_a_card_is_read_from_ascii_and_the_suit_symbols_only(word: str) -> None:
    # LONG S, KELVIN SIGN, a fullwidth 5, a Cyrillic DZE: each looks like (or folds to) ASCII.
    with pytest.raises(ValueError):
        br.Card.parse(word)
    with pytest.raises(br.NotationError):
        br.parse_action(f"discard {word}")
    assert br.parse_action("discard k♠") == br.Discard("KS")


def test_with_player_a_move_is_checked_for_the_seat_that_sent_it() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)  # seat 0 to draw
    assert br.parse_action("draw", state, player=0) == br.DrawFromStock()
    for text in ["draw", f"discard {state.hands[1][0]}", "fly"]:
        expected = br.NotationError if text == "fly" else br.IllegalAction
        with pytest.raises(expected) as info:
            br.parse_action(text, state, player=1)
        if expected is br.IllegalAction:
            assert info.value.code is br.ErrorCode.NOT_YOUR_TURN  # type: ignore[attr-defined]
    with pytest.raises(ValueError):  # a view speaks for its own seat only
        br.parse_action("draw", br.view(state, 0), player=1)
    assert br.parse_action("draw", br.view(state, 0), player=0) == br.DrawFromStock()

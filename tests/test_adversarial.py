"""Adversarial regression tests: hostile input at the boundary (decoders, validate, refusals).

Each test is the smallest reproducer of a fault found by fuzzing the public API; each failed on
the code it was found in.
"""

from __future__ import annotations

import json
import random
import signal
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants

E = br.ErrorCode


class Hostile:
    """An object whose comparisons raise, as a hostile caller's object may."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("comparison refused")

    __ne__ = __eq__

    def __hash__(self) -> int:
        return 1


# --- decoders: everything they build must validate ---------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"extra_pile_taken": [True, False]},  # taken, yet still set aside (R12)
        {"phase": "over"},  # over with nobody out and a full stock (R15)
        {"went_out": 0},  # a team went out while the hand goes on (R13)
        {"taken_single_card": "5S"},  # a single taken card with a closed pile (R11)
        {"untouched_extra_pile": [0, None]},  # untouched, yet never taken (R19)
    ],
    ids=lambda change: next(iter(change)),
)
def test_from_json_refuses_a_state_that_validate_refuses(change: dict[str, Any]) -> None:
    state = br.new_game(variants.BURACO_FECHADO, 4, seed=1)
    data = br.to_data(state) | change
    with pytest.raises(br.InvalidState):
        br.validate(attrs.evolve(state, **_fields(state, change)))
    with pytest.raises(br.DecodeError):
        br.from_data(data)


def _fields(state: br.GameState, change: dict[str, Any]) -> dict[str, Any]:
    decoded: dict[str, Any] = {}
    for key, value in change.items():
        if key == "phase":
            decoded[key] = br.Phase(value)
        elif key == "taken_single_card":
            decoded[key] = br.Card(value)
        elif isinstance(value, list):
            decoded[key] = tuple(value)
        else:
            decoded[key] = value
    return decoded


def test_from_json_refuses_a_view_that_no_valid_state_shows() -> None:
    # A team that went out while the hand is still in its draw phase (R13).
    data = br.to_data(br.view(br.new_game(variants.BURACO_FECHADO, 4, seed=1), 1))
    with pytest.raises(br.DecodeError):
        br.from_data(data | {"went_out": 0})


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Turn a call that would run for minutes into a failure (a guard against a hang, far
    above the milliseconds the call takes; not a timing measurement)."""

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError("the call did not return within 10 s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_from_json_depth_check_is_linear_in_escaped_quotes(hang_guard: None) -> None:
    # 33 brackets switch the depth check on; its string pattern then rescans the rest of the
    # text from every escaped quote: quadratic (0.5 s for 8 kB, 8 s for 32 kB; hours for the
    # 1 MB the size limit allows).
    text = "[" * 33 + '"' + '\\"' * 150_000
    with pytest.raises(br.DecodeError):
        br.from_json(text)


def test_from_data_refuses_objects_whose_comparison_fails_with_decode_error() -> None:
    with pytest.raises(br.DecodeError):
        br.from_data({"format": Hostile(), "type": "state"})
    with pytest.raises(br.DecodeError):
        br.from_data({"format": 1, "type": Hostile()})


# --- validate ------------------------------------------------------------------------------------


def _over_state_someone_went_out() -> br.GameState:
    rules = variants.ITALIAN
    rng = random.Random(0)  # random play, preferring melds, until a team goes out
    while True:
        state = br.new_game(rules, 2, seed=rng.getrandbits(32))
        while not state.is_over:
            actions = br.legal_actions(state)
            melds = [a for a in actions if not isinstance(a, br.DrawFromStock | br.Discard)]
            pool = melds if melds and rng.random() < 0.8 else actions
            state = br.apply(state, rng.choice(pool))
        if state.went_out is not None:
            return state


def test_validate_refuses_a_float_went_out_with_invalid_state() -> None:
    state = _over_state_someone_went_out()
    br.validate(state)
    with pytest.raises(br.InvalidState):  # was TypeError: tuple indices must be integers
        br.validate(attrs.evolve(state, went_out=float(state.went_out)))  # type: ignore[arg-type]


def test_R14_validate_refuses_a_play_phase_hand_of_one_card_that_cannot_be_discarded() -> None:
    # Seat 0 plays holding one card it may not discard (extra pile taken, no canasta, R13): no
    # state of the engine is like it (R14), and it has no legal action while the hand goes on.
    state = br.apply(br.new_game(variants.ITALIAN, 2, seed=3), br.DrawFromStock())
    hand = state.hands[0]
    extra = state.extra_piles[0]
    assert extra is not None
    stuck = attrs.evolve(
        state,
        hands=(hand[:1], tuple(sorted(state.hands[1] + hand[1:] + extra))),
        extra_piles=(None, state.extra_piles[1]),
        extra_pile_taken=(True, False),
    )
    assert not stuck.is_over and br.legal_actions(stuck) == ()
    with pytest.raises(br.InvalidState):
        br.validate(stuck)


# --- refusals speak for the seat that sent the move ----------------------------------------------


def test_parse_action_checks_a_move_for_the_seat_that_sent_it() -> None:
    # A server reading seat 0's text while seat 1 plays must not get seat 1's refusal ("... is
    # not in your hand" tells seat 0 what seat 1 holds): parse_action needs player=.
    state = br.apply(br.new_game(variants.ITALIAN, 2, seed=3), br.DrawFromStock())
    state = br.apply(state, br.legal_actions(state)[-1])  # seat 0 discards; seat 1 to act
    state = br.apply(state, br.DrawFromStock())
    card = state.hands[1][0]
    with pytest.raises(br.IllegalAction) as caught:
        br.parse_action(f"discard {card}", state, player=0)  # type: ignore[call-arg]
    assert caught.value.code is E.NOT_YOUR_TURN


def test_why_illegal_on_a_view_answers_a_player_that_is_no_int_as_the_state_does() -> None:
    state = br.apply(br.new_game(variants.ITALIAN, 2, seed=3), br.DrawFromStock())
    state = br.apply(state, br.legal_actions(state)[-1])  # seat 1 to act
    seen = br.view(state, 1)
    expected = br.why_illegal(state, br.DrawFromStock(), player=1.0)
    assert expected is not None and expected.code is E.NOT_YOUR_TURN
    try:
        got = br.why_illegal(seen, br.DrawFromStock(), player=1.0)
    except ValueError:
        pass  # refusing the argument is fine too
    else:
        assert got is not None and got.code is E.NOT_YOUR_TURN  # was None: "legal"
    with pytest.raises(ValueError):  # was RuntimeError from the object's comparison
        br.why_illegal(seen, br.DrawFromStock(), player=Hostile())


# --- a huge int is quoted in the message: its repr must not replace the documented error -

HUGE = 10**5000  # repr() of it raises ValueError (Python's int-to-text digit limit)


def test_from_data_refuses_a_huge_int_with_decode_error() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    with pytest.raises(br.DecodeError):
        br.from_data({"format": HUGE, "type": "state"})
    with pytest.raises(br.DecodeError):
        br.from_data(br.to_data(state) | {"players": HUGE})


def test_rule_set_refuses_a_huge_int_with_invalid_rules() -> None:
    with pytest.raises(br.InvalidRules):
        attrs.evolve(variants.ITALIAN, hand_size=HUGE)


def test_validate_refuses_a_huge_int_with_invalid_state() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    with pytest.raises(br.InvalidState):
        br.validate(attrs.evolve(state, current_player=HUGE))


# --- the notation reads ASCII keywords and cards, not their Unicode case-folds -------------------


@pytest.mark.parametrize("text", ["ta\u212ae", "discard 5\u017f"], ids=["kelvin-sign", "long-s"])
def test_parse_action_refuses_unicode_lookalikes_that_fold_to_ascii(text: str) -> None:
    # "taKe" (KELVIN SIGN) lowers to "take" and "5ſ" (LONG S) uppers to "5S": accepted, so the
    # text a server logs or filters is not the move it applied.
    with pytest.raises(br.NotationError):
        br.parse_action(text)


# --- determinize on a view no state shows ------------------------------------------------


def _view_after_a_single_card_take() -> br.PlayerView:
    """The other seat's view of an Italian hand right after a one-card pile was taken (R11)."""
    rng = random.Random(1)
    while True:
        state = br.new_game(variants.ITALIAN, 2, seed=rng.getrandbits(32))
        while not state.is_over:
            if state.taken_single_card is not None:
                return br.view(state, 1 - state.current_player)
            actions = br.legal_actions(state)
            takes = [a for a in actions if isinstance(a, br.TakeDiscardPile)]
            single = takes and len(state.discard_pile) == 1
            state = br.apply(state, takes[0] if single else rng.choice(actions))


def test_determinize_refuses_a_view_whose_taker_holds_no_cards(hang_guard: None) -> None:
    # The single taken card must be dealt into its taker's hand (R11), which the view says is
    # empty: determinize reshuffled forever. from_data accepts the view, so a bot service that
    # decodes views hangs on it.
    seen = _view_after_a_single_card_take()
    taker = seen.current_player
    sizes = list(seen.hand_sizes)
    held, sizes[taker] = sizes[taker], 0
    hostile = attrs.evolve(seen, hand_sizes=tuple(sizes), stock_size=seen.stock_size + held)
    with pytest.raises(br.DecodeError):
        br.from_data(br.to_data(hostile))
    with pytest.raises(ValueError):
        br.determinize(hostile, random.Random(0))


# --- rule sets that cannot be played to the end --------------------------------------------------


def test_R20_a_rule_set_whose_hands_all_score_nothing_is_refused() -> None:
    # Every hand ends 0 to 0, so no team ever reaches the target and a match never ends (R20).
    with pytest.raises(br.InvalidRules):
        attrs.evolve(
            variants.ITALIAN,
            card_values=br.CardValues(0, 0, 0, 0, 0),
            canasta_bonuses=br.CanastaBonuses(0, 0, 0, 0),
            going_out_bonus=0,
            extra_pile_penalty=0,
        )


def test_from_json_refuses_lone_surrogates_that_to_json_cannot_write_as_utf8() -> None:
    # JSON's "\ud800" escape decodes to a lone surrogate; the record kept it, and its to_json
    # text then fails to encode as UTF-8 (a server storing the record crashes).
    start = br.new_game(variants.ITALIAN, 2, seed=1)
    data = br.to_data(br.GameRecord.from_game(start, ["draw"], names=("a", "b")))
    text = json.dumps(data | {"names": ["\ud800", "b"]})
    try:
        record = br.from_json(text)
    except br.DecodeError:
        return
    br.to_json(record).encode("utf-8")


# --- meld indexes the notation cannot write ------------------------------------------------------


@pytest.mark.parametrize("index", [-1, 1000, 10**30], ids=["negative", "four-digits", "huge"])
def test_an_addition_that_constructs_round_trips_through_its_notation(index: int) -> None:
    # AddToMeld takes any int, but the notation's index is 1 to 3 digits: "add -1 5S" is
    # written and then refused, so a record holding it is written and cannot be read back.
    try:
        action = br.AddToMeld(index, "5S")
    except br.MalformedAction:
        return
    assert br.parse_action(br.format_action(action)) == action


def test_replay_of_an_addition_with_a_huge_index_raises_replay_error() -> None:
    # str(action) of a 5000-digit index raises ValueError inside replay's own message.
    rules = variants.ITALIAN
    try:
        action = br.AddToMeld(HUGE, "5S")
        record = br.GameRecord(
            rules=rules, players=2, deck=br.arrange_deck(rules), actions=(action,)
        )
    except (br.MalformedAction, br.InvalidRecord):
        return
    with pytest.raises(br.ReplayError):
        br.replay(record)


def test_a_record_that_constructs_round_trips_through_json() -> None:
    # A record may hold illegal actions (replay's question), but one of 70 cards has a notation
    # over the parser's 200 characters: to_json writes a document from_json refuses.
    rules = variants.ITALIAN
    action = br.NewMeld(list(br.DECK[:70]))
    try:
        record = br.GameRecord(
            rules=rules, players=2, deck=br.arrange_deck(rules), actions=(action,)
        )
    except br.InvalidRecord:
        return
    assert br.from_json(br.to_json(record)) == record


def _italian_play_state_with_an_empty_stock() -> br.GameState:
    rng = random.Random(2)
    while True:
        state = br.new_game(variants.ITALIAN, 2, seed=rng.getrandbits(32))
        while not state.is_over:
            if state.phase is br.Phase.PLAY and not state.stock and len(state.hands[0]) > 2:
                return state
            actions = br.legal_actions(state)
            draws = [a for a in actions if isinstance(a, br.DrawFromStock | br.Discard)]
            state = br.apply(state, rng.choice(draws or actions))


def test_R11_validate_refuses_a_single_taken_card_once_the_stock_is_exhausted() -> None:
    # Taking the pile leaves the stock as it was, so a player who took a single card always had a
    # stock to draw from (R15): validate accepted the state, and its discard then ended the hand
    # with the taken card still remembered, a state validate itself refuses.
    state = _italian_play_state_with_an_empty_stock()
    hand = state.hands[state.current_player]
    odd = attrs.evolve(state, taken_single_card=hand[-1])
    try:
        br.validate(odd)
    except br.InvalidState:
        return
    for action in br.legal_actions(odd):
        br.validate(br.apply(odd, action))

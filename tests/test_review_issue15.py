"""An adversarial review of issue 15: what it says must now hold, tried as an attacker would.

Each test here failed on the merged code of issue 15 before the fix it comes with (the commit
says which), and checks a requirement of the issue: refusals carry no frames that hold the state
(item 7), only ``IllegalAction`` escapes ``apply`` whatever it is given (item 4), what ``to_json``
writes ``from_json`` reads (item 3), and ``validate`` refuses idle counts no game reaches (R24).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.cli import main
from buraco_rules.core.cards import Card

IT = variants.ITALIAN
F = variants.BURACO_FECHADO


# --- item 7: no refusal's frames hold the state ---------------------------------------------------

_LIBRARY = br.__file__.rsplit("/", 1)[0].rsplit("\\", 1)[0]


def _holds_hidden(value: object, depth: int = 2) -> bool:
    """A state, a match, a view's source or a record (which keeps its deck and last state)."""
    if isinstance(value, br.GameState | br.Match | br.GameRecord | br.MatchRecord):
        return True
    if depth and isinstance(value, tuple | list):
        return any(_holds_hidden(v, depth - 1) for v in value)
    return False


def _state_frames(error: BaseException) -> list[str]:
    """The library frames in ``error``'s traceback (and its cause's) that hold hidden cards."""
    found = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        tb = current.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_filename.startswith(_LIBRARY):
                found += [
                    f"{frame.f_code.co_name}: {name}"
                    for name, value in frame.f_locals.items()
                    if _holds_hidden(value)
                ]
            tb = tb.tb_next
        todo += [current.__cause__, current.__context__]
    return found


def _raised(call: Callable[..., object], *args: object, **kwargs: object) -> BaseException:
    try:
        call(*args, **kwargs)
    except Exception as error:
        return error
    pytest.fail("nothing was raised")


def test_parse_action_of_text_that_is_no_action_keeps_no_frame_with_the_state() -> None:
    # A server reads a seat's text with parse_action(text, state, player=seat): text that is no
    # action raised a NotationError whose traceback held parse_action's frame, and the state.
    state = br.new_game(IT, 4, seed=1)
    for text in ("fly", "add 5 ZZ", "x" * 600, "discard 5S\x1b"):
        for player in (None, 0, 1):
            error = _raised(br.parse_action, text, state, player=player)
            assert isinstance(error, br.NotationError)
            assert _state_frames(error) == []


def test_game_record_append_refusals_keep_no_frame_with_the_state() -> None:
    # A server that records its table move by move (GameRecord.append): an illegal move raised
    # the IllegalAction through append's frame, which held the last state and the record.
    record = br.GameRecord.from_game(br.new_game(IT, 4, seed=1), ["draw"])
    for action in (br.DrawFromStock(), "fly", "discard 5S 6S", br.Discard("JK")):
        error = _raised(record.append, action)
        assert isinstance(error, br.IllegalAction | br.NotationError)
        assert _state_frames(error) == []


def test_replay_errors_keep_no_frame_with_the_states() -> None:
    # ReplayError and its cause held the replay's frames: every state played, and the record.
    start = br.new_game(IT, 4, seed=1)
    record = br.GameRecord(rules=IT, players=4, deck=br.GameRecord.from_game(start, []).deck)
    bad = attrs.evolve(record, actions=("draw", "draw"))
    own = br.score(start)
    scored = attrs.evolve(record, scores=(attrs.evolve(own[0], table=own[0].table + 5), own[1]))
    match = br.MatchRecord(rules=IT, players=4, seed=1, actions=("draw", "take"))
    calls = [
        lambda: br.replay(bad),
        lambda: br.replay(scored),
        lambda: br.replay(match),
        lambda: br.GameRecord.from_game(start, ["draw", "draw"]),
        lambda: br.MatchRecord.from_match(br.new_match(IT, 4, seed=1), ["draw", "take"]),
        lambda: match.hands(),
    ]
    for call in calls:
        error = _raised(call)
        assert isinstance(error, br.ReplayError)
        assert _state_frames(error) == []
    cause = _raised(calls[0]).__cause__
    assert isinstance(cause, br.IllegalAction) and cause.code is br.ErrorCode.WRONG_PHASE


# --- item 4: only IllegalAction escapes apply, whatever it is given -------------------------------


def _forged_cards() -> list[Card]:
    """Cards made past ``Card``'s constructor, with ids no card has."""
    return [int.__new__(Card, n) for n in (53, 99, -54, 10**30)]


def _forced(action: br.Action, **fields: object) -> br.Action:
    for name, value in fields.items():
        object.__setattr__(action, name, value)
    return action


@pytest.mark.parametrize("rules", [IT, F], ids=lambda r: r.name)
def test_a_discard_of_a_forged_card_is_refused_not_an_index_error(rules: br.RuleSet) -> None:
    # The unlisted shortcut (a discard decided by the checker alone) raised IndexError for a
    # Card of id 99, where the generator's path refused it: the two paths disagreed.
    for forged in _forged_cards():
        for listed in (False, True):
            state = br.apply(br.new_game(rules, 2, seed=5), br.DrawFromStock())
            if listed:
                br.legal_actions(state)
            before = br.to_json(state)
            action = _forced(br.Discard("5S"), card=forged)
            error = _raised(br.apply, state, action)
            assert type(error) is br.IllegalAction, error
            assert error.code is br.ErrorCode.MALFORMED_ACTION
            refusal = br.why_illegal(state, action)
            assert refusal is not None and refusal.code is br.ErrorCode.MALFORMED_ACTION
            assert not br.is_legal(state, action)
            assert br.to_json(state) == before


def test_constructors_refuse_forged_cards_with_their_documented_errors() -> None:
    # Discard, NewMeld, Meld.from_cards and new_game took a Card of id 99 and failed later with
    # an IndexError (or let apply fail with one).
    for forged in _forged_cards():
        with pytest.raises(br.MalformedAction):
            br.Discard(forged)
        with pytest.raises(br.MalformedAction):
            br.NewMeld((Card("5S"), Card("6S"), forged))
        with pytest.raises(ValueError, match="not a card"):
            br.Meld.from_cards([Card("5S"), Card("6S"), forged], IT)
        with pytest.raises(ValueError, match="not a card"):
            br.new_game(IT, 2, deck=[forged, *br.DECK[1:]])


# --- item 3: what to_json writes, from_json reads -------------------------------------------------


def test_a_rule_set_named_with_a_lone_surrogate_is_refused_not_written() -> None:
    # RuleSet took name="x\ud800": to_json wrote every document of it, and from_json refused
    # each one ("not Unicode text").
    with pytest.raises(br.InvalidRules, match="Unicode text"):
        attrs.evolve(IT, name="x\ud800")
    with pytest.raises(br.InvalidRules, match="Unicode text"):
        attrs.evolve(IT, title="\udfff")
    rules = attrs.evolve(IT, name="house \U0001f0cf", title="\x01" * 200)
    state = br.new_game(rules, 2, seed=1)
    assert br.from_json(br.to_json(state)) == state


@pytest.mark.parametrize(
    "seed",
    [2**256, -(2**256), 2**256 + 1, -(2**300), 10**5000],
    ids=["2**256", "-2**256", "2**256+1", "-2**300", "5001-digits"],
)
def test_a_match_seed_reads_back_or_is_refused_when_the_match_is_made(seed: int) -> None:
    # new_match took any int: a seed over 2**256 was written by to_json and refused by
    # from_json, and one of 5,000 digits failed with Python's own int-to-text error.
    if abs(seed) <= 2**256:
        match = br.new_match(IT, 2, seed=seed)
        record = br.MatchRecord(rules=IT, players=2, seed=seed)
        assert br.from_json(br.to_json(match)) == match
        assert br.from_json(br.to_json(record)) == record
        return
    with pytest.raises(ValueError, match="seed must be an int from"):
        br.new_match(IT, 2, seed=seed)
    with pytest.raises(br.InvalidRecord, match="seed must be an int from"):
        br.MatchRecord(rules=IT, players=2, seed=seed)


# --- R24: validate refuses idle counts no game reaches --------------------------------------------


def _exchange(state: br.GameState) -> br.GameState:
    state = br.apply(state, br.TakeDiscardPile())
    return br.apply(state, next(a for a in br.legal_actions(state) if type(a) is br.Discard))


def _draw_discard(state: br.GameState) -> br.GameState:
    state = br.apply(state, br.DrawFromStock())
    return br.apply(state, next(a for a in br.legal_actions(state) if type(a) is br.Discard))


def test_R24_validate_refuses_an_idle_count_after_a_turn_that_left_a_pile() -> None:
    # An idle turn takes the whole pile and discards one card: in the next turn's draw phase the
    # pile holds exactly one. A count of 5 over a pile of 7 passed validate, and decoded.
    state = br.new_game(IT, 2, seed=1)
    for _ in range(6):
        state = _draw_discard(state)
    assert len(state.discard_pile) == 7 and state.idle_turns == 0
    forged = attrs.evolve(state, idle_turns=5)
    with pytest.raises(br.InvalidState, match="R24"):
        br.validate(forged)
    with pytest.raises(br.DecodeError, match="R24"):
        br.from_json(br.to_json(forged))
    with pytest.raises(br.DecodeError):
        br.from_json(br.to_json(br.view(forged, 1)))
    # What play reaches still validates: idle turns over a one-card pile.
    played = _exchange(_exchange(state))
    assert played.idle_turns == 2 and len(played.discard_pile) == 1
    br.validate(played)
    br.validate(br.determinize(br.view(played, 1), random.Random(3)))


def test_R24_validate_refuses_a_hand_ended_on_an_idle_turn_but_by_stalemate() -> None:
    # The stock runs out at the discard of a turn that drew, so an exhausted-stock ending has
    # an idle count of 0; one of 3 passed validate.
    state = br.new_game(IT, 2, seed=2)
    while not state.is_over:
        state = _draw_discard(state)
    assert state.outcome == br.Outcome(br.Termination.STOCK_EXHAUSTED)
    with pytest.raises(br.InvalidState, match="R24"):
        br.validate(attrs.evolve(state, idle_turns=3))
    # A stalemate ends over the one card discarded.
    stalled = br.new_game(IT, 2, seed=3)
    while not stalled.is_over:
        stalled = _exchange(stalled)
    br.validate(stalled)
    assert stalled.outcome == br.Outcome(br.Termination.STALEMATE)
    with pytest.raises(br.InvalidState, match="R24"):
        br.validate(
            attrs.evolve(
                stalled,
                discard_pile=(*stalled.discard_pile, *stalled.stock[:1]),
                stock=stalled.stock[1:],
            )
        )


# --- item 4: hostile objects get the documented error, nothing of their own -----------------------


class Boom(Exception):
    """The hostile objects' own exception: it must never escape the library."""


class RaisingStr(str):
    """A str whose every method the library might call raises."""

    def __len__(self) -> int:
        raise Boom

    def __iter__(self) -> Iterator[str]:
        raise Boom

    def __getitem__(self, index: object) -> str:
        raise Boom

    def __hash__(self) -> int:
        raise Boom

    def __eq__(self, other: object) -> bool:
        raise Boom

    def strip(self, chars: str | None = None) -> str:
        raise Boom

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        raise Boom

    def split(self, sep: str | None = None, maxsplit: int = -1) -> list[str]:
        raise Boom


class LyingClass:
    """An object whose ``__class__`` raises: ``isinstance`` asks it, ``type`` does not."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise Boom

    def __repr__(self) -> str:
        raise Boom


class RaisingIterable:
    def __iter__(self) -> Iterator[object]:
        raise Boom

    def __len__(self) -> int:
        return 108


def test_decoders_refuse_hostile_objects_with_a_decode_error() -> None:
    # from_json documents that nothing but DecodeError escapes: a str subclass whose methods
    # raise, and an object whose __class__ raises, let their own error through.
    document = br.to_json(br.new_game(IT, 2, seed=1))
    assert br.from_json(RaisingStr(document)) == br.new_game(IT, 2, seed=1)
    for hostile in (LyingClass(), RaisingIterable()):
        with pytest.raises(br.DecodeError):
            br.from_json(hostile)  # type: ignore[arg-type]
        with pytest.raises(br.DecodeError):
            br.from_data(hostile)


def test_constructors_and_entry_points_refuse_hostile_objects_with_their_errors() -> None:
    # Each let the hostile object's own error (Boom), or a TypeError, through.
    state = br.new_game(IT, 2, seed=1)
    assert br.Discard(RaisingStr("5S")) == br.Discard("5S")
    assert br.NewMeld(RaisingStr("5S 6S 7S")) == br.NewMeld("5S 6S 7S")
    assert br.new_game(IT, 2, seed=RaisingStr("x")) == br.new_game(IT, 2, seed="x")
    hostile = LyingClass()
    for make in (br.Discard, br.NewMeld, br.TakeDiscardPile):
        with pytest.raises(br.MalformedAction):
            make(hostile)
    with pytest.raises(br.NotationError):
        br.parse_action(hostile, state)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no JSON format"):
        br.to_json(hostile)
    with pytest.raises(TypeError, match="GameState or a Match"):
        br.legal_actions(hostile)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"random\.Random"):
        br.determinize(br.view(state, 0), hostile)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be"):
        br.new_game(IT, 2, seed=hostile)
    for deck in (hostile, RaisingIterable()):
        with pytest.raises(ValueError, match="deck"):
            br.new_game(IT, 2, deck=deck)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="decks"):
            br.new_match(IT, 2, decks=deck)  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["actions", "names", "meta"], ids=["actions", "names", "meta"])
def test_records_refuse_what_is_no_sequence_with_invalid_record(field: str) -> None:
    # GameRecord.from_game(start, 5) and names=5 raised TypeError (from History(5), tuple(5)),
    # and an iterable or a __class__ that raises let its own error through: the documented
    # error is InvalidRecord.
    start = br.new_game(IT, 2, seed=1)
    match = br.new_match(IT, 2, seed=1)
    for hostile in (5, 2.5, LyingClass(), RaisingIterable(), [LyingClass()]):
        arguments: dict[str, object] = {"actions": []}
        arguments[field] = hostile
        actions = arguments.pop("actions")
        with pytest.raises(br.InvalidRecord):
            br.GameRecord.from_game(start, actions, **arguments)  # type: ignore[arg-type]
        with pytest.raises(br.InvalidRecord):
            br.MatchRecord.from_match(match, actions, **arguments)  # type: ignore[arg-type]
    record = br.GameRecord.from_game(start, [])
    with pytest.raises(br.IllegalAction):
        record.append(LyingClass())  # type: ignore[arg-type]


# --- items 8-12: the command line --------------------------------------------------------------


def _cli(*args: str, stdin: str = "") -> tuple[int, str, str]:
    """The command run in this process: its exit status, standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exit:
                status = exit.code if isinstance(exit.code, int) else 1
    finally:
        sys.stdin = old_stdin
    return status, out.getvalue(), err.getvalue()


def test_play_bots_draw_from_no_stream_the_deal_was_shuffled_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bots' random.Random(seed) was the very stream new_game(seed) shuffled the deck with:
    # each random choice a bot made gave away bits of the deal's order to the person watching,
    # and the Monte Carlo bot's sampled deals leant towards the real one.
    from buraco_rules.bots import RandomBot

    states: list[object] = []
    choose = RandomBot.choose

    def spy(self: RandomBot, seen: br.PlayerView, rng: random.Random) -> br.Action:
        states.append(rng.getstate())
        return choose(self, seen, rng)

    monkeypatch.setattr(RandomBot, "choose", spy)
    for seed in ("7", "123456789"):
        states.clear()
        status, _, _ = _cli("play", "--seed", seed, "--seat", "1", "--bots", "random", stdin="q\n")
        assert status == 0 and states
        assert states[0] != random.Random(int(seed)).getstate()
    # and a given seed still replays the whole hand: the bots choose alike
    first = _cli("play", "--seed", "7", "--seat", "1", "--bots", "random", "--ascii", stdin="q\n")
    again = _cli("play", "--seed", "7", "--seat", "1", "--bots", "random", "--ascii", stdin="q\n")
    assert first == again


def test_match_and_simulate_say_1_hand() -> None:
    # "no winner after 1 hands", "1 hands, seed 1".
    status, out, _ = _cli("match", "--max-hands", "1", "--variant", "canasta-stbl")
    last = out.splitlines()[-1]
    assert status == 0 and "after 1 hand" in last and "after 1 hands" not in last
    status, out, _ = _cli("simulate", "--games", "1", "--variant", "canasta-stbl")
    assert status == 0 and out.splitlines()[0].endswith(" players, 1 hand, seed 1")


def test_play_escapes_the_record_path_it_cannot_write(tmp_path: Path) -> None:
    # The path is the user's input too: printed raw, its ESC reached the terminal.
    target = str(tmp_path / "missing\x1b[2J" / "hand.json")
    status, out, err = _cli("play", "--seed", "1", "--ascii", "--record", target, stdin="1\n" * 400)
    assert status == 1 and "cannot write" in err
    assert "\x1b" not in err and "\x1b" not in out


def test_a_missing_field_of_a_document_says_missing() -> None:
    # Item 13 asks every missing key to say so; a missing field said only "needs the field".
    for text, field in (
        ('{"format":1,"type":"record"}', "'rules'"),
        ('{"format":1,"type":"record","rules":"italian","players":2}', "'deck'"),
        ('{"format":1,"type":"view","rules":"italian"}', "'players'"),
    ):
        with pytest.raises(br.DecodeError, match=f"the field {field}, which is missing"):
            br.from_json(text)


def test_replay_seat_and_long_numbers_name_the_real_range(tmp_path: Path) -> None:
    # "--seat must be a seat of the record's 4 players" named no seat; a number of 50 digits
    # was said to be "not a whole number", which it is: the limit is its length.
    record = br.GameRecord.from_game(br.new_game(IT, 4, seed=1), [])
    path = tmp_path / "four.json"
    path.write_text(br.to_json(record), encoding="utf-8")
    status, _, err = _cli("replay", str(path), "--seat", "4")
    assert status == 2 and "--seat must be 0, 1, 2 or 3 with the record's 4 players, not 4" in err
    status, _, err = _cli("match", "--seed", "9" * 50)
    assert status == 2 and "is not a whole number of at most 40 characters" in err


def test_play_answers_bytes_that_are_not_text_without_a_traceback() -> None:
    # With a strict UTF-8 input (PYTHONIOENCODING=utf-8, or a UTF-8 locale other than C), a line
    # of bytes that are not UTF-8 ended play in a UnicodeDecodeError traceback.
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(br.__file__).parents[1]), env.get("PYTHONPATH", "")]
    )
    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "play", "--seed", "1", "--ascii"],
        input=b"\xff\xfe\x1b\nq\n", capture_output=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and b"Traceback" not in done.stderr and done.stderr == b""
    assert b"Bye." in done.stdout and b"\x1b" not in done.stdout

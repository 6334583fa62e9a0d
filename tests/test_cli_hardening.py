"""The command line and the API edges of issue 15 (items 8-14), one test or more per case: each
fails on the code before the fix."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tomllib
import tracemalloc
from pathlib import Path

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.cli import main

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "buraco_rules"]
ESCAPES = [chr(c) for c in range(0x20) if c != 0x0A] + ["\x7f", "\x9b", "\u202e", "\u2066"]


def cli(*args: str, stdin: str = "") -> tuple[int, str, str]:
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


def command(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command in a subprocess, for what only real streams show (bytes, exit status)."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="100")
    return subprocess.run(
        [*COMMAND, *args], input=stdin, capture_output=True, text=True, encoding="utf-8",
        timeout=120, env=env, check=False,
    )  # fmt: skip


# --- item 8: play's seed ---------------------------------------------------------------------


def test_play_prints_no_seed_it_was_not_given() -> None:
    status, out, _ = cli("play", stdin="q\n")
    assert status == 0
    assert "seed" not in out.lower()
    assert out.splitlines()[0] == "Canasta STBL, 2 players. You are seat 0."


def test_play_prints_the_seed_it_was_given() -> None:
    status, out, _ = cli("play", "--seed", "3", stdin="q\n")
    assert status == 0 and out.splitlines()[0] == "Canasta STBL, 2 players, seed 3. You are seat 0."


def test_play_deals_from_secrets_and_keeps_the_seed_in_the_record_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from buraco_rules.cli import play_command

    drawn: list[int] = []

    def randbits(bits: int) -> int:
        drawn.append(bits)
        return 2**127 + 12345

    monkeypatch.setattr(play_command.secrets, "randbits", randbits)
    record_file = tmp_path / "hand.json"
    status, out, _ = cli("play", "--ascii", "--record", str(record_file), stdin="1\n" * 400)
    assert status == 0 and drawn == [128]
    assert str(2**127 + 12345) not in out
    record = br.from_json(record_file.read_text(encoding="utf-8"), expected=br.GameRecord)
    assert record.meta["seed"] == str(2**127 + 12345)
    assert br.replay(record)[0] == br.new_game(variants.CANASTA_STBL, 2, seed=2**127 + 12345)


# --- item 10: play's input, exit status, messages, --bots --------------------------------------


@pytest.mark.parametrize(
    "text",
    ["²", "٣", "9" * 5000, "0", "-1", "1e3", "\x00", "\x1b[2J", "take take", "add 9999 5S", "🂡"],
)
def test_play_answers_any_text_without_a_traceback(text: str) -> None:
    status, out, err = cli("play", "--seed", "1", "--ascii", stdin=f"{text}\nq\n")
    assert status == 0 and "Bye." in out and err == ""
    prompt_answer = out.split("> ", 1)[1].splitlines()[0]
    assert prompt_answer and "\x1b" not in out and "\x00" not in out
    assert len(prompt_answer) < 300  # the answer quotes a bounded part of the text


def test_play_quits_with_status_0_on_q_and_on_end_of_input() -> None:
    for stdin in ("q\n", "quit\n", ""):
        result = command("play", "--seed", "1", stdin=stdin)
        assert result.returncode == 0 and "Bye." in result.stdout, stdin


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--seat", "5"), "--seat must be 0 or 1 with 2 players, not 5"),
        (
            ("--variant", "italian", "--players", "4", "--seat", "4"),
            "--seat must be 0, 1, 2 or 3 with 4 players, not 4",
        ),
        (("--seat", "-1"), "--seat must be 0 or 1 with 2 players, not -1"),
        (("--bots", "greedy,random,greedy"), "--bots takes 1 or 2 bots (one per seat) with 2"),
        (("--bots", "greedy,,random"), "bot 2 of 3 has no name"),
        (("--seat", "9" * 5000), "is not a whole number"),
    ],
)
def test_play_names_the_real_range(args: tuple[str, ...], message: str) -> None:
    status, _, err = cli("play", *args)
    assert status == 2 and message in err and len(err) < 1000


def test_play_takes_a_bot_per_team_or_per_seat(tmp_path: Path) -> None:
    record_file = tmp_path / "hand.json"
    status, out, _ = cli(
        "play", "--variant", "buraco-fechado", "--seat", "1", "--bots", "random,greedy",
        "--seed", "5", "--ascii", "--record", str(record_file), stdin="1\n" * 3000,
    )  # fmt: skip
    assert status == 0, out[-500:]
    record = br.from_json(record_file.read_text(encoding="utf-8"), expected=br.GameRecord)
    assert record.names == ("random", "you", "random", "greedy")  # team 0 random, team 1 greedy


# --- item 9: replay of a hostile record --------------------------------------------------------


def hostile_record() -> br.GameRecord:
    title = "\x1b]0;owned\x07\x1b[2J\x1b[H\u202eFake title"
    rules = attrs.evolve(variants.CANASTA_STBL, name="house", title=title)
    start = br.new_game(rules, 2, seed=3)
    return br.GameRecord.from_game(
        start,
        ["draw"],
        names=("\x1b[1A\x1b[2K\rrecord verified \u2713\n", "B\x07ob\u2066\u202a"),
        meta={"\x1b[31mevent": "club\x9b2J\x7f night", "ok": "plain"},
    )


def test_replay_escapes_every_control_character_from_the_record(tmp_path: Path) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(br.to_json(hostile_record()), encoding="utf-8")
    result = command("replay", str(path), "--ascii")
    assert result.returncode == 0, result.stderr
    for char in ESCAPES:
        assert char not in result.stdout, repr(char)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("\\x1b]0;owned\\x07\\x1b[2J\\x1b[H\\u202eFake title, 2 players: ")
    assert "\\x1b[1A\\x1b[2K\\rrecord verified \u2713\\n" in lines[0]
    assert "  \\x1b[31mevent: club\\x9b2J\\x7f night" in lines
    assert "  ok: plain" in lines


def test_replay_refuses_a_large_file_before_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with open(path, "wb") as file:
        file.truncate(60_000_000)  # sparse: 60 MB that cost no disk
    tracemalloc.start()
    try:
        status, _, err = cli("replay", str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 2
    assert "too large to be a record: it is 60,000,000 bytes" in err
    assert peak < 10_000_000  # the file was not read into memory


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_replay_bounds_the_read_of_a_file_of_unknown_size() -> None:
    from buraco_rules.cli.replay_command import MAX_FILE_BYTES, read_bounded

    with pytest.raises(ValueError, match=f"over the limit of {MAX_FILE_BYTES:,} bytes"):
        read_bounded("/dev/zero")  # its size is 0 to stat, its content endless


# --- item 11: bench's arguments and help -------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--seconds", "0"), "--seconds: '0' must be a number above 0"),
        (("--seconds", "-1"), "--seconds: '-1' must be a number above 0"),
        (("--seconds", "nan"), "must be a number above 0"),
        (("--seconds", "inf"), "must be a number above 0"),
        (("--warmup", "-1"), "--warmup: '-1' must be 0 or more"),
        (("--variant", "canasta-stbl", "--players", "4"), "Canasta STBL is played by 2 players"),
    ],
)
def test_bench_refuses_bad_arguments_like_simulate(args: tuple[str, ...], message: str) -> None:
    status, out, err = cli("bench", *args)
    assert status == 2 and message in err and out == ""


def test_bench_help_reads_like_the_other_subcommands() -> None:
    status, out, _ = cli("bench", "--help")
    assert status == 0
    assert out.startswith("usage: buraco-rules bench ")
    description = out.split("\n\n")[1]
    assert description.replace("\n", " ").startswith("Benchmark the engine:")
    assert len(description.splitlines()) <= 2 and "``" not in out and ":func:" not in out
    assert "about 3 minutes" in out
    options = out.split("options:\n", 1)[1].split("\n\n")[0]
    for option in ("--variant", "--players", "--seconds", "--seed", "--warmup", "--json"):
        block = options.split(option, 1)[1].split("\n  --", 1)[0]
        assert "default" in block or option == "--memory", option


# --- item 12: simulate's --bots, Monte Carlo budget and figures --------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--players", "2", "--bots", "greedy,random,greedy,random"),
            "--bots takes 2 bots (one per seat) with 2 players, not 4",
        ),
        (("--bots", "greedy,random,greedy"), "--bots takes 2 bots (one per team) or 4 (one per"),
        (("--bots", "greedy,,random"), "bot 2 of 3 has no name"),
        (("--bots", ","), "no bot named"),
        (("--bots", "greedy, ,random,greedy"), "bot 2 of 4 has no name"),
        (("--playouts", "0"), "--playouts: '0' must be 1 or more"),
        (("--seconds-per-move", "0"), "--seconds-per-move: '0' must be a number above 0"),
        (("--playouts", "3"), "set the search bots (montecarlo, ismcts) named without a budget"),
    ],
)
def test_simulate_refuses_bad_bots_clearly(args: tuple[str, ...], message: str) -> None:
    status, _, err = cli("simulate", "--games", "1", *args)
    assert status == 2 and message in err


def test_simulate_gives_the_montecarlo_bot_its_budget() -> None:
    import argparse

    from buraco_rules.bots import MonteCarloBot
    from buraco_rules.cli.options import montecarlo_bots

    parser = argparse.ArgumentParser()

    def bots(playouts: int | None, seconds: float | None) -> tuple[object, ...]:
        args = argparse.Namespace(
            bots=("mc", "random"), playouts=playouts, seconds_per_move=seconds
        )
        return montecarlo_bots(parser, args)

    assert bots(None, None) == ("mc", "random")
    assert bots(2, None) == (MonteCarloBot(playouts=2), "random")
    assert bots(None, 0.5) == (MonteCarloBot(playouts=None, seconds=0.5), "random")
    assert bots(3, 0.5) == (MonteCarloBot(playouts=3, seconds=0.5), "random")
    status, out, err = cli(
        "simulate", "--variant", "canasta-stbl", "--games", "1", "--bots", "montecarlo,random",
        "--playouts", "1", "--json",
    )  # fmt: skip
    assert status == 0, err
    assert json.loads(out)["games"] == 1


def test_simulate_shows_slow_rates_with_enough_digits() -> None:
    from buraco_rules.bots.simulate import simulate
    from buraco_rules.cli.simulate_command import format_table

    result = attrs.evolve(simulate("canasta-stbl", games=1, seed=2), seconds=50.0)
    table = format_table(result)
    assert "0.0200 hands/s" in table and " 0.0 hands/s" not in table
    assert "50.0 s" in table


# --- item 13: decode messages ------------------------------------------------------------------


def test_replay_of_a_document_without_format_says_it_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a":1}', encoding="utf-8")
    status, _, err = cli("replay", str(path))
    assert status == 2 and "the key 'format' is missing" in err and "null" not in err
    with pytest.raises(br.DecodeError, match="the key 'type' is missing"):
        br.from_json('{"format": 1}')


def test_a_decode_message_does_not_repeat_its_prefix() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    data = br.to_data(br.view(state, 0))
    data["stock_size"] += 1
    with pytest.raises(br.DecodeError) as info:
        br.from_data(data)
    assert str(info.value).count("no game shows this view") == 1, str(info.value)


# --- item 14: small API edges ------------------------------------------------------------------


def test_team_score_repr_shows_its_total() -> None:
    us, _ = br.score(br.new_game(variants.ITALIAN, 2, seed=1))
    assert repr(us) == (
        f"TeamScore(table=0, canastas=0, going_out=0, hands={us.hands}, extra_pile=100, "
        f"total={us.total})"
    )
    assert str(us) == repr(us) and us.total == -us.hands - 100


def test_replay_prints_penalties_with_team_scores_sign(tmp_path: Path) -> None:
    record = br.GameRecord.from_game(br.new_game(variants.CANASTA_STBL, 2, seed=3), ["draw"])
    path = ROOT / "tests" / "data" / "canasta-stbl-2p.json"
    for text in (br.to_json(record), path.read_text(encoding="utf-8")):
        states = br.replay(br.from_json(text, expected=br.GameRecord))
        scores = br.score(states[-1])
        doc = tmp_path / "record.json"
        doc.write_text(text, encoding="utf-8")
        status, out, _ = cli("replay", str(doc), "--ascii")
        assert status == 0
        rows = {line[:22].strip(): line[22:].split() for line in out.splitlines()[-6:]}
        assert rows["less cards in hand"] == [str(s.hands) for s in scores]
        assert rows["less extra pile"] == [str(s.extra_pile) for s in scores]
        assert not any(v.startswith("-") for v in rows["less cards in hand"])


def test_from_json_and_from_data_take_the_expected_class() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    text = br.to_json(state)
    decoded: br.GameState = br.from_json(text, expected=br.GameState)
    assert decoded == state and br.from_json(text) == state  # without expected: as before
    assert br.from_data(br.to_data(state), expected=br.GameState) == state
    with pytest.raises(br.DecodeError, match="a state document where a GameRecord was expected"):
        br.from_json(text, expected=br.GameRecord)
    with pytest.raises(br.DecodeError, match="an action document where a GameState"):
        br.from_json(br.to_json(br.DrawFromStock()), expected=br.GameState)
    assert br.from_json(br.to_json(br.DrawFromStock()), expected=br.DrawFromStock) is not None
    with pytest.raises(TypeError, match="expected must be a class"):
        br.from_json(text, expected="state")  # type: ignore[call-overload]


def test_the_dev_extra_holds_what_mypy_strict_src_imports() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    dev = " ".join(project["project"]["optional-dependencies"]["dev"])
    assert "rich" in dev and "mypy" in dev


def test_tables_prints_a_path_and_table_ids_without_their_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``buraco-rules tables`` prints the path it was given and the ids a hand-edited database
    holds: escaped, so that neither can drive the operator's terminal."""
    import sqlite3

    pytest.importorskip("starlette")
    from buraco_rules.server.store import TableStore

    assert main(["tables", "--db", str(tmp_path / "no\x1b[2Jsuch.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b" in err
    path = tmp_path / "edited.sqlite"
    TableStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO tables (id, created, start, seats) VALUES (?, 0, 'x', '[]')",
            ("evil\x1b]0;owned\x07",),
        )
    assert main(["tables", "--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b" in out

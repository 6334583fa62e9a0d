"""The ``buraco-rules`` command, end to end in subprocesses: every subcommand, bad arguments
(a message and exit status 2, never a traceback) and bad moves in ``play``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
COMMAND = [sys.executable, "-m", "buraco_rules"]


def run(
    *args: str, stdin: str | None = None, timeout: float = 120, encoding: str = "utf-8"
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING=encoding, COLUMNS="100")
    return subprocess.run(
        [*COMMAND, *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding=encoding,
        timeout=timeout,
        env=env,
        check=False,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def test_simulate_json_has_the_promised_keys() -> None:
    out = ok(run("simulate", "--variant", "canasta-stbl", "--games", "4", "--seed", "3", "--json"))
    summary = json.loads(out)
    for key in ("games", "wins", "ties", "bots", "variant", "players", "games_per_s"):
        assert key in summary
    assert summary["games"] == 4 and summary["variant"] == "canasta-stbl"
    assert summary["players"] == 2 and summary["bots"] == ["greedy", "random"]
    assert sum(summary["wins"]) + summary["ties"] == 4


def test_simulate_table_and_no_progress_bar_off_a_terminal() -> None:
    result = run("simulate", "--variant", "italian", "--players", "4", "--games", "4",
                 "--bots", "greedy,random,random,greedy", "--workers", "2")  # fmt: skip
    out = ok(result)
    assert result.stderr == ""  # no progress bar: stderr is not a terminal
    assert "Italian Buraco, 4 players, 4 hands, seed 1" in out
    assert "greedy+random" in out and "95 % CI" in out and "hands/s (2 workers)" in out
    assert "mean turns per hand" in out and "stock exhausted" in out


def test_simulate_defaults_need_no_arguments() -> None:
    out = ok(run("simulate", "--games", "2"))
    assert out.startswith("Buraco Fechado STBL, 4 players, 2 hands, seed 1")


def test_same_seed_same_json_whatever_the_workers() -> None:
    args = ("simulate", "--variant", "canasta-stbl", "--games", "6", "--seed", "9", "--json")
    one = json.loads(ok(run(*args)))
    two = json.loads(ok(run(*args, "--workers", "2")))
    for key in ("wins", "ties", "teams", "mean_turns", "endings"):
        assert one[key] == two[key]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("simulate", "--games", "0"), "--games: '0' must be 1 or more"),
        (("simulate", "--games", "many"), "'many' is not a whole number"),
        (("simulate", "--variant", "poker"), "unknown variant 'poker'"),
        (("simulate", "--bots", "greedy,genius"), "unknown bot 'genius'"),
        (("simulate", "--bots", "greedy,random,greedy"), "--bots takes 2 bots"),
        (("simulate", "--variant", "canasta-stbl", "--players", "4"), "played by 2 players"),
        (("simulate", "--workers", "2", "--dask-scheduler", "tcp://x:1"), "not both"),
        (("play", "--seat", "5"), "--seat must be 0 or 1 with 2 players, not 5"),
        (("play", "--bots", "genius"), "unknown bot 'genius'"),
        (("match", "--bots", "greedy,random,greedy"), "--bots takes 2 bots (one per team)"),
        (("match", "--max-hands", "0"), "'0' must be 1 or more"),
        (("replay",), "the following arguments are required: FILE"),
        (("bench", "--variant", "poker"), "invalid choice: 'poker'"),
        (("dance",), "invalid choice: 'dance'"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_no_subcommand_prints_help() -> None:
    result = run()
    assert result.returncode == 2 and "simulate" in result.stdout and "play" in result.stdout


def test_bench_runs_under_the_command() -> None:
    out = ok(run("bench", "--variant", "canasta-stbl", "--seconds", "0.05", "--warmup", "0",
                 "--json"))  # fmt: skip
    figures = json.loads(out.splitlines()[0])
    assert figures["variant"] == "canasta-stbl" and figures["playouts_per_s"] > 0


def test_play_a_hand_through_stdin_with_wrong_moves_on_the_way(tmp_path: Path) -> None:
    # Wrong moves first: a number off the list, nonsense, a discard before drawing, a card not
    # held; then the move typed, and the first listed move from then on.
    moves = "99\nnonsense\ndiscard KH\ndraw\ndiscard KH\n" + "1\n" * 400
    record = tmp_path / "hand.json"
    out = ok(run("play", "--variant", "canasta-stbl", "--seed", "3", "--ascii",
                 "--record", str(record), stdin=moves))  # fmt: skip
    assert "choose a move from 1 to 1" in out
    assert "not an action: 'nonsense'" in out
    assert "draw first: from the stock or the discard pile (R4)" in out  # the engine's message
    assert "K♥ is not in your hand" in out
    assert "Your hand (11 cards):" in out and "Stock:" in out and "Melds of team 1" in out
    assert "S  6S 9S JS\n  H  4H 5H 8H" in out  # sorted and grouped by suit, letters with --ascii
    assert "seat 1: draw" in out  # the opponent's moves are shown
    assert "The hand is over." in out and "total" in out and "canasta bonuses" in out
    # The recorded hand replays move by move to the same score.
    replayed = ok(run("replay", str(record)))
    assert "   1. you (seat 0): draw" in replayed
    assert replayed.splitlines()[-1] == next(
        line for line in reversed(out.splitlines()) if line.startswith("total")
    )


def test_replay_a_stored_record() -> None:
    out = ok(run("replay", str(DATA / "canasta-stbl-2p.json"), "--ascii"))
    assert out.startswith("Canasta STBL, 2 players: North, South")
    assert (
        "   1. North (seat 0): draw" in out and "   4. South (seat 1): take meld 2C AD QD KD" in out
    )
    assert "cards on the table" in out and out.splitlines()[-1].startswith("total")


def test_replay_refuses_what_is_not_a_record(tmp_path: Path) -> None:
    missing = run("replay", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and "No such file" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": 1, "type": "record"', encoding="utf-8")
    result = run("replay", str(broken))
    assert result.returncode == 2 and "is not a valid record" in result.stderr
    assert "Traceback" not in result.stderr
    # A record whose third move is changed no longer replays: the reason is given.
    text = (DATA / "canasta-stbl-2p.json").read_text(encoding="utf-8")
    tampered = tmp_path / "tampered.json"
    tampered.write_text(text.replace('"discard AD"', '"discard 5H"', 1), encoding="utf-8")
    result = run("replay", str(tampered))
    assert result.returncode == 2 and "does not replay" in result.stderr
    assert "Traceback" not in result.stderr


def test_match_plays_hand_by_hand_to_the_target() -> None:
    out = ok(run("match", "--variant", "italian", "--players", "2", "--seed", "1"))
    lines = out.splitlines()
    assert (
        lines[0] == "Italian Buraco match to 2005, 2 players, seed 1: team 0 greedy, team 1 greedy"
    )
    hands = [line for line in lines if line[:4].strip().isdigit()]
    assert len(hands) >= 2
    assert "wins the match" in lines[-1] and f"after {len(hands)} hands" in lines[-1]


def test_play_shows_suit_symbols_unless_ascii_and_quits_on_end_of_input() -> None:
    result = run("play", "--variant", "italian", "--players", "2", "--seed", "1", stdin="")
    assert result.returncode == 0 and "Bye." in result.stdout
    assert any(symbol in result.stdout for symbol in "♠♥♦♣")


def test_progress_bar_without_rich_is_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util
    import io

    from buraco_rules.cli import executors

    real = importlib.util.find_spec
    monkeypatch.setattr(
        executors.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "rich" else real(name, *a),
    )
    stream = io.StringIO()
    with executors.progress_bar(stream, enabled=True) as progress:
        assert progress is not None
        progress(3, 4)
    assert f"[{'#' * 22}{'.' * 8}] 3/4 hands" in stream.getvalue()
    with executors.progress_bar(stream, enabled=False) as progress:
        assert progress is None


def test_a_terminal_without_suit_symbols_gets_letters() -> None:
    result = run("play", "--seed", "1", stdin="discard KH\nq\n", encoding="ascii")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "S  8S KS" in result.stdout and "Bye." in result.stdout
    assert "draw first" in result.stdout  # the engine's message, its symbols replaced if any

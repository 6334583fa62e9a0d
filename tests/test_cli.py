"""The ``buraco-rules`` command, end to end in subprocesses: every subcommand, bad arguments
(a message and exit status 2, never a traceback) and bad moves in ``play``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

COMMAND = [sys.executable, "-m", "buraco_rules"]


def run(
    *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="100")
    return subprocess.run(
        [*COMMAND, *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
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
        (("play", "--seat", "5"), "--seat must be 0 to 1"),
        (("play", "--bots", "genius"), "unknown bot 'genius'"),
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


def test_play_a_hand_through_stdin_with_wrong_moves_on_the_way() -> None:
    # Wrong moves first: a number off the list, then nonsense; then always the first move.
    moves = "99\nnonsense\n" + "1\n" * 400
    out = ok(run("play", "--variant", "canasta-stbl", "--seed", "3", "--ascii", stdin=moves))
    assert "choose a move from 1 to 1" in out
    assert "Your hand (11 cards):" in out and "Stock:" in out and "Melds of team 1" in out
    assert "seat 1: draw" in out  # the opponent's moves are shown
    assert "The hand is over." in out and "total" in out and "canasta bonuses" in out


def test_play_shows_suit_symbols_unless_ascii_and_quits_on_end_of_input() -> None:
    result = run("play", "--variant", "italian", "--players", "2", "--seed", "1", stdin="")
    assert result.returncode == 1 and "Bye." in result.stdout
    assert any(symbol in result.stdout for symbol in "♠♥♦♣")

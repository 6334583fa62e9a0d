"""``buraco-rules db copy``: a server's SQLite store copied into a real PostgreSQL
(tests/pg_support.py), every table loading the same from both, the unfinished ones playing on;
all or nothing; bad sources and targets refused with one line and status 2."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import psycopg
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.cli import main
from buraco_rules.server.pgstore import PostgresStore
from buraco_rules.server.store import SeatRow, TableStore
from buraco_rules.server.stores import is_conflict

pytest_plugins = ("pg_support",)  # its fixtures: pg_cluster, pg_url


def sqlite_store(path: Path) -> list[str]:
    """A SQLite store with a game played on, a match, and a finished table; their ids."""
    store = TableStore(path)
    game = br.GameRecord.from_game(br.new_game(variants.ITALIAN, 2, seed=7), ())
    match = br.MatchRecord.from_match(br.new_match(variants.ITALIAN, 4, seed=8), ())

    async def play() -> None:
        humans = [SeatRow("human"), SeatRow("bot", "greedy")]
        await store.create("game", game, humans, {0: "tok-game"}, client="10.0.0.1")
        await store.create(
            "match", match, [SeatRow("human")] * 4, {s: f"tok-m{s}" for s in range(4)}
        )
        await store.create("done", game, [SeatRow("human")] * 2, {0: "tok-d0", 1: "tok-d1"})
        state = br.new_game(variants.ITALIAN, 2, seed=7)
        first = br.format_action(br.legal_actions(state)[0])
        await store.append("done", 0, state.current_player, 1, first, True)  # marked finished
        for n in range(6):
            action = br.legal_actions(state)[0]
            notation = br.format_action(action)
            await store.append("game", n, state.current_player, n + 1, notation, False)
            state = br.apply(state, action)

    asyncio.run(play())
    store.close()
    return ["game", "match", "done"]


def test_every_table_copied_loads_the_same_and_plays_on(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "buraco.sqlite"
    ids = sqlite_store(path)
    assert main(["db", "copy", "--from", str(path), "--to", pg_url]) == 0
    source, target = TableStore(path), PostgresStore(pg_url)
    try:
        for table_id in ids:
            assert target.load(table_id) == source.load(table_id)
        assert target.unfinished() == source.unfinished() == ["game", "match"]
        assert target.seat_of("tok-m3") == ("match", 3)
        game = target.load("game")
        assert game is not None
        state = game.replay()
        assert isinstance(state, br.GameState)
        action = br.legal_actions(state)[0]
        notation = br.format_action(action)

        async def next_move() -> None:
            await target.append("game", 6, state.current_player, 7, notation, False)

        asyncio.run(next_move())
        assert len(target.moves_after("game", 6)) == 1
    finally:
        source.close()
        target.close()


def test_a_second_copy_is_refused_and_writes_nothing(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "buraco.sqlite"
    sqlite_store(path)
    assert main(["db", "copy", "--from", str(path), "--to", pg_url]) == 0
    assert (
        "copied 3 tables (2 unfinished), 7 seat tokens' digests, 7 moves" in capsys.readouterr().out
    )
    assert main(["db", "copy", "--from", str(path), "--to", pg_url]) == 2
    err = capsys.readouterr().err
    assert "already holds" in err and "nothing copied" in err
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM moves").fetchone() == (7,)


def test_the_copy_never_writes_the_source(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "buraco.sqlite"
    sqlite_store(path)
    path.chmod(0o444)
    before = path.read_bytes()
    assert main(["db", "copy", "--from", str(path), "--to", pg_url]) == 0
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_bytes(b"not a database, not at all" * 100), "not a SQLite database"),
        (lambda p: sqlite3.connect(p).execute("CREATE TABLE x (y)"), "not a buraco-rules server"),
    ],
)
def test_a_source_that_is_not_a_server_database_is_refused(
    tmp_path: Path, make: object, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.sqlite"
    make(path)  # type: ignore[operator]
    target = "postgresql://nobody@127.0.0.1:1/none"  # never reached: the source is read first
    assert main(["db", "copy", "--from", str(path), "--to", target]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_target_that_is_not_reached_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "buraco.sqlite"
    sqlite_store(path)
    target = "postgresql://nobody:secret-password@127.0.0.1:1/none"
    assert main(["db", "copy", "--from", str(path), "--to", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("buraco-rules db copy: the target failed")
    assert err.count("\n") == 1 and "secret-password" not in err


def test_the_target_must_be_a_postgresql_url(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["db", "copy", "--from", str(tmp_path / "a"), "--to", str(tmp_path / "b.sqlite")])
    assert exited.value.code == 2


def test_a_copied_move_number_still_guards_the_table(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "buraco.sqlite"
    sqlite_store(path)
    assert main(["db", "copy", "--from", str(path), "--to", pg_url]) == 0
    target = PostgresStore(pg_url)
    try:

        async def replayed_move() -> BaseException | None:
            try:
                await target.append("game", 5, 0, 99, "draw", False)
            except Exception as error:
                return error
            return None

        outcome = asyncio.run(replayed_move())
        assert outcome is not None and is_conflict(outcome)
    finally:
        target.close()


def test_a_password_not_percent_encoded_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A password holding '/' unencoded spills into the URL's port and database name, which an
    error line would quote: the URL is refused before any connection, naming none of it."""
    path = tmp_path / "buraco.sqlite"
    sqlite_store(path)
    target = "postgresql://postgres:se/kritPW@127.0.0.1:1/buraco"
    assert main(["db", "copy", "--from", str(path), "--to", target]) == 2
    err = capsys.readouterr().err
    assert "percent-encode" in err and err.count("\n") == 1
    assert "kritPW" not in err and "se/" not in err and '"se"' not in err

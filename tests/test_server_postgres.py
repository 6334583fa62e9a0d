"""``buraco-rules serve --db postgresql://...``: real server processes on a real PostgreSQL
(tests/pg_support.py; skipped without one, failing in CI), real WebSocket clients, loopback."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from buraco_rules.server.pgstore import PostgresStore
from buraco_rules.server.store import StoredTable

pytest_plugins = ("pg_support",)  # its fixtures: pg_cluster, pg_url

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from server_support import SeatClient, ServerProcess  # noqa: E402

FAST = ("--bot-delay", "0", "--rate", "10000", "--create-rate", "0")


def with_password(url: str) -> str:
    """The URL with a password in it (the test cluster trusts every local connection, so it is
    ignored): what must never reach a log line."""
    return url.replace("buraco@", "buraco:hunter2-secret@", 1)


def stored(url: str, table_id: str) -> StoredTable:
    """The table as the database holds it (its committed moves)."""
    store = PostgresStore(url)
    try:
        table = store.load(table_id)
        assert table is not None
        return table
    finally:
        store.close()


def test_serve_on_postgresql_plays_whole_hands_and_keeps_them_across_a_restart(
    pg_url: str, tmp_path: Path
) -> None:
    url = with_password(pg_url)
    log = tmp_path / "server.log"
    server = ServerProcess(url, log, *FAST)  # type: ignore[arg-type]  (a URL, not a path)
    server.start()
    try:
        created = server.create({"seats": ["human", "greedy"]})
        (seat,) = [s for s in created["seats"] if s["kind"] == "human"]
        client = SeatClient(server.ws_url, created["table"], 0, seat["token"], 1)
        asyncio.run(client.play(time.monotonic() + 60))
        assert client.over and client.last is not None
        table = stored(pg_url, created["table"])
        assert table.replay().is_over and client.last["number"] == len(table.moves)
        server.stop()
        server.start()  # the finished table is served from the database again
        again = SeatClient(server.ws_url, created["table"], 0, seat["token"], 2)
        asyncio.run(again.play(time.monotonic() + 30))
        assert again.last is not None and again.last["number"] == client.last["number"]
    finally:
        server.stop()
    text = log.read_text()
    assert "hunter2-secret" not in text and "postgresql://" not in text
    assert "the PostgreSQL database" in text
    assert "Traceback" not in text


def test_serve_refuses_a_database_it_cannot_reach_in_one_line(tmp_path: Path) -> None:
    import subprocess

    from server_support import COMMAND, free_port

    url = f"postgresql://nobody:hunter2-secret@127.0.0.1:{free_port()}/none"
    done = subprocess.run(
        [*COMMAND, "--port", str(free_port()), "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("buraco-rules serve: cannot use the PostgreSQL database none")
    assert done.stderr.count("\n") == 1 and "hunter2-secret" not in done.stderr

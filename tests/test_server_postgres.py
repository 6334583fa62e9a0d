"""``buraco-rules serve --db postgresql://...``: real server processes on a real PostgreSQL
(tests/pg_support.py; skipped without one, failing in CI), real WebSocket clients, loopback."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import buraco_rules as br
from buraco_rules.cli import main
from buraco_rules.server.pgstore import PostgresStore
from buraco_rules.server.store import StoredTable

if TYPE_CHECKING:
    from pg_support import Cluster

pytest_plugins = ("pg_support",)  # its fixtures: pg_cluster, pg_url

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from server_support import SeatClient, ServerProcess  # noqa: E402

FAST = ("--bot-delay", "0", "--rate", "10000", "--create-rate", "0")
WORKERS = 3  # server processes in the kill test
SLOWER = ("--bot-delay", "0.05", "--turn-seconds", "2")  # a game the kills fall in


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
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
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
    assert main(["tables", "--db", url]) == 0  # the operator's list reads it too
    listed = capsys.readouterr().out.splitlines()
    assert any(
        line.split()[:3] == [created["table"], "over", str(len(table.moves))] for line in listed
    )
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


def seat_clients(created: dict[str, Any], urls: list[str], seed: int) -> list[SeatClient]:
    """A client for each human seat, the seats dealt round the servers' WebSocket addresses."""
    humans = [s for s in created["seats"] if s["kind"] == "human"]
    return [
        SeatClient(urls[n % len(urls)], created["table"], s["seat"], s["token"], seed + n)
        for n, s in enumerate(humans)
    ]


def check_against_the_rows(url: str, table_id: str, clients: list[SeatClient]) -> None:
    """Every client's acknowledged moves are its seat's stored ones (none lost, none twice), and
    its last view is its view of the stored moves replayed."""
    table = stored(url, table_id)
    final = table.replay()
    assert final.is_over
    for client in clients:
        mine = {seq: action for seat, seq, action in table.moves if seat == client.seat}
        assert client.accepted == mine
        assert client.last is not None and client.last["number"] == len(table.moves)
        hand = final.hand if isinstance(final, br.Match) else final
        assert client.last["view"] == br.to_data(br.view(hand, client.seat))


class RoamingClient(SeatClient):
    """A seat's client that, whenever its connection is lost, reconnects to the next server of
    its list (any server serves any seat: no sticky sessions)."""

    def __init__(self, urls: list[str], *args: Any, think: float = 0.0) -> None:
        super().__init__(urls[0], *args)
        self.urls = urls
        self.think = think
        self.connections = 0

    async def _send(self, ws: Any, seq: int, action: str) -> None:
        await asyncio.sleep(self.think)  # a game long enough for the kills to fall in it
        await super()._send(ws, seq, action)

    async def play(self, deadline: float) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        while not self.over:
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {self.table} seat {self.seat} did not finish")
            self.url = self.urls[self.connections % len(self.urls)]
            self.connections += 1
            try:
                async with connect(self.url, open_timeout=5, max_size=2**20) as ws:
                    await self._session(ws)
            except (TimeoutError, OSError, WebSocketException):
                await asyncio.sleep(0.05)


def test_sigkilled_workers_lose_nothing_and_their_bots_and_clocks_are_taken_over(
    pg_url: str, tmp_path: Path
) -> None:
    """Three workers on one database (two while one is down); the tables' creator (which
    drives their bots and clocks) and the others SIGKILLed in turn, four times, each restarted
    on its port a moment later, the clients reconnecting to the next one up: every table ends,
    every acknowledged move is stored once and as acknowledged, every last view is the replay
    of the rows; a table whose people never come has its clock run out and bots finish it for
    them, though the process that created it was killed."""
    import random

    servers = [
        ServerProcess(pg_url, tmp_path / f"{n}.log", *FAST, *SLOWER)  # type: ignore[arg-type]
        for n in range(WORKERS)
    ]
    for server in servers:
        server.start()
    urls = [s.ws_url for s in servers]
    try:
        requests: list[dict[str, Any]] = [
            {
                "variant": "buraco-fechado",
                "players": 4,
                "seats": ["human", "human", "greedy", "human"],
                "turn_seconds": None,
            },
            {"seats": ["human", "greedy"]},
            {"seats": ["human", "human"]},  # nobody comes: the server's 2-second clock
        ]
        tables = [servers[0].create(r) for r in requests]
        clients: list[RoamingClient] = []
        for t, created in enumerate(tables[:2]):
            for n, seat in enumerate(s for s in created["seats"] if s["kind"] == "human"):
                start = (t + n) % WORKERS
                order = urls[start:] + urls[:start]
                clients.append(
                    RoamingClient(
                        order, created["table"], seat["seat"], seat["token"], 20 + t * 4 + n
                    )
                )
        rng = random.Random(35)

        async def kill_loop() -> None:
            for victim in (0, 1, 2, 0):  # the creator first: its tables' driver
                await asyncio.sleep(rng.uniform(0.5, 1.5))
                servers[victim].kill()
                await asyncio.sleep(rng.uniform(0.5, 1.5))
                await asyncio.to_thread(servers[victim].start)

        async def play() -> None:
            deadline = time.monotonic() + 120
            await asyncio.gather(kill_loop(), *(c.play(deadline) for c in clients))

        asyncio.run(play())
        clock_table = tables[2]["table"]
        deadline = time.monotonic() + 60
        while not stored(pg_url, clock_table).finished and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        for server in servers:
            server.stop()
    for created in tables[:2]:
        mine = [c for c in clients if c.table == created["table"]]
        check_against_the_rows(pg_url, created["table"], mine)
    assert sum(c.connections for c in clients) > len(clients)  # the kills cut them off
    clocked = stored(pg_url, clock_table)
    assert clocked.replay().is_over and {seat for seat, _, _ in clocked.moves} == {0, 1}
    for n in range(WORKERS):
        assert "Traceback" not in (tmp_path / f"{n}.log").read_text()


def workers_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def test_workers_share_the_port_and_a_dead_one_is_replaced(pg_url: str, tmp_path: Path) -> None:
    import signal

    server = ServerProcess(pg_url, tmp_path / "w.log", *FAST, "--workers", "2")  # type: ignore[arg-type]
    server.start()
    try:
        assert server.process is not None
        parent = server.process.pid
        deadline = time.monotonic() + 30
        while len(workers_of(parent)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        first = workers_of(parent)
        assert len(first) == 2
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        # One look at /proc per round: the victim lingers as a zombie until it is reaped, so two
        # looks could see it and its survivor, then neither it nor its successor yet.
        deadline = time.monotonic() + 30
        now = workers_of(parent)
        while (len(now) < 2 or victim in now) and time.monotonic() < deadline:
            time.sleep(0.1)
            now = workers_of(parent)
        assert len(now - first) == 1  # a new one in its place
        for game in range(2):  # whichever worker takes each connection
            created = server.create({"seats": ["human", "greedy"]})
            client = SeatClient(
                server.ws_url, created["table"], 0, created["seats"][0]["token"], game
            )
            asyncio.run(client.play(time.monotonic() + 60))
            check_against_the_rows(pg_url, created["table"], [client])
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(20) == 0
        assert workers_of(parent) == set()
        server.process = None
    finally:
        server.stop()
    text = (tmp_path / "w.log").read_text()
    assert "with 2 workers" in text and "starting another" in text and "Traceback" not in text


def test_workers_are_refused_on_sqlite_in_one_line(tmp_path: Path) -> None:
    import subprocess

    from server_support import COMMAND

    db = tmp_path / "x.sqlite"
    done = subprocess.run(
        [*COMMAND, "--workers", "2", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--workers needs a postgresql://" in done.stderr
    assert not db.exists()


def test_postgresql_restarted_mid_game_refuses_moves_clearly_then_plays_on(
    pg_cluster: Cluster, tmp_path: Path
) -> None:
    """PostgreSQL stopped (as a crash) in the middle of a person's turn: the move is answered
    storage-failed and every seat's view says so; started again, the same move (same seq) is
    accepted, the game plays on to its end, and everything acknowledged is in the rows."""
    import json

    from websockets.asyncio.client import connect

    url = pg_cluster.new_database()
    server = ServerProcess(url, tmp_path / "r.log", *FAST)  # type: ignore[arg-type]
    server.start()
    try:
        created = server.create({"seats": ["human", "greedy"]})
        token = created["seats"][0]["token"]
        client = SeatClient(server.ws_url, created["table"], 0, token, 7)
        seen: list[dict[str, Any]] = []

        async def until_down() -> None:
            async with connect(server.ws_url) as ws:

                async def answer_to(seq: int, action: str) -> dict[str, Any]:
                    await ws.send(json.dumps({"type": "move", "seq": seq, "action": action}))
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if message["type"] != "view":
                            return dict(message)
                        seen.append(message)

                join = {"type": "join", "token": token, "table": created["table"]}
                await ws.send(json.dumps(join))
                accepted = 0
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    seen.append(message)
                    if message["type"] != "view" or not message["legal"] or message["over"]:
                        continue
                    view = br.from_data(message["view"])
                    action = br.format_action(client.bot.choose(view, client.rng))
                    seq = message["next_seq"]
                    if accepted >= 3 and message["view"]["phase"] != "draw":  # mid-turn
                        break
                    answer = await answer_to(seq, action)
                    assert answer["type"] == "accepted", answer
                    client.accepted[seq] = action
                    accepted += 1
                await asyncio.to_thread(pg_cluster.stop, "immediate")
                answer = await answer_to(seq, action)
                assert answer["code"] == "storage-failed", answer
                down = await asyncio.to_thread(server.health)  # a monitor sees the outage
                assert down == (503, {**down[1], "ok": False, "code": "storage-failed"}), down
                notices = [m["notice"] for m in seen if m["type"] == "view" and m["notice"]]
                assert notices and notices[-1]["code"] == "storage-failed"
                await asyncio.to_thread(pg_cluster.start)
                for _ in range(100):  # the server reconnects by itself
                    answer = await answer_to(seq, action)
                    if answer["type"] == "accepted":
                        client.accepted[seq] = action
                        up = await asyncio.to_thread(server.health)
                        assert up[0] == 200 and up[1]["ok"] is True, up
                        return
                    assert answer["code"] == "storage-failed", answer
                    await asyncio.sleep(0.1)
                raise AssertionError("the move was never accepted")

        asyncio.run(until_down())
        asyncio.run(client.play(time.monotonic() + 60))  # the rest of the game, a new connection
    finally:
        if not (pg_cluster.data / "postmaster.pid").exists():
            pg_cluster.start()
        server.stop()
    check_against_the_rows(url, created["table"], [client])
    assert "Traceback" not in (tmp_path / "r.log").read_text()

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
    of the rows; a table whose people sit down once and never play has its clock run out and
    bots finish it for them, though the process that created it was killed."""
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
            {"seats": ["human", "human"]},  # nobody plays: the server's 2-second clock
        ]
        tables = [servers[0].create(r) for r in requests]
        sit_down_and_leave(servers[0], tables[2], 0)  # the clock starts as a person sits down
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


def sit_down_and_leave(server: ServerProcess, created: dict[str, Any], seat: int) -> None:
    """Join ``seat`` of a table, read the welcome and the first view, and go."""
    import json

    from websockets.sync.client import connect

    token = created["seats"][seat]["token"]
    with connect(server.ws_url) as ws:
        ws.send(json.dumps({"type": "join", "token": token, "table": created["table"]}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        assert json.loads(ws.recv(timeout=10))["clock"]["seat"] == 0


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


def two_workers(parent: int) -> set[int]:
    """The two workers of ``parent``, once both are there (within 30 s)."""
    deadline = time.monotonic() + 30
    while len(workers_of(parent)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    found = workers_of(parent)
    assert len(found) == 2
    return found


def test_workers_share_the_port_and_a_dead_one_is_replaced(pg_url: str, tmp_path: Path) -> None:
    import signal

    server = ServerProcess(pg_url, tmp_path / "w.log", *FAST, "--workers", "2")  # type: ignore[arg-type]
    server.start()
    try:
        assert server.process is not None
        parent = server.process.pid
        first = two_workers(parent)
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
    accepted at once; crashed and started again while nobody writes (the server's connections
    idle, found closed before they are used), a join and the next move are served at once,
    never storage-failed; the game plays on to its end, and everything acknowledged is in the
    rows."""
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
                answer = await answer_to(seq, action)  # the server reconnects by itself
                assert answer["type"] == "accepted", answer
                client.accepted[seq] = action
                up = await asyncio.to_thread(server.health)
                assert up[0] == 200 and up[1]["ok"] is True, up

        async def restarted_while_idle() -> None:
            async with connect(server.ws_url) as ws:
                join = {"type": "join", "token": token, "table": created["table"]}
                await ws.send(json.dumps(join))
                while True:  # the person's turn: nothing is written until they move
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if message["type"] == "view" and message["legal"] and not message["over"]:
                        break
            await asyncio.to_thread(pg_cluster.stop, "immediate")
            await asyncio.to_thread(pg_cluster.start)
            async with connect(server.ws_url) as ws:
                join = {"type": "join", "token": token, "table": created["table"]}
                await ws.send(json.dumps(join))  # read at once: no storage-failed
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    assert message["type"] in ("welcome", "view"), message
                    if message["type"] == "view":
                        break
                view = br.from_data(message["view"])
                action = br.format_action(client.bot.choose(view, client.rng))
                seq = message["next_seq"]
                await ws.send(json.dumps({"type": "move", "seq": seq, "action": action}))
                while True:  # written at once: no storage-failed
                    answer = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if answer["type"] != "view":
                        break
                assert answer["type"] == "accepted", answer
                client.accepted[seq] = action

        asyncio.run(until_down())
        asyncio.run(restarted_while_idle())
        asyncio.run(client.play(time.monotonic() + 60))  # the rest of the game, a new connection
    finally:
        if not (pg_cluster.data / "postmaster.pid").exists():
            pg_cluster.start()
        server.stop()
    check_against_the_rows(url, created["table"], [client])
    assert "Traceback" not in (tmp_path / "r.log").read_text()


def test_a_process_started_into_a_busy_database_holds_none_of_its_tables_until_served(
    pg_url: str, tmp_path: Path
) -> None:
    """A process started on a database holding many unfinished tables (some driven by another
    live process) loads none of them: it holds a table while a seat of it is connected there,
    lets it go when none is, serves any of them on a join, and counts the caps on unfinished
    tables in the database (the cluster's), so that it accepts creations up to them."""
    import json
    import urllib.error

    import psycopg
    from websockets.asyncio.client import connect

    from buraco_rules.server.pgstore import lease_key
    from buraco_rules.server.store import SeatRow

    idle, driven = 300, 20
    start = br.GameRecord.from_game(br.new_game(br.variants.ITALIAN, 2, seed=3), ())
    tokens = {f"t{n}": (f"token-{n}-a", f"token-{n}-b") for n in range(idle + driven)}

    async def fill() -> None:
        store = PostgresStore(pg_url)
        try:
            people, bots = (
                (SeatRow("human"), SeatRow("human")),
                (SeatRow("human"), SeatRow("bot", "greedy")),
            )
            await asyncio.gather(
                *(
                    store.create(t, start, people if n < idle else bots, dict(enumerate(tokens[t])))
                    for n, t in enumerate(tokens)
                )
            )
        finally:
            store.close()

    asyncio.run(fill())
    # Another live process drives the tables with bots: their leases are held.
    holder = psycopg.connect(pg_url, autocommit=True)
    for n in range(idle, idle + driven):
        holder.execute("SELECT pg_advisory_lock(%s, %s)", lease_key(f"t{n}"))
    cap = idle + driven + 2
    server = ServerProcess(pg_url, tmp_path / "b.log", *FAST, "--max-tables", str(cap))  # type: ignore[arg-type]
    server.start()
    try:
        assert server.health() == (200, {"ok": True, "unfinished": 0, "set_aside": 0})

        def held() -> int:
            return int(server.health()[1]["unfinished"])

        def wait_for(count: int) -> None:
            deadline = time.monotonic() + 15
            while held() != count:
                assert time.monotonic() < deadline, f"still {held()} tables held, not {count}"
                time.sleep(0.1)

        async def play_one(table: str, token: str) -> None:
            async with connect(server.ws_url) as ws:
                await ws.send(json.dumps({"type": "join", "token": token, "table": table}))
                welcome = json.loads(await ws.recv())
                assert welcome["type"] == "welcome" and welcome["table"] == table
                view = json.loads(await ws.recv())
                assert view["type"] == "view" and view["legal"]  # seat 0 is to draw
                assert await asyncio.to_thread(held) == 1
                move = {"type": "move", "seq": view["next_seq"], "action": view["legal"][0]}
                await ws.send(json.dumps(move))
                answer = json.loads(await ws.recv())
                assert answer["type"] == "accepted", answer

        for table in ("t7", f"t{idle + 3}"):  # an idle table, and one another process drives
            asyncio.run(play_one(table, tokens[table][0]))
            assert len(stored(pg_url, table).moves) == 1
            wait_for(0)  # let go: nobody is connected here and it is not driven here
        people = {"seats": ["human", "human"], "turn_seconds": None}
        for _ in range(2):  # up to the cap on unfinished tables in the database
            server.create(people)
        with pytest.raises(urllib.error.HTTPError) as refused:
            server.create(people)
        assert refused.value.code == 503
        assert (
            f"the database already holds {cap} unfinished tables" in refused.value.read().decode()
        )
        wait_for(0)
    finally:
        server.stop()
        holder.close()
    text = (tmp_path / "b.log").read_text()
    assert "serving the tables of the PostgreSQL database" in text and "Traceback" not in text


def test_workers_of_a_parent_killed_outright_stop_and_free_the_port(
    pg_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(pg_url, tmp_path / "k.log", *FAST, "--workers", "2")  # type: ignore[arg-type]
    server.start()
    assert server.process is not None
    parent = server.process.pid
    workers = two_workers(parent)
    server.kill()  # SIGKILL: the parent cannot tell its workers anything
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
    server.start()  # the port is free: a new server starts on it
    server.stop()
    text = (tmp_path / "k.log").read_text()
    assert "Traceback" not in text and text.count("with 2 workers") == 2


def lease_holder(url: str, table_id: str) -> int | None:
    """The server process (its pid, from its heartbeat row) whose lease connection holds the
    table's lock, or None."""
    import psycopg

    from buraco_rules.server.pgstore import lease_key

    namespace, key = lease_key(table_id)
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute(
            "SELECT h.process FROM pg_locks l JOIN lease_holders h ON h.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
            " AND l.classid::bigint = %s AND l.objid::bigint = %s",
            (namespace, key & 0xFFFFFFFF),
        ).fetchone()
    return None if row is None else int(row[0])


def test_a_frozen_process_loses_its_tables_bots_to_another_and_drives_nothing_on_waking(
    pg_url: str, tmp_path: Path
) -> None:
    """Two servers; a table whose people sat down and left, so that its clock runs out and
    bots play both seats, driven by the process that created it (A). A is stopped (SIGSTOP:
    alive, its connections open, its advisory lock held): once its heartbeat is older than
    --lease-seconds, B ends A's lease connection, takes the table over and its bots move
    again. A continued holds nothing: it drops its leases, B keeps driving, and the stored
    moves are numbered without a gap and replay as a legal game (none lost, none twice)."""
    import signal

    bound = 3
    options = (*FAST, "--bot-delay", "0.1", "--turn-seconds", "2", "--lease-seconds", str(bound))
    a = ServerProcess(pg_url, tmp_path / "a.log", *options)  # type: ignore[arg-type]
    b = ServerProcess(pg_url, tmp_path / "b.log", *options)  # type: ignore[arg-type]
    a.start()
    b.start()
    assert a.process is not None and b.process is not None
    pid_a, pid_b = a.process.pid, b.process.pid
    frozen = False

    def moves() -> int:
        return len(stored(pg_url, table).moves)

    def wait(check: Any, what: str, seconds: float = 30) -> float:
        started = time.monotonic()
        while not check():
            assert time.monotonic() - started < seconds, what
            time.sleep(0.05)
        return time.monotonic() - started

    try:
        created = a.create({"seats": ["human", "human"]})
        table = created["table"]
        sit_down_and_leave(a, created, 0)  # the 2-second clock runs out: bots play both seats
        wait(lambda: lease_holder(pg_url, table) == pid_a and moves() >= 3, "A never drove")
        os.kill(pid_a, signal.SIGSTOP)
        frozen = True
        stopped, before = time.monotonic(), moves()
        taken = wait(lambda: lease_holder(pg_url, table) == pid_b, "B never took the lease")
        moved = wait(lambda: moves() > before, "no bot moved after the takeover")
        moved += taken
        time.sleep(0.5)
        os.kill(pid_a, signal.SIGCONT)
        frozen = False
        wait(lambda: "dropped" in (tmp_path / "a.log").read_text(), "A never dropped its leases")
        woken = moves()
        for _ in range(10):  # A takes nothing back; B drives on
            assert lease_holder(pg_url, table) == pid_b
            time.sleep(0.2)
        wait(lambda: moves() >= woken + 5 or stored(pg_url, table).finished, "B stopped")
        print(
            f"frozen at move {before}: lease taken by B {taken:.2f} s after SIGSTOP, a bot "
            f"moved {moved:.2f} s after it (--lease-seconds {bound})"
        )
        assert time.monotonic() - stopped > bound  # not before the heartbeat was old enough
    finally:
        if frozen:
            os.kill(pid_a, signal.SIGCONT)
        a.stop()
        b.stop()
    final = stored(pg_url, table)  # numbered without a gap (the store checks), and legal:
    final.replay()
    assert {seat for seat, _, _ in final.moves} == {0, 1}
    log_a, log_b = (tmp_path / "a.log").read_text(), (tmp_path / "b.log").read_text()
    assert "its heartbeat is late" in log_a or "its connection was lost" in log_a
    assert f"process {pid_a} on" in log_b and f"table {table} taken over" in log_b
    assert f"table {table} taken over" not in log_a
    assert "Traceback" not in log_a + log_b


def test_a_clock_started_by_a_join_on_another_process_runs_out_where_the_table_is_driven(
    pg_url: str, tmp_path: Path
) -> None:
    """Behind a load balancer the creation and the first person's join land on different
    processes: the join on B starts the clock (stored and notified as a change of the table's
    row), and A, which created the table and drives it, hears it and plays the seat whose time
    ran out (the outside probe: it never did, the row's change taken for no news)."""
    options = (*FAST, "--turn-seconds", "2")
    a = ServerProcess(pg_url, tmp_path / "a.log", *options)  # type: ignore[arg-type]
    b = ServerProcess(pg_url, tmp_path / "b.log", *options)  # type: ignore[arg-type]
    a.start()
    b.start()
    try:
        created = a.create({"seats": ["human", "human"]})
        table = created["table"]
        sit_down_and_leave(b, created, 0)
        began = time.monotonic()
        while not stored(pg_url, table).moves:
            assert time.monotonic() - began < 30, "the clock never ran out"
            time.sleep(0.1)
        assert lease_holder(pg_url, table) == a.process.pid  # type: ignore[union-attr]
    finally:
        a.stop()
        b.stop()
    for name in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / name).read_text()


def test_a_creation_past_either_cap_is_answered_alike_on_sqlite_and_on_postgresql(
    pg_cluster: Cluster, tmp_path: Path
) -> None:
    """--max-tables and --max-tables-per-client refuse a creation with the same status and code
    whichever store counts them (the SQLite server in memory, PostgreSQL in the database): 503
    server-full for the server's cap, 429 too-many-tables for an address's."""
    from starlette.testclient import TestClient

    from buraco_rules.server import create_app

    def refusal(db: str | Path, most: int, each: int) -> tuple[int, str]:
        app = create_app(db, create_rate=0, max_tables=most, max_tables_per_client=each)
        people = {"seats": ["human", "human"], "turn_seconds": None}
        with TestClient(app) as client:
            for _ in range(min(most, each)):
                assert client.post("/api/tables", json=people).status_code == 201
            refused = client.post("/api/tables", json=people)
            return refused.status_code, refused.json()["code"]

    for most, each, expected in ((2, 5, (503, "server-full")), (5, 2, (429, "too-many-tables"))):
        on_sqlite = refusal(tmp_path / f"{most}-{each}.sqlite", most, each)
        on_postgresql = refusal(pg_cluster.new_database(), most, each)
        assert on_sqlite == on_postgresql == expected


def test_a_driver_that_loses_the_race_for_a_person_s_move_still_plays_its_bots(
    pg_url: str, tmp_path: Path
) -> None:
    """The outside probe: a person's move sent on two processes at once; the driving process
    lost the race, answered from the rows, and its bot never moved again (its lease kept the
    others from taking over). Here the move another process won is written straight into the
    rows, unannounced, so that the driver finds it only by losing the race."""
    import json

    import psycopg
    from websockets.asyncio.client import connect

    server = ServerProcess(pg_url, tmp_path / "a.log", *FAST)  # type: ignore[arg-type]
    server.start()
    try:
        created = server.create({"variant": "canasta-stbl", "seats": ["human", "greedy"]})
        table = created["table"]
        start = stored(pg_url, table).replay_all()[0]
        assert isinstance(start, br.GameState) and start.current_player == 0
        drawn = br.apply(start, br.parse_action("draw", start, player=0), player=0)
        discard = br.format_action(br.legal_actions(drawn)[-1])
        assert discard.startswith("discard")

        def won_elsewhere() -> None:  # another process's commits, unannounced
            with psycopg.connect(pg_url, autocommit=True) as db:
                for number, (seq, action) in enumerate(((1, "draw"), (2, discard))):
                    db.execute(
                        "INSERT INTO moves (table_id, number, seat, seq, action)"
                        " VALUES (%s, %s, 0, %s, %s)",
                        (table, number, seq, action),
                    )

        async def scenario() -> dict[str, Any]:
            async with connect(server.ws_url) as ws:
                token = created["seats"][0]["token"]
                await ws.send(json.dumps({"type": "join", "token": token, "table": table}))
                for _ in range(2):  # the welcome and the first view: the table is held here
                    json.loads(await asyncio.wait_for(ws.recv(), 30))
                await asyncio.to_thread(won_elsewhere)
                for seq, action in ((1, "draw"), (2, discard)):
                    await ws.send(json.dumps({"type": "move", "seq": seq, "action": action}))
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if message["type"] == "view" and message["number"] >= 3:
                        return dict(message)  # the bot played after the lost race

        seen = asyncio.run(scenario())
        assert seen["last"]["seat"] == 1
    finally:
        server.stop()
    assert "Traceback" not in (tmp_path / "a.log").read_text()


def test_every_process_tells_its_seats_when_postgresql_is_down_and_when_it_is_back(
    pg_cluster: Cluster, tmp_path: Path
) -> None:
    """A table's two seats on two processes, nobody moving: PostgreSQL stopped (as a crash),
    each process tells its own seat (storage-failed: no process can store a move, though none
    tried), and once PostgreSQL is back each seat gets a view without it; the next move is
    accepted and seen on both."""
    import json

    from websockets.asyncio.client import connect

    url = pg_cluster.new_database()
    a = ServerProcess(url, tmp_path / "a.log", *FAST)  # type: ignore[arg-type]
    b = ServerProcess(url, tmp_path / "b.log", *FAST)  # type: ignore[arg-type]
    a.start()
    b.start()
    try:
        created = a.create({"seats": ["human", "human"], "turn_seconds": None})
        table = created["table"]

        async def scenario() -> None:
            async with connect(a.ws_url) as first, connect(b.ws_url) as second:
                for ws, seat in ((first, 0), (second, 1)):
                    token = created["seats"][seat]["token"]
                    await ws.send(json.dumps({"type": "join", "token": token, "table": table}))

                async def until(ws: Any, check: Any) -> dict[str, Any]:
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if message["type"] == "view" and check(message):
                            return dict(message)

                def notice(code: str | None) -> Any:
                    return lambda m: (m["notice"] or {}).get("code") == code

                ready = await until(first, lambda m: bool(m["legal"]))
                await until(second, notice(None))
                await asyncio.to_thread(pg_cluster.stop, "immediate")
                try:
                    for ws in (first, second):
                        await until(ws, notice("storage-failed"))
                finally:
                    await asyncio.to_thread(pg_cluster.start)
                for ws in (first, second):
                    await until(ws, notice(None))
                move = {"type": "move", "seq": ready["next_seq"], "action": ready["legal"][0]}
                await first.send(json.dumps(move))
                await until(second, lambda m: m["number"] == 1)

        asyncio.run(scenario())
    finally:
        if not (pg_cluster.data / "postmaster.pid").exists():
            pg_cluster.start()
        a.stop()
        b.stop()
    assert len(stored(url, table).moves) == 1
    for name in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / name).read_text()

"""Durability: the server is killed with SIGKILL at random moments while several tables play at
full speed, restarted on the same SQLite file, and every client reconnects with its token. Every
table must resume at exactly its last acknowledged move and play to its end, with zero lost and
zero duplicated moves.

``BURACO_SERVER_KILLS`` sets how many kills (3 by default, to keep CI short)."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from buraco_rules.server.store import TableStore
from server_support import SeatClient, ServerProcess

TABLES = [
    {"variant": "canasta-stbl", "players": 2, "seats": ["human", "human"]},
    {"variant": "buraco-fechado", "players": 2, "seats": ["human", "human"]},
    {"variant": "italian", "players": 4, "seats": ["human", "human", "human", "human"]},
    {"variant": "canasta-stbl", "players": 2, "seats": ["human", "greedy"]},
    {"variant": "italian", "players": 4, "seats": ["human", "random", "greedy", "human"]},
]


def test_sigkill_loses_and_duplicates_no_move(tmp_path: Path) -> None:
    kills = int(os.environ.get("BURACO_SERVER_KILLS", "3"))
    rng = random.Random(int(os.environ.get("BURACO_SERVER_KILL_SEED", "16")))
    db = tmp_path / "kill.sqlite"
    server = ServerProcess(
        db, tmp_path / "server.log", "--bot-delay", "0", "--rate", "100000", "--create-rate", "0"
    )
    server.start()
    clients: list[SeatClient] = []
    done = rounds = 0
    try:
        # Round after round of fresh tables, until every kill is done (a bounded loop).
        while rounds == 0 or (done < kills and rounds < kills + 3):
            fresh: list[SeatClient] = []
            for t, request in enumerate(TABLES):
                created = server.create(request)
                for seat in created["seats"]:
                    if seat["kind"] == "human":
                        naive = len(fresh) % 2 == 1  # half the clients resend blindly
                        table, token = created["table"], seat["token"]
                        fresh.append(
                            SeatClient(server.ws_url, table, seat["seat"], token, t, naive)
                        )
            done += asyncio.run(_play(server, fresh, kills - done, rng))
            clients += fresh
            rounds += 1
    finally:
        server.stop()
    assert done == kills
    moves = _check(db, clients)
    resent = sum(n - 1 for c in clients for n in c.sent.values())
    duplicates = sum(c.duplicates for c in clients)
    print(
        f"{done} kills, {rounds * len(TABLES)} tables, {moves} moves stored, {resent} resent, "
        f"{duplicates} answered as already played"
    )
    assert sum(len(c.resumes) for c in clients) > len(clients)  # reconnections happened


async def _play(
    server: ServerProcess, clients: list[SeatClient], kills: int, rng: random.Random
) -> int:
    deadline = time.monotonic() + 120
    games = [asyncio.create_task(c.play(deadline)) for c in clients]
    done = 0
    while done < kills and not all(g.done() for g in games):
        await asyncio.sleep(rng.uniform(0.05, 0.6))
        if all(g.done() for g in games):
            break
        await asyncio.to_thread(server.kill)
        done += 1
        await asyncio.sleep(rng.uniform(0, 0.2))  # clients retry against a dead port
        await asyncio.to_thread(server.start)
    await asyncio.gather(*games)
    return done


def _check(db: Path, clients: list[SeatClient]) -> int:
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = TableStore(db)
    try:
        lost = duplicated = 0
        for client in clients:
            stored = store.load(client.table)
            assert stored is not None and stored.finished
            assert stored.replay().is_over  # the whole record replays, to the end
            mine = [(seq, action) for seat, seq, action in stored.moves if seat == client.seat]
            seqs = [seq for seq, _ in mine]
            duplicated += len(seqs) - len(set(seqs))
            assert seqs == list(range(1, len(seqs) + 1))  # no gap, no repeat
            lost += sum(1 for seq, a in client.accepted.items() if (seq, a) not in mine)
            assert dict(mine) == client.accepted  # every stored move was acknowledged
            # Each reconnection resumed at the move after the last one acknowledged.
            for next_seq, acknowledged, in_flight in client.resumes:
                assert next_seq == acknowledged + 1 or (
                    in_flight is not None and next_seq == in_flight + 1
                )
            assert client.numbers == sorted(client.numbers)  # never a view from the past
            assert client.over and client.pending is None
        assert (lost, duplicated) == (0, 0)
        return sum(len(store.load(t).moves) for t in {c.table for c in clients})  # type: ignore[union-attr]
    finally:
        store.close()


WRITER = """
import asyncio, sys
import buraco_rules as br
from buraco_rules import variants
from buraco_rules.server.store import SeatRow, TableStore

store = TableStore(sys.argv[1])
start = br.GameRecord.from_game(br.new_game(variants.ITALIAN, 2, seed=1), ())
for t in range(8):
    asyncio.run(store.create(f"t{t}", start, [SeatRow("human")] * 2, {0: f"a{t}", 1: f"b{t}"}))

async def table(t):
    for n in range(10**6):
        await store.append(f"t{t}", n, n % 2, n // 2 + 1, "draw", False)
        print(t, n, flush=True)          # acknowledged: committed

async def main():
    await asyncio.gather(*(table(t) for t in range(8)))

asyncio.run(main())
"""


def test_a_kill_during_commits_tears_nothing(tmp_path: Path) -> None:
    """Torn writes: the store commits group after group for eight tables while it is killed at
    random moments (so some kills land inside a commit); after each kill every acknowledged
    append is in the file, nothing is there twice, and the file is sound."""
    import subprocess
    import sys

    rng = random.Random(7)
    for round_ in range(3):
        db = tmp_path / f"torn{round_}.sqlite"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None
        acknowledged = 0
        deadline = time.monotonic() + rng.uniform(0.3, 1.0)
        lines: list[str] = []
        while time.monotonic() < deadline:
            line = writer.stdout.readline()
            if not line:
                break
            lines.append(line)
        writer.kill()
        writer.wait(10)
        lines += writer.stdout.read().splitlines(keepends=True)
        acked = {tuple(map(int, line.split())) for line in lines if line.endswith("\n")}
        acknowledged += len(acked)
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            rows = raw.execute("SELECT table_id, number FROM moves").fetchall()
        stored = {(int(t[1:]), n) for t, n in rows}
        assert len(stored) == len(rows)  # nothing twice
        assert acked <= stored  # nothing acknowledged is lost
        for t in range(8):  # each table's moves are a prefix: no hole
            numbers = sorted(n for u, n in stored if u == t)
            assert numbers == list(range(len(numbers)))
        assert acknowledged > 0


MATCHES = [
    {"variant": "italian", "players": 2, "seats": ["human", "human"], "match": True},
    {"variant": "italian", "players": 4, "seats": ["human", "ismcts", "montecarlo", "random"],
     "match": True},
    {"variant": "italian", "players": 2, "seats": ["greedy", "human"], "match": True},
]  # fmt: skip


def test_matches_survive_kills_between_hands_mid_hand_at_the_end_and_in_a_creation(
    tmp_path: Path,
) -> None:
    """Whole matches (two and four players, every kind of bot) through SIGKILLs right after a
    hand is scored, in the middle of a hand, after the matches end and during a creation: every
    restart serves every table again, each at its last acknowledged move, and the finished
    matches reload when their seats come back."""
    db = tmp_path / "matches.sqlite"
    server = ServerProcess(
        db, tmp_path / "server.log", "--bot-delay", "0", "--rate", "100000", "--search-budget", "2"
    )
    server.start()
    clients: list[SeatClient] = []
    for t, request in enumerate(MATCHES):
        created = server.create(request)
        for seat in created["seats"]:
            if seat["kind"] == "human":
                naive = len(clients) % 2 == 1
                clients.append(
                    SeatClient(
                        server.ws_url, created["table"], seat["seat"], seat["token"], t, naive
                    )
                )
    try:
        kills = asyncio.run(_play_matches(server, clients))
        # After the end: killed again, and every finished match is served from the store.
        server.kill()
        server.start()
        for client in clients:
            client.over = False
        asyncio.run(_rejoin(clients))
        # During a creation: the server dies while it answers, and starts again all the same.
        kills += _kill_during_a_creation(server)
    finally:
        server.stop()
    assert kills["hand-scored"] == 1 and kills["mid-hand"] >= 1 and kills["creation"] == 1
    _check(db, clients)
    assert "Traceback" not in (tmp_path / "server.log").read_text()


async def _play_matches(server: ServerProcess, clients: list[SeatClient]) -> Counter[str]:
    deadline = time.monotonic() + 150
    games = [asyncio.create_task(c.play(deadline)) for c in clients]
    kills: Counter[str] = Counter()
    # The two-player match of people is killed as its first hand is scored: a match deals the
    # next hand in the same move, so this is also the moment between two hands.
    watched = clients[0]
    hands_seen, last_kill = 0, time.monotonic()
    while not all(g.done() for g in games):
        await asyncio.sleep(0.005)
        hands = len(watched.last["scores"]) if watched.last else 0
        scored = hands > hands_seen and not watched.over and kills["hand-scored"] < 1
        mid = kills["mid-hand"] < 1 and time.monotonic() - last_kill > 1.0
        hands_seen = max(hands_seen, hands)
        if scored or mid:
            kills["hand-scored" if scored else "mid-hand"] += 1
            await asyncio.to_thread(server.kill)
            await asyncio.to_thread(server.start)
            last_kill = time.monotonic()
    await asyncio.gather(*games)
    return kills


async def _rejoin(clients: list[SeatClient]) -> None:
    deadline = time.monotonic() + 30
    await asyncio.gather(*(c.play(deadline) for c in clients))
    for client in clients:
        assert client.last is not None and client.last["over"]
        assert client.last["match"]["winner"] is not None


def _kill_during_a_creation(server: ServerProcess) -> Counter[str]:
    import threading

    answers: list[object] = []

    def create() -> None:
        try:
            answers.append(server.create(MATCHES[0]))
        except OSError as error:  # the server died before answering
            answers.append(error)

    creating = threading.Thread(target=create)
    creating.start()
    time.sleep(0.002)
    server.kill()
    creating.join(15)
    server.start()
    assert len(answers) == 1
    again = server.create(MATCHES[0])  # up, and creating
    assert again["match"] is True
    return Counter(creation=1)

"""A server you can leave running: every kind of table reloads (a match past its first hand
included), a table that cannot be loaded is set aside and the others served, the record of a
finished table is given to its seats, and a database the server cannot use is refused with one
line before serving."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot
from buraco_rules.cli import main
from buraco_rules.server import create_app
from buraco_rules.server.store import SeatRow, StoreError, TableStore
from buraco_rules.server.tables import TableHub

with warnings.catch_warnings():  # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _played_match(hands: int) -> tuple[br.Match, list[str]]:
    """A two-player Italian match played by GreedyBot until ``hands`` hands are over (and a
    few moves into the next one, if the match goes on)."""
    match = br.new_match(variants.ITALIAN, 2, seed=11)
    start, bot, rng, actions = match, GreedyBot(), random.Random(3), []
    while not match.is_over and len(match.scores) < hands:
        seat = match.hand.current_player
        action = bot.choose(br.view(match.hand, seat), rng)
        actions.append(br.format_action(action))
        match = br.apply(match, action, player=seat)
    return start, actions


def _store_table(
    db: Path, table_id: str, start: br.Match | br.GameState, actions: list[str]
) -> None:
    """A two-seat table (a match or a hand) written to the store as a server writes it."""

    async def write() -> None:
        store = TableStore(db)
        try:
            record: br.MatchRecord | br.GameRecord
            if isinstance(start, br.Match):
                record = br.MatchRecord.from_match(start, ())
            else:
                record = br.GameRecord.from_game(start, ())
            tokens = {0: f"token-{table_id}-0", 1: f"token-{table_id}-1"}
            await store.create(table_id, record, [SeatRow("human")] * 2, tokens)
            state: br.Match | br.GameState = start
            seqs = [0, 0]
            for number, notation in enumerate(actions):
                hand = state.hand if isinstance(state, br.Match) else state
                seat = hand.current_player
                state = br.apply(state, br.parse_action(notation, state, player=seat), player=seat)
                seqs[seat] += 1
                await store.append(table_id, number, seat, seqs[seat], notation, state.is_over)
        finally:
            store.close()

    asyncio.run(write())


@pytest.fixture
def client_of(tmp_path: Path) -> Iterator[Any]:
    clients: list[TestClient] = []

    def start(**options: Any) -> TestClient:
        client = TestClient(create_app(tmp_path / "t.sqlite", bot_delay=0, **options))
        clients.append(client.__enter__())
        return client

    yield start
    for client in clients:
        client.__exit__(None, None, None)


def test_a_match_past_its_first_hand_and_a_finished_match_reload(
    tmp_path: Path, client_of: Any
) -> None:
    start, one_hand = _played_match(1)
    _, whole = _played_match(99)
    _store_table(tmp_path / "t.sqlite", "second", start, one_hand)
    _store_table(tmp_path / "t.sqlite", "over", start, whole)
    client = client_of()
    hub: TableHub = client.app.state.hub  # type: ignore[attr-defined]
    table = hub.tables["second"]  # loaded at start-up, past its first hand
    assert isinstance(table.state, br.Match) and len(table.state.scores) == 1
    assert client.get("/api/health").json() == {"ok": True, "unfinished": 1, "set_aside": 0}
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "token": "token-second-0", "table": "second"})
        welcome = ws.receive_json()
        # The log holds the hand in play only: none of it was played yet.
        assert welcome["log"] == [] and welcome["match"] is True
        view = ws.receive_json()
        assert view["match"]["hand"] == 2 and len(view["scores"]) == 1
        assert view["last"] == {
            "number": len(one_hand) - 1,
            "seat": view["last"]["seat"],
            "action": one_hand[-1],
            "hand": 1,
        }
    # A finished match is loaded when a seat joins it (off the event loop), not at start-up.
    assert "over" not in hub.tables
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "token": "token-over-1", "table": "over"})
        welcome = ws.receive_json()
        assert welcome["next_seq"] > 1 and welcome["log"][-1]["action"] == whole[-1]
        assert all(m["hand"] == welcome["log"][0]["hand"] > 1 for m in welcome["log"])
        view = ws.receive_json()
        assert view["over"] and view["match"]["winner"] is not None and view["clock"] is None


def test_a_table_that_cannot_be_loaded_is_set_aside_and_the_rest_served(
    tmp_path: Path, client_of: Any, caplog: pytest.LogCaptureFixture
) -> None:
    start, one_hand = _played_match(1)
    _store_table(tmp_path / "t.sqlite", "good", start, one_hand[:5])
    _store_table(tmp_path / "t.sqlite", "bad", start, one_hand[:5])
    with sqlite3.connect(tmp_path / "t.sqlite") as raw:  # a move no server writes
        raw.execute("UPDATE moves SET action = 'discard 2C' WHERE table_id = 'bad' AND number = 3")
    client = client_of()
    hub: TableHub = client.app.state.hub  # type: ignore[attr-defined]
    assert set(hub.tables) == {"good"} and set(hub.set_aside) == {"bad"}
    assert client.get("/api/health").json() == {"ok": True, "unfinished": 1, "set_aside": 1}
    lines = [r for r in caplog.records if "bad" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None  # one line, no traceback
    assert "set aside" in lines[0].getMessage()
    with client.websocket_connect("/ws") as ws:  # its seats are told no more than a stranger
        ws.send_json({"type": "join", "token": "token-bad-0", "table": "bad"})
        assert ws.receive_json()["code"] == "bad-token"
    # The operator sees it too.
    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "tables", "--db", str(tmp_path / "t.sqlite")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert "set aside" in rows["bad"] and "playing" in rows["good"]


def test_moves_numbered_with_a_gap_or_seqs_going_back_set_their_table_aside(
    tmp_path: Path,
) -> None:
    from server_support import ServerProcess

    db = tmp_path / "t.sqlite"
    start, one_hand = _played_match(1)
    for table in ("good", "gap", "seq", "bot", "dates"):
        _store_table(db, table, start, one_hand[:6])
    _store_table(db, "seat", start, one_hand[:1])
    with sqlite3.connect(db) as raw:  # what no server writes, each move still legal in order
        raw.execute("UPDATE moves SET number = number + 10 WHERE table_id = 'gap' AND number >= 3")
        raw.execute("UPDATE moves SET seq = 99 WHERE table_id = 'seq' AND number = 0")
        # The outside probe's: the first move stored under the other seat (which was then
        # answered "duplicate" for a move it never made), a bot the server does not know, and
        # times that do not read (which made the operator's listing fail with a traceback).
        raw.execute("UPDATE moves SET seat = 1 - seat WHERE table_id = 'seat' AND number = 0")
        evil = json.dumps([{"kind": "human", "bot": None}, {"kind": "bot", "bot": "evil"}])
        raw.execute("UPDATE tables SET seats = ? WHERE id = 'bot'", (evil,))
        raw.execute("UPDATE tables SET created = 'yesterday', finished = 'abc' WHERE id = 'dates'")
    server = ServerProcess(db, tmp_path / "server.log")
    server.start()
    try:
        with urllib.request.urlopen(server.url + "/api/health", timeout=10) as answer:
            assert json.loads(answer.read()) == {"ok": True, "unfinished": 1, "set_aside": 4}
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert "table gap has no move 3 (its next is 13)" in log
    assert "sequence number" in log and "Traceback" not in log
    assert "move 0 is stored under seat" in log
    before = db.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "tables", "--db", str(db)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == ""
    assert db.read_bytes() == before  # the listing reads only (a full disk, a read-only mount)
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert "set aside: ValueError: table gap has no move 3" in rows["gap"]
    assert "set aside" in rows["seq"] and "playing" in rows["good"]
    assert "set aside" in rows["seat"] and "set aside" in rows["bot"]
    assert rows["dates"].split()[1:3] == ["?", "6"] and rows["dates"].split()[-1] == "?"


def _played_hand() -> tuple[br.GameState, list[str]]:
    """A two-player hand of Canasta STBL played to its end by GreedyBot."""
    state = br.new_game(variants.CANASTA_STBL, 2, seed=5)
    start, bot, rng, actions = state, GreedyBot(), random.Random(5), []
    while not state.is_over:
        seat = state.current_player
        action = bot.choose(br.view(state, seat), rng)
        actions.append(br.format_action(action))
        state = br.apply(state, action, player=seat)
    return start, actions


def test_the_record_is_given_to_a_seat_once_the_game_is_over(
    tmp_path: Path, client_of: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    start, actions = _played_hand()
    _store_table(tmp_path / "t.sqlite", "done", start, actions)
    _store_table(tmp_path / "t.sqlite", "going", start, actions[:-1])
    client = client_of()
    for url in ("/api/tables/{}/record", "/api/tables/{}/hands"):  # the hands: as the record
        early = client.get(url.format("going"), headers={"Authorization": "Bearer token-going-0"})
        assert early.status_code == 409 and early.json()["code"] == "not-over"  # hands hidden
        for table, headers in [
            ("done", {}),
            ("done", {"Authorization": "Bearer nope"}),
            ("done", {"Authorization": "token-done-0"}),
            ("done", {"Authorization": "Bearer token-going-0"}),  # another table's seat
            ("nowhere", {"Authorization": "Bearer token-done-0"}),
        ]:
            refused = client.get(url.format(table), headers=headers)
            assert refused.status_code in (401, 404) and refused.json()["code"] == "bad-token"
    url = "/api/tables/{}/record"
    answer = client.get(url.format("done"), headers={"Authorization": "Bearer token-done-1"})
    assert answer.status_code == 200, answer.text
    record = br.from_json(answer.text)
    assert isinstance(record, br.GameRecord) and record.scores == br.score(br.replay(record)[-1])
    assert [br.format_action(a) for a in record.actions] == actions
    # A table of one hand: its hands are that record, in a list.
    hands = client.get(
        url.format("done").replace("record", "hands"), headers=answer.request.headers
    )
    assert hands.status_code == 200 and len(hands.json()) == 1
    assert br.from_data(hands.json()[0]) == record
    path = tmp_path / "record.json"
    path.write_text(answer.text)
    assert main(["replay", str(path)]) == 0  # buraco-rules replay reads it
    assert "canasta" in capsys.readouterr().out.lower()


def test_one_server_per_database(tmp_path: Path) -> None:
    db = tmp_path / "one.sqlite"
    first = TableStore(db, exclusive=True)
    try:
        with pytest.raises(StoreError, match="another server is using the database"):
            TableStore(db, exclusive=True)
        done = subprocess.run(
            [sys.executable, "-m", "buraco_rules", "serve", "--db", str(db), "--port", "0"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [
            f"buraco-rules serve: another server is using the database {db} (the file is locked)"
        ]
    finally:
        first.close()
    TableStore(db, exclusive=True).close()  # free again once the first is closed


def test_one_server_per_database_by_whatever_path_it_is_given(tmp_path: Path) -> None:
    db = tmp_path / "real.sqlite"
    first = TableStore(db, exclusive=True)
    link = tmp_path / "elsewhere" / "link.sqlite"
    link.parent.mkdir()
    link.symlink_to(db)  # another name for the same file: the lock is the file's, not the name's
    try:
        done = subprocess.run(
            [sys.executable, "-m", "buraco_rules", "serve", "--db", str(link), "--port", "0"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [
            f"buraco-rules serve: another server is using the database {link} (the file is locked)"
        ]
    finally:
        first.close()


def test_the_lock_is_the_database_file_s_own_so_no_lock_file_can_be_deleted(
    tmp_path: Path,
) -> None:
    """An outside probe deleted the lock file a running server held (as a temporary-file cleaner
    would) and started a second server on the same database: the lock is now the database
    file's own, so no file beside it can be removed, and a hard link (another name no path
    resolution sees) is refused too."""
    db = tmp_path / "real.sqlite"
    first = TableStore(db, exclusive=True)
    hard = tmp_path / "hard.sqlite"
    os.link(db, hard)
    try:
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".lock")) == []
        with pytest.raises(StoreError, match="another server is using the database"):
            TableStore(hard, exclusive=True)
        with pytest.raises(StoreError, match="another server is using the database"):
            TableStore(db, exclusive=True)
    finally:
        first.close()
    TableStore(hard, exclusive=True).close()  # free once the first is closed


def test_a_database_the_server_cannot_write_is_refused_with_exit_2(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "serve", "--db", str(blocked / "t.sqlite"),
         "--port", "0"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("buraco-rules serve: cannot write"), lines
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError, match="cannot write the database"):
        TableStore(garbage)


def test_an_address_holds_few_tables_and_a_table_left_behind_expires_unscored(
    client_of: Any, tmp_path: Path
) -> None:
    client = client_of(max_tables_per_client=2, expire_after=1.5, rate=1000)
    first, second = (
        client.post("/api/tables", json={"seats": ["human", "greedy"]}).json() for _ in range(2)
    )
    third = client.post("/api/tables", json={"seats": ["human", "greedy"]})
    assert third.status_code == 429 and third.json()["code"] == "too-many-tables"
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "token": first["seats"][0]["token"]})
        ws.receive_json()
        assert ws.receive_json()["notice"] is None
        # Nobody moves for a second and a half: the table is closed and its seat told.
        closed = ws.receive_json()
        assert closed["notice"]["code"] == "expired" and not closed["over"]
        assert closed["scores"] == []  # nothing that was not played is scored
        ws.send_json({"type": "move", "seq": 1, "action": "draw"})
        assert ws.receive_json()["code"] == "expired"
    for _ in range(100):  # the second table expires at the next look (every 1/4 of the time)
        if client.get("/api/health").json()["unfinished"] == 0:
            break
        time.sleep(0.05)
    assert client.get("/api/health").json()["unfinished"] == 0  # both slots free again
    again = client.post("/api/tables", json={"seats": ["human", "greedy"]})
    assert again.status_code == 201
    with client.websocket_connect("/ws") as ws:  # its links open nothing any more
        ws.send_json({"type": "join", "token": second["seats"][0]["token"]})
        assert ws.receive_json()["code"] == "bad-token"
    store = TableStore(tmp_path / "t.sqlite")
    try:
        assert [s[1] for s in store.summary()][:2] == [2, 2]  # EXPIRED, kept
    finally:
        store.close()


def test_a_table_nobody_sat_down_at_expires_soon_one_being_played_or_watched_does_not(
    client_of: Any,
) -> None:
    # The outside probe filled --max-tables from 60 addresses in two seconds with tables that
    # nobody ever joined, which held every creator out for a day (--expire-after).
    client = client_of(expire_after=None, expire_unplayed=1.0, rate=1000)
    alone, watched, played = (
        client.post("/api/tables", json={"seats": ["human", "greedy"]}).json() for _ in range(3)
    )
    with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as other:
        ws.send_json({"type": "join", "token": watched["seats"][0]["token"]})
        ws.receive_json()
        ws.receive_json()
        other.send_json({"type": "join", "token": played["seats"][0]["token"]})
        other.receive_json()
        other.receive_json()
        other.send_json({"type": "move", "seq": 1, "action": "draw"})
        assert other.receive_json()["type"] == "accepted"
        for _ in range(100):  # looked at every quarter of a second
            if client.get("/api/health").json()["unfinished"] == 2:
                break
            time.sleep(0.05)
        time.sleep(0.6)  # two more looks: the watched and the played tables stay
        assert client.get("/api/health").json()["unfinished"] == 2
    with client.websocket_connect("/ws") as ws:  # the unplayed table's link opens nothing
        ws.send_json({"type": "join", "token": alone["seats"][0]["token"]})
        assert ws.receive_json()["code"] == "bad-token"


class _Flaky:
    """A bot that raises on its first ``failures`` decisions, then plays as GreedyBot: the fault
    of a bot that crashes (the server's own bots have no such bug to use)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures

    def choose(self, seen: br.PlayerView, rng: random.Random) -> br.Action:
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("the bot crashed")
        return GreedyBot().choose(seen, rng)


def test_a_bot_that_fails_is_tried_again_and_the_table_told(client_of: Any) -> None:
    client = client_of(rate=1000)
    created = client.post("/api/tables", json={"seats": ["human", "greedy"]}).json()
    hub: TableHub = client.app.state.hub  # type: ignore[attr-defined]
    hub.tables[created["table"]].seats[1].bot = _Flaky(2)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "token": created["seats"][0]["token"]})
        ws.receive_json()
        view = ws.receive_json()
        ws.send_json({"type": "move", "seq": 1, "action": "draw"})
        ws.receive_json()
        view = ws.receive_json()
        card = br.from_data(view["view"]).hand[0]
        ws.send_json({"type": "move", "seq": 2, "action": f"discard {card}"})
        assert ws.receive_json()["type"] == "accepted"
        ws.receive_json()
        told = ws.receive_json()  # the bot failed: the people are told, and it tries again
        assert told["notice"] == {
            "code": "bot-retrying",
            "message": "a bot could not move; retrying",
        }
        played = ws.receive_json()  # twice failed, then it plays: the notice is gone
        assert played["last"]["seat"] == 1 and played["notice"] is None

"""The turn clock: a seat whose time runs out is played by a bot from its view (``away``) until
its person moves again, and the deadline and the away seats are stored, so a restart keeps them.
The clock here is one second (the server's default for tables of two people, as an operator may
set it; a table's own request may ask for 15 seconds at least)."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from buraco_rules.server import create_app
from buraco_rules.server.store import TableStore, now
from buraco_rules.server.tables import TableHub

with warnings.catch_warnings():  # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _sit_down(ws: Any, created: dict[str, Any], seat: int) -> dict[str, Any]:
    """Join ``seat`` of the table ``created`` on ``ws``: its welcome."""
    token = created["seats"][seat]["token"]
    ws.send_json({"type": "join", "token": token, "table": created["table"]})
    welcome: dict[str, Any] = ws.receive_json()
    return welcome


def _until(ws: Any, check: Any, limit: int = 400) -> dict[str, Any]:
    """The first view that passes ``check`` (bounded: a clock that never runs out fails)."""
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "view" and check(message):
            return message
    raise AssertionError("no such view")


def test_a_seat_out_of_time_is_played_by_a_bot_until_its_person_moves(tmp_path: Path) -> None:
    db = tmp_path / "clock.sqlite"
    app = create_app(db, bot_delay=0.05, rate=1000, turn_seconds=1)
    with TestClient(app) as client:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        assert created["turn_seconds"] == 1
        alone = client.post("/api/tables", json={"seats": ["human", "greedy"]}).json()
        assert alone["turn_seconds"] is None  # one person and a bot: nobody waits
        with client.websocket_connect("/ws") as ws:
            welcome = _sit_down(ws, created, 0)
            assert welcome["turn_seconds"] == 1 and welcome["log"] == []
            first = ws.receive_json()
            assert first["clock"]["seat"] == 0 and 0 <= first["clock"]["remaining"] <= 1
            assert first["seats"][0] == {
                "kind": "human", "bot": None, "connected": True, "away": False
            }  # fmt: skip
            assert first["seats"][1]["connected"] is False
            # Seat 0 does not move: its clock runs out and a bot plays its turn (draw, discard).
            taken = _until(ws, lambda v: v["seats"][0]["away"] and v["number"] >= 2)
            assert taken["last"]["seat"] == 0 and taken["next_seq"] >= 3
            # Its person is back ("back"; during its own turn, once the bot has finished it).
            ws.send_json({"type": "back"})
            back = _until(ws, lambda v: not v["seats"][0]["away"])
            assert back["seats"][0]["away"] is False
    hub: TableHub = app.state.hub  # type: ignore[attr-defined]
    table = hub.tables[created["table"]]
    store = TableStore(db)
    try:  # what a restart finds: the deadline and the away seats as they were
        stored = store.load(created["table"])
        assert stored is not None
        assert stored.meta.deadline == table.deadline and set(stored.meta.away) == table.away
        assert [m[2] for m in stored.moves] == [a for _, a in table.moves]
    finally:
        store.close()


def test_an_away_seat_stays_away_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "again.sqlite"
    with TestClient(create_app(db, bot_delay=600, rate=1000, turn_seconds=1)) as client:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        with client.websocket_connect("/ws") as ws:
            _sit_down(ws, created, 0)
            # A bot is to play seat 0 (its clock ran out) but waits its long delay: restart.
            away = _until(ws, lambda v: v["seats"][0]["away"])
            assert away["clock"] is None and away["number"] == 0
    again = TestClient(create_app(db, bot_delay=0.05, rate=1000, turn_seconds=1))
    with again as client, client.websocket_connect("/ws") as ws:
        _sit_down(ws, created, 1)
        first = ws.receive_json()
        assert first["seats"][0]["away"] is True  # still away after the restart
        # ...and its bot plays on, without a new clock to run out first.
        played = _until(ws, lambda v: v["number"] >= 1)
        assert played["last"]["seat"] == 0


def test_a_clock_that_ran_out_while_the_server_was_down_gives_a_grace(tmp_path: Path) -> None:
    db = tmp_path / "down.sqlite"
    app = create_app(db, bot_delay=600, rate=1000, turn_seconds=2)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        _sit_down(ws, created, 1)
        assert ws.receive_json()["clock"]["seat"] == 0  # started: seat 0's time runs
        hub: TableHub = app.state.hub  # type: ignore[attr-defined]
        deadline = hub.tables[created["table"]].deadline
    assert deadline is not None
    while now() < deadline + 0.5:  # the server is down while seat 0's clock runs out
        time.sleep(0.1)
    again = create_app(db, bot_delay=600, rate=1000, turn_seconds=2)
    with TestClient(again) as client:
        hub = again.state.hub  # type: ignore[attr-defined]
        table = hub.tables[created["table"]]
        assert table.deadline is not None and table.deadline > now() and table.away == set()


def test_the_clock_starts_when_the_first_person_sits_down_not_at_the_creation(
    tmp_path: Path,
) -> None:
    db = tmp_path / "late.sqlite"
    with TestClient(create_app(db, bot_delay=600, rate=1000, turn_seconds=1)) as client:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        time.sleep(1.5)  # longer than a turn, before anybody comes
        with client.websocket_connect("/ws") as ws:
            _sit_down(ws, created, 1)
            first = ws.receive_json()
            assert first["clock"]["seat"] == 0 and not first["seats"][0]["away"]  # not run out
    store = TableStore(db)
    try:  # stored, as another process or a restart must know it
        stored = store.load(created["table"])
        assert stored is not None and stored.meta.deadline is not None
    finally:
        store.close()


def test_back_during_the_turn_that_ran_out_takes_effect_once_the_bot_has_played_it(
    tmp_path: Path,
) -> None:
    # Coming back without a move must not hold the table up: the turn whose time ran out is
    # the bot's to finish, and the seat is its person's again from then on.
    db = tmp_path / "back.sqlite"
    app = create_app(db, bot_delay=0.05, rate=1000, turn_seconds=1)
    with TestClient(app) as client:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        table = app.state.hub.tables[created["table"]]  # type: ignore[attr-defined]
        with client.websocket_connect("/ws") as ws:
            _sit_down(ws, created, 0)
            _until(ws, lambda v: v["seats"][0]["away"])
            ws.send_json({"type": "back"})
            back = _until(ws, lambda v: not v["seats"][0]["away"])
            assert back["number"] >= 2 and back["last"]["seat"] == 0  # its turn was played
            assert table.coming_back == set() and 0 not in table.away
            ws.send_json({"type": "back"})  # not away: nothing happens, nothing is refused
            ws.send_json({"type": "ping"})
            assert _answer(ws) == {"type": "pong"}


def test_back_during_another_seat_s_turn_leaves_that_seat_s_clock_running(
    tmp_path: Path,
) -> None:
    # An outside probe: seat 1 had 8 s left; seat 0 came back, and seat 1's clock showed 15 s
    # again. Only the returning seat's own turn gets a fresh clock.
    db = tmp_path / "other.sqlite"
    app = create_app(db, bot_delay=0.05, rate=1000, turn_seconds=3)
    with TestClient(app) as client:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        table = app.state.hub.tables[created["table"]]  # type: ignore[attr-defined]
        with client.websocket_connect("/ws") as ws:
            _sit_down(ws, created, 0)
            # Seat 0's time runs out, its bot plays the turn: seat 1's turn and clock begin.
            turn = _until(
                ws, lambda v: v["seats"][0]["away"] and (v["clock"] or {}).get("seat") == 1
            )
            running = table.deadline
            assert running is not None and turn["clock"]["remaining"] <= 3
            ws.send_json({"type": "back"})
            back = _until(ws, lambda v: not v["seats"][0]["away"])
            assert back["clock"]["seat"] == 1 and table.deadline == running


def _answer(ws: Any) -> dict[str, Any]:
    """The next message that is not a view."""
    for _ in range(400):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] != "view":
            return message
    raise AssertionError("no answer")


def test_an_away_seat_whose_page_is_opened_again_is_waited_for_at_its_next_turn(
    tmp_path: Path,
) -> None:
    db = tmp_path / "again.sqlite"
    app = create_app(db, bot_delay=600, rate=1000, turn_seconds=1)
    with TestClient(app) as client:
        created = client.post("/api/tables", json={"seats": ["human", "human"]}).json()
        table = app.state.hub.tables[created["table"]]  # type: ignore[attr-defined]
        with client.websocket_connect("/ws") as ws:
            _sit_down(ws, created, 0)
            away = _until(ws, lambda v: v["seats"][0]["away"])
            assert away["number"] == 0  # the bot waits its (long) delay: no move yet
            assert table.returning == set()  # a page left open: no pause asked for
            with client.websocket_connect("/ws") as again:  # the page opened anew, while away
                _sit_down(again, created, 0)
                assert table.returning == {0}  # the bot will wait for it at its turn

"""Hostile clients: every kind of bad frame, in process and against a real ``buraco-rules serve``.
Each is answered with a clear error (or the connection is closed), and none changes a table or
reveals anything: the honest seats' views, the table's moves and the database are the same
before and after, and no answer quotes a token or a card the sender may not see."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from buraco_rules.server import create_app
from buraco_rules.server.tables import TableHub

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    db = tmp_path / "h.sqlite"
    with TestClient(create_app(db, bot_delay=0, rate=50)) as client:
        yield client, db


def create(client: TestClient, **request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = client.post("/api/tables", json=request).json()
    return answer


def moves_in(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as raw:
        return raw.execute("SELECT * FROM moves ORDER BY table_id, number").fetchall()


def answers(client: TestClient, frames: list[Any]) -> tuple[list[dict[str, Any]], int | None]:
    """What a fresh connection is answered for ``frames`` (text, or bytes for a binary frame),
    and the close code if the server closed it."""
    got: list[dict[str, Any]] = []
    with client.websocket_connect("/ws") as ws:
        try:
            for frame in frames:
                if isinstance(frame, bytes):
                    ws.send_bytes(frame)
                else:
                    ws.send_text(frame if isinstance(frame, str) else json.dumps(frame))
            ws.send_text(json.dumps({"type": "ping"}))
            while True:
                message = ws.receive_json()
                if message == {"type": "pong"}:
                    return got, None
                got.append(message)
        except WebSocketDisconnect as closed:
            return got, closed.code


def test_every_bad_frame_is_refused_and_changes_nothing(server: tuple[TestClient, Path]) -> None:
    client, db = server
    table = create(client, seats=["human", "human"])
    other = create(client, seats=["human", "greedy"])
    tid = table["table"]
    token0, token1 = table["seats"][0]["token"], table["seats"][1]["token"]
    foreign = other["seats"][0]["token"]
    join0 = {"type": "join", "token": token0, "table": tid}
    join1 = {"type": "join", "token": token1, "table": tid}
    hub: TableHub = client.app.state.hub  # type: ignore[attr-defined]

    with client.websocket_connect("/ws") as honest0, client.websocket_connect("/ws") as honest1:
        honest0.send_json(join0)
        honest0.receive_json(), honest0.receive_json()  # its welcome and view
        honest1.send_json(join1)
        honest1.receive_json(), honest1.receive_json()
        # Seat 0 is shown seat 1 connected (once); seat 1 saw both in its first view.
        shown = honest0.receive_json()
        assert [s["connected"] for s in shown["seats"]] == [True, True]
        # Seat 0 draws, so the table is mid-turn while the attacks come.
        honest0.send_json({"type": "move", "seq": 1, "action": "draw"})
        honest0.receive_json()
        before0, before1 = honest0.receive_json(), honest1.receive_json()
        stored = moves_in(db)
        hand0 = before0["view"]["hand"].split()

        cases: list[tuple[str, list[Any], str, int | None]] = [
            ("no join", [{"type": "move", "seq": 2, "action": "draw"}], "not-joined", 1008),
            ("missing token", [{"type": "join"}], "malformed", 1008),
            ("wrong token", [{"type": "join", "token": "x" * 43}], "bad-token", 1008),
            (
                "guessed token",
                [{"type": "join", "token": token0[:-1] + ("B" if token0[-1] == "A" else "A")}],
                "bad-token",
                1008,
            ),
            (
                "other table's token",
                [{"type": "join", "token": foreign, "table": tid}],
                "bad-token",
                1008,
            ),
            (
                "token of another seat's table",
                [{"type": "join", "token": token0, "table": other["table"]}],
                "bad-token",
                1008,
            ),
            ("binary frame", [b"\x00\x01"], "binary", 1003),
            ("binary after join", [join1, b"{}"], "binary", 1003),
            ("frame over the limit", [join1, "x" * 5000], "too-big", 1009),
            ("not JSON", [join1, "{"], "malformed", None),
            ("JSON bomb", [join1, "[" * 4000], "malformed", None),
            ("not an object", [join1, "[1, 2]"], "malformed", None),
            ("unknown type", [join1, {"type": "deal"}], "malformed", None),
            (
                "seq as text",
                [join1, {"type": "move", "seq": "1", "action": "draw"}],
                "malformed",
                None,
            ),
            ("seq zero", [join1, {"type": "move", "seq": 0, "action": "draw"}], "malformed", None),
            (
                "huge seq",
                [join1, {"type": "move", "seq": 10**30, "action": "draw"}],
                "malformed",
                None,
            ),
            (
                "action a number",
                [join1, {"type": "move", "seq": 1, "action": 5}],
                "malformed",
                None,
            ),
            ("seq ahead", [join1, {"type": "move", "seq": 9, "action": "draw"}], "bad-seq", None),
            ("join twice", [join1, join1], "already-joined", None),
            (
                "out of turn",
                [join1, {"type": "move", "seq": 1, "action": "draw"}],
                "not-your-turn",
                None,
            ),
            (
                "out of turn, her card",
                [join1, {"type": "move", "seq": 1, "action": f"discard {hand0[0]}"}],
                "not-your-turn",
                None,
            ),
            (
                "not an action",
                [join1, {"type": "move", "seq": 1, "action": "draw\x00"}],
                "not-an-action",
                None,
            ),
            (
                "bad action document",
                [join1, {"type": "move", "seq": 1, "action": {"type": "action"}}],
                "not-an-action",
                None,
            ),
        ]
        for name, frames, code, closed in cases:
            got, close_code = answers(client, frames)
            errors = [m for m in got if m["type"] in ("error", "refused")]
            assert [m["code"] for m in errors] == [code], name
            assert close_code == closed, name
            for message in got:
                text = json.dumps(message)
                assert token0 not in text and token1 not in text and foreign not in text, name
            for message in errors:  # a refusal tells nothing of seat 0's hand
                assert not any(card in message["message"].split() for card in hand0[1:]), name

        # The honest seats heard nothing (the attackers' connections to seat 1 left it connected
        # all along: no presence round), the table and the database did not change.
        for ws in (honest0, honest1):
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}
        assert moves_in(db) == stored
        assert len(hub.tables[tid].moves) == 1
        honest0.send_json({"type": "move", "seq": 2, "action": "discard " + hand0[0]})
        assert honest0.receive_json()["type"] == "accepted"  # seat 0 plays on as before
        after0, after1 = honest0.receive_json(), honest1.receive_json()
        assert after0["number"] == after1["number"] == 2
        assert after1["view"]["hand"] == before1["view"]["hand"]


def test_a_flood_closes_the_connection(
    server: tuple[TestClient, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from buraco_rules.server import app as app_module

    # the limiter's clock stands still: no allowance comes back while the 300 pings are read,
    # however slowly a loaded machine reads them (the event loop keeps its own clock)
    monkeypatch.setattr(app_module, "time", SimpleNamespace(monotonic=lambda: 0.0))
    client, db = server
    table = create(client, seats=["human", "human"])
    join1 = {"type": "join", "token": table["seats"][1]["token"], "table": table["table"]}
    got: list[dict[str, Any]] = []
    with client.websocket_connect("/ws") as ws:
        ws.send_json(join1)
        for _ in range(300):  # the app allows 50 a second, in bursts of 100
            ws.send_json({"type": "ping"})
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                got.append(ws.receive_json())
    assert closed.value.code == 1008 and got[-1]["code"] == "rate-limited"
    assert 90 <= sum(m == {"type": "pong"} for m in got) < 110
    assert moves_in(db) == []


def test_a_real_server_closes_oversized_frames_and_logs_no_token(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    websockets = pytest.importorskip("websockets")
    from server_support import running

    log = tmp_path / "server.log"
    with running(tmp_path / "r.sqlite", log, "--bot-delay", "0") as server:
        created = server.create({"seats": ["human", "greedy"]})
        token = created["seats"][0]["token"]

        async def attack() -> list[Any]:
            from websockets.asyncio.client import connect

            seen: list[Any] = []
            async with connect(server.ws_url + "?token=" + token) as ws:  # a careless client
                await ws.send(json.dumps({"type": "join", "token": token}))
                seen.append(json.loads(await ws.recv()))
                seen.append(json.loads(await ws.recv()))
                await ws.send("x" * 100_000)  # over the transport's limit (16 KiB)
                with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                    await ws.recv()
                seen.append(closed.value.rcvd.code if closed.value.rcvd else None)
            async with connect(server.ws_url) as ws:
                await ws.send(json.dumps({"type": "join", "token": "nope"}))
                seen.append(json.loads(await ws.recv()))
            return seen

        welcome, view, code, refused = asyncio.run(attack())
        assert welcome["type"] == "welcome" and view["type"] == "view"
        assert code == 1009 and refused["code"] == "bad-token"
        # A token in the query in capitals, in the path, and a 30 KB path (the outside probe
        # found the first two logged whole, the last logged as a 30 KB line).
        for path in ("/?x=1&TOKEN=" + token, "/x/" + token, "/y/" + "z" * 30_000):
            with contextlib.suppress(urllib.error.HTTPError):
                urllib.request.urlopen(server.url + path, timeout=10).close()
    text = log.read_text()
    assert "GET /ws" in text or "/ws" in text  # the access log is on...
    assert token not in text  # ...and holds no token, even one put in a URL
    assert "TOKEN=..." in text and "/x/..." in text
    assert max(len(line) for line in text.splitlines()) < 1_000


def test_seats_see_each_other_come_and_go_and_a_reconnect_storm_is_not_amplified(
    tmp_path: Path,
) -> None:
    pytest.importorskip("uvicorn")
    pytest.importorskip("websockets")
    from buraco_rules.server.tables import _PRESENCE_EVERY
    from server_support import running

    async def watch(server: Any, created: dict[str, Any]) -> None:
        from websockets.asyncio.client import connect

        join = [
            {"type": "join", "token": s["token"], "table": created["table"]}
            for s in created["seats"]
        ]

        async def until_view(ws: Any) -> dict[str, Any]:
            while True:
                message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == "view":
                    return message

        async with connect(server.ws_url) as seat0:
            await seat0.send(json.dumps(join[0]))
            first = await until_view(seat0)
            assert [s["connected"] for s in first["seats"]] == [True, False]
            async with connect(server.ws_url) as seat1:
                await seat1.send(json.dumps(join[1]))
                await until_view(seat1)
                shown = await until_view(seat0)  # no move: the view again, seat 1 connected
                assert [s["connected"] for s in shown["seats"]] == [True, True]
                assert shown["number"] == first["number"]
            gone = await until_view(seat0)
            assert [s["connected"] for s in gone["seats"]] == [True, False]
            # A storm: seat 1 connects and leaves 30 times (60 changes) as fast as it can; seat 0
            # is sent one view a presence round at most, and is shown the end of it.
            began = time.monotonic()
            for _ in range(30):
                async with connect(server.ws_url) as storm:
                    await storm.send(json.dumps(join[1]))
                    await until_view(storm)
            await asyncio.sleep(3 * _PRESENCE_EVERY)
            await seat0.send(json.dumps({"type": "ping"}))
            views = []
            while True:
                message = json.loads(await asyncio.wait_for(seat0.recv(), 10))
                if message["type"] == "pong":
                    break
                views.append(message)
            rounds = (time.monotonic() - began) / _PRESENCE_EVERY + 1
            assert len(views) <= rounds  # one view a round at most, never one a change
            last = views[-1] if views else gone  # what seat 0 was shown last: seat 1 gone
            assert [s["connected"] for s in last["seats"]] == [True, False]

    with running(tmp_path / "p.sqlite", tmp_path / "server.log", "--bot-delay", "0") as server:
        created = server.create({"seats": ["human", "human"]})
        asyncio.run(watch(server, created))


def test_a_connection_that_never_joins_is_closed(tmp_path: Path) -> None:
    with (
        TestClient(create_app(tmp_path / "j.sqlite", join_timeout=0.2)) as client,
        client.websocket_connect("/ws") as ws,
    ):
        assert ws.receive_json() == {
            "type": "error",
            "code": "join-timeout",
            "message": "no join in time",
        }
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008

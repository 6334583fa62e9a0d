"""A table with house rules (``"options"`` in ``POST /api/tables``, R26 on) on a real server
process: refused with 400 ``bad-table`` naming a bad option; created, played, stored with its rule
set whole in the start record, and reloaded by a restarted server on the same database."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.server.store import StoredTable, TableStore
from server_support import SeatClient, ServerProcess

OPTIONS = {"closed_take_naturals_only": True, "set_ranks": "AK"}
REQUEST = {
    "variant": "buraco-fechado",
    "players": 2,
    "seats": ["human", "human"],
    "options": OPTIONS,
}


def refusal(server: ServerProcess, request: dict[str, Any]) -> dict[str, Any]:
    post = urllib.request.Request(
        server.url + "/api/tables",
        json.dumps(request).encode(),
        {"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(post, timeout=10)
    assert error.value.code == 400
    answer: dict[str, Any] = json.loads(error.value.read())
    assert answer["code"] == "bad-table"
    return answer


def load(db: Path, table: str) -> StoredTable:
    store = TableStore(db)
    try:
        stored = store.load(table)
    finally:
        store.close()
    assert stored is not None
    return stored


async def play_for(clients: list[SeatClient], seconds: float) -> None:
    deadline = time.monotonic() + 120
    games = asyncio.gather(*(c.play(deadline) for c in clients))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(games, seconds)


def test_R26_R27_server_creates_plays_stores_and_reloads_a_table_with_options(
    tmp_path: Path,
) -> None:
    expected = variants.with_options("buraco-fechado", **OPTIONS)
    db = tmp_path / "options.sqlite"
    server = ServerProcess(db, tmp_path / "server.log", "--bot-delay", "0", "--rate", "100000")
    server.start()
    try:
        with urllib.request.urlopen(server.url + "/api/variants", timeout=10) as answer:
            listed = json.loads(answer.read())
        assert all(v["options"] == variants.options_for(v["name"]) for v in listed)
        by_name = {v["name"]: v["options"] for v in listed}
        assert "closed_take_naturals_only" not in by_name["italian"]  # an open pile (R11)
        assert "turns sets on" in by_name["buraco-fechado"]["set_ranks"]
        assert "turns sets on" not in by_name["italian"]["set_ranks"]
        for options, named in (
            ({"no_such_rule": True}, "no_such_rule"),
            ({"set_ranks": "KA"}, "set_ranks"),
            ({"closed_take_naturals_only": 1}, "closed_take_naturals_only"),
            ([1, 2], "options"),
        ):
            answer = refusal(server, {**REQUEST, "options": options})
            assert named in answer["message"]
        rising = {"opening_thresholds": [[1500, 50]]}
        answer = refusal(server, {**REQUEST, "match": False, "options": rising})
        assert "a single hand has none" in answer["message"]
        italian = {"variant": "italian", "players": 2, "seats": ["human", "human"]}
        answer = refusal(server, {**italian, "options": {"closed_take_naturals_only": True}})
        assert "closed discard pile" in answer["message"]

        created = server.create(REQUEST)
        table = created["table"]
        clients = [
            SeatClient(server.ws_url, table, seat["seat"], seat["token"], 33 + seat["seat"])
            for seat in created["seats"]
        ]
        asyncio.run(play_for(clients, 1.5))  # part of the hand, then a restart
        server.stop()
        stored = load(db, table)
        assert stored.moves and stored.start.rules == expected
        assert stored.replay().rules == expected
        server.start()
        asyncio.run(play_for(clients, 90))
    finally:
        server.stop()
    assert all(c.over for c in clients)
    for client in clients:
        assert client.last is not None
        assert br.from_data(client.last["view"]).rules == expected
    stored = load(db, table)
    assert stored.finished and stored.replay().rules == expected

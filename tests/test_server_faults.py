"""Storage faults on a real ``buraco-rules serve`` process: its file-size limit is lowered under
it (``RLIMIT_FSIZE``, as a full disk does: every write that would grow a file fails), then raised
again. A move that cannot be stored is answered ``storage-failed`` and not played, the table's
notice says so, a creation is a 503, and once there is room again the person's move is played and
the bot, whose commit failed meanwhile, plays on by itself: nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import json
import random
import resource
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
import buraco_rules as br
from buraco_rules.bots import GreedyBot
from buraco_rules.server.store import TableStore
from server_support import ServerProcess


def test_a_full_disk_refuses_clearly_and_the_bots_resume_when_space_returns(
    tmp_path: Path,
) -> None:
    db = tmp_path / "full.sqlite"
    server = ServerProcess(db, tmp_path / "server.log", "--bot-delay", "1", "--rate", "1000")
    server.start()
    try:
        created = server.create({"variant": "italian", "players": 2, "seats": ["human", "greedy"]})
        assert server.process is not None
        pid = server.process.pid
        _, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)
        wal = Path(f"{db}-wal")

        def disk_full() -> None:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (wal.stat().st_size, hard))

        def disk_freed() -> None:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (hard, hard))

        accepted = asyncio.run(_play(server, created, disk_full, disk_freed))
    finally:
        server.stop()
    store = TableStore(db)
    try:
        stored = store.load(created["table"])
        assert stored is not None
        mine = {seq: action for seat, seq, action in stored.moves if seat == 0}
        assert mine == accepted  # every acknowledged move stored, none else
        assert any(seat == 1 for seat, _, _ in stored.moves)  # the bot played after the fault
    finally:
        store.close()


async def _play(server: ServerProcess, created: dict[str, Any], full: Any, freed: Any) -> Any:
    from websockets.asyncio.client import connect

    accepted: dict[int, str] = {}
    seen: list[dict[str, Any]] = []

    async def until(ws: Any, check: Any) -> dict[str, Any]:
        for _ in range(200):
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
            seen.append(message)
            if check(message):
                return message
        raise AssertionError("no such message")

    async with connect(server.ws_url) as ws:
        token = created["seats"][0]["token"]
        await ws.send(json.dumps({"type": "join", "token": token, "table": created["table"]}))
        await until(ws, lambda m: m["type"] == "view")
        # The disk fills: the move is refused as not stored, and everyone is told.
        full()
        await ws.send(json.dumps({"type": "move", "seq": 1, "action": "draw"}))
        error = await until(ws, lambda m: m["type"] == "error")
        assert error["code"] == "storage-failed"
        told = seen[-2]  # the table's notice, sent to every seat before the mover's answer
        assert told["notice"]["code"] == "storage-failed" and told["number"] == 0
        with pytest.raises(urllib.error.HTTPError) as refused:
            server.create({"seats": ["human", "greedy"]})
        assert refused.value.code == 503
        assert json.loads(refused.value.read())["code"] == "storage-failed"
        # Room again: the same move is played now, and the notice is gone.
        freed()
        await ws.send(json.dumps({"type": "move", "seq": 1, "action": "draw"}))
        await until(ws, lambda m: m["type"] == "accepted")
        accepted[1] = "draw"
        view = await until(ws, lambda m: m["type"] == "view")
        assert view["notice"] is None
        mine = br.from_data(view["view"])
        discard = br.format_action(GreedyBot().choose(mine, random.Random(1)))
        while not discard.startswith("discard"):  # melds first, if the bot would lay any
            await ws.send(json.dumps({"type": "move", "seq": len(accepted) + 1, "action": discard}))
            await until(ws, lambda m: m["type"] == "accepted")
            accepted[len(accepted) + 1] = discard
            view = await until(ws, lambda m: m["type"] == "view")
            discard = br.format_action(
                GreedyBot().choose(br.from_data(view["view"]), random.Random(1))
            )
        await ws.send(json.dumps({"type": "move", "seq": len(accepted) + 1, "action": discard}))
        await until(ws, lambda m: m["type"] == "accepted")
        accepted[len(accepted) + 1] = discard
        full()  # before the bot's move (a second from now): its commit fails
        told = await until(ws, lambda m: m["type"] == "view" and m["notice"] is not None)
        assert told["notice"]["code"] == "storage-failed" and told["last"]["seat"] == 0
        freed()
        resumed = await until(ws, lambda m: m["type"] == "view" and m["last"]["seat"] == 1)
        assert resumed["notice"] is None
    return accepted


def test_a_database_removed_under_the_server_is_noticed_and_nothing_more_acknowledged(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    log = tmp_path / "server.log"
    server = ServerProcess(folder / "t.sqlite", log, "--bot-delay", "0", "--rate", "1000")
    server.start()
    try:
        created = server.create({"seats": ["human", "human"]})
        shutil.rmtree(folder)  # the folder removed while serving: the open file lives on, unseen
        with pytest.raises(urllib.error.HTTPError) as refused:
            server.create({"seats": ["human", "greedy"]})
        assert refused.value.code == 503
        assert json.loads(refused.value.read())["code"] == "storage-failed"
        asyncio.run(_move_refused(server, created))
        with pytest.raises(urllib.error.HTTPError) as health:
            urllib.request.urlopen(server.url + "/api/health", timeout=10)
        assert health.value.code == 503
        assert json.loads(health.value.read())["ok"] is False
    finally:
        server.stop()
    # One line when the store notices, then one a refused request as for any storage fault.
    text = log.read_text()
    assert text.count("nothing more is stored") == 1 and "Traceback" not in text
    # That line, the creation's, the clock's start (as the seat joined) and the move's.
    assert text.count("no longer the file") == 4


async def _move_refused(server: ServerProcess, created: dict[str, Any]) -> None:
    from websockets.asyncio.client import connect

    async with connect(server.ws_url) as ws:
        token = created["seats"][0]["token"]
        await ws.send(json.dumps({"type": "join", "token": token, "table": created["table"]}))
        for _ in range(5):
            if json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "view":
                break
        await ws.send(json.dumps({"type": "move", "seq": 1, "action": "draw"}))
        for _ in range(5):
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert answer["type"] != "accepted"
            if answer["type"] == "error":
                assert answer["code"] == "storage-failed"
                return
        raise AssertionError("no answer to the move")

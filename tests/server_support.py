"""Helpers of the server tests: a real ``buraco-rules serve`` process on a free loopback port,
and a seat's WebSocket client that plays from its views with a bot and remembers every answer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import buraco_rules as br
from buraco_rules.bots import GreedyBot

COMMAND = [sys.executable, "-m", "buraco_rules", "serve"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """``buraco-rules serve`` in a subprocess, its output in a file (to search for tokens)."""

    def __init__(self, db: Path, log: Path, *extra: str) -> None:
        self.db = db
        self.log = log
        self.extra = extra
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        args = [*COMMAND, "--port", str(self.port), "--db", str(self.db), *self.extra]
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ)
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.log.read_text()[-2000:]}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(self.url + "/api/health", timeout=1) as answer,
            ):
                if answer.status == 200:
                    return
            time.sleep(0.05)
        raise RuntimeError("the server did not start in 30 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, nothing but what the database already holds."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
            self.process = None

    def create(self, request: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(request).encode()
        post = urllib.request.Request(
            self.url + "/api/tables", data, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(post, timeout=10) as answer:
            result: dict[str, Any] = json.loads(answer.read())
            return result

    def health(self) -> tuple[int, dict[str, Any]]:
        """``GET /api/health``: its status and its JSON, a 503 included."""
        try:
            with urllib.request.urlopen(self.url + "/api/health", timeout=10) as answer:
                return answer.status, dict(json.loads(answer.read()))
        except urllib.error.HTTPError as refused:
            return refused.code, dict(json.loads(refused.read()))


@contextlib.contextmanager
def running(db: Path, log: Path, *extra: str) -> Iterator[ServerProcess]:
    server = ServerProcess(db, log, *extra)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class SeatClient:
    """One seat, played by a bot over a WebSocket, through server restarts.

    ``accepted`` maps each sequence number the server accepted to the move; ``sent`` counts how
    often each seq went out (a resend after a restart is the same seq again); ``numbers`` are the
    move counts of the views received, in order, and ``welcomes`` the ``next_seq`` of each
    welcome."""

    def __init__(
        self, url: str, table: str, seat: int, token: str, seed: int, naive: bool = False
    ) -> None:
        self.naive = naive  # resends its move in flight even when the welcome says it was played
        self.url = url
        self.table = table
        self.seat = seat
        self.token = token
        self.rng = random.Random(seed)
        self.bot = GreedyBot()
        self.next_seq = 1
        self.pending: tuple[int, str] | None = None
        self.accepted: dict[int, str] = {}
        self.duplicates = 0
        self.sent: dict[int, int] = {}
        self.numbers: list[int] = []
        self.welcomes: list[int] = []
        self.resumes: list[tuple[int, int, int | None]] = []
        """Each welcome's ``(next_seq, last acknowledged seq, seq of the move in flight)``."""
        self.refusals: list[dict[str, Any]] = []
        self.over = False
        self.last: dict[str, Any] | None = None

    async def play(self, deadline: float) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        while not self.over:
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {self.table} seat {self.seat} did not finish")
            try:
                async with connect(self.url, open_timeout=5, max_size=2**20) as ws:
                    await self._session(ws)
            except (TimeoutError, OSError, WebSocketException):
                await asyncio.sleep(0.05)  # the server is down: try again

    async def _session(self, ws: Any) -> None:
        await ws.send(json.dumps({"type": "join", "token": self.token, "table": self.table}))
        async for frame in ws:
            message = json.loads(frame)
            kind = message["type"]
            if kind == "welcome":
                self.welcomes.append(message["next_seq"])
                acknowledged = max(self.accepted, default=0)
                in_flight = None if self.pending is None else self.pending[0]
                self.resumes.append((message["next_seq"], acknowledged, in_flight))
                self.next_seq = message["next_seq"]
                if self.pending is not None:
                    seq, action = self.pending
                    if seq < self.next_seq and not self.naive:  # played before the break
                        self.accepted[seq] = action
                        self.pending = None
                    else:
                        await self._send(ws, seq, action)
            elif kind == "accepted":
                self.duplicates += bool(message.get("duplicate"))
                if self.pending is not None and message["seq"] == self.pending[0]:
                    self.accepted[message["seq"]] = self.pending[1]
                    self.next_seq = message["seq"] + 1
                    self.pending = None
            elif kind == "refused":
                self.refusals.append(message)
                raise AssertionError(f"a bot's legal move was refused: {message}")
            elif kind == "error":
                raise AssertionError(f"the server sent an error: {message}")
            elif kind == "view":
                self.last = message
                self.numbers.append(message["number"])
                if self.pending is not None and message["next_seq"] > self.pending[0]:
                    # Played (a view's next_seq says so): the answer to a resend may come after
                    # the view that ends the game.
                    self.accepted[self.pending[0]] = self.pending[1]
                    self.pending = None
                if message["over"]:
                    self.over = True
                    return
                if message["legal"] and self.pending is None:
                    seen = br.from_data(message["view"])
                    action = br.format_action(self.bot.choose(seen, self.rng))
                    self.pending = (self.next_seq, action)
                    await self._send(ws, self.next_seq, action)

    async def _send(self, ws: Any, seq: int, action: str) -> None:
        self.sent[seq] = self.sent.get(seq, 0) + 1
        await ws.send(json.dumps({"type": "move", "seq": seq, "action": action}))

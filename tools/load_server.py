"""Load on the game server: N tables of bot-driven WebSocket clients playing whole hands at full
speed against a real ``buraco-rules serve`` on the loopback interface.

    python tools/load_server.py                 # N = 1, 10 and 100 tables
    python tools/load_server.py --tables 5 20   # other sizes

Each table has two human seats, each played by a client that answers every view of its turn at
once (``--client random``, the default, picks among the legal moves the view message lists, so
the load generator costs little CPU next to the server; ``--client greedy`` runs the greedy bot
on the decoded view), so every move goes over a WebSocket and through the SQLite commit.
A move's latency runs from the client sending it to the client receiving the view that follows
it. The server's CPU time and peak memory come from /proc (Linux). Every run stops by itself:
after one hand per table, or after ``--timeout`` seconds. Listens on 127.0.0.1 only.
``--think S`` makes each client pause a random 0 to 2S seconds before each move, to measure the
latency of a server that is not saturated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import buraco_rules as br
from buraco_rules.bots import GreedyBot


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Seat:
    def __init__(
        self, url: str, table: str, seat: int, token: str, seed: int, greedy: bool, think: float
    ) -> None:
        self.think = think
        self.url, self.table, self.seat, self.token = url, table, seat, token
        self.rng = random.Random(seed)
        self.bot = GreedyBot() if greedy else None
        self.latencies: list[float] = []
        self.sent_at: float | None = None
        self.seq = 1
        self.awaited = 0  # the move number whose view ends the latency being timed

    async def play(self) -> None:
        from websockets.asyncio.client import connect

        async with connect(self.url, max_size=2**20) as ws:
            await ws.send(json.dumps({"type": "join", "token": self.token, "table": self.table}))
            async for frame in ws:
                message = json.loads(frame)
                if message["type"] in ("error", "refused"):
                    raise RuntimeError(f"the server answered {message}")
                if message["type"] != "view":
                    continue
                if self.sent_at is not None and message["number"] >= self.awaited:
                    self.latencies.append(time.perf_counter() - self.sent_at)
                    self.sent_at = None
                if message["over"]:
                    return
                if message["legal"] and self.sent_at is None:
                    if self.think:  # a pause before the move, as a person (or a slow bot) takes
                        await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
                    if self.bot is None:
                        action = self.rng.choice(message["legal"])
                    else:
                        seen = br.from_data(message["view"])
                        action = br.format_action(self.bot.choose(seen, self.rng))
                    self.awaited = message["number"] + 1
                    self.sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "move", "seq": self.seq, "action": action}))
                    self.seq += 1


def create(url: str, request: dict[str, Any]) -> dict[str, Any]:
    post = urllib.request.Request(
        url + "/api/tables", json.dumps(request).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(post, timeout=30) as answer:
        created: dict[str, Any] = json.loads(answer.read())
        return created


def run(
    tables: int,
    timeout: float,
    variant: str,
    greedy: bool,
    profile: str | None = None,
    think: float = 0.0,
) -> dict[str, float]:
    port = free_port()
    python = [sys.executable] + (["-m", "cProfile", "-o", profile] if profile else [])
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [*python, "-m", "buraco_rules", "serve", "--port", str(port)]
            + ["--db", str(Path(tmp) / "load.sqlite"), "--bot-delay", "0", "--rate", "1000000"]
            + ["--max-tables", str(tables + 10)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(url + "/api/health", timeout=1):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.05)
            seats: list[Seat] = []
            for t in range(tables):
                created = create(url, {"variant": variant, "seats": ["human", "human"]})
                ws_url = f"ws://127.0.0.1:{port}/ws"
                for s in created["seats"]:
                    seed = t * 2 + s["seat"]
                    seats.append(
                        Seat(ws_url, created["table"], s["seat"], s["token"], seed, greedy, think)
                    )
            cpu0, wall0 = cpu_seconds(server.pid), time.perf_counter()
            client0 = time.process_time()

            async def everyone() -> None:
                await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), timeout)

            asyncio.run(everyone())
            wall = time.perf_counter() - wall0
            cpu = cpu_seconds(server.pid) - cpu0
            client_cpu = time.process_time() - client0
            memory = peak_rss_mib(server.pid)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
    latencies = sorted(x for s in seats for x in s.latencies)
    moves = len(latencies)
    return {
        "tables": tables,
        "moves": moves,
        "seconds": wall,
        "moves_per_s": moves / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(moves - 1, int(0.99 * moves))],
        "cpu_percent": 100 * cpu / wall,
        "cpu_ms_per_move": 1000 * cpu / moves,
        "client_cpu_percent": 100 * client_cpu / wall,
        "peak_rss_mib": memory,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run")
    parser.add_argument("--variant", default="canasta-stbl")
    parser.add_argument("--client", choices=("random", "greedy"), default="random")
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mean pause of a client before each move (default 0: full speed)",
    )
    args = parser.parse_args()
    columns = ["tables", "moves", "moves/s", "p50 ms", "p99 ms", "server CPU", "CPU/move"]
    columns += ["server peak RSS", "clients' CPU"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---:|" * len(columns))
    for n in args.tables:
        r = run(n, args.timeout, args.variant, args.client == "greedy", args.profile, args.think)
        print(
            f"| {n} | {r['moves']:,} | {r['moves_per_s']:,.0f} | {r['p50_ms']:.1f} "
            f"| {r['p99_ms']:.1f} | {r['cpu_percent']:.0f} % | {r['cpu_ms_per_move']:.2f} ms "
            f"| {r['peak_rss_mib']:.0f} MiB "
            f"| {r['client_cpu_percent']:.0f} % |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

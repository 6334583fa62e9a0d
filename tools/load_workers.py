"""Load on the game server on PostgreSQL: N tables of WebSocket clients playing whole hands at full
speed against real ``buraco-rules serve`` processes sharing one PostgreSQL database, loopback.

    python tools/load_workers.py --tables 100                 # a temporary cluster
    python tools/load_workers.py --db postgresql://u@host/db  # a database of yours

Each table has two human seats, each played by a client that answers every view of its turn at
once with a move the view lists (a random one: the load generator costs little next to the
server). Three set-ups are measured one after the other, on a new database each:

- ``1 worker``: one ``serve --db postgresql://...`` process;
- ``2 workers``: ``serve --workers 2`` (one port, the kernel spreads the connections, so a table's
  two seats are on different workers about half of the time, and each of those workers applies
  each of its moves);
- ``2 processes, by table``: two ``serve`` processes on two ports, a table's seats both on one
  (what a load balancer hashing the table id gives);
- and, with ``--setups "SQLite, 1 process"``, the default server on a SQLite file, to compare.

``--think S`` makes each client pause a random 0 to 2S seconds before each move (human-paced:
the latency of servers that are not saturated).

A move's latency runs from the client sending it to the client receiving the view that follows
it. The CPU of the servers (their processes and their workers) and of PostgreSQL's processes
come from /proc (Linux). Without ``--db``, a cluster is initialised in a temporary folder with
Debian's ``postgresql`` (``initdb``, ``pg_ctl``; run as the ``postgres`` user under root) and
removed at the end; its data lives on the disk that holds the temporary folder, fsync on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def processes() -> dict[int, tuple[int, str, float]]:
    """Every process: its parent, its name and its CPU seconds so far."""
    found = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue
            name = text[text.index("(") + 1 : text.rindex(")")]
            fields = text.rsplit(")", 1)[1].split()
            found[int(entry.name)] = (
                int(fields[1]),
                name,
                (int(fields[11]) + int(fields[12])) / tick,
            )
    return found


def cpu_of(roots: list[int], table: dict[int, tuple[int, str, float]]) -> float:
    """The CPU seconds of ``roots`` and their children."""
    total = 0.0
    for pid, (parent, _, cpu) in table.items():
        if pid in roots or parent in roots:
            total += cpu
    return total


def postgres_cpu(table: dict[int, tuple[int, str, float]]) -> float:
    return sum(cpu for _, name, cpu in table.values() if name.startswith("postgres"))


class Seat:
    def __init__(
        self, url: str, table: str, seat: int, token: str, seed: int, think: float = 0.0
    ) -> None:
        self.url, self.table, self.seat, self.token = url, table, seat, token
        self.think = think
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.sent_at: float | None = None
        self.seq = 1
        self.awaited = 0

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
                    if self.think:  # a pause before the move, as a person takes
                        await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
                    action = self.rng.choice(message["legal"])
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


def wait_up(url: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.05)


def run(db: str, tables: int, setup: str, timeout: float, think: float) -> dict[str, float]:
    options = ["--bot-delay", "0", "--rate", "1000000", "--create-rate", "0", "--request-rate", "0"]
    options += ["--max-tables", str(tables + 10), "--max-tables-per-client", str(tables + 10)]
    # every client is on this one address: its connection cap lifted
    options += ["--max-per-address", str(2 * tables + 64)]
    servers, workers = SETUPS[setup]
    folder = tempfile.TemporaryDirectory()
    if setup == SQLITE:
        db = str(Path(folder.name) / "load.sqlite")
    ports = [free_port() for _ in range(servers)]
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "buraco_rules", "serve", "--port", str(port), "--db", db]
            + ["--workers", str(workers), *options],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        for port in ports:
            wait_up(f"http://127.0.0.1:{port}")
        time.sleep(1)  # every worker up
        seats: list[Seat] = []
        for t in range(tables):
            port = ports[t % len(ports)]
            created = create(f"http://127.0.0.1:{port}", {"seats": ["human", "human"]})
            for s in created["seats"]:
                seats.append(
                    Seat(
                        f"ws://127.0.0.1:{port}/ws",
                        created["table"],
                        s["seat"],
                        s["token"],
                        t,
                        think,
                    )
                )
        roots = [p.pid for p in started]
        before, wall0 = processes(), time.perf_counter()
        busy0 = machine_busy()

        async def everyone() -> None:
            await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), timeout)

        asyncio.run(everyone())
        wall = time.perf_counter() - wall0
        after = processes()
        busy = machine_busy() - busy0
    finally:
        for process in started:
            process.send_signal(signal.SIGINT)
        for process in started:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        folder.cleanup()
    latencies = sorted(x for s in seats for x in s.latencies)
    moves = len(latencies)
    server_cpu = cpu_of(roots, after) - cpu_of(roots, before)
    return {
        "moves": moves,
        "moves_per_s": moves / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(moves - 1, int(0.99 * moves))],
        "server_cpu": 100 * server_cpu / wall,
        "cpu_ms_per_move": 1000 * server_cpu / moves,
        "postgres_cpu": 100 * (postgres_cpu(after) - postgres_cpu(before)) / wall,
        "machine": 100 * busy / wall / (os.cpu_count() or 1),
    }


SQLITE = "SQLite, 1 process"
SETUPS = {
    "1 worker": (1, 1),
    "2 workers": (1, 2),
    "2 processes, by table": (2, 1),
    SQLITE: (1, 1),  # the default server, on a file in a temporary folder, for comparison
}


def machine_busy() -> float:
    """The machine's busy CPU seconds so far (every core), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def temporary_cluster() -> Iterator[str]:
    """A PostgreSQL cluster in a temporary folder on the disk; the URL of its ``postgres``
    database."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    bindir = Path(found[-1]).parent if found else Path(shutil.which("initdb") or "initdb").parent
    folder = Path(tempfile.mkdtemp(prefix="buraco-load-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        import pwd

        entry = pwd.getpwnam("postgres")
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    data = folder / "data"

    def pg(*args: str) -> None:
        subprocess.run([*prefix, str(bindir / args[0]), *args[1:]], check=True, capture_output=True)

    pg("initdb", "-D", str(data), "-U", "buraco", "--auth=trust", "-E", "UTF8")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    pg("pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start")
    try:
        yield f"postgresql://buraco@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            pg("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def new_database(url: str) -> str:
    import psycopg

    name = f"load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}".encode())
    return url.rsplit("/", 1)[0] + "/" + name


def drop_database(url: str, made: str) -> None:
    """Drop a database :func:`new_database` made on the server ``url`` names (its servers
    stopped), so that runs against a real server leave nothing behind."""
    import psycopg

    name = made.rsplit("/", 1)[1]
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())


def record(path: Path, row: dict[str, Any]) -> None:
    """Add one run's figures to the JSON list in ``path`` (made if missing)."""
    rows = json.loads(path.read_text()) if path.exists() else []
    rows.append({**row, "load_average": os.getloadavg()[0], "at": time.time()})
    path.write_text(json.dumps(rows, indent=1) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db",
        help="a PostgreSQL server's URL (default: a temporary cluster): its role needs CREATEDB,"
        " as each run gets a database of its own, dropped after it",
    )
    parser.add_argument("--tables", type=int, nargs="+", default=[100])
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run")
    parser.add_argument(
        "--setups",
        nargs="+",
        default=["1 worker", "2 workers", "2 processes, by table"],
        choices=list(SETUPS),
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mean pause of a client before each move (default 0: full speed)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="each set-up this many times, alternated"
    )
    parser.add_argument(
        "--json", type=Path, help="add each run's figures to this file (tools/workers_plot.py)"
    )
    args = parser.parse_args()
    columns = ["set-up", "tables", "moves", "moves/s", "p50 ms", "p99 ms"]
    columns += ["servers' CPU", "servers' CPU a move", "PostgreSQL's CPU", "machine busy"]
    print("| " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * (len(columns) - 1))
    with contextlib.ExitStack() as stack:
        base = args.db or stack.enter_context(temporary_cluster())
        for _ in range(args.rounds):
            for n in args.tables:
                for setup in args.setups:
                    made = new_database(base)
                    try:
                        r = run(made, n, setup, args.timeout, args.think)
                    finally:
                        drop_database(base, made)
                    if args.json:
                        record(args.json, {"setup": setup, "tables": n, "think": args.think, **r})
                    print(
                        f"| {setup} | {n} | {r['moves']:,} | {r['moves_per_s']:,.0f} "
                        f"| {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['server_cpu']:.0f} % "
                        f"| {r['cpu_ms_per_move']:.2f} ms "
                        f"| {r['postgres_cpu']:.0f} % | {r['machine']:.0f} % |",
                        flush=True,
                    )
    print(f"load average after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

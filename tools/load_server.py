"""Load on the game server: N tables of WebSocket clients playing against a real
``buraco-rules serve`` on the loopback interface, at full speed or at a person's pace.

    python tools/load_server.py                          # N = 1, 10 and 100 tables, full speed
    python tools/load_server.py --tables 5 20            # other sizes
    python tools/load_server.py --think 0.5 2 --tables 200 1000 2000 --duration 60

Each table has two human seats, each played by a client that answers every view of its turn
(``--client random``, the default, picks among the legal moves the view message lists, so the
load generator costs little CPU next to the server; ``--client greedy`` runs the greedy bot on
the decoded view), so every move goes over a WebSocket and through the store's commit. A move's
latency runs from the client sending it to the client receiving the view that follows it.

The server keeps its tables in a new SQLite file in a temporary folder (``--db-dir``), or, with
``--db postgresql://USER@HOST/DB``, in a new database of that PostgreSQL server for each run
(created next to DB, which is only connected to for that, and dropped after: the role needs
CREATEDB), so that the same tool measures both stores; ``--workers N`` serves it with N processes
on one port (PostgreSQL only). The server's CPU time and peak memory are summed over its
processes (the workers and their parent); PostgreSQL's own CPU is not in them (``load average``
shows the machine's).

    python tools/load_server.py --tables 50 --db postgresql://buraco@127.0.0.1/postgres
    python tools/load_server.py --tables 50 --db postgresql://buraco@127.0.0.1/postgres --workers 2

At full speed (no ``--think``) each client moves the moment its view arrives, and each table
plays one hand. ``--think LO HI`` makes each client pause a random LO to HI seconds before each
move (one value S: 0 to 2S), as a person does: then the tables play for ``--warmup`` seconds,
unmeasured, and are measured for ``--duration`` seconds, and the run stops there (a hand at a
person's pace lasts minutes). Every run ends by itself and prints its row, whatever happens:
at the end of the hands, at ``--duration``, or at ``--timeout`` (the moves measured until then).

The clients run in ``--client-procs`` processes (so that the load generator is not what
saturates first). The server's CPU time and peak memory come from /proc (Linux); ``--gc-log``
times every garbage collection in the server (``gc.callbacks``) and reports the full ones;
``--gc python`` runs the server with Python's collector settings instead of the server's
(``buraco_rules.server.gcpolicy``), to compare, and ``--gc 700,10,10`` with other thresholds
(and the server's freeze); the clients, like browsers, send no keepalive pings;
``--json FILE`` writes every run's figures and series (latencies and collections by time) for
``tools/latency_plot.py``. Listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The server, started through this code: it records the collector's pauses when asked
# (argv[1], a file) and keeps Python's collector settings when asked (argv[2] == "python").
_LAUNCHER = """
import atexit, gc, json, sys
from buraco_rules.server import gcpolicy
from buraco_rules.cli import main
pauses_file, policy = sys.argv[1], sys.argv[2]
if policy == "python":
    gcpolicy.tune_for_server = lambda *args, **kwargs: None
elif policy != "server":  # thresholds to try, "T0,T1,T2": what serve's own call will set
    tune, thresholds = gcpolicy.tune_for_server, tuple(int(t) for t in policy.split(","))
    gcpolicy.tune_for_server = lambda *args, **kwargs: tune(thresholds)
gcpolicy.tune_for_server()
log = gcpolicy.PauseLog()
if pauses_file:
    log.start()
    def dump():
        with open(pauses_file, "w") as out:
            json.dump({"pauses": log.pauses, "tracked": len(gc.get_objects()),
                       "frozen": gc.get_freeze_count(),
                       "thresholds": gc.get_threshold()}, out)
    atexit.register(dump)
sys.exit(main(sys.argv[3:]))
"""


def _gc_policy(text: str) -> str:
    if text in ("server", "python"):
        return text
    parts = text.split(",")
    if len(parts) != 3 or not all(p.isdigit() and 0 < int(p) < 10**9 for p in parts):
        raise argparse.ArgumentTypeError("server, python, or three thresholds T0,T1,T2")
    return text


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def family(pid: int) -> list[int]:
    """``pid`` and its children (``serve --workers N``'s workers), from /proc."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def cpu_seconds(pid: int) -> float:
    """The CPU seconds of ``pid`` and its living children."""
    total = 0.0
    for member in family(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def peak_rss_mib(pid: int) -> float:
    """The peak resident memory of ``pid`` and its children, summed."""
    total = 0.0
    for member in family(pid):
        try:
            lines = Path(f"/proc/{member}/status").read_text().splitlines()
        except OSError:
            continue
        total += sum(int(x.split()[1]) / 1024 for x in lines if x.startswith("VmHWM:"))
    return total


@contextlib.contextmanager
def database(args: argparse.Namespace, folder: str) -> Iterator[str]:
    """What ``--db`` the run's server gets: a new SQLite file in ``folder``, or a new
    PostgreSQL database beside ``args.db``'s, dropped afterwards."""
    if not args.db:
        yield str(Path(folder) / "load.sqlite")
        return
    import urllib.parse

    import psycopg

    name = f"buraco_load_{os.getpid()}_{int(time.time() * 1000)}"
    with psycopg.connect(args.db, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}".encode())
    try:
        yield urllib.parse.urlsplit(args.db)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(args.db, autocommit=True) as db:
            db.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class Seat:
    def __init__(
        self,
        url: str,
        table: str,
        token: str,
        seed: int,
        greedy: bool,
        think: tuple[float, float],
        measure: tuple[float, float],
    ) -> None:
        self.think, self.measure = think, measure
        self.url, self.table, self.token = url, table, token
        self.rng = random.Random(seed)
        self.greedy = greedy
        self.latencies: list[tuple[float, float]] = []  # (wall time sent, seconds)
        self.sent_at: float | None = None
        self.sent_wall = 0.0
        self.seq = 1
        self.awaited = 0  # the move number whose view ends the latency being timed

    async def play(self) -> None:
        from websockets.asyncio.client import connect

        bot = None
        if self.greedy:
            from buraco_rules.bots import GreedyBot

            bot = GreedyBot()
        # No keepalive pings, as a browser sends none: the library's would come from every
        # client at once, every 20 s, and be measured as the server's stalls.
        async with connect(self.url, max_size=2**20, open_timeout=60, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "join", "token": self.token, "table": self.table}))
            async for frame in ws:
                message = json.loads(frame)
                if message["type"] in ("error", "refused"):
                    raise RuntimeError(f"the server answered {message}")
                if message["type"] != "view":
                    continue
                if self.sent_at is not None and message["number"] >= self.awaited:
                    if self.measure[0] <= self.sent_wall < self.measure[1]:
                        self.latencies.append((self.sent_wall, time.perf_counter() - self.sent_at))
                    self.sent_at = None
                if message["over"]:
                    return
                if message["legal"] and self.sent_at is None:
                    if self.think[1]:  # a pause before the move, as a person takes
                        await asyncio.sleep(self.rng.uniform(*self.think))
                    if bot is None:
                        action = self.rng.choice(message["legal"])
                    else:
                        import buraco_rules as br

                        seen = br.from_data(message["view"])
                        action = br.format_action(bot.choose(seen, self.rng))
                    self.awaited = message["number"] + 1
                    self.sent_at = time.perf_counter()
                    self.sent_wall = time.time()
                    await ws.send(json.dumps({"type": "move", "seq": self.seq, "action": action}))
                    self.seq += 1


def drive(
    url: str,
    seats: list[tuple[str, str, int]],
    greedy: bool,
    think: tuple[float, float],
    measure: tuple[float, float],
    stop_at: float,
) -> dict[str, Any]:
    """One client process: play ``seats`` until their hands end or the wall clock reaches
    ``stop_at``; the latencies measured and the process's CPU seconds."""
    players = [Seat(url, t, token, seed, greedy, think, measure) for t, token, seed in seats]
    # The clients' own collections would stall their reading and count as the server's latency.
    from buraco_rules.server import gcpolicy

    gcpolicy.tune_for_server()
    cpu0 = time.process_time()
    failures: list[str] = []

    async def everyone() -> None:
        tasks = [asyncio.create_task(p.play()) for p in players]
        done, pending = await asyncio.wait(tasks, timeout=max(0.0, stop_at - time.time()))
        for task in pending:  # the end of the run: close every connection, cleanly
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            if task.exception() is not None:
                failures.append(repr(task.exception())[:200])

    try:
        import uvloop

        uvloop.run(everyone())
    except ImportError:
        asyncio.run(everyone())
    return {
        "latencies": [x for p in players for x in p.latencies],
        "cpu": time.process_time() - cpu0,
        "failures": failures,
    }


def set_priority(nice: int | None) -> None:
    if nice is not None:
        os.setpriority(os.PRIO_PROCESS, 0, nice)


def create(url: str, request: dict[str, Any]) -> dict[str, Any]:
    post = urllib.request.Request(
        url + "/api/tables", json.dumps(request).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(post, timeout=60) as answer:
        created: dict[str, Any] = json.loads(answer.read())
        return created


def percentile(ordered: list[float], q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(tables: int, args: argparse.Namespace) -> dict[str, Any]:
    think: tuple[float, float] = (0.0, 0.0)
    if args.think:
        think = (args.think[0], args.think[1]) if len(args.think) > 1 else (0, 2 * args.think[0])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with (
        tempfile.TemporaryDirectory(dir=args.db_dir) as tmp,
        database(args, tmp) as db,
    ):
        pauses_file = str(Path(tmp) / "gc.json") if args.gc_log else ""
        python = [sys.executable]
        if args.profile:
            python += ["-m", "cProfile", "-o", args.profile]
            command = [*python, "-m", "buraco_rules"]
        else:
            command = [*python, "-c", _LAUNCHER, pauses_file, args.gc]
        server = subprocess.Popen(
            [*command, "serve", "--port", str(port)]
            + ["--db", db, "--bot-delay", "0", "--rate", "1000000"]
            + (["--workers", str(args.workers)] if args.workers > 1 else [])
            + ["--max-tables", str(tables + 10), *args.serve_arg]
            # Every table comes from this one address: its per-address limits are lifted.
            + ["--create-rate", "0", "--request-rate", "0"]
            + ["--max-tables-per-client", str(tables + 10)]
            + [
                "--max-per-address",
                str(2 * tables + 64),
                "--max-connections",
                str(2 * tables + 64),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=None if args.nice is None else lambda: set_priority(args.nice),
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
            request = {"variant": args.variant, "seats": ["human", "human"]}
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                created = list(pool.map(lambda _: create(url, request), range(tables)))
            specs = [
                (c["table"], s["token"], t * 2 + s["seat"])
                for t, c in enumerate(created)
                for s in c["seats"]
            ]
            now = time.time()
            if think[1]:
                measure = (now + args.warmup, now + args.warmup + args.duration)
                stop_at = min(measure[1], now + args.timeout)
            else:
                measure, stop_at = (now, math.inf), now + args.timeout
            procs = max(1, min(args.client_procs, tables))
            slices = [specs[i::procs] for i in range(procs)]
            ws_url = f"ws://127.0.0.1:{port}/ws"
            cpu0 = {"at": 0.0, "cpu": 0.0}
            with concurrent.futures.ProcessPoolExecutor(
                procs, initializer=set_priority, initargs=(args.nice,)
            ) as clients:
                greedy = args.client == "greedy"
                futures = [
                    clients.submit(drive, ws_url, s, greedy, think, measure, stop_at)
                    for s in slices
                ]
                # The server's CPU over the measured window (from its start at full speed).
                while time.time() < measure[0]:
                    time.sleep(0.05)
                cpu0 = {"at": time.time(), "cpu": cpu_seconds(server.pid)}
                load_start = load_average()
                cpu_end = None
                while not all(f.done() for f in futures):
                    time.sleep(0.05)
                    if cpu_end is None and time.time() >= measure[1]:
                        cpu_end = {"at": time.time(), "cpu": cpu_seconds(server.pid)}
                results = [f.result() for f in futures]
            if cpu_end is None:
                cpu_end = {"at": time.time(), "cpu": cpu_seconds(server.pid)}
            memory = peak_rss_mib(server.pid)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
        gc_data: dict[str, Any] = {}
        if pauses_file and Path(pauses_file).exists():
            gc_data = json.loads(Path(pauses_file).read_text())
    wall = cpu_end["at"] - cpu0["at"]
    timed = sorted((at, x) for r in results for at, x in r["latencies"])
    latencies = sorted(x for _, x in timed)
    moves = len(latencies)
    figures: dict[str, Any] = {
        "tables": tables,
        "think": list(think),
        "moves": moves,
        "seconds": wall,
        "moves_per_s": moves / wall if wall else float("nan"),
        "p50_ms": 1000 * percentile(latencies, 0.50),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "p999_ms": 1000 * percentile(latencies, 0.999),
        "max_ms": 1000 * (latencies[-1] if latencies else float("nan")),
        "cpu_percent": 100 * (cpu_end["cpu"] - cpu0["cpu"]) / wall,
        "cpu_ms_per_move": 1000 * (cpu_end["cpu"] - cpu0["cpu"]) / max(1, moves),
        "client_cpu_percent": 100 * sum(r["cpu"] for r in results) / wall,
        "peak_rss_mib": memory,
        "failures": [f for r in results for f in r["failures"]][:5],
        "load": load_start,
        "gc": args.gc,
    }
    if gc_data:
        t0 = cpu0["at"] - time.time() + time.monotonic()  # monotonic time of the window's start
        window = [(at - t0, g, s, c) for at, g, s, c in gc_data["pauses"] if 0 <= at - t0 <= wall]
        full = [s for _, g, s, _ in window if g == 2]
        figures["gc_full"] = len(full)
        figures["gc_full_max_ms"] = 1000 * max(full, default=0.0)
        figures["gc_seconds"] = sum(s for _, _, s, _ in window)
        figures["gc_cpu_seconds"] = sum(c for _, _, _, c in window)
        figures["gc_young_max_ms"] = 1000 * max((s for _, g, s, _ in window if g < 2), default=0.0)
        figures["tracked_at_exit"] = gc_data["tracked"]
        figures["gc_thresholds"] = gc_data["thresholds"]
        figures["series_gc"] = window
    figures["series_latency"] = [(at - cpu0["at"], x) for at, x in timed]
    return figures


def set_group_priority(nice: int) -> int | None:
    """Set the scheduling priority of this session's autogroup (Linux; needs root for a value
    below 0): with autogroups, a process's own priority counts only against the processes of its
    session, so on a machine shared with other sessions only this one gives the server its core.
    The priority it had, or None where there are no autogroups."""
    path = Path("/proc/self/autogroup")
    try:
        before = int(path.read_text().split("nice")[1])
        path.write_text(str(nice))
    except (OSError, IndexError, ValueError):
        return None
    return before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds a run lasts at most (default 600)"
    )
    parser.add_argument("--variant", default="canasta-stbl")
    parser.add_argument("--client", choices=("random", "greedy"), default="random")
    parser.add_argument("--client-procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile")
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        metavar="SECONDS",
        help="a client's pause before each move: LO HI (uniform), or S (0 to 2S)",
    )
    parser.add_argument(
        "--warmup", type=float, default=20, help="with --think: seconds unmeasured (default 20)"
    )
    parser.add_argument(
        "--duration", type=float, default=60, help="with --think: seconds measured (default 60)"
    )
    parser.add_argument("--gc-log", action="store_true", help="time the server's collections")
    parser.add_argument(
        "--gc",
        type=_gc_policy,
        default="server",
        help="the server's collector settings: gcpolicy's (default), Python's, or thresholds "
        "to try with gcpolicy's freeze, as T0,T1,T2",
    )
    parser.add_argument(
        "--serve-arg", action="append", default=[], help="one more argument for serve"
    )
    parser.add_argument(
        "--nice",
        type=int,
        help="the server's and the clients' scheduling priority (below 0 needs root): on a "
        "machine shared with other jobs, so that they do not measure those jobs",
    )
    parser.add_argument(
        "--db-dir",
        metavar="DIR",
        help="where the server's SQLite file goes (default: the temporary directory); a tmpfs "
        "such as /dev/shm leaves the disk out of the figures",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="a postgresql:// URL: each run's server uses a new database of that PostgreSQL "
        "server (created and dropped; the role needs CREATEDB) instead of a SQLite file",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="server processes on one port (PostgreSQL only)"
    )
    parser.add_argument("--json", metavar="FILE", help="write every run's figures and series")
    args = parser.parse_args()
    if args.db and not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db takes a postgresql:// URL (without it, a SQLite file is used)")
    if args.workers > 1 and not args.db:
        parser.error("--workers needs a postgresql:// --db")
    if args.think and (len(args.think) > 2 or min(args.think) < 0):
        parser.error("--think takes S or LO HI, in seconds")
    columns = ["tables", "moves", "moves/s", "p50 ms", "p99 ms", "server CPU", "CPU/move"]
    columns += ["server peak RSS", "clients' CPU", "load average"]
    if args.gc_log:
        columns += ["full GCs", "longest full GC", "GC time"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---:|" * len(columns), flush=True)
    runs = []
    restore = None if args.nice is None else set_group_priority(args.nice)
    try:
        for n in args.tables:
            runs.append(report(n, args))
    finally:
        if restore is not None:
            set_group_priority(restore)
    if args.json:
        Path(args.json).write_text(json.dumps({"argv": sys.argv[1:], "runs": runs}))
    return 0


def report(n: int, args: argparse.Namespace) -> dict[str, Any]:
    """Run ``n`` tables and print their row."""
    r = run(n, args)
    row = (
        f"| {n} | {r['moves']:,} | {r['moves_per_s']:,.0f} | {r['p50_ms']:.1f} "
        f"| {r['p99_ms']:.1f} | {r['cpu_percent']:.0f} % | {r['cpu_ms_per_move']:.2f} ms "
        f"| {r['peak_rss_mib']:.0f} MiB | {r['client_cpu_percent']:.0f} % | {r['load']} |"
    )
    if "gc_full" in r:
        row += (
            f" {r['gc_full']} | {r['gc_full_max_ms']:.0f} ms "
            f"| {100 * r['gc_seconds'] / r['seconds']:.1f} % |"
        )
    print(row, flush=True)
    if r["failures"]:
        print(f"  clients that failed: {r['failures']}", file=sys.stderr)
    return r


if __name__ == "__main__":
    sys.exit(main())

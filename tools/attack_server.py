"""Attack a real ``buraco-rules serve`` on loopback while honest tables play, and measure what the
honest players feel: the latency of their moves (send to ``accepted``) in each phase, against the
quiet phase. The server is started here (its output in a temporary folder), so that its CPU time
and memory can be read from /proc (Linux).

    python tools/attack_server.py                       # every phase, 15 s each
    python tools/attack_server.py --phases quiet headers --seconds 10
    python tools/attack_server.py --server-arg=--create-rate=0   # extra flags for serve

Phases: ``quiet`` (the players alone), ``create`` (one address posts tables as fast as 8
connections can), ``slow`` (300 requests sending their headers and 300 their bodies a byte a
second, reopened when closed), ``halfsent`` (500 requests half sent once, 50 from each of 10
addresses, then silent), ``sockets`` (300 WebSockets that never join, reopened when
closed), ``headers`` (8 connections sending 30 MiB of headers each), ``foreign`` (requests and
handshakes from another site's page, 8 at a time), ``requests`` (the page asked for again and
again on 16 kept-alive connections, each reopened when closed) and ``search`` (tables of
three search bots and a person who never comes, from one address: last, as their bots think on
after the phase). The
attacks come from one stranger's address (127.0.0.203; the creations from 127.0.0.20x); the
honest players run in their own process, each table created from its own loopback address
(127.0.1.x), and think 0.3 to 0.7 s a move. Every phase ends by itself; the whole run is bounded
by the phases' durations plus the server's start.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

PHASES = (
    "quiet",
    "create",
    "slow",
    "halfsent",
    "sockets",
    "headers",
    "foreign",
    "requests",
    "search",
)
WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
ATTACKER = "127.0.0.203"  # the stranger's address (127.0.0.1 would be a trusted proxy's)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(
    port: int, body: dict[str, Any], source: str, headers: dict[str, str] | None = None
) -> int:
    import http.client

    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(source, 0)
    )
    try:
        connection.request(
            "POST",
            "/api/tables",
            json.dumps(body),
            {"Content-Type": "application/json", **(headers or {})},
        )
        answer = connection.getresponse()
        answer.read()
        return answer.status
    except OSError:
        return 0
    finally:
        connection.close()


# The honest players: one process, one event loop, latencies per phase.


async def play_table(
    port: int, source: str, latencies: list[tuple[float, float]], stop: float
) -> None:
    from websockets.asyncio.client import connect

    rng = random.Random(source)
    while time.monotonic() < stop:
        created = await asyncio.to_thread(_create_for, port, source)
        if created is None:
            await asyncio.sleep(1)
            continue
        token = created["seats"][0]["token"]
        try:
            async with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10, max_size=2**20) as ws:
                await ws.send(json.dumps({"type": "join", "token": token}))
                seq, sent_at = 1, 0.0
                async for frame in ws:
                    message = json.loads(frame)
                    if message["type"] == "accepted":
                        latencies.append((time.time(), time.perf_counter() - sent_at))
                        seq = message["seq"] + 1
                    elif message["type"] == "view":
                        if message["over"] or time.monotonic() > stop:
                            break
                        if message["legal"]:
                            await asyncio.sleep(rng.uniform(0.3, 0.7))
                            action = rng.choice(message["legal"])
                            sent_at = time.perf_counter()
                            await ws.send(
                                json.dumps({"type": "move", "seq": seq, "action": action})
                            )
                    elif message["type"] in ("error", "refused"):
                        break
        except Exception:  # a player that lost its table starts another
            await asyncio.sleep(0.5)


def _create_for(port: int, source: str) -> dict[str, Any] | None:
    import http.client

    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(source, 0)
    )
    try:
        body = json.dumps({"seats": ["human", "greedy"]})
        connection.request("POST", "/api/tables", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        data = answer.read()
        return json.loads(data) if answer.status == 201 else None
    except OSError:
        return None
    finally:
        connection.close()


def players(port: int, tables: int, seconds: float, out: Any) -> None:
    latencies: list[tuple[float, float]] = []

    async def main() -> None:
        stop = time.monotonic() + seconds
        await asyncio.gather(
            *(play_table(port, f"127.0.1.{i + 1}", latencies, stop) for i in range(tables))
        )

    asyncio.run(main())
    out.put(latencies)


# The attackers: one process a phase.


async def _hold(
    port: int,
    data: bytes,
    trickle: bool,
    stop: float,
    counts: Counter[str],
    source: str = ATTACKER,
    reopen: bool = True,
) -> None:
    """Open a connection, send ``data`` (then, if ``trickle``, a byte a second) and hold it;
    open another when the server closes it, if ``reopen``. ``counts["held s"]`` is the longest
    a connection stayed open; ``counts["open at the end"]`` those the server never closed."""
    while time.monotonic() < stop:
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0)
            )
        except OSError:
            counts["connect failed"] += 1
            await asyncio.sleep(0.2)
            continue
        counts["opened"] += 1
        opened = time.monotonic()
        closed = False
        try:
            writer.write(data)
            while time.monotonic() < stop and not closed:
                try:
                    closed = not await asyncio.wait_for(reader.read(65536), 1.0)
                except TimeoutError:
                    if trickle:
                        writer.write(b"a")
        except OSError:
            closed = True
        finally:
            writer.close()
        if not closed:
            counts["open at the end"] += 1
            return
        counts["closed by the server"] += 1
        counts["held s"] = max(counts["held s"], round(time.monotonic() - opened))
        if not reopen:
            return
        await asyncio.sleep(0.5)  # and again


def _handshake(port: int, origin: str | None = None, host: str | None = None) -> bytes:
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host or f'127.0.0.1:{port}'}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {WS_KEY}",
        "Sec-WebSocket-Version: 13",
    ] + ([f"Origin: {origin}"] if origin else [])
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _header_bomb(port: int, size: int, counts: Counter[str]) -> None:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
        writer.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Bomb: ".encode())
        chunk = b"a" * (1 << 20)
        for _ in range(size >> 20):
            writer.write(chunk)
            await writer.drain()
        counts["sent whole"] += 1
        writer.close()
    except OSError:
        counts["closed by the server"] += 1


def attack(phase: str, port: int, seconds: float, out: Any) -> None:
    # A stranger's CPU is not the server's: on one machine, the attacker yields to the server
    # and the players, so that what is measured is the server's cost of refusing.
    os.nice(10)
    counts: Counter[str] = Counter()

    async def flood(call: Any, workers: int) -> None:
        stop = time.monotonic() + seconds

        async def worker() -> None:
            while time.monotonic() < stop:
                counts[str(await asyncio.to_thread(call))] += 1

        await asyncio.gather(*(worker() for _ in range(workers)))

    async def main() -> None:
        stop = time.monotonic() + seconds
        if phase == "quiet":
            await asyncio.sleep(seconds)
        elif phase == "create":
            await flood(lambda: post(port, {"seats": ["human", "greedy"]}, "127.0.0.200"), 8)
        elif phase == "search":
            # Bots before the person: they think at once, and no one ever joins.
            table = {"variant": "italian", "players": 4, "seats": ["ismcts"] * 3 + ["human"]}
            await flood(lambda: post(port, table, "127.0.0.201"), 2)
        elif phase == "slow":
            host = f"Host: 127.0.0.1:{port}\r\n".encode()
            slow_headers = b"GET / HTTP/1.1\r\n" + host + b"X-Slow: "
            slow_body = (
                b"POST /api/tables HTTP/1.1\r\n"
                + host
                + b"Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"
            )
            await asyncio.gather(
                *(_hold(port, slow_headers, True, stop, counts) for _ in range(300)),
                *(_hold(port, slow_body, True, stop, counts) for _ in range(300)),
            )
        elif phase == "halfsent":
            half = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Half: ".encode()
            await asyncio.gather(
                *(
                    _hold(port, half, False, stop, counts, f"127.0.0.{210 + i % 10}", False)
                    for i in range(500)
                )
            )
        elif phase == "sockets":
            await asyncio.gather(
                *(_hold(port, _handshake(port), False, stop, counts) for _ in range(300))
            )
        elif phase == "headers":
            await asyncio.gather(*(_header_bomb(port, 30 << 20, counts) for _ in range(8)))
            await asyncio.sleep(max(0.0, stop - time.monotonic()))
        elif phase == "foreign":

            def one() -> int:
                if random.random() < 0.5:
                    return post(port, {}, "127.0.0.202", {"Origin": "http://evil.example"})
                try:
                    with socket.create_connection(
                        ("127.0.0.1", port), timeout=5, source_address=(ATTACKER, 0)
                    ) as raw:
                        raw.sendall(_handshake(port, origin="http://evil.example"))
                        answer = raw.recv(100)
                except OSError:
                    return 0
                return int(answer.split()[1]) if answer.startswith(b"HTTP/") else 0

            await flood(one, 8)
        elif phase == "requests":
            await flood(_page_again(port), 16)

    asyncio.run(main())
    out.put(dict(counts))


def _page_again(port: int) -> Any:
    """A call that asks for the page on its thread's kept-alive connection (reopened when the
    server closes it): its answer's status, 0 for none."""
    import http.client
    import threading

    local = threading.local()

    def one() -> int:
        connection = getattr(local, "connection", None)
        if connection is None:
            connection = local.connection = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=10, source_address=("127.0.0.204", 0)
            )
        try:
            connection.request("GET", "/")
            answer = connection.getresponse()
            answer.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            local.connection = None
            return 0
        if answer.will_close:
            connection.close()
            local.connection = None
        return answer.status

    return one


def _proc(pid: int) -> tuple[float, int]:
    """The process's CPU seconds and resident memory (bytes)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    ticks = os.sysconf("SC_CLK_TCK")
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    return (int(fields[11]) + int(fields[12])) / ticks, rss


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    parser.add_argument("--seconds", type=float, default=15.0, help="each phase's length")
    parser.add_argument("--tables", type=int, default=20, help="honest tables (a person and a bot)")
    parser.add_argument("--server-arg", action="append", default=[], help="a flag for serve")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115 - closed below
        server = subprocess.Popen(
            [sys.executable, "-m", "buraco_rules", "serve", "--port", str(port)]
            + ["--db", str(Path(tmp) / "attack.sqlite"), "--bot-delay", "0.2"]
            + ["--max-tables", "100000", *args.server_arg],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                with (
                    contextlib.suppress(OSError),
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1),
                ):
                    break
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start")
                time.sleep(0.05)
            queue: Any = multiprocessing.Queue()
            warmup = 3.0
            total = warmup + args.seconds * len(args.phases) + 1
            honest = multiprocessing.Process(target=players, args=(port, args.tables, total, queue))
            honest.start()
            time.sleep(warmup)
            rows = []
            for phase in args.phases:
                cpu0, _ = _proc(server.pid)
                began = time.time()
                attacker_queue: Any = multiprocessing.Queue()
                attacker = multiprocessing.Process(
                    target=attack, args=(phase, port, args.seconds, attacker_queue)
                )
                attacker.start()
                peak = 0
                while attacker.is_alive():
                    peak = max(peak, _proc(server.pid)[1])
                    time.sleep(0.1)
                    if time.time() > began + args.seconds + 60:
                        attacker.terminate()
                counts = attacker_queue.get(timeout=10) if not attacker_queue.empty() else {}
                attacker.join()
                cpu1, rss = _proc(server.pid)
                rows.append((phase, began, time.time(), cpu1 - cpu0, max(peak, rss), counts))
            latencies = queue.get(timeout=total + 60)
            honest.join()
        finally:
            server.terminate()
            server.wait(10)
            log.close()
        text = (Path(tmp) / "server.log").read_text(errors="replace")
    print(f"load average before the report: {os.getloadavg()}")
    heads = ("moves", "p50 ms", "p99 ms", "max ms", "CPU s", "RSS MiB")
    print(f"{'phase':9} " + " ".join(f"{h:>7}" for h in heads) + "  attacker")
    quiet_p99 = None
    for phase, began, ended, cpu, rss, counts in rows:
        seen = sorted(1000 * lat for at, lat in latencies if began <= at < ended)
        p99 = seen[int(0.99 * (len(seen) - 1))] if seen else float("nan")
        p50 = statistics.median(seen) if seen else float("nan")
        if phase == "quiet":
            quiet_p99 = p99
        ratio = f" ({p99 / quiet_p99:.1f}x quiet)" if quiet_p99 and phase != "quiet" else ""
        print(
            f"{phase:9} {len(seen):7d} {p50:7.1f} {p99:7.1f} {max(seen, default=0):7.1f} "
            f"{cpu:7.1f} {rss / 2**20:7.0f}  {dict(sorted(counts.items()))}{ratio}"
        )
    print(f"server log: {len(text.splitlines())} lines, {text.count('Traceback')} tracebacks")


if __name__ == "__main__":
    main()

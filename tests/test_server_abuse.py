"""Closed to abuse: a real ``buraco-rules serve`` on loopback, attacked the ways a stranger can
(a creation flood, search bots by the dozen, headers and bodies sent a byte at a time, sockets
that never join, pages of other sites, DNS rebinding, a pile of connections). Each attack is
refused as docs/server.md says, the next honest client is served, and the log holds at most one
line per refused connection and never a traceback. (The attack under load, with the other
tables' latency measured, is tools/attack_server.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from buraco_rules.server.guard import (  # noqa: E402
    CreationLimit,
    OriginGuard,
    _Buckets,
    _search_seats,
    client_key,
    host_name,
)
from server_support import ServerProcess  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FLAGS = (
    *("--bot-delay", "0", "--create-rate", "6", "--create-burst", "3"),
    *("--request-timeout", "1", "--join-timeout", "1", "--max-connections", "60"),
    *("--allow-host", "game.example", "--allow-origin", "https://friend.example"),
)
JSON = {"Content-Type": "application/json"}
WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # any 16 bytes in base64: the handshake's nonce


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("abuse")
    process = ServerProcess(folder / "a.sqlite", folder / "server.log", *FLAGS)
    process.start()
    try:
        yield process
    finally:
        process.stop()


class LogSince:
    """The server's log lines written since this was made (after the test: no traceback)."""

    def __init__(self, server: ServerProcess) -> None:
        self.path = server.log
        self.start = server.log.stat().st_size

    def lines(self) -> list[str]:
        time.sleep(0.2)  # the server writes its line as it closes the connection
        text = self.path.read_bytes()[self.start :].decode()
        assert "Traceback" not in text and "Exception" not in text, text
        return text.splitlines()


def request(
    server: ServerProcess,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    source: str = "127.0.0.1",
) -> tuple[int, dict[str, Any], http.client.HTTPResponse]:
    """One request from the loopback address ``source`` (any 127.x.y.z is this machine)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=10, source_address=(source, 0)
    )
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, data, {**JSON, **(headers or {})})
        answer = connection.getresponse()
        raw = answer.read()
        document = json.loads(raw) if raw.startswith(b"{") else {}
        return answer.status, document, answer
    finally:
        connection.close()


def create(server: ServerProcess, source: str, seats: list[str] | None = None) -> int:
    status, document, answer = request(
        server, "POST", "/api/tables", {"seats": seats or ["human", "greedy"]}, source=source
    )
    if status == 429:
        assert document["type"] == "error" and document["code"] == "rate-limited"
        assert int(answer.headers["Retry-After"]) >= 1
    return status


def test_a_creation_flood_is_refused_and_other_addresses_still_create(
    server: ServerProcess,
) -> None:
    log = LogSince(server)
    flood = [create(server, "127.0.0.11") for _ in range(12)]
    assert flood[:3] == [201] * 3 and set(flood[3:]) == {429}  # bursts of 3, 6 a minute
    assert create(server, "127.0.0.12") == 201  # another address is served as before
    # A search bot's seat costs one more: two such tables from a fresh address, and a third
    # table of any kind is refused.
    assert create(server, "127.0.0.13", ["human", "ismcts"]) == 201
    assert create(server, "127.0.0.13", ["human", "montecarlo:50"]) == 429
    assert create(server, "127.0.0.13", ["human", "random"]) == 201
    assert create(server, "127.0.0.13", ["human", "random"]) == 429
    requests = [line for line in log.lines() if "POST /api/tables" in line]
    assert len(requests) == 17  # one line per request, refused or not


def _raw(port: int, data: bytes, trickle: bytes = b"", every: float = 0.3) -> tuple[float, bytes]:
    """Send ``data`` then ``trickle`` a byte at a time, until the server closes the connection:
    how long it took, and what it answered."""
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
        with contextlib.suppress(OSError):  # the server may close before it has read all
            raw.sendall(data)
        raw.settimeout(every)
        answer = b""
        for i in range(200):
            try:
                got = raw.recv(65536)
            except TimeoutError:
                with contextlib.suppress(OSError):
                    raw.sendall(trickle[i : i + 1])
                continue
            except ConnectionResetError:
                break
            if not got:
                break
            answer += got
        return time.monotonic() - began, answer


def _in_threads(calls: list[Any]) -> list[Any]:
    async def run() -> list[Any]:
        return await asyncio.gather(*(asyncio.to_thread(*call) for call in calls))

    return asyncio.run(run())


def test_slow_headers_and_slow_bodies_are_closed_within_the_request_timeout(
    server: ServerProcess,
) -> None:
    log = LogSince(server)
    port = server.port
    host = f"Host: 127.0.0.1:{port}\r\n".encode()
    slow_headers = b"GET / HTTP/1.1\r\n" + host + b"X-Padding: "
    slow_body = (
        b"POST /api/tables HTTP/1.1\r\n"
        + host
        + b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{"
    )
    calls = [(_raw, port, slow_headers, b"a" * 200) for _ in range(4)]  # a byte every 0.3 s
    calls += [(_raw, port, slow_body, b" " * 200) for _ in range(4)]
    calls += [(_raw, port, slow_headers), (_raw, port, slow_body)]  # silent after the start
    results = _in_threads(calls)
    for took, answer in results:
        assert answer == b""  # closed without an answer: no request ever arrived whole
        assert took < 8  # the request timeout is 1 s; without it, these run for 60 s
    status, _, _ = request(server, "GET", "/api/health")
    assert status == 200  # and the server serves the next client
    closed = [line for line in log.lines() if "no complete request within 1 s" in line]
    assert len(closed) == len(calls)


def test_headers_over_the_limit_are_refused(server: ServerProcess) -> None:
    log = LogSince(server)
    big = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Padding: ".encode() + b"a" * (
        1 << 20
    )
    _, answer = _raw(server.port, big)
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert len(log.lines()) <= 1


def test_headers_over_the_limit_in_one_burst_are_refused(server: ServerProcess) -> None:
    # Headers that arrive whole are never "unfinished": the total is measured on every request,
    # one big header or ten thousand small ones.
    start = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode()
    for headers in (b"X-Padding: " + b"a" * 100_000 + b"\r\n", b"X-A: b\r\n" * 10_000):
        log = LogSince(server)
        _, answer = _raw(server.port, start + headers + b"\r\n")
        assert answer.startswith(b"HTTP/1.1 400 "), answer[:100]
        assert len(log.lines()) == 1
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(start + b"X-A: b\r\n" * 100 + b"Connection: close\r\n\r\n")
        assert raw.recv(100).startswith(b"HTTP/1.1 200 ")  # a request within the limit passes


def test_a_forwarded_address_is_believed_only_from_a_named_proxy(tmp_path: Path) -> None:
    # From loopback, a client that names itself another address in X-Forwarded-For is still
    # counted as loopback: its creations share one allowance, its connections one cap.
    flags = ("--create-burst", "2", "--create-rate", "1", "--max-per-address", "2")
    server = ServerProcess(tmp_path / "f.sqlite", tmp_path / "f.log", *flags)
    server.start()
    try:
        spoofed = [
            request(server, "POST", "/api/tables", {}, {"X-Forwarded-For": f"10.0.0.{i}"})[0]
            for i in range(3)
        ]
        assert spoofed == [201, 201, 429]
        held = [_connect(server.port, "127.0.0.1") for _ in range(2)]
        assert _connect(server.port, "127.0.0.1").recv(100).startswith(b"HTTP/1.1 429 ")
        for raw in held:
            raw.close()
    finally:
        server.stop()
    # Behind a proxy the operator names, the header is the client's address.
    server = ServerProcess(
        tmp_path / "f.sqlite", tmp_path / "f.log", *flags, "--proxy", "127.0.0.1"
    )
    server.start()
    try:
        forwarded = [
            request(server, "POST", "/api/tables", {}, {"X-Forwarded-For": f"10.0.1.{i}"})[0]
            for i in (1, 2, 3, 3, 3)
        ]
        assert forwarded == [201, 201, 201, 201, 429]
    finally:
        server.stop()


def _handshake(port: int, *extra: str, host: str | None = None) -> bytes:
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host or f'127.0.0.1:{port}'}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {WS_KEY}",
        "Sec-WebSocket-Version: 13",
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_socket_that_never_joins_is_closed_at_the_join_timeout(server: ServerProcess) -> None:
    log = LogSince(server)
    # Raw sockets that never send a frame, nor answer the server's close: the server drops
    # them a second after the join timeout (1 s here, 10 by default), not ten seconds later.
    results = _in_threads([(_raw, server.port, _handshake(server.port)) for _ in range(5)])
    for took, answer in results:
        assert answer.startswith(b"HTTP/1.1 101 ")
        assert b'"code":"join-timeout"' in answer
        assert took < 6  # join timeout 1 s + 1 s for the close; Uvicorn alone waits 10 more
    lines = log.lines()
    assert len(lines) == 5 and all('"WebSocket /ws" [accepted]' in line for line in lines)


@pytest.mark.parametrize(
    ("headers", "code", "source"),
    [
        ({"Origin": "http://evil.example"}, "foreign-origin", "127.0.0.21"),
        # a sandboxed frame, a file:// page
        ({"Origin": "null"}, "foreign-origin", "127.0.0.22"),
        ({"Origin": "https://friend.example.evil.example"}, "foreign-origin", "127.0.0.23"),
        # DNS rebinding: the browser sends its name
        ({"Host": "evil.example"}, "foreign-host", "127.0.0.24"),
        ({"Host": "game.example.evil.example:8000"}, "foreign-host", "127.0.0.25"),
        ({"Host": "evil.example", "Origin": "http://evil.example"}, "foreign-host", "127.0.0.26"),
    ],
)
def test_a_foreign_origin_or_host_is_refused_over_http_and_websocket(
    server: ServerProcess, headers: dict[str, str], code: str, source: str
) -> None:
    # Each case from its own address: an address refused 20 times in a burst is barred (below).
    log = LogSince(server)
    for method, path in (("POST", "/api/tables"), ("GET", "/"), ("GET", "/api/health")):
        status, document, _ = request(server, method, path, {}, headers, source=source)
        assert status == 403 and document["type"] == "error" and document["code"] == code

    async def handshake() -> Any:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        extra = {k: v for k, v in headers.items() if k != "Host"}
        url = f"ws://{headers.get('Host', f'127.0.0.1:{server.port}')}/ws"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                url,
                origin=extra.pop("Origin", None),  # type: ignore[arg-type]
                host="127.0.0.1",
                port=server.port,
                local_addr=(source, 0),
                open_timeout=5,
            ):
                pass
        return refused.value.response

    response = asyncio.run(handshake())
    assert response.status_code == 403 and json.loads(response.body)["code"] == code
    assert len(log.lines()) == 4  # one line a refused request


def test_an_address_refused_again_and_again_is_refused_unread(server: ServerProcess) -> None:
    log = LogSince(server)
    foreign = {"Origin": "http://evil.example"}
    answers = [
        request(server, "GET", "/", None, foreign, source="127.0.0.41")[1]["code"]
        for _ in range(20)
    ]
    assert answers == ["foreign-origin"] * 20  # 20 refusals in a burst bar the address
    # Barred, its next connections are answered a second later, unread, honest requests and
    # WebSocket handshakes alike; another address is served.
    health = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
    barred = [_connect(server.port, "127.0.0.41") for _ in range(3)]
    for raw, data in zip(barred, (health, health, _handshake(server.port)), strict=True):
        raw.sendall(data)
    assert request(server, "GET", "/api/health", source="127.0.0.42")[0] == 200
    for raw in barred:
        with raw:
            head, _, body = raw.recv(1000).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 429 ") and b"retry-after: 5" in head
            assert json.loads(body)["code"] == "refused-for-now"
    # One line says so; a connection refused unread writes none.
    lines = log.lines()
    assert sum("127.0.0.41 - barred: 20 refusals" in line for line in lines) == 1
    assert sum("127.0.0.41:" in line for line in lines) == 20


def test_requests_beyond_an_addresses_rate_are_refused_then_it_is_barred(
    tmp_path: Path,
) -> None:
    flags = ("--request-rate", "0.5", "--bar-after", "5")  # bursts of 2 requests
    server = ServerProcess(tmp_path / "r.sqlite", tmp_path / "r.log", *flags)
    server.start()
    try:
        # One kept-alive connection asking again and again: two answers, then 429, closed.
        connection = http.client.HTTPConnection(
            "127.0.0.1", server.port, timeout=10, source_address=("127.0.0.51", 0)
        )
        statuses = []
        for _ in range(3):
            connection.request("GET", "/api/health")
            answer = connection.getresponse()
            statuses.append((answer.status, answer.read()))
        connection.close()
        assert [status for status, _ in statuses] == [200, 200, 429]
        refused = json.loads(statuses[-1][1])
        assert refused["code"] == "too-many-requests" and answer.headers["Connection"] == "close"
        assert request(server, "GET", "/api/health", source="127.0.0.52")[0] == 200
        # Each such refusal counts: four more, and the address is refused unread.
        codes = [
            request(server, "GET", "/api/variants", source="127.0.0.51")[1]["code"]
            for _ in range(5)
        ]
        assert codes == ["too-many-requests"] * 4 + ["refused-for-now"]
    finally:
        server.stop()


def test_a_barred_address_is_read_again_once_it_stops() -> None:
    from buraco_rules.server.http_limits import _Addresses

    now = [0.0]
    addresses = _Addresses(64, (), bar_after=5, clock=lambda: now[0])
    for _ in range(5):
        assert not addresses.barred("192.0.2.1")
        addresses.refused("192.0.2.1")
    assert addresses.barred("192.0.2.1") and not addresses.barred("192.0.2.2")
    now[0] += 0.9  # the answers to its barred connections cost nothing: it is read again
    assert addresses.barred("192.0.2.1")  # a second after its last refusal
    now[0] += 0.1
    assert not addresses.barred("192.0.2.1")
    addresses.refused("192.0.2.1")  # and barred again by the next refusal
    assert addresses.barred("192.0.2.1")
    assert not _Addresses(64, (), bar_after=0).barred("192.0.2.1")  # --bar-after 0: never


@pytest.mark.parametrize(
    "headers",
    [
        {},  # curl, scripts: no Origin
        {"Origin": "PORTLESS"},  # the page the server served
        {"Origin": "https://friend.example"},  # --allow-origin
        {"Host": "localhost:PORT", "Origin": "http://localhost:PORT"},
        {"Host": "game.example", "Origin": "https://game.example"},  # --allow-host, a proxy
        {"Host": "192.0.2.7:8000"},  # an address: no DNS rebinding can produce one
    ],
)
def test_the_servers_own_pages_and_names_pass(
    server: ServerProcess, headers: dict[str, str]
) -> None:
    own = f"127.0.0.1:{server.port}"
    headers = {
        k: v.replace("PORTLESS", f"http://{own}").replace("PORT", str(server.port))
        for k, v in headers.items()
    }
    status, _, _ = request(server, "GET", "/api/variants", None, headers)
    assert status == 200

    async def join() -> Any:
        from websockets.asyncio.client import connect

        async with connect(
            f"ws://{headers.get('Host', own)}/ws",
            origin=headers.get("Origin"),  # type: ignore[arg-type]
            host="127.0.0.1",
            port=server.port,
            open_timeout=5,
        ) as ws:
            await ws.send(json.dumps({"type": "ping"}))
            return json.loads(await ws.recv())

    assert asyncio.run(join())["code"] == "not-joined"  # the handshake passed


def _connect(port: int, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), source_address=(source, 0))


def test_connections_beyond_the_caps_are_refused_then_served_again(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    flags = ("--max-connections", "8", "--max-per-address", "3", "--request-timeout", "30")
    flags += ("--proxy", "127.0.0.1")
    server = ServerProcess(tmp_path / "c.sqlite", log, *flags)
    server.start()
    port = server.port
    try:
        before = log.stat().st_size
        # One address: three connections, WebSockets included; the fourth is refused, while
        # another address is served.
        held = [_connect(port, "127.0.0.2") for _ in range(2)]
        sockets = [_connect(port, "127.0.0.2")]
        sockets[0].sendall(_handshake(port))
        assert sockets[0].recv(100).startswith(b"HTTP/1.1 101 ")
        crowded = _connect(port, "127.0.0.2").recv(1000)
        assert crowded.startswith(b"HTTP/1.1 429 ")
        assert json.loads(crowded.partition(b"\r\n\r\n")[2])["code"] == "too-many-connections"
        assert request(server, "GET", "/api/health", source="127.0.0.3")[0] == 200
        sockets[0].close()  # the WebSocket ends: its place is free again
        time.sleep(0.3)
        assert request(server, "GET", "/api/health", source="127.0.0.2")[0] == 200
        # The whole server: eight connections (a proxy's, on 127.0.0.1, not counted by address
        # but by the cap), then the next is refused.
        held += [_connect(port, "127.0.0.1") for _ in range(6)]
        time.sleep(0.3)
        _, answer = _raw(port, b"")
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["code"] == "busy"
        for raw in held:
            raw.close()
        time.sleep(0.3)
        assert request(server, "GET", "/api/health")[0] == 200
        time.sleep(0.2)
        lines = log.read_bytes()[before:].decode().splitlines()
        assert "Traceback" not in "\n".join(lines)
        assert sum("refused: 3 connections open from 127.0.0.2" in line for line in lines) == 1
        assert sum("refused: 8 connections open" in line for line in lines) == 1
    finally:
        server.stop()


# In process: the pieces on their own.


def test_host_names_are_compared_without_port_case_or_brackets() -> None:
    assert host_name("Game.Example:8000") == "game.example"
    assert host_name("[::1]:8000") == "::1"
    assert host_name("::1") == "::1"
    assert host_name("example.org.") == "example.org"
    guard = OriginGuard(lambda s, r, w: None, hosts=["localhost"])  # type: ignore[arg-type,return-value]
    assert guard.host_allowed("LOCALHOST:9") and guard.host_allowed("10.0.0.1:80")
    assert guard.host_allowed("[2001:db8::1]:80")
    assert not guard.host_allowed("localhost.evil.example") and not guard.host_allowed(None)
    assert guard.origin_allowed(None, "x") and guard.origin_allowed("http://a:1", "A:1")
    assert not guard.origin_allowed("http://a:1", "a:2") and not guard.origin_allowed(
        "http://[", "a"
    )


def test_the_table_of_addresses_is_bounded_and_forgets_the_oldest() -> None:
    now = [0.0]
    buckets = _Buckets(per_minute=60, burst=2, size=3, clock=lambda: now[0])
    assert [buckets.take("a", 1) for _ in range(3)] == [0, 0, 1.0]  # the third waits 1 s
    for key in "bcd":
        assert buckets.take(key, 1) == 0
    assert len(buckets.buckets) == 3 and "a" not in buckets.buckets  # forgotten: a full bucket
    assert buckets.take("b", 5) == pytest.approx(1.0)  # at most a full bucket's wait
    now[0] = 1.0
    assert buckets.take("b", 1) == 0  # a token came back
    with pytest.raises(ValueError, match="burst"):
        CreationLimit(lambda s, r, w: None, burst=0)  # type: ignore[arg-type,return-value]


def test_addresses_are_counted_by_network_for_ipv6() -> None:
    assert client_key({"client": ("2001:db8::1", 5)}) == client_key({"client": ("2001:db8::ff", 6)})
    assert client_key({"client": ("2001:db8:0:1::1", 5)}) != client_key(
        {"client": ("2001:db8::1", 5)}
    )
    assert client_key({"client": ("::ffff:192.0.2.1", 5)}) == "192.0.2.1"
    assert client_key({"client": None}) == ""


def test_search_seats_are_counted_from_the_request() -> None:
    assert _search_seats(b'{"seats": ["human", "ismcts", "MC", "montecarlo:50", "greedy"]}') == 3
    for body in (b"{", b"[1]", b'{"seats": 3}', b'{"seats": [1, null]}', b"[" * 5000):
        assert _search_seats(body) == 0


def test_create_app_limits_creations_and_checks_origins_in_process(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import (
            TestClient,
            WebSocketDenialResponse,  # type: ignore[attr-defined]
        )
    from buraco_rules.server import create_app

    app = create_app(tmp_path / "p.sqlite", create_burst=2, allowed_hosts=["testserver"])
    with TestClient(app) as client:
        answers = [client.post("/api/tables", json={}).status_code for _ in range(3)]
        assert answers == [201, 201, 429]
        assert client.get("/", headers={"Origin": "http://evil.example"}).status_code == 403
        assert client.get("/", headers={"Host": "evil.example"}).json()["code"] == "foreign-host"
        with pytest.raises(WebSocketDenialResponse) as refused:  # noqa: SIM117
            with client.websocket_connect("/ws", headers={"Origin": "http://evil.example"}):
                pass
        assert refused.value.status_code == 403


def test_serve_refuses_a_bad_limit_with_exit_2(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "serve", "--db", str(tmp_path / "x")]
        + ["--max-per-address", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--max-per-address" in done.stderr
    assert not (tmp_path / "x").exists()  # refused before anything is served
    done = subprocess.run(
        [sys.executable, "-m", "buraco_rules", "serve", "--db", str(tmp_path / "x")]
        + ["--proxy", "my-proxy"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--proxy takes an IP address or network" in done.stderr
    assert not (tmp_path / "x").exists()

"""The server's doors: who may talk to it at all, and how often one address may create tables.

Two small ASGI pieces, independent of the tables:

- :class:`OriginGuard` refuses a request or WebSocket handshake whose ``Host`` is not one of the
  server's names (a DNS rebinding: another site's name pointed at this server) or whose
  ``Origin`` is another site's page. Requests without ``Origin`` (curl, scripts) pass.
- :class:`CreationLimit` wraps ``POST /api/tables``: a token bucket per client address, in a
  table of addresses that forgets the least recently seen first, so that its memory is bounded.
  A seat played by a search bot costs one more token than the table itself, as it costs the
  server CPU for the whole game.

The transport's limits (header size, request and body timeouts, the connection cap) are
Uvicorn's and live in :mod:`buraco_rules.server.http_limits`.
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final
from urllib.parse import urlsplit

from ..bots.names import SEARCH_BOTS

__all__ = ["MAX_ADDRESSES", "CreationLimit", "OriginGuard", "client_key", "host_name"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_ADDRESSES: Final = 10_000
"""The most client addresses :class:`CreationLimit` remembers (about a megabyte)."""

_SEARCH_NAMES: Final = frozenset((*SEARCH_BOTS, "mc"))
_BODY_LIMIT: Final = 64 * 1024  # read no further: the handler refuses anything over 4 KiB


def host_name(value: str) -> str:
    """The name part of a ``Host`` header or of a host given on the command line: lower case,
    without the port, the brackets of an IPv6 address or a trailing dot."""
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        value = value[1:].partition("]")[0]
    elif value.count(":") == 1:  # name:8000 (more colons: a bare IPv6 address)
        value = value.partition(":")[0]
    return value.rstrip(".")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _refuse(scope: Scope, send: Send, status: int, code: str, message: str) -> None:
    """Answer one error document, over HTTP or as a WebSocket handshake's denial."""
    body = json.dumps({"type": "error", "code": code, "message": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:  # a server without the denial extension answers 403 to a close before accept
        await send({"type": "websocket.close", "code": 1008})


class OriginGuard:
    """ASGI middleware: refuse a foreign ``Host`` (``403 foreign-host``) and a foreign
    ``Origin`` (``403 foreign-origin``), for HTTP requests and WebSocket handshakes alike.

    ``hosts`` are the names the server answers to (``None``: any, for a server in front that
    checks them itself); an IP address is always accepted, as no DNS rebinding can produce one.
    An ``Origin`` is accepted when absent, when it names the request's own ``Host`` (the page
    this server served), or when it is one of ``origins`` (``"https://example.org"``)."""

    def __init__(
        self, app: ASGIApp, *, hosts: Iterable[str] | None = None, origins: Iterable[str] = ()
    ) -> None:
        self.app = app
        self.hosts = None if hosts is None else frozenset(host_name(h) for h in hosts)
        self.origins = frozenset(o.strip().lower().rstrip("/") for o in origins)

    def host_allowed(self, host: str | None) -> bool:
        """Whether a request with this ``Host`` header is for this server."""
        if self.hosts is None:
            return True
        if host is None:
            return False
        name = host_name(host)
        return name in self.hosts or _is_address(name)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a request from a page of ``origin`` may reach this server at ``host``."""
        if origin is None:
            return True
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        try:
            netloc = urlsplit(origin).netloc
        except ValueError:
            return False
        return bool(netloc) and host is not None and netloc == host.strip().lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = _header(scope, b"host")
            if not self.host_allowed(host):
                await _refuse(
                    scope, send, 403, "foreign-host", "this server does not answer to that name"
                )
                return
            if not self.origin_allowed(_header(scope, b"origin"), host):
                await _refuse(
                    scope, send, 403, "foreign-origin", "pages of other sites may not use it"
                )
                return
        await self.app(scope, receive, send)


class _Buckets:
    """Token buckets by key, the least recently used forgotten first beyond ``size``."""

    def __init__(
        self, per_minute: float, burst: int, size: int, clock: Callable[[], float]
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self.size = size
        self.clock = clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def left(self, key: str) -> float:
        """The tokens ``key``'s bucket holds now (a full bucket for a key never seen)."""
        entry = self.buckets.get(key)
        if entry is None:
            return float(self.burst)
        tokens, then = entry
        return min(float(self.burst), tokens + (self.clock() - then) * self.rate)

    def take(self, key: str, cost: float) -> float:
        """Spend ``cost`` tokens of ``key``'s bucket: 0 if it had them, else the seconds until
        it will (and nothing is spent)."""
        now = self.clock()
        tokens, then = self.buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        cost = min(cost, self.burst)  # a request never waits for more than a full bucket
        wait = 0.0
        if tokens >= cost:
            tokens -= cost
        else:
            wait = (cost - tokens) / self.rate
        self.buckets[key] = (tokens, now)
        while len(self.buckets) > self.size:
            self.buckets.popitem(last=False)
        return wait


def client_key(scope: Scope) -> str:
    """The address a request is counted against: the client's IP address, or its /64 network
    for IPv6 (one subscriber holds a whole /64)."""
    client = scope.get("client")
    if not client:
        return ""
    try:
        address = ipaddress.ip_address(client[0])
    except ValueError:
        return str(client[0])
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _search_seats(body: bytes) -> int:
    """How many seats of a creation request are played by search bots (0 for anything the
    handler will refuse anyway)."""
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):
        return 0
    seats = request.get("seats") if isinstance(request, dict) else None
    if not isinstance(seats, list):
        return 0
    return sum(
        isinstance(s, str) and s.partition(":")[0].strip().lower() in _SEARCH_NAMES for s in seats
    )


class CreationLimit:
    """ASGI wrapper of the creation endpoint: each client address may create ``per_minute``
    tables a minute, in bursts of ``burst``; a seat played by a search bot costs one more.
    A request over its allowance is answered ``429 rate-limited`` with ``Retry-After``; the
    endpoint never runs for it. ``per_minute=0`` turns the limit off."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        per_minute: float = 10.0,
        burst: int = 8,
        addresses: int = MAX_ADDRESSES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_minute > 0 and (burst < 1 or addresses < 1):
            raise ValueError(f"a creation limit needs a burst of 1 or more, not {burst}")
        self.app = app
        self.buckets = None if per_minute <= 0 else _Buckets(per_minute, burst, addresses, clock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.buckets is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more and len(body) <= _BODY_LIMIT:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left (or was too slow): nobody to answer
            body += message.get("body", b"")
            more = bool(message.get("more_body", False))
        wait = self.buckets.take(client_key(scope), 1 + _search_seats(body))
        if wait > 0:
            seconds = math.ceil(wait)
            message_text = f"too many tables created from this address; try again in {seconds} s"
            payload = json.dumps(
                {"type": "error", "code": "rate-limited", "message": message_text}
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 429,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(payload)).encode()),
                        (b"retry-after", str(seconds).encode()),
                        # a refused client opens a new connection to try again, which the
                        # transport can refuse unread if this address keeps being refused
                        (b"connection", b"close"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": payload})
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": more}
            return await receive()

        await self.app(scope, replay, send)

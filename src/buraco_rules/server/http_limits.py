"""The transport's limits of ``buraco-rules serve``: Uvicorn's HTTP and WebSocket protocols with
what they lack for a server facing strangers.

- **A request deadline.** Uvicorn times out an idle kept-alive connection, but not one that
  sends its headers or its body a byte at a time: :class:`LimitedH11Protocol` closes a connection
  whose request (headers and body) is not complete within ``request_timeout`` seconds of the
  connection or of the previous answer.
- **Connection caps.** Uvicorn's ``limit_concurrency`` answers 503 only once a request's
  headers have arrived, and never counts WebSocket handshakes; here a connection beyond
  ``max_connections`` (WebSockets included) is answered ``503 busy`` and closed at once, and one
  beyond ``per_address`` from one client address ``429 too-many-connections``, so that no one
  stranger can take every place. Connections from a proxy the operator names (``serve
  --proxy``, Uvicorn's ``forwarded_allow_ips``) carry many clients and are not counted; no other
  address is exempt, loopback included, and no forwarded header is read here.
- **A request rate.** Each client address may send ``request_rate`` HTTP requests a second
  (bursts of four times as many; WebSocket handshakes aside, as a joined seat has its own message
  rate): beyond it a request is answered ``429 too-many-requests`` before the application sees
  it, and its connection closed, so that no address's requests, refused or not, on new
  connections or kept-alive ones, take the server's core.
- **Refused unread.** Refusing a request still costs the server its parsing (a tenth to half a
  millisecond), so a stranger who repeats a refused request as fast as it can (another site's
  page, requests beyond the rate) took a whole core and made every table wait. Each refusal for
  a client's own fault (403, 413, ``too-many-requests``, ``too-many-connections``, a WebSocket
  closed for its policy (1008)) spends a token of the address's bucket (``bar_after`` tokens,
  one back a second); while the bucket is empty, the address's new connections are answered
  ``429 refused-for-now`` a second later and closed, unread (at once beyond the address's
  connection cap). Those answers spend nothing, so an address is read again a second after its
  last refusal: a flood costs the server an accept and a write a connection and a request a
  second, and people behind the address who retry are not held once it stops. A creation
  beyond the creation rate spends half a token (an office creating tables together is refused
  some and not barred).
- **Bounded headers.** The h11 parser keeps at most ``h11_max_incomplete_event_size`` bytes of
  unfinished headers (the httptools parser keeps them without bound); that bounds only headers
  still arriving, so every whole request's line and headers are also measured
  (:class:`_HeaderBound`): more than ``MAX_HEADER_BYTES`` in all, however they arrived (one burst,
  ten thousand small headers), is answered 400 and the connection closed.
- **A short close.** After the server closes a WebSocket, Uvicorn waits 10 s for the client's
  answer; :class:`QuickCloseWebSocketProtocol` waits ``close_timeout`` (1 s), so a connection
  that never joins is gone a second after the join timeout, not ten.
- **Spread keepalive pings.** Uvicorn pings each WebSocket every ``ws_ping_interval`` seconds
  from its opening, so connections opened together (every client reconnecting after a restart,
  a load test) ping together for good: at 2,000 tables, 4,000 pings and pongs in one burst
  stalled every table for half a second every 20 s. Here each ping comes after a random share
  (half to all) of the interval, so such bursts spread out within a few pings.

These subclass Uvicorn's own protocols (``uvicorn.protocols``), which is why this module is
imported only by the command; the tests run them in real server processes.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import random
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .guard import MAX_ADDRESSES, _Buckets, client_key

__all__ = [
    "MAX_HEADER_BYTES",
    "LimitedH11Protocol",
    "QuickCloseWebSocketProtocol",
    "limited_protocols",
]

log = logging.getLogger("buraco_rules.server")

MAX_HEADER_BYTES: Final = 32 * 1024
"""The most bytes of a request's headers the server reads (Uvicorn's
``h11_max_incomplete_event_size``): more is answered 400 and the connection closed."""


def _refusal(status: bytes, code: str, message: str) -> bytes:
    body = json.dumps({"type": "error", "code": code, "message": message}).encode()
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\nretry-after: 5\r\n"
        b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


_BUSY: Final = _refusal(b"503 Service Unavailable", "busy", "the server holds its most connections")
_CROWDED: Final = _refusal(
    b"429 Too Many Requests", "too-many-connections", "this address holds its most connections"
)
_BARRED: Final = _refusal(
    b"429 Too Many Requests", "refused-for-now", "this address was refused too often just now"
)

_STRIKES: Final = {403: 1.0, 413: 1.0, 429: 0.5}
"""The application's answers that spend tokens of the client address's refusal bucket, by
status: a client's own fault that a flood repeats (another site's page, a body too big), and
half a token for a creation beyond the creation rate or the tables' cap (an office of forty
creating tables together is refused some, and not barred; a flood is, after 40). The
transport's own refusals spend one where they are made."""
_POLICY_CLOSE: Final = 1008  # a WebSocket closed for the client's fault (rate, join, reader)

_BARRED_WAIT: Final = 1.0  # seconds a barred address's connection waits for its refusal
_BAR_LOG_EVERY: Final = 60.0  # seconds between two log lines for one barred address


def _peer(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "a client"


class _Addresses:
    """Open connections by client address (its /64 for IPv6), but for trusted proxies."""

    def __init__(
        self,
        limit: int,
        trusted: Sequence[str] | str,
        bar_after: int = 20,
        request_rate: float = 50.0,
        clock: Any = time.monotonic,
    ) -> None:
        self.limit = limit
        self.open: Counter[str] = Counter()
        self.clock = clock
        self.refusals = _Buckets(60.0, bar_after, MAX_ADDRESSES, clock) if bar_after > 0 else None
        self.logged: OrderedDict[str, float] = OrderedDict()  # when each bar was last logged
        self.requests = (
            _Buckets(request_rate * 60.0, int(4 * request_rate), MAX_ADDRESSES, clock)
            if request_rate > 0
            else None
        )
        names = trusted.split(",") if isinstance(trusted, str) else list(trusted)
        self.everyone_trusted = any(n.strip() == "*" for n in names)
        self.trusted = []
        for name in names:
            try:
                self.trusted.append(ipaddress.ip_network(name.strip(), strict=False))
            except ValueError:
                continue  # a Unix socket's path, "*": no address to count

    def key(self, transport: asyncio.BaseTransport) -> str | None:
        """The address to count this connection against, or None if it is not counted."""
        peer = transport.get_extra_info("peername")
        if self.everyone_trusted or not isinstance(peer, tuple) or not peer:
            return None
        try:
            address = ipaddress.ip_address(peer[0])
        except ValueError:
            return None
        if any(address in network for network in self.trusted):
            return None
        return client_key({"client": peer})

    def barred(self, key: str) -> bool:
        """Whether ``key`` was refused so often just now that its connections go unread."""
        return self.refusals is not None and self.refusals.left(key) < 1.0

    def request(self, key: str) -> bool:
        """Whether ``key`` may send one more HTTP request now (spending it)."""
        return self.requests is None or self.requests.take(key, 1) == 0.0

    def refused(self, key: str, weight: float = 1.0) -> None:
        """Count one refusal against ``key``. The one that bars it is logged (once a minute at
        most, however long the flood)."""
        if self.refusals is None:
            return
        burst = self.refusals.burst
        self.refusals.take(key, weight)
        if not self.barred(key):
            return
        now = self.clock()
        last = self.logged.pop(key, None)
        if last is None or now - last >= _BAR_LOG_EVERY:
            log.warning(
                "%s - barred: %d refusals; its connections are refused unread for now",
                key,
                burst,
            )
            last = now
        self.logged[key] = last  # the most recently barred last, the first forgotten
        while len(self.logged) > MAX_ADDRESSES:
            self.logged.popitem(last=False)

    def enter(self, key: str) -> bool:
        if self.open[key] >= self.limit:
            return False
        self.open[key] += 1
        return True

    def leave(self, key: str | None) -> None:
        if key is not None:
            self.open[key] -= 1
            if self.open[key] <= 0:
                del self.open[key]


def _header_bytes(event: h11.Request) -> int:
    """The bytes of a request's line and headers as sent (each header's ``: `` and line end
    counted, so that many small headers weigh what they cost)."""
    line = len(event.method) + len(event.target) + 12  # " ", " HTTP/1.1\r\n"
    return line + sum(len(name) + len(value) + 4 for name, value in event.headers) + 2


class _HeaderBound(h11.Connection):
    """An h11 connection that refuses a request whose line and headers exceed
    ``MAX_HEADER_BYTES`` in all, as h11 refuses unfinished headers beyond its bound: Uvicorn
    answers the protocol error 400 and closes the connection, with its one log line. Its
    ``protocol``, when set, hears of each request (for the request rate) and of each refusal the
    application answers."""

    protocol: LimitedH11Protocol | None = None

    def send_with_data_passthrough(self, event: h11.Event) -> list[bytes] | None:
        """The bytes of ``event`` (what ``send`` returns, in pieces), a refusal reported first."""
        if (
            self.protocol is not None
            and isinstance(event, h11.Response)
            and event.status_code in _STRIKES
        ):
            self.protocol.refused_by_app(_STRIKES[event.status_code])
        return super().send_with_data_passthrough(event)

    def next_event(self) -> Any:
        """The next event, a request over the bound raised as the client's protocol error."""
        event = super().next_event()
        if isinstance(event, h11.Request):
            if _header_bytes(event) > MAX_HEADER_BYTES:
                raise h11.RemoteProtocolError("request headers over the limit", 431)
            if self.protocol is not None:
                self.protocol.requested(event)
        return event


_TOO_MANY: Final = json.dumps(
    {
        "type": "error",
        "code": "too-many-requests",
        "message": "too many requests from this address; slow down",
    }
).encode()


async def _too_many_requests(scope: Any, receive: Any, send: Any) -> None:
    """The answer to a request beyond its address's rate, in place of the application."""
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(_TOO_MANY)).encode()),
        (b"retry-after", b"1"),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": _TOO_MANY})


class LimitedH11Protocol(H11Protocol):
    """Uvicorn's h11 protocol with a request deadline and the connection caps (the class
    attributes; :func:`limited_protocols` makes a subclass with other values)."""

    request_timeout: ClassVar[float] = 10.0
    max_connections: ClassVar[int] = 4096
    addresses: ClassVar[_Addresses | None] = None

    _timer: asyncio.TimerHandle | None = None
    _refused = False
    _counted: str | None = None  # the address this connection counts against, until it ends
    _held: str | None = None  # the barred address whose refused connection waits its answer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        bound = self.config.h11_max_incomplete_event_size
        self._bound = _HeaderBound(h11.SERVER, MAX_HEADER_BYTES if bound is None else bound)
        self.conn = self._bound
        self._app = self.app

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Refuse the connection beyond the caps; else start its request's clock."""
        refusal = None
        if len(self.connections) >= self.max_connections:
            refusal = _BUSY
            log.warning(
                "%s - refused: %d connections open", _peer(transport), len(self.connections)
            )
        elif self.addresses is not None and (key := self.addresses.key(transport)) is not None:
            if self.addresses.barred(key):  # logged once, when the address was barred
                self._refused = True
                self.transport = transport
                if self.addresses.enter(key):
                    # Held a second before the answer, unread: a client that repeats at once
                    # what was refused waits, instead of costing the server a connection each
                    # turn (an address holds as many such connections as it may have open).
                    self._held = key
                    transport.pause_reading()
                    # Half to one and a half of it, at random: a flood's connections opened
                    # together are not refused, and reopened, together (in waves, each a burst of
                    # accepts that the honest moves wait behind).
                    wait = _BARRED_WAIT * (0.5 + random.random())
                    self.loop.call_later(wait, self._refuse, _BARRED)
                else:
                    self._refuse(_BARRED)
                return
            if self.addresses.enter(key):
                self._counted = key
                self._bound.protocol = self
            else:
                self.addresses.refused(key)
                refusal = _CROWDED
                log.warning(
                    "%s - refused: %d connections open from %s",
                    _peer(transport),
                    self.addresses.limit,
                    key,
                )
        if refusal is not None:
            self._refused = True
            self.transport = transport
            self._refuse(refusal)
            return
        super().connection_made(transport)
        self._arm()

    def _refuse(self, answer: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(answer)
            self.transport.close()

    def refused_by_app(self, weight: float) -> None:
        """Count a refusal the application answered against the connection's address (the
        request rate's own refusal was counted as it was decided)."""
        counted = self._counted
        if (
            self.addresses is not None
            and counted is not None
            and self.app is not _too_many_requests
        ):
            self.addresses.refused(counted, weight)

    def requested(self, request: h11.Request) -> None:
        """Let the application answer ``request`` if its address is within its request rate,
        else answer ``429 too-many-requests`` in its place (a WebSocket handshake is not
        counted: a joined seat has its own message rate)."""
        if self.addresses is None or self._counted is None:
            return
        handshake = any(name == b"upgrade" for name, _ in request.headers)
        if handshake or self.addresses.request(self._counted):
            self.app = self._app
        else:
            self.app = _too_many_requests
            self.addresses.refused(self._counted)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock, and count the connection no more."""
        if self._refused:
            if self.addresses is not None:
                self.addresses.leave(self._held)
                self._held = None
            return
        self._disarm()
        if self.addresses is not None:
            self.addresses.leave(self._counted)
            self._counted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Read nothing of a refused connection."""
        if not self._refused:
            super().data_received(data)

    def handle_events(self) -> None:
        """Parse, and stop the clock once the whole request is in."""
        super().handle_events()
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # the whole request is in (or the connection is ending)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """Hand the connection to the WebSocket protocol (and its count), without the clock."""
        self._disarm()  # from here on, the WebSocket protocol owns the connection
        handed, self._counted = self._counted, None
        super().handle_websocket_upgrade(event)
        protocol = self.transport.get_protocol()
        if isinstance(protocol, QuickCloseWebSocketProtocol):
            protocol.counted = handed
        elif self.addresses is not None:
            self.addresses.leave(handed)

    def on_response_complete(self) -> None:
        """Start the next request's clock."""
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._arm()  # the next request, or the rest of a body answered early, has its time

    def _arm(self) -> None:
        self._disarm()
        self._timer = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if not self.transport.is_closing():
            log.info(
                "%s - closed: no complete request within %g s",
                _peer(self.transport),
                self.request_timeout,
            )
            self.transport.close()


class QuickCloseWebSocketProtocol(WebSocketsSansIOProtocol):
    """Uvicorn's WebSocket protocol, waiting ``close_grace`` seconds (not 10) for the client's
    answer to the server's close before dropping the connection."""

    close_grace: ClassVar[float] = 1.0
    addresses: ClassVar[_Addresses | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.close_timeout = self.close_grace
        self.counted: str | None = None
        """The client address the connection counts against (set by the HTTP protocol)."""

    def connection_lost(self, exc: Exception | None) -> None:
        """Count the connection no more, and its handshake's refusal if it was refused."""
        if self.addresses is not None:
            refusal = self.initial_response
            if refusal is not None and refusal[0] in _STRIKES and self.counted:
                self.addresses.refused(self.counted, _STRIKES[refusal[0]])
            self.addresses.leave(self.counted)
            self.counted = None
        super().connection_lost(exc)

    async def send(self, message: Any) -> None:
        """Send ``message``; a close for the client's fault (1008) counts as a refusal."""
        if (
            message.get("type") == "websocket.close"
            and message.get("code") == _POLICY_CLOSE
            and self.addresses is not None
            and self.counted is not None
        ):
            self.addresses.refused(self.counted)
        await super().send(message)

    def schedule_ping(self) -> None:
        """The next keepalive ping after a random half to all of the interval (less the last
        round trip, as Uvicorn's), so that connections opened together do not ping together."""
        interval = self.ping_interval or 0.0
        delay = max(0.0, interval * _PING_SPREAD.uniform(0.5, 1.0) - self.last_ping_rtt)
        self.ping_timer = self.loop.call_later(delay, self.send_keepalive_ping)


_PING_SPREAD: Final = random.Random()
"""The keepalive pings' spread: timing only, nothing of a game (seeded from the system)."""


def limited_protocols(
    *,
    request_timeout: float,
    max_connections: int,
    per_address: int,
    trusted: Sequence[str] | str = (),
    close_grace: float = 1.0,
    bar_after: int = 20,
    request_rate: float = 50.0,
) -> tuple[type[LimitedH11Protocol], type[QuickCloseWebSocketProtocol]]:
    """The HTTP and WebSocket protocol classes to give ``uvicorn.run(http=..., ws=...)``, for
    one server: ``trusted`` are the proxies' addresses (Uvicorn's ``forwarded_allow_ips``; none
    by default, so that every client address is counted, loopback's too); an address refused
    ``bar_after`` times in a burst (one forgiven a second) has its connections refused unread
    while it goes on (0: never); each address may send ``request_rate`` HTTP requests a second,
    in bursts of four times as many (0: no limit)."""
    addresses = _Addresses(per_address, trusted, bar_after, request_rate)
    http = type(
        "LimitedH11Protocol",
        (LimitedH11Protocol,),
        {
            "request_timeout": request_timeout,
            "max_connections": max_connections,
            "addresses": addresses,
        },
    )
    ws = type(
        "QuickCloseWebSocketProtocol",
        (QuickCloseWebSocketProtocol,),
        {"close_grace": close_grace, "addresses": addresses},
    )
    return http, ws

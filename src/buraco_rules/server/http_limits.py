"""The transport's limits of ``buraco-rules serve``: Uvicorn's HTTP and WebSocket protocols with
what they lack for a server facing strangers.

- **A request deadline.** Uvicorn times out an idle kept-alive connection, but not one that
  sends its headers or its body a byte at a time: :class:`LimitedH11Protocol` closes a connection
  whose request (headers and body) is not complete within ``request_timeout`` seconds of the
  connection or of the previous answer.
- **A connection cap.** Uvicorn's ``limit_concurrency`` answers 503 only once a request's
  headers have arrived, and never counts WebSocket handshakes; here a connection beyond
  ``max_connections`` (WebSockets included) is answered ``503 busy`` and closed at once.
- **Bounded headers.** The h11 parser keeps at most ``h11_max_incomplete_event_size`` bytes of
  unfinished headers (the httptools parser keeps them without bound).
- **A short close.** After the server closes a WebSocket, Uvicorn waits 10 s for the client's
  answer; :class:`QuickCloseWebSocketProtocol` waits ``close_timeout`` (1 s), so a connection
  that never joins is gone a second after the join timeout, not ten.

These subclass Uvicorn's own protocols (``uvicorn.protocols``), which is why this module is
imported only by the command; the tests run them in real server processes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, ClassVar, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

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

_BUSY_BODY: Final = json.dumps(
    {"type": "error", "code": "busy", "message": "the server holds its most connections"}
).encode()
_BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"retry-after: 5\r\nconnection: close\r\ncontent-length: "
    + str(len(_BUSY_BODY)).encode()
    + b"\r\n\r\n"
    + _BUSY_BODY
)


def _peer(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "a client"


class LimitedH11Protocol(H11Protocol):
    """Uvicorn's h11 protocol with a request deadline and a connection cap (the class
    attributes; :func:`limited_protocols` makes a subclass with other values)."""

    request_timeout: ClassVar[float] = 10.0
    max_connections: ClassVar[int] = 1000

    _timer: asyncio.TimerHandle | None = None
    _refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Refuse the connection beyond the cap; else start its request's clock."""
        if len(self.connections) >= self.max_connections:
            self._refused = True
            self.transport = transport
            log.warning(
                "%s - refused: %d connections open", _peer(transport), len(self.connections)
            )
            transport.write(_BUSY)
            transport.close()
            return
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock."""
        if self._refused:
            return
        self._disarm()
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
        """Hand the connection to the WebSocket protocol, without the clock."""
        self._disarm()  # from here on, the WebSocket protocol owns the connection
        super().handle_websocket_upgrade(event)

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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.close_timeout = self.close_grace


def limited_protocols(
    *, request_timeout: float, max_connections: int, close_grace: float = 1.0
) -> tuple[type[LimitedH11Protocol], type[QuickCloseWebSocketProtocol]]:
    """The HTTP and WebSocket protocol classes to give ``uvicorn.run(http=..., ws=...)``."""
    http = type(
        "LimitedH11Protocol",
        (LimitedH11Protocol,),
        {"request_timeout": request_timeout, "max_connections": max_connections},
    )
    ws = type(
        "QuickCloseWebSocketProtocol", (QuickCloseWebSocketProtocol,), {"close_grace": close_grace}
    )
    return http, ws

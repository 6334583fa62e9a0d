"""The ASGI application: the page, ``POST /api/tables`` and the ``/ws`` WebSocket, on Starlette.

:func:`create_app` builds it around one SQLite file; ``buraco-rules serve`` runs it under
Uvicorn, and any ASGI server (or a ``Mount`` in one's own Starlette app) can run it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Iterable
from importlib import resources
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute, request_response
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import variants
from .clock import DEFAULT_TURN_SECONDS
from .guard import CreationLimit, OriginGuard, client_key
from .protocol import Back, Join, Move, ProtocolError, read_frame
from .stores import Store, open_store
from .tables import CreateError, RecordError, StorageFailed, Table, TableHub

__all__ = ["MAX_BODY_BYTES", "create_app"]

log = logging.getLogger("buraco_rules.server")

MAX_BODY_BYTES: Final = 4096
"""The largest request body ``POST /api/tables`` reads."""

_MAX_QUEUED: Final = 256  # messages queued for a client that reads too slowly
_MAX_PER_SEAT: Final = 8  # connections one seat may hold at once (a laptop and a phone...)
# Others close with 1008 (policy); a database out of reach, 1013 (try again later).
_CLOSE_CODES: Final = {"too-big": 1009, "binary": 1003, "storage-failed": 1013}

_STATIC: Final = {
    "table.css": "text/css; charset=utf-8",
    "table.js": "text/javascript; charset=utf-8",
    "i18n.js": "text/javascript; charset=utf-8",
    "replay.js": "text/javascript; charset=utf-8",
}
_HEADERS: Final = {
    # The page loads nothing from elsewhere, and no other site may frame it.
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


def _asset(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


def create_app(
    db: str | Path | Store = "buraco.sqlite",
    *,
    bot_delay: float = 0.5,
    rate: float = 20.0,
    max_tables: int = 1000,
    join_timeout: float = 10.0,
    search_budget: object = None,
    allowed_hosts: Iterable[str] | None = None,
    allowed_origins: Iterable[str] = (),
    create_rate: float = 10.0,
    create_burst: int = 8,
    max_tables_per_client: int = 20,
    turn_seconds: int | None = DEFAULT_TURN_SECONDS,
    expire_after: float | None = 24 * 3600.0,
    expire_unplayed: float | None = 3600.0,
    search_processes: int = 1,
    decision_seconds: float | None = 1.0,
    lease_seconds: float = 10.0,
) -> Starlette:
    """The server as an ASGI application, keeping its tables in the SQLite file ``db``
    (created on first use), or in the PostgreSQL database a ``postgresql://`` URL names (shared
    by any number of server processes: :mod:`buraco_rules.server.stores`). ``bot_delay`` is
    the pause before each bot move in seconds,
    ``rate`` the messages per second a connection may send (bursts of twice as many), and
    ``max_tables`` the most unfinished tables it holds; a connection that has not joined a seat
    within ``join_timeout`` seconds is closed; ``search_budget`` (``"0.25s"`` or ``"200"``) is
    the search bots' thinking budget (:class:`~buraco_rules.server.tables.TableHub`). The hub is
    ``app.state.hub`` once the application has started (its lifespan reloads every unfinished
    table). ``db`` may also be a store already open (``buraco-rules serve`` opens it first, to
    refuse a database it cannot use before serving); the application closes it when it stops.
    ``max_tables_per_client``, ``turn_seconds``, ``expire_after``, ``expire_unplayed``,
    ``search_processes``,
    ``decision_seconds`` and ``lease_seconds`` are the hub's
    (:class:`~buraco_rules.server.tables.TableHub`).

    Closed to abuse (:mod:`buraco_rules.server.guard`): one client address may create
    ``create_rate`` tables a minute in bursts of ``create_burst`` (a search bot's seat counts as
    one more; ``create_rate=0``: no limit); a page of another site (an ``Origin`` that is not the
    request's own ``Host`` nor one of ``allowed_origins``) is refused; and when
    ``allowed_hosts`` is given, so is a ``Host`` that is not one of its names (DNS rebinding).
    By default any ``Host`` passes, for an application mounted under a server that checks it:
    ``buraco-rules serve`` passes the names it listens on."""
    page = _asset("index.html")
    assets = {name: _asset(name) for name in _STATIC}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = open_store(db, exclusive=True) if isinstance(db, str | Path) else db
        hub = TableHub(
            store,
            bot_delay=bot_delay,
            max_tables=max_tables,
            max_tables_per_client=max_tables_per_client,
            search_budget=search_budget,
            search_processes=search_processes,
            decision_seconds=decision_seconds,
            turn_seconds=turn_seconds,
            expire_after=expire_after,
            expire_unplayed=expire_unplayed,
            lease_seconds=lease_seconds,
        )
        if hub.shared is None:
            loaded = hub.load_unfinished()
            log.info("%d unfinished tables loaded from %s", loaded, store.label)
        else:  # each process holds only the tables it serves (TableHub.load_unfinished)
            log.info("serving the tables of %s as their seats join", store.label)
        await hub.open()
        hub.start()
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.stop()
            hub.pool.close()
            store.close()

    async def index(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8", headers=_HEADERS)

    replay_page = _asset("replay.html")

    async def replay(request: Request) -> Response:
        return Response(replay_page, media_type="text/html; charset=utf-8", headers=_HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(assets[name], media_type=_STATIC[name], headers=_HEADERS)

    async def health(request: Request) -> Response:
        hub: TableHub = request.app.state.hub
        # Counts only: which tables were set aside, and why, is in the log and in
        # ``buraco-rules tables``, for the operator (a reason may name a card).
        counts = {"unfinished": len(hub.going), "set_aside": len(hub.set_aside)}
        # A store that can lose its file (SQLite's: a folder removed under it) or its database
        # (PostgreSQL's: down) says so here, so that a monitor sees a server that stores nothing
        # any more; asked in a thread, since PostgreSQL's answer takes a round trip.
        failure = getattr(hub.store, "failure", None)
        if callable(failure) and await asyncio.to_thread(failure) is not None:
            return JSONResponse({"ok": False, "code": "storage-failed", **counts}, 503)
        return JSONResponse({"ok": True, **counts})

    async def variant_list(request: Request) -> Response:
        return JSONResponse(
            [
                {
                    "name": n,
                    "title": variants.get(n).title,
                    "players": variants.get(n).player_counts,
                    "options": variants.options_for(n),  # the house rules it may add
                }
                for n in variants.NAMES
            ]
        )

    async def create_table(request: Request) -> Response:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            # Another site's page may send a form or plain text here without asking first;
            # JSON needs the browser's cross-origin check, which this server never grants.
            return _error(415, "malformed", "send the request as application/json")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                return _error(413, "too-big", f"a request holds at most {MAX_BODY_BYTES} bytes")
        try:
            spec = json.loads(body)
        except (ValueError, RecursionError):
            return _error(400, "malformed", "the request must be a JSON object")
        hub: TableHub = request.app.state.hub
        try:
            created = await hub.create(spec, client=client_key(request.scope))
        except CreateError as error:
            return _error(error.status, error.code, str(error))
        except StorageFailed as error:
            return _error(503, "storage-failed", str(error))
        root = request.scope.get("root_path", "")  # where the app is mounted, if it is
        for seat in created["seats"]:
            if seat["kind"] == "human":
                # In the fragment: browsers never send it, so it reaches no log.
                seat["link"] = f"{root}/#table={created['table']}&token={seat['token']}"
        return JSONResponse(created, status_code=201, headers={"Cache-Control": "no-store"})

    async def record(request: Request) -> Response:
        return await _finished(request, "record")

    async def hands(request: Request) -> Response:
        return await _finished(request, "hands")

    async def _finished(request: Request, what: str) -> Response:
        hub: TableHub = request.app.state.hub
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return _error(401, "bad-token", "send a seat's token as Authorization: Bearer")
        give = hub.record if what == "record" else hub.hands
        try:
            text = await give(request.path_params["table"], token.strip())
        except RecordError as error:
            status = 409 if error.code == "not-over" else 404
            return _error(status, error.code, str(error))
        except StorageFailed as error:
            return _error(503, "storage-failed", str(error))
        return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})

    async def socket(websocket: WebSocket) -> None:
        await _Client(websocket, websocket.app.state.hub, rate, join_timeout).serve()

    return Starlette(
        routes=[
            Route("/", index),
            Route("/replay", replay),
            Route("/static/{name}", static),
            Route("/api/health", health),
            Route("/api/variants", variant_list),
            Route(
                "/api/tables",
                CreationLimit(
                    request_response(create_table), per_minute=create_rate, burst=create_burst
                ),
                methods=["POST"],
            ),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/tables/{table}/record", record),
            Route("/api/tables/{table}/hands", hands),
            WebSocketRoute("/ws", socket),
        ],
        middleware=[Middleware(OriginGuard, hosts=allowed_hosts, origins=allowed_origins)],
        lifespan=lifespan,
    )


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"type": "error", "code": code, "message": message}, status_code=status)


class _Client:
    """One WebSocket connection: reads frames, rate-limits them, and writes what the hub sends
    through a bounded queue (a client that stops reading is dropped, not waited for)."""

    def __init__(
        self, websocket: WebSocket, hub: TableHub, rate: float, join_timeout: float
    ) -> None:
        self.join_timeout = join_timeout
        self.websocket = websocket
        self.hub = hub
        self.rate = rate
        self.allowance = 2 * rate
        self.checked = time.monotonic()
        self.queue: asyncio.Queue[dict[str, Any] | str | int] = asyncio.Queue()
        self.closing = False

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closing:
            return
        if self.queue.qsize() >= _MAX_QUEUED:
            self.close(1008)
            return
        self.queue.put_nowait(message)

    def close(self, code: int) -> None:
        if not self.closing:
            self.closing = True
            self.queue.put_nowait(code)

    async def _write(self) -> None:
        while True:
            item = await self.queue.get()
            if isinstance(item, int):
                with contextlib.suppress(Exception):
                    await self.websocket.close(item)
                return
            if not isinstance(item, str):  # views come encoded (once for all their readers)
                item = json.dumps(item, separators=(",", ":"))
            await self.websocket.send_text(item)

    async def _frame(self, timeout: float | None) -> str | None:
        """The next text frame, or None when the client has gone."""
        if timeout is None:  # joined: no deadline, and no wrapper coroutine and timer a frame
            message = await self.websocket.receive()
        else:
            try:
                message = await asyncio.wait_for(self.websocket.receive(), timeout)
            except TimeoutError:
                raise ProtocolError("join-timeout", "no join in time", close=True) from None
        if message["type"] == "websocket.disconnect":
            return None
        self._spend()
        text = message.get("text")
        if text is None:
            raise ProtocolError("binary", "frames must be text (JSON)", close=True)
        return str(text)

    def _spend(self) -> None:
        now = time.monotonic()
        self.allowance = min(2 * self.rate, self.allowance + (now - self.checked) * self.rate)
        self.checked = now
        if self.allowance < 1:
            raise ProtocolError("rate-limited", "too many messages", close=True)
        self.allowance -= 1

    async def serve(self) -> None:
        await self.websocket.accept()
        writer = asyncio.create_task(self._write())
        joined: tuple[Table, int] | None = None
        try:
            while not self.closing:
                try:
                    text = await self._frame(None if joined else self.join_timeout)
                    if text is None:
                        break
                    message = read_frame(text)
                    if joined is None:
                        if not isinstance(message, Join):
                            raise ProtocolError("not-joined", "send join first", close=True)
                        joined = await self._join(message)
                    elif isinstance(message, Join):
                        raise ProtocolError("already-joined", "this connection has its seat")
                    elif isinstance(message, Move):
                        table, seat = joined
                        await self.hub.move(table, seat, message.seq, message.action, self)
                    elif isinstance(message, Back):
                        await self.hub.back(*joined)
                    else:
                        self.send({"type": "pong"})
                except ProtocolError as error:
                    self.send({"type": "error", "code": error.code, "message": str(error)})
                    if error.close or joined is None:  # a connection without a seat: no retry
                        self.close(_CLOSE_CODES.get(error.code, 1008))
        except WebSocketDisconnect:
            pass
        finally:
            if joined is not None:
                self.hub.leave(joined[0], joined[1], self)
            self.close(1000)
            with contextlib.suppress(Exception):
                await writer

    async def _join(self, message: Join) -> tuple[Table, int]:
        try:
            found = await self.hub.find(message.token, message.table)
        except StorageFailed as error:
            raise ProtocolError("storage-failed", str(error), close=True) from None
        if found is None:
            raise ProtocolError("bad-token", "no seat of this table has that token", close=True)
        table, seat = found
        if len(table.seats[seat].connections) >= _MAX_PER_SEAT:
            raise ProtocolError(
                "too-many-connections", f"a seat holds {_MAX_PER_SEAT} connections", close=True
            )
        self.send(table.welcome(seat))
        self.hub.join(table, seat, self)
        return table, seat

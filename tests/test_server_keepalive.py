"""The server's stalls that are not the engine's: keepalive pings of connections opened together
(docs/performance.md, the server under load). No timing is asserted: where the protocol sets
its next ping is."""

from __future__ import annotations

import asyncio
import types

import pytest

pytest.importorskip("uvicorn")

from buraco_rules.server.http_limits import QuickCloseWebSocketProtocol


def test_keepalive_pings_of_connections_opened_together_are_spread() -> None:
    # Uvicorn pings every WebSocket a fixed interval after the last ping, so connections
    # opened in one burst (a restart's reconnections) would ping in one burst for good: the
    # server's protocol sets each next ping at a random half to all of the interval.
    async def delays() -> list[float]:
        loop = asyncio.get_running_loop()
        found = []
        for _ in range(40):
            connection = types.SimpleNamespace(
                ping_interval=20.0, last_ping_rtt=0.5, loop=loop, send_keepalive_ping=print
            )
            QuickCloseWebSocketProtocol.schedule_ping(connection)  # type: ignore[arg-type]
            found.append(connection.ping_timer.when() - loop.time())
            connection.ping_timer.cancel()
        return found

    found = asyncio.run(delays())
    assert all(10.0 - 0.5 - 0.1 <= d <= 20.0 - 0.5 for d in found)
    assert max(found) - min(found) > 2.0  # spread, not one instant

"""A game server on the engine (the ``server`` extra): tables of people and bots, played in the
browser over WebSockets, every move committed to SQLite before anyone is told of it.

Run it with ``buraco-rules serve``, or mount :func:`create_app` in your own ASGI application;
see the server page of the docs for the protocol, the durability guarantee and the security
model.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]

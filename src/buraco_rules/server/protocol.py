"""The WebSocket protocol's client messages, read strictly: every frame a client sends is one
JSON object of a known type, or it is refused with one :class:`ProtocolError` whose ``code``
names the problem (see the server page of the docs for every message).
"""

from __future__ import annotations

import json
from typing import Final

import attrs

from ..core.quoting import describe

__all__ = [
    "MAX_FRAME_CHARS",
    "MAX_SEQ",
    "MAX_TOKEN_CHARS",
    "Back",
    "Join",
    "Move",
    "Ping",
    "ProtocolError",
    "read_frame",
]

MAX_FRAME_CHARS: Final = 4096
"""The longest text frame read: a move is under 200 characters, so anything longer is refused
(``too-big``) unread."""

MAX_TOKEN_CHARS: Final = 100
"""The longest seat token read (the server's are 43 characters)."""

MAX_SEQ: Final = 10**9
"""The largest sequence number a move may carry."""


class ProtocolError(ValueError):
    """A frame the server refuses: ``code`` names why, ``close`` says whether the connection is
    closed after the error is sent."""

    def __init__(self, code: str, message: str, *, close: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.close = close


@attrs.frozen
class Join:
    """``{"type": "join", "token": ..., "table": ...}``: the first message of a connection."""

    token: str
    table: str | None


@attrs.frozen
class Move:
    """``{"type": "move", "seq": n, "action": ...}``: a move in notation (or as the JSON
    document of an action), with the seat's sequence number."""

    seq: int
    action: object


@attrs.frozen
class Ping:
    """``{"type": "ping"}``: answered ``{"type": "pong"}``."""


@attrs.frozen
class Back:
    """``{"type": "back"}``: the person of a seat the turn clock gave to a bot is back and takes
    it again (any move does too); nothing happens at a seat that is not away."""


def read_frame(text: str) -> Join | Move | Ping | Back:
    """The message a text frame holds, or a :class:`ProtocolError`."""
    if len(text) > MAX_FRAME_CHARS:
        raise ProtocolError(
            "too-big", f"a frame holds at most {MAX_FRAME_CHARS} characters", close=True
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "a frame must be one JSON object") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", f"a frame must be a JSON object, not {describe(data)}")
    kind = data.get("type")
    if kind == "join":
        token, table = data.get("token"), data.get("table")
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_CHARS:
            raise ProtocolError("malformed", "join needs the seat's token as a string")
        if table is not None and (not isinstance(table, str) or len(table) > MAX_TOKEN_CHARS):
            raise ProtocolError("malformed", "join's table must be the table's id as a string")
        return Join(token, table)
    if kind == "move":
        seq = data.get("seq")
        if type(seq) is not int or not 0 < seq <= MAX_SEQ:
            raise ProtocolError("malformed", f"a move needs a seq from 1 to {MAX_SEQ}")
        action = data.get("action")
        if not isinstance(action, str | dict):
            raise ProtocolError(
                "malformed", "a move's action is its notation or the JSON document of an action"
            )
        return Move(seq, action)
    if kind == "ping":
        return Ping()
    if kind == "back":
        return Back()
    raise ProtocolError("malformed", f"unknown message type {describe(kind)}")

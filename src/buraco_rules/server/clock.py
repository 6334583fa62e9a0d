"""The turn clock's bounds: the seconds a table's request may give a turn.

A table's clock is set when it is created (``turn_seconds``) and starts when its first person
sits down; the hub keeps the running deadline, stores it with every move and plays an away seat
with a bot (see :class:`~buraco_rules.server.tables.TableHub`).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "AWAY_PAUSE",
    "DEFAULT_TURN_SECONDS",
    "MAX_TURN_SECONDS",
    "MIN_TURN_SECONDS",
    "RESTART_GRACE",
]

MIN_TURN_SECONDS: Final = 15
"""The shortest turn a table's request may ask for."""

MAX_TURN_SECONDS: Final = 3600
"""The longest turn a table's request may ask for."""

DEFAULT_TURN_SECONDS: Final = 120
"""The clock of a table with two human seats or more whose request names none (a table of one
person and bots has none: nobody waits for anybody)."""

RESTART_GRACE: Final = 15
"""The seconds (at most a turn) a seat whose clock ran out while the server was down is given
once it is back: the people need a moment to reconnect."""

AWAY_PAUSE: Final = 5
"""The seconds the bot playing an away seat waits before the first move of each of that seat's
turns while the seat is connected (at most the table's turn, at least the server's bot delay):
time for the person, back at the table, to take the turn (any move, or the ``back`` message,
gives them the seat again). A seat nobody is connected to is played at the bot delay."""

"""Bots by name, as the command line and the simulator take them."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from .base import Bot
from .greedy import GreedyBot
from .montecarlo import MonteCarloBot
from .random_bot import RandomBot

__all__ = ["BOT_NAMES", "bot_from_name"]

_MAKERS: MappingProxyType[str, Callable[[], Bot]] = MappingProxyType(
    {"random": RandomBot, "greedy": GreedyBot, "montecarlo": MonteCarloBot}
)
BOT_NAMES = tuple(_MAKERS)
"""The names :func:`bot_from_name` accepts."""


def bot_from_name(name: str) -> Bot:
    """A new bot of the kind ``name`` (``"random"``, ``"greedy"`` or ``"montecarlo"``, also
    ``"mc"``), with its default settings; an unknown name is a ``ValueError``."""
    key = "montecarlo" if name == "mc" else name
    try:
        return _MAKERS[key]()
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; choose one of {', '.join(BOT_NAMES)}") from None

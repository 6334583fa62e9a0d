"""Bots by name, as the command line, the simulator, the server and the RL envs take them."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from .base import Bot
from .greedy import GreedyBot
from .ismcts import ISMCTSBot
from .montecarlo import MonteCarloBot
from .random_bot import RandomBot

__all__ = ["BOT_NAMES", "SEARCH_BOTS", "bot_from_name"]

_MAKERS: MappingProxyType[str, Callable[[], Bot]] = MappingProxyType(
    {"random": RandomBot, "greedy": GreedyBot, "montecarlo": MonteCarloBot, "ismcts": ISMCTSBot}
)
BOT_NAMES = tuple(_MAKERS)
"""The names :func:`bot_from_name` accepts (``"mc"`` is also taken for ``"montecarlo"``)."""
SEARCH_BOTS: tuple[str, ...] = ("montecarlo", "ismcts")
"""The bots that think within a budget: their names take one, ``ismcts:200`` or
``ismcts:0.25s``."""
_SEARCHERS: MappingProxyType[str, type[MonteCarloBot] | type[ISMCTSBot]] = MappingProxyType(
    {"montecarlo": MonteCarloBot, "ismcts": ISMCTSBot}
)
_LONGEST = 40  # no bot's name with its budget is longer: longer text is quoted cut, unparsed
MAX_PLAYOUTS = 1_000_000
"""The most playouts a bot's name may ask for."""
MAX_SECONDS = 3600.0
"""The most CPU seconds per decision a bot's name may ask for."""


def bot_from_name(name: str) -> Bot:
    """A new bot of the kind ``name`` (``"random"``, ``"greedy"``, ``"montecarlo"`` (also
    ``"mc"``) or ``"ismcts"``) with its default settings; a search bot's name may end in its
    budget: ``ismcts:200`` (playouts per decision) or ``ismcts:0.25s`` (CPU seconds per decision,
    thinking by time only). Anything else is a ``ValueError``."""
    if not isinstance(name, str) or len(name) > _LONGEST:
        shown = repr(name[:_LONGEST]) + "…" if isinstance(name, str) else repr(type(name))
        raise ValueError(f"unknown bot {shown}; choose one of {', '.join(BOT_NAMES)}")
    kind, colon, budget = name.partition(":")
    key = "montecarlo" if kind == "mc" else kind
    if colon:
        maker = _SEARCHERS.get(key)
        if maker is None:
            raise ValueError(
                f"only the search bots ({', '.join(SEARCH_BOTS)}) take a budget, not {name!r}"
            )
        return _budgeted(maker, budget, name)
    try:
        return _MAKERS[key]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose one of {', '.join(BOT_NAMES)}") from None


def _budgeted(maker: type[MonteCarloBot] | type[ISMCTSBot], budget: str, name: str) -> Bot:
    """``maker`` with the budget of a name's ``:N`` (playouts) or ``:Ss`` (CPU seconds)."""
    text = budget[:-1] if budget.endswith("s") else budget
    try:
        if budget.endswith("s"):
            seconds = float(text)
            if not 0 < seconds <= MAX_SECONDS:
                raise ValueError(text)
            return maker(playouts=None, seconds=seconds)
        if not text.isdigit():
            raise ValueError(text)
        playouts = int(text)
        if not 1 <= playouts <= MAX_PLAYOUTS:
            raise ValueError(text)
        return maker(playouts=playouts)
    except ValueError:
        raise ValueError(
            f"bad budget in {name!r}: give playouts (1 to {MAX_PLAYOUTS}) as in 'ismcts:200' "
            f"or CPU seconds per decision (at most {MAX_SECONDS:g}) as in 'ismcts:0.25s'"
        ) from None

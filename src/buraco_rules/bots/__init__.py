"""Bots that play from a player's view: :class:`RandomBot`, :class:`GreedyBot`,
:class:`MonteCarloBot` and :class:`ISMCTSBot`, all following the :class:`Bot` protocol
``choose(view, rng) -> Action``.

>>> import random
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> from buraco_rules.bots import GreedyBot
>>> state = br.new_game(variants.ITALIAN, 2, seed=3)
>>> action = GreedyBot().choose(br.view(state, 0), random.Random(0))
>>> br.is_legal(state, action)
True
"""

from __future__ import annotations

from .base import Bot
from .greedy import GreedyBot
from .ismcts import ISMCTSBot
from .montecarlo import MonteCarloBot
from .names import BOT_NAMES, SEARCH_BOTS, bot_from_name
from .random_bot import RandomBot

__all__ = [
    "BOT_NAMES",
    "SEARCH_BOTS",
    "Bot",
    "GreedyBot",
    "ISMCTSBot",
    "MonteCarloBot",
    "RandomBot",
    "bot_from_name",
]

"""Reinforcement learning and search: a token code for actions and adapters for other libraries.

:mod:`buraco_rules.rl.encoding` needs nothing beyond the engine. The rest sit behind extras:
:mod:`buraco_rules.rl.observation` and :mod:`buraco_rules.rl.policy` (``rl``: numpy),
:mod:`buraco_rules.rl.openspiel` (``openspiel``), :mod:`buraco_rules.rl.pettingzoo` and
:mod:`buraco_rules.rl.gymnasium` (``pettingzoo``). This package imports none of them until asked
(``buraco_rules.rl.PolicyBot`` imports :mod:`buraco_rules.rl.policy`), so that the engine stays
attrs-only.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["MLPPolicy", "PolicyBot"]

_LAZY = {"PolicyBot": "policy", "MLPPolicy": "policy"}


def __getattr__(name: str) -> Any:
    """``PolicyBot`` and ``MLPPolicy`` from :mod:`buraco_rules.rl.policy`, imported when first
    asked for (numpy is needed then, not before)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

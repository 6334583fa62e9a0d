"""The three rule sets, by constant or by name.

>>> from buraco_rules import variants
>>> variants.get("italian") is variants.ITALIAN, sorted(variants.NAMES)
(True, ['buraco-fechado', 'canasta-stbl', 'italian'])
"""

from __future__ import annotations

from types import MappingProxyType

from ..rules import RuleSet
from .buraco_fechado import BURACO_FECHADO
from .canasta_stbl import CANASTA_STBL
from .italian import ITALIAN

__all__ = ["BURACO_FECHADO", "CANASTA_STBL", "ITALIAN", "NAMES", "get"]

_BY_NAME = MappingProxyType({r.name: r for r in (BURACO_FECHADO, CANASTA_STBL, ITALIAN)})
NAMES = tuple(_BY_NAME)
"""The names ``get`` accepts."""


def get(name: str) -> RuleSet:
    """The rule set called ``name``: ``"buraco-fechado"``, ``"canasta-stbl"`` or ``"italian"``."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {name!r}; choose one of {', '.join(NAMES)}") from None

"""The preset rule sets, by constant or by name.

>>> from buraco_rules import variants
>>> variants.get("italian") is variants.ITALIAN, sorted(variants.NAMES)
(True, ['buraco-fechado', 'canasta-stbl', 'italian', 'italian-fibur'])
"""

from __future__ import annotations

from types import MappingProxyType

from ..core import rules as _rules
from ..core.rules import RuleSet
from .buraco_fechado import BURACO_FECHADO
from .canasta_stbl import CANASTA_STBL
from .italian import ITALIAN
from .italian_fibur import ITALIAN_FIBUR
from .options import (
    OPTIONS,
    changes_beyond_options,
    for_single_hand,
    option_text,
    options_for,
    options_of,
    parse_option,
    with_options,
)

__all__ = [
    "BURACO_FECHADO",
    "CANASTA_STBL",
    "ITALIAN",
    "ITALIAN_FIBUR",
    "NAMES",
    "OPTIONS",
    "changes_beyond_options",
    "for_single_hand",
    "get",
    "option_text",
    "options_for",
    "options_of",
    "parse_option",
    "with_options",
]

_BY_NAME = MappingProxyType(
    {r.name: r for r in (BURACO_FECHADO, CANASTA_STBL, ITALIAN, ITALIAN_FIBUR)}
)
_rules._PRESETS.update(_BY_NAME)  # what RuleSet.is_preset compares with
NAMES = tuple(_BY_NAME)
"""The names ``get`` accepts."""


def get(name: str) -> RuleSet:
    """The preset called ``name``: ``"buraco-fechado"``, ``"canasta-stbl"``, ``"italian"`` or
    ``"italian-fibur"``. A customised rule set is not a preset (``RuleSet.is_preset``): store it
    whole, never by its name."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {name!r}; choose one of {', '.join(NAMES)}") from None

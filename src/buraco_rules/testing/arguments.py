"""The checks of the testing kit's arguments: a bad one raises Hypothesis' ``InvalidArgument``
when the strategy is called, not when it is drawn from."""

from __future__ import annotations

from hypothesis.errors import InvalidArgument

from ..core.rules import RuleSet

__all__ = ["check_rules", "check_size"]


def check_size(name: str, value: object, low: int, high: int) -> int:
    """``value``, which must be an ``int`` from ``low`` to ``high``."""
    if type(value) is not int or not low <= value <= high:
        raise InvalidArgument(f"{name} must be an int from {low} to {high}, not {value!r}")
    return value


def check_rules(rules: object) -> RuleSet:
    """``rules``, which must be a ``RuleSet``."""
    if not isinstance(rules, RuleSet):
        raise InvalidArgument(f"rules must be a RuleSet, not {rules!r}")
    return rules

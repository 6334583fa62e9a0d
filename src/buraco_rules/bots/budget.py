"""The search bots' thinking budget: sampled deals or CPU seconds per decision, and the checks of
their settings."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import attrs

__all__ = [
    "finite_number",
    "flag",
    "positive_or_none",
    "require_budget",
    "sampled_deals",
    "whole_or_none",
    "whole_or_zero",
]


def positive_or_none(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """An attrs validator: ``None`` or a finite number above zero (a budget of CPU seconds)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ValueError(f"{attribute.name} must be a number or None, not {value!r}")
    if value is not None and not 0 < value < math.inf:
        raise ValueError(f"{attribute.name} must be a positive number, not {value!r}")


def whole_or_none(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """An attrs validator: ``None`` or an ``int`` of 1 or more (a count of deals or turns)."""
    if value is not None and (type(value) is not int or value < 1):
        raise ValueError(f"{attribute.name} must be a whole number of 1 or more, not {value!r}")


def whole_or_zero(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """An attrs validator: an ``int`` of 0 or more (a count that may be none)."""
    if type(value) is not int or value < 0:
        raise ValueError(f"{attribute.name} must be a whole number of 0 or more, not {value!r}")


def finite_number(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """An attrs validator: a finite ``int`` or ``float``, not a ``bool``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{attribute.name} must be a finite number, not {value!r}")


def flag(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """An attrs validator: ``True`` or ``False`` exactly."""
    if type(value) is not bool:
        raise ValueError(f"{attribute.name} must be True or False, not {value!r}")


def require_budget(playouts: int | None, seconds: float | None) -> None:
    """Refuse a search bot with neither budget: it would think for ever."""
    if playouts is None and seconds is None:
        raise ValueError("give a budget: playouts=, seconds= or both")


def sampled_deals(playouts: int | None, seconds: float | None) -> Iterator[int]:
    """Count the sampled deals of one decision, 0, 1, 2, ..., until ``playouts`` of them are done
    or ``seconds`` of this thread's CPU time (``time.thread_time``: its own, whatever else the
    machine runs) have passed, whichever comes first; at least one deal, whatever the budget."""
    deadline = None if seconds is None else time.thread_time() + seconds
    done = 0
    while True:
        yield done
        done += 1
        if playouts is not None and done >= playouts:
            return
        if deadline is not None and time.thread_time() >= deadline:
            return

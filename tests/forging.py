"""Forged action objects for tests: frozen attrs instances holding values their constructors
refuse (as ``object.__setattr__`` can force), which ``apply`` and the formats must still answer
with their own errors."""

from __future__ import annotations

from typing import Any

import attrs


def forged(kind: type[object], *values: object) -> Any:
    """An action object of ``kind`` holding ``values`` as they are, past its constructor."""
    thing = object.__new__(kind)
    for field, value in zip(attrs.fields(kind), values, strict=True):  # type: ignore[misc]
        object.__setattr__(thing, field.name, value)
    return thing

"""Quoting a value in an error message, whatever the value: safely and in a bounded length.

A message that quotes what it refuses must not fail itself: ``repr`` of a hostile object may
raise, and ``repr`` of an int of more than 4300 digits raises ``ValueError`` (Python's limit on
int-to-text conversion), which would replace the documented error with another.

>>> describe(10**5000)
'an int of about 5001 digits'
>>> describe("x" * 200)[-5:]
'xx...'
"""

from __future__ import annotations

from typing import Final

__all__ = ["describe"]

LIMIT: Final = 80
"""The most characters a quoted value takes in a message."""

_LOG10_2: Final = 0.30102999566398120


def describe(obj: object) -> str:
    """A short repr of ``obj`` for messages (at most :data:`LIMIT` characters); never raises."""
    if type(obj) is int and obj.bit_length() > 64:
        digits = int(obj.bit_length() * _LOG10_2) + 1  # no str(): it may raise, or be slow
        return f"an int of about {digits} digits"
    try:
        text = repr(obj)
    except Exception:
        kind = type(obj).__name__
        return f"an {kind}" if kind[:1].lower() in "aeiou" else f"a {kind}"
    return text if len(text) <= LIMIT else text[: LIMIT - 3] + "..."

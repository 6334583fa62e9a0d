"""Quoting a value in an error message, whatever the value: safely and in a bounded length.

A message that quotes what it refuses must not fail itself, nor grow with its input: ``repr`` of
a hostile object may raise, run on or return a ``str`` subclass whose ``len`` and slicing lie or
raise; ``repr`` of an int of more than 4300 digits raises ``ValueError`` (Python's limit on
int-to-text conversion); a class's ``__name__`` may be a property of its metaclass. Every quote in
the library's messages goes through this module, which touches only exact ``str`` objects: any
value (:func:`describe`), a string input (:func:`quote_text`), a decoded JSON value by its shape
(:func:`describe_json`), or a type (:func:`kind_of`).

>>> describe(10**5000)
'an int of about 5001 digits'
>>> describe("x" * 200)[-5:]
'xx...'
>>> quote_text("y" * 100)[-20:]
"y'… (100 characters)"
>>> describe_json({"a": 1}), describe_json([1, 2]), describe_json(None)
('an object', 'a list of 2', 'null')
"""

from __future__ import annotations

from typing import Final

__all__ = ["LIMIT", "QUOTE_CHARS", "describe", "describe_json", "kind_of", "quote_text"]

LIMIT: Final = 80
"""The most characters :func:`describe` takes for a value by default."""
QUOTE_CHARS: Final = 60
"""At most this many characters of a refused input (text, or an action's argument) are quoted by
:func:`quote_text`, and by the constructors of the actions."""

_NAME_LIMIT: Final = 40
_LOG10_2: Final = 0.30102999566398120
_TYPE_NAME: Final = type.__dict__["__name__"]
"""The descriptor of ``type.__name__`` itself: a metaclass cannot override it."""


def _exact(text: str) -> str:
    """``text`` as an exact ``str`` (a subclass's own ``len``, slicing and ``+`` never run)."""
    return text if type(text) is str else str.__str__(text)


def kind_of(obj: object) -> str:
    """``obj``'s type name with its article (``'a Card'``, ``'an int'``), bounded; never raises."""
    try:
        name = _exact(_TYPE_NAME.__get__(type(obj)))
    except Exception:
        name = "object"
    if len(name) > _NAME_LIMIT:
        name = name[: _NAME_LIMIT - 3] + "..."
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def describe(obj: object, limit: int = LIMIT) -> str:
    """A short repr of ``obj`` for messages (at most ``limit`` characters, at least 8); never
    raises."""
    if type(obj) is int and obj.bit_length() > 64:
        digits = int(obj.bit_length() * _LOG10_2) + 1  # no str(): it may raise, or be slow
        return f"an int of about {digits} digits"
    limit = max(limit, 8)
    try:
        # Inside the guard: repr may return a str subclass, whose len or slicing may raise.
        text = _exact(repr(obj))
        return text if len(text) <= limit else text[: limit - 3] + "..."
    except Exception:
        return kind_of(obj)


def quote_text(text: str, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of the first ``limit`` characters of the string ``text``, marking a cut with
    ``…`` and the length; never raises (anything but a string is quoted by :func:`describe`)."""
    if not isinstance(text, str):
        return describe(text, limit)
    try:
        exact = _exact(text)
    except Exception:
        return kind_of(text)
    if len(exact) <= limit:
        return repr(exact)
    return repr(exact[:limit]) + f"… ({len(exact):,} characters)"


def describe_json(value: object) -> str:
    """A bounded quote of a value met while decoding a JSON document, safe on any object: the
    JSON scalars are quoted (a string by :func:`quote_text`, a huge int by its size, as its
    ``repr`` raises), an object or a list by its shape, anything else by its type's name
    (:func:`kind_of`); never raises."""
    if value is None:
        return "null"
    if type(value) is str:
        return quote_text(value)
    if type(value) is bool or type(value) is float:
        return repr(value)
    if type(value) is int:
        if value.bit_length() > 64:
            return f"an integer of {value.bit_length():,} bits"
        return repr(value)
    if type(value) is dict:
        return "an object"
    if type(value) is list or type(value) is tuple:
        return f"a list of {len(value)}"
    return kind_of(value)

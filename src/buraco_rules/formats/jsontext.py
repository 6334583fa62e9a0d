"""JSON text in: a document is bounded before it is parsed. A text over :data:`MAX_JSON_CHARS`
characters (or bytes over four times that), nested deeper than :data:`MAX_DEPTH`, not UTF-8, not
JSON, holding ``NaN`` or a key twice is a :class:`~buraco_rules.formats.errors.DecodeError`,
found quickly (C-speed string operations, never recursion); what is left is the JSON data that
:func:`buraco_rules.from_data` decodes.

>>> read_json('{"format": 1}')
{'format': 1}
>>> read_json('[' * 40 + ']' * 40)
Traceback (most recent call last):
...
buraco_rules.formats.errors.DecodeError: the document is nested deeper than 32 levels
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Final

from ..core.cards import DECK
from ..core.limits import MAX_HAND_ACTIONS, MAX_MATCH_HANDS
from ..core.quoting import kind_of, quote_text
from .errors import DecodeError

__all__ = ["MAX_DEPTH", "MAX_JSON_CHARS", "read_json"]

_ACTION_CHARS: Final = 14
"""The most characters an action takes in a list of a document, but for the cards it lays: the
longest notation of a draw, take or discard (``discard 10H``), its quotes and comma."""
_LAID_CHARS: Final = 5
"""The most characters each card laid adds to its action (`` 10H``, and one for the longest
keywords, ``take add 999``)."""
_BOUNDED_CHARS: Final = 250_000
"""What a document holds besides its actions, each part bounded: a rule set written in full
(``RuleSet.name`` and ``title`` of at most 200 characters), a match's decks and scores (one per
hand), a record's names and meta (:data:`buraco_rules.formats.records.MAX_NAME_CHARS`, ...), or
a match's finished states."""
MAX_JSON_CHARS: Final = (
    MAX_MATCH_HANDS * (_ACTION_CHARS * MAX_HAND_ACTIONS + _LAID_CHARS * len(DECK)) + _BOUNDED_CHARS
)
"""Longer documents are refused unread. Derived from the game's bounds
(:mod:`buraco_rules.core.limits`): the record of the longest match, :data:`MAX_MATCH_HANDS` hands of
:data:`MAX_HAND_ACTIONS` actions, fits, and so does every document of a legal value."""
MAX_DEPTH: Final = 32
"""Documents nested deeper are refused before they are parsed (the formats nest 6 deep)."""


_STRING: Final = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
"""A JSON string, or an unterminated one to the end of the text (which json refuses without
reading its brackets): possessive, so each match is one pass and matches never overlap, which
keeps the depth check linear (rescanning from every escaped quote would be quadratic)."""
_NOT_BRACKET: Final = re.compile(r"[^\[\]{}]+")


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests brackets deeper than :data:`MAX_DEPTH` (strings aside), found with
    C-speed string operations, never recursion."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(MAX_DEPTH):
        shorter = skeleton.replace("[]", "").replace("{}", "")
        if len(shorter) == len(skeleton):
            break
        skeleton = shorter
    else:
        return bool(skeleton)
    return False


def _no_constant(name: str) -> None:
    raise DecodeError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        counts = Counter(key for key, _ in pairs)
        twice = min(key for key, n in counts.items() if n > 1)
        raise DecodeError(f"the key {quote_text(twice)} appears twice in one object")
    return obj


def read_json(text: str | bytes) -> Any:
    """The JSON data of the document ``text`` (a ``str``, or UTF-8 ``bytes``), checked against
    the limits before it is parsed; anything else is a
    :class:`~buraco_rules.formats.errors.DecodeError`."""
    kind = type(text)  # by type: an instance's __class__ may lie or raise
    if issubclass(kind, bytes | bytearray):
        try:
            text = bytes(text)  # type: ignore[arg-type]  # a subclass's own len could lie
        except Exception:
            raise DecodeError(f"a JSON document is a str or bytes, not {kind_of(text)}") from None
        if len(text) > 4 * MAX_JSON_CHARS:
            raise DecodeError(f"a document of {len(text):,} bytes is over the limit")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DecodeError(f"not UTF-8 text: {error}") from None
    elif issubclass(kind, str) and kind is not str:
        text = str.__str__(text)  # its own len or slicing could lie
    if type(text) is not str:
        raise DecodeError(f"a JSON document is a str or bytes, not {kind_of(text)}")
    if len(text) > MAX_JSON_CHARS:
        raise DecodeError(
            f"a document of {len(text):,} characters is over the limit of {MAX_JSON_CHARS:,}"
        )
    if _too_deep(text):
        raise DecodeError(f"the document is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except DecodeError:
        raise
    except (ValueError, RecursionError) as error:
        raise DecodeError(f"not a JSON document ({error}): {quote_text(text)}") from None

"""The JSON codec: every value of the library as a versioned, compact, stable JSON document.

A document is an object whose first keys are ``"format"`` (:data:`FORMAT`) and ``"type"`` (what it
holds), then the value's fields in their declared order. Cards are written in card notation, a
list of cards as one string (``"5S 6S JK"``), a meld as its cards in layout order, an action as
its notation, a preset rule set by its name and a customised one in full. The codecs of the
records are derived from their attrs fields, so a field added to a class is carried at once.

Decoding is an input boundary: whatever it is given, :func:`from_json` and :func:`from_data`
return a consistent value (a game state passes :func:`buraco_rules.validate`) or raise
:class:`DecodeError`, quickly: a document over :data:`MAX_JSON_CHARS` characters or nested deeper
than :data:`MAX_DEPTH` is refused before it is parsed.

This module reads and writes the documents (their header and kinds); the rest of the codec is
split by job: :mod:`~buraco_rules.formats.jsontext` bounds and parses the text,
:mod:`~buraco_rules.formats.values` encodes and decodes each value by its type,
:mod:`~buraco_rules.formats.schema` says each class's fields, and
:mod:`~buraco_rules.formats.consistency` checks a decoded value by the core's own checks.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.ITALIAN, 2, seed=1)
>>> text = to_json(state)
>>> text[:60]
'{"format":1,"type":"state","rules":"italian","players":2,"cu'
>>> from_json(text) == state
True
>>> from_json('{"format":1,"type":"action","action":"fly"}')
Traceback (most recent call last):
...
buraco_rules.formats.errors.DecodeError: action: not an action: 'fly' (expected draw, take, ...)
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Final, TypeVar

from ..core.actions import (
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from ..core.quoting import describe_json, kind_of
from ..core.rules import RuleSet
from ..engine.scoring import TeamScore
from ..engine.state import GameState
from ..hidden.views import PlayerView
from ..play.match import Match
from .errors import DecodeError, NotationError
from .jsontext import MAX_DEPTH, MAX_JSON_CHARS, read_json
from .notation import format_action
from .records import GameRecord, MatchRecord
from .values import (
    Context,
    check_keys,
    decode_action,
    decode_rules,
    encode_rules,
    fail,
    object_codec,
)

__all__ = [
    "FORMAT",
    "KINDS",
    "MAX_DEPTH",
    "MAX_JSON_CHARS",
    "from_data",
    "from_json",
    "to_data",
    "to_json",
]

FORMAT: Final = 1
"""The version of the format written; readers accept exactly this version (``docs/formats.md``)."""


def _kinds() -> dict[str, type]:
    return {
        "state": GameState,
        "view": PlayerView,
        "score": TeamScore,
        "record": GameRecord,
        "match": Match,
        "match-record": MatchRecord,
    }


KINDS: Final = ("state", "view", "action", "rules", "score", "record", "match", "match-record")
"""The ``"type"`` of each kind of document."""
_HEADER: Final = frozenset({"format", "type"})
_T = TypeVar("_T")
_TYPE_OF: Final = {cls: kind for kind, cls in _kinds().items()}
_ACTION_TYPES: Final = (
    DrawFromStock,
    TakeDiscardPile,
    NewMeld,
    AddToMeld,
    Discard,
    RefuseFirstDraw,
)


def to_data(obj: object) -> dict[str, Any]:
    """``obj`` as a JSON-ready dict (of dicts, lists, strings, integers, booleans and None): a
    state, view, action, rule set, team score, match, or game or match record. Anything else is
    a ``TypeError``.

    >>> import buraco_rules as br
    >>> to_data(br.Discard("KC"))
    {'format': 1, 'type': 'action', 'action': 'discard KC'}
    """
    header: dict[str, Any] = {"format": FORMAT}
    if issubclass(type(obj), _ACTION_TYPES):  # by type: an instance's __class__ may lie or raise
        try:
            return header | {"type": "action", "action": format_action(obj)}  # type: ignore[arg-type]
        except NotationError as error:
            raise TypeError(str(error)) from None
    if issubclass(type(obj), RuleSet):
        return header | {"type": "rules", "rules": encode_rules(obj)}  # type: ignore[arg-type]
    kind = _TYPE_OF.get(type(obj))
    if kind is None:
        raise TypeError(f"no JSON format for {kind_of(obj)}")
    try:
        body: dict[str, Any] = object_codec(type(obj))[0](obj)
    except (ValueError, TypeError, LookupError, AttributeError) as error:
        # Only a value forged past its constructor (a hand holding 99) gets here.
        raise TypeError(f"this {type(obj).__name__} holds what has no format: {error}") from None
    return header | {"type": kind} | body


def to_json(obj: object) -> str:
    """``obj`` as a compact JSON document (see :func:`to_data`); equal values give equal text."""
    return json.dumps(to_data(obj), ensure_ascii=False, separators=(",", ":"))


@typing.overload
def from_data(data: object) -> Any: ...
@typing.overload
def from_data(data: object, *, expected: type[_T]) -> _T: ...
def from_data(data: object, *, expected: type[Any] | None = None) -> Any:
    """The value that the dict ``data`` (as :func:`to_data` makes it) describes; anything else is
    a :class:`DecodeError`. With ``expected`` (a class such as ``GameRecord``, or ``Action``),
    a value of another class is a :class:`DecodeError` too, and the type checker knows the
    value's class. An ``expected`` that is not a class is a ``TypeError``."""
    if expected is not None and not isinstance(expected, type | types.UnionType):
        raise TypeError(f"expected must be a class, not {type(expected).__name__}")
    value = _from_data(data)
    if expected is not None and not isinstance(value, expected):
        kind = _document_kind(value)
        article = "an" if kind[0] in "aeiou" else "a"
        name = getattr(expected, "__name__", None) or str(expected)
        raise DecodeError(f"{article} {kind} document where a {name} was expected")
    return value


def _document_kind(value: object) -> str:
    if isinstance(value, _ACTION_TYPES):
        return "action"
    return "rules" if isinstance(value, RuleSet) else _TYPE_OF.get(type(value), "?")


def _from_data(data: object) -> Any:
    if type(data) is not dict:
        raise fail("a JSON object with a 'format' and a 'type'", data)
    check_keys(data)
    for key in ("format", "type"):
        if key not in data:
            raise DecodeError(f"the key {key!r} is missing: a document starts with format and type")
    version = data.get("format")
    # The type first: only then is the comparison the int's own (not a hostile object's).
    if type(version) is not int or version != FORMAT:
        raise DecodeError(
            f"format {describe_json(version)} is not supported; this library reads {FORMAT}"
        )
    kind = data.get("type")
    if type(kind) is not str:
        raise DecodeError(
            f"a document's type is a string such as 'state', not {describe_json(kind)}"
        )
    ctx = Context()
    if kind == "action" or kind == "rules":
        if data.keys() != {"format", "type", kind}:
            raise DecodeError(f"a {kind} document has exactly the keys format, type and {kind}")
        try:
            if kind == "action":
                return decode_action(data["action"], ctx)
            return decode_rules(data["rules"], ctx)
        except DecodeError as error:
            raise DecodeError(f"{kind}: {error}") from None
    cls = _kinds().get(kind)
    if cls is None:
        raise DecodeError(
            f"unknown document type {describe_json(kind)}; expected one of {', '.join(KINDS)}"
        )
    body = {key: value for key, value in data.items() if key not in _HEADER}
    return object_codec(cls)[1](body, ctx)


@typing.overload
def from_json(text: str | bytes) -> Any: ...
@typing.overload
def from_json(text: str | bytes, *, expected: type[_T]) -> _T: ...
def from_json(text: str | bytes, *, expected: type[Any] | None = None) -> Any:
    """The value a JSON document (as :func:`to_json` writes it) describes; anything else is a
    :class:`DecodeError`, raised quickly (see :data:`MAX_JSON_CHARS`, :data:`MAX_DEPTH`). With
    ``expected``, as for :func:`from_data`: ``from_json(text, expected=GameRecord)`` is typed
    ``GameRecord``, and a document of anything else is a :class:`DecodeError`."""
    data = read_json(text)
    return from_data(data) if expected is None else from_data(data, expected=expected)

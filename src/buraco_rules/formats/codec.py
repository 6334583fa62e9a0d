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

import enum
import json
import math
import re
import sys
import types
import typing
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

import attrs

from .. import variants
from ..actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from ..cards import DECK, Card, all_cards
from ..determinize import canonical_state
from ..errors import InvalidState
from ..limits import MAX_HAND_ACTIONS, MAX_MATCH_ACTIONS, MAX_MATCH_HANDS
from ..match import MAX_SEED, History, Match, check_match
from ..melds import Meld, classify
from ..quoting import describe_json, kind_of, quote_text
from ..rules import RuleSet
from ..scoring import TeamScore
from ..state import GameState
from ..validate import validate
from ..views import PlayerView
from .errors import DecodeError, NotationError
from .notation import format_action, parse_action
from .records import GameRecord, MatchRecord

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
(:mod:`buraco_rules.limits`): the record of the longest match, :data:`MAX_MATCH_HANDS` hands of
:data:`MAX_HAND_ACTIONS` actions, fits, and so does every document of a legal value."""
MAX_DEPTH: Final = 32
"""Documents nested deeper are refused before they are parsed (the formats nest 6 deep)."""
_MAX_INT: Final = MAX_SEED
"""Integers are refused beyond ± this (a match's seed is the largest number in a document)."""
_MAX_CARDS: Final = len(DECK)
_MAX_ITEMS: Final = MAX_MATCH_ACTIONS
"""No list of a document is longer: the longest is a match record's actions
(:data:`buraco_rules.limits.MAX_MATCH_ACTIONS`)."""

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any, "_Context"], Any]


class _Context:
    """What decoding one document has learnt so far that later fields need: the rule set melds
    are classified under."""

    __slots__ = ("rules",)

    def __init__(self) -> None:
        self.rules: RuleSet | None = None


def _fail(what: str, value: object) -> DecodeError:
    return DecodeError(f"expected {what}, not {describe_json(value)}")


# --- scalars --------------------------------------------------------------------------------------

_CARD_TEXT: Final = tuple(str(c) for c in all_cards())
_CARD_BY_TEXT: Final = {text: card for text, card in zip(_CARD_TEXT, all_cards(), strict=True)}


def _identity(value: Any) -> Any:
    return value


def _decode_int(value: Any, ctx: _Context) -> int:
    if type(value) is not int or not -_MAX_INT <= value <= _MAX_INT:
        raise _fail("an integer", value)
    return value


def _decode_bool(value: Any, ctx: _Context) -> bool:
    if type(value) is not bool:
        raise _fail("true or false", value)
    return value


def _decode_str(value: Any, ctx: _Context) -> str:
    if type(value) is not str:
        raise _fail("a string", value)
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, such as JSON's "\ud800" gives
            raise DecodeError(
                f"{quote_text(value)} is not Unicode text (a lone surrogate)"
            ) from None
    return value


def _decode_float(value: Any, ctx: _Context) -> float:
    if type(value) is int and -_MAX_INT <= value <= _MAX_INT:
        return float(value)  # a huge int would overflow a float
    if type(value) is not float or not math.isfinite(value):
        raise _fail("a number", value)
    return value


def _encode_card(card: Card) -> str:
    return _CARD_TEXT[card]


def _decode_card(value: Any, ctx: _Context) -> Card:
    card = _CARD_BY_TEXT.get(value) if type(value) is str else None
    if card is None:
        raise _fail("a card such as '10H' or 'JK'", value)
    return card


def _encode_cards(cards: tuple[Card, ...]) -> str:
    return " ".join(map(_CARD_TEXT.__getitem__, cards))


def _decode_cards(value: Any, ctx: _Context) -> tuple[Card, ...]:
    if type(value) is not str:
        raise _fail("cards as one string such as '5S 6S JK'", value)
    if not value:
        return ()
    if len(value) > 4 * _MAX_CARDS:
        raise DecodeError(f"{quote_text(value)} holds more cards than the deck ({_MAX_CARDS})")
    try:
        return tuple(map(_CARD_BY_TEXT.__getitem__, value.split(" ")))
    except KeyError as error:
        raise DecodeError(
            f"{quote_text(error.args[0])} in {quote_text(value)} is not a card (cards are written "
            "like '10H' or 'JK', one space apart)"
        ) from None


def _encode_meld(meld: Meld) -> str:
    return _encode_cards(meld.cards)


def _decode_meld(value: Any, ctx: _Context) -> Meld:
    cards = _decode_cards(value, ctx)
    if ctx.rules is None:
        raise DecodeError("a meld needs the rule set, which comes first")
    meld = classify(tuple(sorted(cards)), ctx.rules)
    if meld is None:
        raise DecodeError(f"{quote_text(value)} is not a meld under {ctx.rules.title} (R5-R8)")
    return meld


def _encode_action(action: Action) -> str:
    return format_action(action)


def _decode_action(value: Any, ctx: _Context) -> Action:
    if type(value) is not str:
        raise _fail("an action in notation such as 'discard KC'", value)
    try:
        return parse_action(value)
    except NotationError as error:
        raise DecodeError(str(error)) from None


def _enum_codec(cls: type[enum.Enum]) -> tuple[Encoder, Decoder]:
    by_value = {member.value: member for member in cls}
    choices = ", ".join(repr(v) for v in by_value)

    def decode(value: Any, ctx: _Context) -> enum.Enum:
        member = by_value.get(value) if type(value) in (str, int) else None
        if member is None:
            raise _fail(f"one of {choices}", value)
        return member

    return (lambda member: member.value), decode


# --- rule sets ------------------------------------------------------------------------------------


def _encode_rules(rules: RuleSet) -> Any:
    return rules.name if rules.is_preset else _object_codec(RuleSet)[0](rules)


def _decode_rules(value: Any, ctx: _Context) -> RuleSet:
    if type(value) is str:
        if value not in variants.NAMES:
            raise DecodeError(
                f"unknown rule set {quote_text(value)}; the presets are {', '.join(variants.NAMES)}"
            )
        rules = variants.get(value)
    else:
        rules = _object_codec(RuleSet)[1](value, ctx)
        if rules.is_preset:
            rules = variants.get(rules.name)  # the very preset object, as variants.get gives it
    ctx.rules = rules
    return rules


# --- composite types, derived from annotations ----------------------------------------------------


def _tuple_codec(item: tuple[Encoder, Decoder], size: int | None) -> tuple[Encoder, Decoder]:
    encode_item, decode_item = item
    what = "a list" if size is None else f"a list of {size}"

    def encode(values: tuple[Any, ...]) -> list[Any]:
        return [encode_item(v) for v in values]

    def decode(value: Any, ctx: _Context) -> tuple[Any, ...]:
        if type(value) is not list and type(value) is not tuple:
            raise _fail(what, value)
        if size is not None and len(value) != size:
            raise _fail(what, value)
        if len(value) > _MAX_ITEMS:
            raise DecodeError(f"a list of {len(value):,} is longer than any list of the game")
        out = []
        for i, v in enumerate(value):
            try:
                out.append(decode_item(v, ctx))
            except DecodeError as error:
                raise DecodeError(f"[{i}]: {error}") from None
        return tuple(out)

    return encode, decode


def _fixed_tuple_codec(items: list[tuple[Encoder, Decoder]]) -> tuple[Encoder, Decoder]:
    size = len(items)

    def encode(values: tuple[Any, ...]) -> list[Any]:
        return [enc(v) for (enc, _), v in zip(items, values, strict=True)]

    def decode(value: Any, ctx: _Context) -> tuple[Any, ...]:
        if (type(value) is not list and type(value) is not tuple) or len(value) != size:
            raise _fail(f"a list of {size}", value)
        out = []
        for i, ((_, dec), v) in enumerate(zip(items, value, strict=True)):
            try:
                out.append(dec(v, ctx))
            except DecodeError as error:
                raise DecodeError(f"[{i}]: {error}") from None
        return tuple(out)

    return encode, decode


def _optional_codec(inner: tuple[Encoder, Decoder]) -> tuple[Encoder, Decoder]:
    encode_inner, decode_inner = inner
    return (
        lambda value: None if value is None else encode_inner(value),
        lambda value, ctx: None if value is None else decode_inner(value, ctx),
    )


def _mapping_codec(
    key: tuple[Encoder, Decoder], item: tuple[Encoder, Decoder]
) -> tuple[Encoder, Decoder]:
    def encode(values: Mapping[Any, Any]) -> dict[Any, Any]:
        return {key[0](k): item[0](v) for k, v in sorted(values.items())}

    def decode(value: Any, ctx: _Context) -> dict[Any, Any]:
        if type(value) is not dict:
            raise _fail("an object", value)
        _check_keys(value)
        return {key[1](k, ctx): item[1](v, ctx) for k, v in value.items()}

    return encode, decode


def _check_keys(value: dict[Any, Any]) -> None:
    # Before any lookup: a key of another type may compare or hash as its maker likes.
    for key in value:
        if type(key) is not str:
            raise DecodeError(f"an object's keys are strings, not {describe_json(key)}")


_SCALARS: Final[dict[object, tuple[Encoder, Decoder]]] = {
    int: (_identity, _decode_int),
    bool: (_identity, _decode_bool),
    str: (_identity, _decode_str),
    float: (_identity, _decode_float),
    Card: (_encode_card, _decode_card),
    Meld: (_encode_meld, _decode_meld),
    RuleSet: (_encode_rules, _decode_rules),
}


def _codec_for(tp: Any) -> tuple[Encoder, Decoder]:
    """The encoder and decoder of values annotated ``tp``."""
    if tp == Action:
        return _encode_action, _decode_action
    if tp in _SCALARS:
        return _SCALARS[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is History:  # written and read as a list, like a tuple
        return _tuple_codec(_codec_for(args[0]), None)
    if origin is tuple:
        if args == (Card, ...):
            return _encode_cards, _decode_cards
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple_codec(_codec_for(args[0]), None)
        return _fixed_tuple_codec([_codec_for(a) for a in args])
    if origin in (types.UnionType, typing.Union):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _optional_codec(_codec_for(rest[0]))
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        return _mapping_codec(_codec_for(args[0]), _codec_for(args[1]))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_codec(tp)
    if isinstance(tp, type) and attrs.has(tp):
        return _object_codec(tp)
    raise TypeError(f"the JSON codec has no encoding for {tp!r}")


_OBJECT_CODECS: dict[type, tuple[Encoder, Decoder]] = {}
_CHECKS: dict[type, Callable[[Any], None]] = {}
"""Consistency checks run on each decoded object of a class (filled in below)."""


def _field_types(cls: type) -> list[tuple[Any, Any]]:
    """Each init field of the attrs class ``cls`` and its type, read from its annotations: the
    one list of a class's fields is the class itself. (The compiled build would erase them, so
    the classes the codec reads stay pure: pyproject.toml's mypyc list, which a test checks.)"""
    namespace = vars(sys.modules[cls.__module__])
    return [
        (f, eval(f.type, namespace) if isinstance(f.type, str) else f.type)
        for f in attrs.fields(cls)
        if f.init
    ]


def _object_codec(cls: type) -> tuple[Encoder, Decoder]:
    """The codec of an attrs class: an object of its init fields, in declared order, decoded
    with the rule set first (melds need it)."""
    cached = _OBJECT_CODECS.get(cls)
    if cached is not None:
        return cached
    fields: list[tuple[str, str, Encoder, Decoder, bool]] = []
    for field, tp in _field_types(cls):
        encode_field, decode_field = _codec_for(tp)
        required = field.default is attrs.NOTHING
        fields.append((field.name, field.alias, encode_field, decode_field, required))
    order = sorted(fields, key=lambda f: f[3] is not _decode_rules)  # the rule set first
    known = {f[0] for f in fields}
    name = cls.__name__

    def encode(obj: Any) -> dict[str, Any]:
        return {key: enc(getattr(obj, key)) for key, _, enc, _, _ in fields}

    def decode(value: Any, ctx: _Context) -> Any:
        if type(value) is not dict:
            raise _fail(f"an object ({name})", value)
        _check_keys(value)
        unknown = value.keys() - known
        if unknown:
            raise DecodeError(f"{name} has no field {quote_text(min(unknown, key=str))}")
        kwargs = {}
        for key, alias, _, dec, required in order:
            if key in value:
                try:
                    kwargs[alias] = dec(value[key], ctx)
                except DecodeError as error:
                    raise DecodeError(f"{key}: {error}") from None
            elif required:
                raise DecodeError(f"{name} needs the field {key!r}, which is missing")
        try:
            obj = cls(**kwargs)
        except (ValueError, TypeError) as error:
            raise DecodeError(f"not a valid {name}: {error}") from None
        check = _CHECKS.get(cls)
        if check is not None:
            check(obj)
        return obj

    codec = (encode, decode)
    _OBJECT_CODECS[cls] = codec
    return codec


# --- consistency of decoded values ----------------------------------------------------------------


def _check_state(state: GameState) -> None:
    try:
        validate(state)
    except InvalidState as error:
        raise DecodeError(f"not a consistent state: {error}") from None


def _check_view(seen: PlayerView) -> None:
    # A view is consistent when it is the view of a consistent state: canonical_state checks its
    # shape and counts, deals the unseen cards in a fixed order, validates that state and checks
    # that it shows exactly this view (its message says "no game shows this view").
    try:
        canonical_state(seen)
    except ValueError as error:
        raise DecodeError(str(error)) from None


def _check_match(match: Match) -> None:
    # Each state was checked as it was decoded, and the match's own cheap checks passed as it
    # was built; match.check_match asks the rest (its hands make one match, R20).
    try:
        check_match(match)
    except ValueError as error:
        raise DecodeError(str(error)) from None


_CHECKS[GameState] = _check_state
_CHECKS[PlayerView] = _check_view
_CHECKS[Match] = _check_match


# --- documents ------------------------------------------------------------------------------------


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
_ACTION_TYPES: Final = (DrawFromStock, TakeDiscardPile, NewMeld, AddToMeld, Discard)


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
        return header | {"type": "rules", "rules": _encode_rules(obj)}  # type: ignore[arg-type]
    kind = _TYPE_OF.get(type(obj))
    if kind is None:
        raise TypeError(f"no JSON format for {kind_of(obj)}")
    try:
        body: dict[str, Any] = _object_codec(type(obj))[0](obj)
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
        raise _fail("a JSON object with a 'format' and a 'type'", data)
    _check_keys(data)
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
    ctx = _Context()
    if kind == "action" or kind == "rules":
        if data.keys() != {"format", "type", kind}:
            raise DecodeError(f"a {kind} document has exactly the keys format, type and {kind}")
        try:
            if kind == "action":
                return _decode_action(data["action"], ctx)
            return _decode_rules(data["rules"], ctx)
        except DecodeError as error:
            raise DecodeError(f"{kind}: {error}") from None
    cls = _kinds().get(kind)
    if cls is None:
        raise DecodeError(
            f"unknown document type {describe_json(kind)}; expected one of {', '.join(KINDS)}"
        )
    body = {key: value for key, value in data.items() if key not in _HEADER}
    return _object_codec(cls)[1](body, ctx)


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


@typing.overload
def from_json(text: str | bytes) -> Any: ...
@typing.overload
def from_json(text: str | bytes, *, expected: type[_T]) -> _T: ...
def from_json(text: str | bytes, *, expected: type[Any] | None = None) -> Any:
    """The value a JSON document (as :func:`to_json` writes it) describes; anything else is a
    :class:`DecodeError`, raised quickly (see :data:`MAX_JSON_CHARS`, :data:`MAX_DEPTH`). With
    ``expected``, as for :func:`from_data`: ``from_json(text, expected=GameRecord)`` is typed
    ``GameRecord``, and a document of anything else is a :class:`DecodeError`."""
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
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except DecodeError:
        raise
    except (ValueError, RecursionError) as error:
        raise DecodeError(f"not a JSON document ({error}): {quote_text(text)}") from None
    return from_data(data) if expected is None else from_data(data, expected=expected)

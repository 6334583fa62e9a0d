"""The JSON encoding of values: every value of the library as JSON data and back, each class by
its schema (:mod:`buraco_rules.formats.schema`), each field by its type.

Cards are written in card notation, a list of cards as one string (``"5S 6S JK"``), a meld as its
cards in layout order, an action as its notation, a preset rule set by its name and a customised
one in full; the records' codecs are derived from their attrs fields. Decoding refuses, with a
:class:`~buraco_rules.formats.errors.DecodeError` quoting boundedly, any value of the wrong type,
a number beyond ±2**256, a list longer than any of the game, a key that is not a string or not a
field, and a decoded object that its core check refuses (:mod:`buraco_rules.formats.consistency`).

>>> from buraco_rules import new_game, score, variants
>>> from buraco_rules.engine.scoring import TeamScore
>>> encode, decode = object_codec(TeamScore)
>>> mine, _ = score(new_game(variants.ITALIAN, 2, seed=1))
>>> encode(mine)["hands"], decode(encode(mine), Context()) == mine
(80, True)
"""

from __future__ import annotations

import enum
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

from .. import variants
from ..core.actions import Action
from ..core.cards import DECK, Card, all_cards
from ..core.limits import MAX_MATCH_ACTIONS
from ..core.quoting import describe_json, quote_text
from ..core.rules import RuleSet
from ..melds.meld import Meld, classify
from ..play.match import MAX_SEED, History
from .consistency import CHECKS
from .errors import DecodeError, NotationError
from .notation import format_action, parse_action
from .schema import schema_of

__all__ = [
    "Context",
    "Decoder",
    "Encoder",
    "check_keys",
    "codec_for",
    "decode_action",
    "decode_rules",
    "encode_rules",
    "fail",
    "object_codec",
]

_MAX_INT: Final = MAX_SEED
"""Integers are refused beyond ± this (a match's seed is the largest number in a document)."""
_MAX_CARDS: Final = len(DECK)
_MAX_ITEMS: Final = MAX_MATCH_ACTIONS
"""No list of a document is longer: the longest is a match record's actions
(:data:`buraco_rules.core.limits.MAX_MATCH_ACTIONS`)."""

Encoder = Callable[[Any], Any]
"""A value's encoder: the value to its JSON data."""
Decoder = Callable[[Any, "Context"], Any]
"""A value's decoder: JSON data (and the document's :class:`Context`) to the value, or a
``DecodeError``."""


class Context:
    """What decoding one document has learnt so far that later fields need: the rule set melds
    are classified under."""

    __slots__ = ("rules",)

    def __init__(self) -> None:
        self.rules: RuleSet | None = None


def fail(what: str, value: object) -> DecodeError:
    """The refusal of ``value`` where ``what`` was expected, quoting it boundedly."""
    return DecodeError(f"expected {what}, not {describe_json(value)}")


# --- scalars --------------------------------------------------------------------------------------

_CARD_TEXT: Final = tuple(str(c) for c in all_cards())
_CARD_BY_TEXT: Final = {text: card for text, card in zip(_CARD_TEXT, all_cards(), strict=True)}


def _identity(value: Any) -> Any:
    return value


def _decode_int(value: Any, ctx: Context) -> int:
    if type(value) is not int or not -_MAX_INT <= value <= _MAX_INT:
        raise fail("an integer", value)
    return value


def _decode_bool(value: Any, ctx: Context) -> bool:
    if type(value) is not bool:
        raise fail("true or false", value)
    return value


def _decode_str(value: Any, ctx: Context) -> str:
    if type(value) is not str:
        raise fail("a string", value)
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, such as JSON's "\ud800" gives
            raise DecodeError(
                f"{quote_text(value)} is not Unicode text (a lone surrogate)"
            ) from None
    return value


def _decode_float(value: Any, ctx: Context) -> float:
    if type(value) is int and -_MAX_INT <= value <= _MAX_INT:
        return float(value)  # a huge int would overflow a float
    if type(value) is not float or not math.isfinite(value):
        raise fail("a number", value)
    return value


def _encode_card(card: Card) -> str:
    return _CARD_TEXT[card]


def _decode_card(value: Any, ctx: Context) -> Card:
    card = _CARD_BY_TEXT.get(value) if type(value) is str else None
    if card is None:
        raise fail("a card such as '10H' or 'JK'", value)
    return card


def _encode_cards(cards: tuple[Card, ...]) -> str:
    return " ".join(map(_CARD_TEXT.__getitem__, cards))


def _decode_cards(value: Any, ctx: Context) -> tuple[Card, ...]:
    if type(value) is not str:
        raise fail("cards as one string such as '5S 6S JK'", value)
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


def _decode_meld(value: Any, ctx: Context) -> Meld:
    cards = _decode_cards(value, ctx)
    if ctx.rules is None:
        raise DecodeError("a meld needs the rule set, which comes first")
    meld = classify(tuple(sorted(cards)), ctx.rules)
    if meld is None:
        raise DecodeError(f"{quote_text(value)} is not a meld under {ctx.rules.title} (R5-R8)")
    return meld


def _encode_action(action: Action) -> str:
    return format_action(action)


def decode_action(value: Any, ctx: Context) -> Action:
    """The action written ``value`` in the action notation."""
    if type(value) is not str:
        raise fail("an action in notation such as 'discard KC'", value)
    try:
        return parse_action(value)
    except NotationError as error:
        raise DecodeError(str(error)) from None


def _enum_codec(cls: type[enum.Enum]) -> tuple[Encoder, Decoder]:
    by_value = {member.value: member for member in cls}
    choices = ", ".join(repr(v) for v in by_value)

    def decode(value: Any, ctx: Context) -> enum.Enum:
        member = by_value.get(value) if type(value) in (str, int) else None
        if member is None:
            raise fail(f"one of {choices}", value)
        return member

    return (lambda member: member.value), decode


# --- rule sets ------------------------------------------------------------------------------------


def encode_rules(rules: RuleSet) -> Any:
    """A preset rule set by its name, a customised one as an object of its fields."""
    return rules.name if rules.is_preset else object_codec(RuleSet)[0](rules)


def decode_rules(value: Any, ctx: Context) -> RuleSet:
    """The rule set ``value`` names or spells out (a preset is the very preset object); kept in
    ``ctx`` for the melds that follow."""
    if type(value) is str:
        if value not in variants.NAMES:
            raise DecodeError(
                f"unknown rule set {quote_text(value)}; the presets are {', '.join(variants.NAMES)}"
            )
        rules = variants.get(value)
    else:
        rules = object_codec(RuleSet)[1](value, ctx)
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

    def decode(value: Any, ctx: Context) -> tuple[Any, ...]:
        if type(value) is not list and type(value) is not tuple:
            raise fail(what, value)
        if size is not None and len(value) != size:
            raise fail(what, value)
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

    def decode(value: Any, ctx: Context) -> tuple[Any, ...]:
        if (type(value) is not list and type(value) is not tuple) or len(value) != size:
            raise fail(f"a list of {size}", value)
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

    def decode(value: Any, ctx: Context) -> dict[Any, Any]:
        if type(value) is not dict:
            raise fail("an object", value)
        check_keys(value)
        return {key[1](k, ctx): item[1](v, ctx) for k, v in value.items()}

    return encode, decode


def check_keys(value: dict[Any, Any]) -> None:
    """Refuse an object with a key that is not a string."""
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
    RuleSet: (encode_rules, decode_rules),
}


def codec_for(tp: Any) -> tuple[Encoder, Decoder]:
    """The encoder and decoder of values annotated ``tp``."""
    if tp == Action:
        return _encode_action, decode_action
    if tp in _SCALARS:
        return _SCALARS[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is History:  # written and read as a list, like a tuple
        return _tuple_codec(codec_for(args[0]), None)
    if origin is tuple:
        if args == (Card, ...):
            return _encode_cards, _decode_cards
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple_codec(codec_for(args[0]), None)
        return _fixed_tuple_codec([codec_for(a) for a in args])
    if origin in (types.UnionType, typing.Union):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _optional_codec(codec_for(rest[0]))
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        return _mapping_codec(codec_for(args[0]), codec_for(args[1]))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_codec(tp)
    if isinstance(tp, type) and attrs.has(tp):
        return object_codec(tp)
    raise TypeError(f"the JSON codec has no encoding for {tp!r}")


_OBJECT_CODECS: dict[type, tuple[Encoder, Decoder]] = {}
"""The codec of each attrs class met so far (built once, from its schema)."""


def object_codec(cls: type) -> tuple[Encoder, Decoder]:
    """The encoder and decoder of the attrs class ``cls``: an object of its fields
    (:func:`~buraco_rules.formats.schema.schema_of`), in declared order, decoded with the rule set
    first (melds need it), then checked by its core check
    (:data:`~buraco_rules.formats.consistency.CHECKS`)."""
    cached = _OBJECT_CODECS.get(cls)
    if cached is not None:
        return cached
    fields: list[tuple[str, str, Encoder, Decoder, bool]] = []
    for field in schema_of(cls):
        encode_field, decode_field = codec_for(field.type)
        fields.append((field.name, field.alias, encode_field, decode_field, field.required))
    order = sorted(fields, key=lambda f: f[3] is not decode_rules)  # the rule set first
    known = {f[0] for f in fields}
    name = cls.__name__

    def encode(obj: Any) -> dict[str, Any]:
        return {key: enc(getattr(obj, key)) for key, _, enc, _, _ in fields}

    def decode(value: Any, ctx: Context) -> Any:
        if type(value) is not dict:
            raise fail(f"an object ({name})", value)
        check_keys(value)
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
        check = CHECKS.get(cls)
        if check is not None:
            check(obj)
        return obj

    codec = (encode, decode)
    _OBJECT_CODECS[cls] = codec
    return codec

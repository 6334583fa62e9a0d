"""Actions: frozen value objects, each one event of a turn (R4).

Cards are normalised to id order on construction, so equality never depends on the order given.
Construction is strict: a card is a :class:`Card` or its notation (``"5S"``), cards are a string
of notations or an iterable of at most :data:`MAX_ACTION_CARDS` cards, a meld index is an ``int``
from 0 to :data:`MAX_MELD_INDEX`, and anything else is a
:class:`~buraco_rules.core.errors.MalformedAction` quoting the value. (An ``int`` is not a card: use
``Card.from_id``.) Whether the action is legal (the team has that meld, the player those cards) is
for :func:`buraco_rules.apply` to say.

``str(action)`` is the action notation (``docs/formats.md``), written by
:mod:`buraco_rules.core.action_notation`, whose reader :func:`buraco_rules.parse_action` reads it
back:

>>> NewMeld("7S 5S 6S") == NewMeld([Card("5S"), Card("6S"), Card("7S")])
True
>>> str(AddToMeld(0, "8S")), str(TakeDiscardPile(NewMeld("5S 6S 7S")))
('add 0 8S', 'take meld 5S 6S 7S')
>>> Discard(5)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
buraco_rules.core.errors.MalformedAction: Discard needs a card (...), not 5 (... use ...
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

import attrs

from .action_notation import (
    write_add,
    write_discard,
    write_draw,
    write_meld,
    write_refuse,
    write_take,
)
from .cards import DECK, Card, is_card, parse_cards
from .errors import MalformedAction
from .quoting import QUOTE_CHARS, describe

__all__ = [
    "MAX_ACTION_CARDS",
    "MAX_MELD_INDEX",
    "Action",
    "AddToMeld",
    "Discard",
    "DrawFromStock",
    "NewMeld",
    "RefuseFirstDraw",
    "TakeDiscardPile",
]

MAX_MELD_INDEX: Final = 999
"""The largest meld index an :class:`AddToMeld` takes: the notation writes an index in at most
three digits, and a team never has more than 36 melds (an index past the team's melds is
``apply``'s ``NO_SUCH_MELD``)."""
MAX_ACTION_CARDS: Final = len(DECK)
"""No action holds more cards than the deck (108), so every action has a bounded notation."""


def _card(value: object, where: str) -> Card:
    if is_card(value):
        return value
    if issubclass(type(value), str):  # by its type: an instance's __class__ may lie or raise
        try:
            return Card.parse(value)  # type: ignore[arg-type]
        except ValueError as error:
            raise MalformedAction(f"{where}: {error}") from None
    hint = ""
    if type(value) is int and 0 <= value <= 52:
        hint = f" (a card id? use Card.from_id({value}))"
    quoted = describe(value, QUOTE_CHARS)
    raise MalformedAction(
        f"{where} needs a card (a Card or notation such as '5S'), not {quoted}{hint}"
    )


def _cards(value: object, where: str) -> tuple[Card, ...]:
    if issubclass(type(value), str):
        try:
            items: tuple[object, ...] = parse_cards(value)  # type: ignore[arg-type]
        except ValueError as error:
            raise MalformedAction(f"{where}: {error}") from None
    elif issubclass(type(value), Card) or not hasattr(type(value), "__iter__"):
        raise MalformedAction(
            f"{where} needs cards (notation such as '5S 6S 7S', or a list of cards), "
            f"not {describe(value, QUOTE_CHARS)}"
        )
    else:
        try:
            items = tuple(value)  # type: ignore[arg-type]
        except Exception:
            quoted = describe(value, QUOTE_CHARS)
            raise MalformedAction(f"{where} needs cards, not {quoted}") from None
    if not items:
        quoted = describe(value, QUOTE_CHARS)
        raise MalformedAction(f"{where} needs at least one card, not {quoted}")
    if len(items) > MAX_ACTION_CARDS:
        raise MalformedAction(
            f"{where} holds {len(items):,} cards, more than the deck's {MAX_ACTION_CARDS}"
        )
    return tuple(sorted([c if is_card(c) else _card(c, where) for c in items]))


def _new_meld_cards(value: Any) -> tuple[Card, ...]:
    return _cards(value, "NewMeld")


def _add_cards(value: Any) -> tuple[Card, ...]:
    return _cards(value, "AddToMeld")


def _meld_index(value: Any) -> int:
    # True or 1.0 would equal meld index 1: only an int is an index.
    if type(value) is not int or not 0 <= value <= MAX_MELD_INDEX:
        quoted = describe(value, QUOTE_CHARS)
        raise MalformedAction(
            f"AddToMeld needs a meld index (an int from 0 to {MAX_MELD_INDEX}), not {quoted}"
        )
    return value


def _discard_card(value: Any) -> Card:
    return _card(value, "Discard")


def _take_meld(value: Any) -> NewMeld | AddToMeld | None:
    if value is None or type(value) is NewMeld or type(value) is AddToMeld:
        return value
    raise MalformedAction(
        f"TakeDiscardPile needs a NewMeld, an AddToMeld or None, not {describe(value, QUOTE_CHARS)}"
    )


@attrs.frozen(cache_hash=True)
class DrawFromStock:
    """Draw the top card of the stock (R4)."""

    __str__ = write_draw


@attrs.frozen(cache_hash=True)
class RefuseFirstDraw:
    """Refuse the card just drawn, on the hand's first turn only (R32, a house rule,
    ``RuleSet.first_draw_refusal``): it goes face up on top of the discard pile and the next
    stock card is drawn in its place, in this one action. The second card may not be refused."""

    __str__ = write_refuse


@attrs.frozen(cache_hash=True)
class NewMeld:
    """Lay down a new meld from the hand (R5)."""

    cards: tuple[Card, ...] = attrs.field(converter=_new_meld_cards)

    __str__ = write_meld


@attrs.frozen(cache_hash=True)
class AddToMeld:
    """Add cards from the hand to the team's meld number ``meld`` (an index into
    ``state.melds[team]``)."""

    meld: int = attrs.field(converter=_meld_index)
    cards: tuple[Card, ...] = attrs.field(converter=_add_cards)

    __str__ = write_add


@attrs.frozen(cache_hash=True)
class TakeDiscardPile:
    """Take the whole discard pile (R4).

    With a closed pile (Buraco Fechado, Canasta STBL) ``meld`` must use the pile's top card at once,
    in a new meld or an addition, with the other cards from the hand (R10); with an open pile
    (Italian Buraco) it must be None (R11).
    """

    meld: NewMeld | AddToMeld | None = attrs.field(default=None, converter=_take_meld)

    __str__ = write_take


@attrs.frozen(cache_hash=True)
class Discard:
    """Discard one card, which ends the turn (R4)."""

    card: Card = attrs.field(converter=_discard_card)

    __str__ = write_discard


Action: TypeAlias = (
    DrawFromStock | TakeDiscardPile | NewMeld | AddToMeld | Discard | RefuseFirstDraw
)
"""Any action."""

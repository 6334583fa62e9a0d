"""Actions: frozen value objects, each one event of a turn (R4).

Cards are normalised to id order on construction, so equality never depends on the order given.
Construction is lenient: notation strings are parsed, card ids (0-52) become their cards, and
anything else is kept, wrapped so that it equals no card; it is :func:`buraco_rules.apply` that
refuses what is not a legal action, with ``malformed-action`` for what is not a card.

``str(action)`` is the action notation (``docs/formats.md``), which
:func:`buraco_rules.parse_action` reads back:

>>> NewMeld("7S 5S 6S") == NewMeld([Card("5S"), Card("6S"), Card("7S")])
True
>>> str(AddToMeld(0, "8S")), str(TakeDiscardPile(NewMeld("5S 6S 7S")))
('add 0 8S', 'take meld 5S 6S 7S')
"""

from __future__ import annotations

from typing import Any, TypeAlias

import attrs

from .cards import Card, parse_cards

__all__ = [
    "Action",
    "AddToMeld",
    "Discard",
    "DrawFromStock",
    "NewMeld",
    "TakeDiscardPile",
]


class NotACard:
    """Stands in an action for a value that is no card (``1.0``, ``True``, ``None``...), so that
    the action equals no legal action and ``apply`` refuses it as ``malformed-action``."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def _to_index(value: Any) -> Any:
    # Like cards: True or 1.0 would equal meld index 1, so anything but an int equals nothing.
    return value if type(value) is int else NotACard(value)


def _text(cards: object) -> str:
    return " ".join(map(str, cards)) if isinstance(cards, tuple) else str(cards)


def _to_card(value: Any) -> Any:
    # A Card is an int, so a card id, or a float or bool equal to one, would compare equal to its
    # card: ids become their cards, and other values are wrapped so that they equal nothing.
    if type(value) is Card:
        return value
    if isinstance(value, str):
        return Card.parse(value)
    if type(value) is int and 0 <= value <= 52:
        return Card.from_id(value)
    return NotACard(value)


def _to_cards(value: Any) -> Any:
    if isinstance(value, str):
        return tuple(sorted(parse_cards(value)))
    try:
        items = tuple(_to_card(x) for x in value)
    except TypeError:
        return NotACard(value)  # not iterable: apply reports it
    try:
        return tuple(sorted(items))
    except TypeError:
        return items


@attrs.frozen(cache_hash=True)
class DrawFromStock:
    """Draw the top card of the stock (R4)."""

    def __str__(self) -> str:
        return "draw"


@attrs.frozen(cache_hash=True)
class NewMeld:
    """Lay down a new meld from the hand (R5)."""

    cards: tuple[Card, ...] = attrs.field(converter=_to_cards)

    def __str__(self) -> str:
        return "meld " + _text(self.cards)


@attrs.frozen(cache_hash=True)
class AddToMeld:
    """Add cards from the hand to the team's meld number ``meld`` (an index into
    ``state.melds[team]``)."""

    meld: int = attrs.field(converter=_to_index)
    cards: tuple[Card, ...] = attrs.field(converter=_to_cards)

    def __str__(self) -> str:
        return f"add {self.meld} " + _text(self.cards)


@attrs.frozen(cache_hash=True)
class TakeDiscardPile:
    """Take the whole discard pile (R4).

    With a closed pile (Buraco Fechado, Canasta STBL) ``meld`` must use the pile's top card at once,
    in a new meld or an addition, with the other cards from the hand (R10); with an open pile
    (Italian Buraco) it must be None (R11).
    """

    meld: NewMeld | AddToMeld | None = None

    def __str__(self) -> str:
        if self.meld is None:
            return "take"
        return f"take {self.meld}"


@attrs.frozen(cache_hash=True)
class Discard:
    """Discard one card, which ends the turn (R4)."""

    card: Card = attrs.field(converter=_to_card)

    def __str__(self) -> str:
        return f"discard {self.card}"


Action: TypeAlias = DrawFromStock | TakeDiscardPile | NewMeld | AddToMeld | Discard
"""Any action."""

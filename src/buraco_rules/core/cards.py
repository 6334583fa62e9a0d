"""Cards: the 53 distinct cards of a Buraco deck as interned integer singletons.

A :class:`Card` *is* its small integer id (``int`` subclass), so equality, hashing, sorting and
table look-ups cost what they cost for an ``int``. Ids are suit-major: ``suit * 13 + rank - 1``
for the 52 suited cards (clubs, diamonds, hearts, spades; ace low) and 52 for the joker. The two
jokers of a 54-card deck are one card to the rules (R2: all copies are interchangeable), so a
108-card Buraco deck holds each suited card twice and the joker four times.

>>> Card.parse("10H"), Card.parse("TH") is Card.parse("10♥")
(Card('10H'), True)
>>> str(Card.parse("a♠")), Card.parse("5S").pretty
('AS', '5♠')
>>> parse_cards("5S 6S JK")
(Card('5S'), Card('6S'), Card('JK'))
>>> Card.parse("1X")
Traceback (most recent call last):
...
ValueError: '1X' is not a card (expected a rank A 2-10 T J Q K and a suit C D H S, or JK)
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import Final, TypeGuard

from .quoting import describe

__all__ = [
    "DECK",
    "JOKER",
    "Card",
    "Rank",
    "Suit",
    "all_cards",
    "parse_cards",
]


class Suit(enum.IntEnum):
    """The four suits, in id order."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """One-letter notation: ``C``, ``D``, ``H`` or ``S``."""
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        """The suit symbol: ``♣``, ``♦``, ``♥`` or ``♠``."""
        return "♣♦♥♠"[self]


class Rank(enum.IntEnum):
    """The thirteen ranks, ace low (its value as a number is its rank)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def label(self) -> str:
        """Notation of the rank: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``."""
        return _RANK_LABELS[self - 1]


_RANK_LABELS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_JOKER_ID: Final = 52
_NUM_CARDS: Final = 53


class Card(int):
    """One of the 53 distinct cards; compare, hash and sort it like its integer id.

    Build one from notation with ``Card("10H")`` or :meth:`Card.parse`; the same object comes back
    every time. ``str(card)`` is the notation (``"10H"``, ``"JK"``), :attr:`pretty` the form for
    people (``"10♥"``, ``"Joker"``).
    """

    __slots__ = ()

    def __new__(cls, notation: str) -> Card:
        return cls.parse(notation)

    @classmethod
    def parse(cls, text: str) -> Card:
        """The card written ``text``: a rank (A, 2-10, T, J, Q, K) and a suit (letter or
        symbol), or JK."""
        if not issubclass(type(text), str):  # by its type: an instance's __class__ may lie
            raise ValueError(
                f"{describe(text)} is not a card notation (expected a string such as '10H')"
            )
        if type(text) is not str:  # a str subclass: its own strip or upper could raise or lie
            text = str.__str__(text)
        spelt = text.strip()
        # Only ASCII letters are case-folded: "5\u017f" (LONG S) upper-cases to "5S" but is no card.
        card = _BY_NOTATION.get(spelt.upper()) if _spelling(spelt) else None
        if card is None:
            raise ValueError(
                f"{describe(text)} is not a card "
                "(expected a rank A 2-10 T J Q K and a suit C D H S, or JK)"
            )
        return card

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        """The card whose id is ``card_id`` (0-52)."""
        if type(card_id) is not int or not 0 <= card_id < _NUM_CARDS:
            raise ValueError(f"{describe(card_id)} is not a card id (0-52)")
        return _CARDS[card_id]

    @property
    def id(self) -> int:
        """The card's integer id, 0-52."""
        return int(self)

    @property
    def is_joker(self) -> bool:
        """True for the joker."""
        return self == _JOKER_ID

    @property
    def is_two(self) -> bool:
        """True for a 2 of any suit (wild unless it stands in its own run's 2 position, R7)."""
        return self != _JOKER_ID and self % 13 == 1

    @property
    def is_wild(self) -> bool:
        """True for jokers and 2s, the cards that may act as wildcards (R7)."""
        return self == _JOKER_ID or self % 13 == 1

    @property
    def suit(self) -> Suit | None:
        """The suit, or None for the joker."""
        return None if self == _JOKER_ID else Suit(self // 13)

    @property
    def rank(self) -> Rank | None:
        """The rank, or None for the joker."""
        return None if self == _JOKER_ID else Rank(self % 13 + 1)

    @property
    def pretty(self) -> str:
        """The card for people: ``5♠``, ``10♥``, ``Joker``."""
        return _PRETTY[self]

    def __str__(self) -> str:
        return _NOTATION[self]

    def __repr__(self) -> str:
        return f"Card({_NOTATION[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_card_from_id, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


def is_card(value: object) -> TypeGuard[Card]:
    """``value`` is one of the 53 cards: a :class:`Card` of an id from 0 to 52 (one made by
    ``int.__new__(Card, 99)`` is none, and would index past every table of the cards)."""
    return type(value) is Card and 0 <= value < _NUM_CARDS


def _card_from_id(card_id: int) -> Card:
    return _CARDS[card_id]


def _build_cards() -> tuple[Card, ...]:
    return tuple(int.__new__(Card, i) for i in range(_NUM_CARDS))


_CARDS: Final = _build_cards()
JOKER: Final = _CARDS[_JOKER_ID]
"""The joker."""

_NOTATION: Final = tuple([f"{_RANK_LABELS[i % 13]}{'CDHS'[i // 13]}" for i in range(52)] + ["JK"])
_PRETTY: Final = tuple([f"{_RANK_LABELS[i % 13]}{'♣♦♥♠'[i // 13]}" for i in range(52)] + ["Joker"])


def _notation_table() -> dict[str, Card]:
    table: dict[str, Card] = {}
    rank_spellings = {label: [label] for label in _RANK_LABELS}
    rank_spellings["10"].append("T")
    suit_spellings = ("C♣♧", "D♦♢", "H♥♡", "S♠♤")
    for card in _CARDS[:52]:
        for rank_text in rank_spellings[_RANK_LABELS[card % 13]]:
            for suit_text in suit_spellings[card // 13]:
                table[rank_text + suit_text] = card
    for joker_text in ("JK", "JOKER", "🃏", "★"):
        table[joker_text] = JOKER
    return table


_BY_NOTATION: Final = _notation_table()
_SYMBOLS: Final = frozenset(ch for text in _BY_NOTATION for ch in text if not ch.isascii())


def _spelling(text: str) -> bool:
    """Whether ``text`` is made of ASCII and the suit and joker symbols of the notation only."""
    return text.isascii() or all(ch.isascii() or ch in _SYMBOLS for ch in text)


def all_cards() -> tuple[Card, ...]:
    """The 53 distinct cards in id order (clubs, diamonds, hearts, spades, each A-K; then the
    joker)."""
    return _CARDS


DECK: Final = tuple(sorted(_CARDS[:52] * 2 + (JOKER,) * 4))
"""The 108-card Buraco deck (R2) in id order: two of each suited card and four jokers."""


_SPLIT = re.compile(r"[\s,]+")


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Cards from notation separated by spaces or commas (``"5S 6S JK"``), or from an iterable of
    notations, in the order given."""
    if issubclass(type(text), str) and type(text) is not str:
        text = str.__str__(text)  # a str subclass: its own methods could raise or lie
    words = [w for w in _SPLIT.split(text) if w] if type(text) is str else list(text)
    return tuple(Card.parse(w) for w in words)

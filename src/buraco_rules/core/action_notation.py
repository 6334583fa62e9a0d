"""The action notation, both ways: one short text per action. The writers are ``str(action)``
(each action class of :mod:`buraco_rules.core.actions` takes its writer as its ``__str__``), the
reader reads a text back into its :class:`Sentence`, which :func:`buraco_rules.parse_action`
makes the action; so the grammar's words are spelt here only. The module sits below the actions
(it knows the cards and the actions' field names, not the action classes), so that the actions
use it without an upward import.

The grammar (``docs/formats.md``), words separated by spaces, keywords in any case of their
ASCII letters (a look-alike such as the Kelvin sign, which lower-cases to ``k``, is refused)::

    action  = "draw" | "refuse" | "take" [ " " meld ] | meld | "discard " card
    meld    = "meld " cards | "add " index " " cards
    cards   = card { " " card }
    index   = 1 to 3 digits (the meld's position in the team's melds, from 0 to 999, as
              AddToMeld takes it)

>>> taken = read("Take add 0 9♦")
>>> taken.verb, taken.meld
('take', Sentence(verb='add', cards=(Card('9D'),), index=0, meld=None))
>>> from buraco_rules.core.actions import TakeDiscardPile, AddToMeld
>>> write_take(TakeDiscardPile(AddToMeld(taken.meld.index, taken.meld.cards)))
'take add 0 9D'
>>> read("fly 5S")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: not an action: 'fly 5S' (expected draw, take, ...)
"""

from __future__ import annotations

import re
from typing import Final, Protocol

import attrs

from .cards import Card
from .quoting import describe, quote_text

__all__ = [
    "ADD",
    "DISCARD",
    "DRAW",
    "MAX_NOTATION_CHARS",
    "MELD",
    "REFUSE",
    "TAKE",
    "Sentence",
    "read",
    "refusal",
    "write_add",
    "write_discard",
    "write_draw",
    "write_meld",
    "write_refuse",
    "write_take",
]

MAX_NOTATION_CHARS: Final = 500
"""Longer text is refused before it is read. Every action has a shorter notation: the longest,
``take add 999`` and :data:`~buraco_rules.core.actions.MAX_ACTION_CARDS` three-character cards,
takes 444 characters (a legal move takes some tens)."""
DRAW: Final = "draw"
"""The verb of :class:`~buraco_rules.core.actions.DrawFromStock`, and its whole notation."""
REFUSE: Final = "refuse"
"""The verb of :class:`~buraco_rules.core.actions.RefuseFirstDraw` (R32), and its whole notation."""
TAKE: Final = "take"
"""The verb of :class:`~buraco_rules.core.actions.TakeDiscardPile`."""
MELD: Final = "meld"
"""The verb of :class:`~buraco_rules.core.actions.NewMeld`."""
ADD: Final = "add"
"""The verb of :class:`~buraco_rules.core.actions.AddToMeld`."""
DISCARD: Final = "discard"
"""The verb of :class:`~buraco_rules.core.actions.Discard`."""

_EXPECTED: Final = (
    "expected draw, take, take meld CARDS, take add N CARDS, meld CARDS, add N CARDS, "
    "discard CARD or refuse"
)
_INDEX: Final = re.compile(r"[0-9]{1,3}")


# --- writing --------------------------------------------------------------------------------------


# Each writer is the ``__str__`` of its action class itself (``__str__ = write_meld``), so that
# ``str(action)`` costs no call more than it did; it reads the action's fields by name only.


class _Laid(Protocol):
    @property
    def cards(self) -> tuple[Card, ...]: ...


class _Added(_Laid, Protocol):
    @property
    def meld(self) -> int: ...


class _Taken(Protocol):
    @property
    def meld(self) -> object: ...


class _Discarded(Protocol):
    @property
    def card(self) -> Card: ...


def _cards(cards: object) -> str:
    # A tuple of cards as the constructors keep it; anything else only in an action forged past
    # its constructor, written as str() writes it (format_action refuses such an action).
    return " ".join(map(str, cards)) if isinstance(cards, tuple) else str(cards)


def write_draw(action: object) -> str:
    """The notation of drawing from the stock: ``draw``."""
    return DRAW


def write_refuse(action: object) -> str:
    """The notation of refusing the hand's first card drawn (R32): ``refuse``."""
    return REFUSE


def write_meld(action: _Laid) -> str:
    """The notation of a new meld of ``action.cards`` (``meld 5S 6S 7S``)."""
    return "meld " + _cards(action.cards)


def write_add(action: _Added) -> str:
    """The notation of adding ``action.cards`` to the team's meld ``action.meld`` (``add 0 8S``)."""
    return f"add {action.meld} " + _cards(action.cards)


def write_take(action: _Taken) -> str:
    """The notation of taking the discard pile: ``take``, then the notation of the meld that uses
    its top card at once, if any (``take meld 5S 6S 7S``)."""
    meld = action.meld
    return "take" if meld is None else f"take {meld}"


def write_discard(action: _Discarded) -> str:
    """The notation of discarding ``action.card`` (``discard KC``)."""
    return f"discard {action.card}"


# --- reading --------------------------------------------------------------------------------------


@attrs.frozen
class Sentence:
    """An action as the notation reads it, before it is made an action: its ``verb`` (``draw``,
    ``refuse``, ``take``, ``meld``, ``add`` or ``discard``), the ``cards`` it names in the order
    written, the meld ``index`` of an ``add``, and the ``meld`` a ``take`` lays at once (or
    None)."""

    verb: str
    """``draw``, ``refuse``, ``take``, ``meld``, ``add`` or ``discard``, lower-cased."""
    cards: tuple[Card, ...] = ()
    """The cards named, in the order written (one for a discard, none for a draw, a refusal or
    a take)."""
    index: int | None = None
    """The meld index of an ``add``; None for the other verbs."""
    meld: Sentence | None = None
    """The ``meld`` or ``add`` a ``take`` lays at once, or None."""


def refusal(text: str, why: str) -> ValueError:
    """The error refusing ``text`` as an action, quoting it boundedly, for the reason ``why``."""
    return ValueError(f"not an action: {quote_text(text)}{why}")


def read(text: object) -> Sentence:
    """The sentence written ``text`` in the action notation; text that is none is a
    ``ValueError`` quoting (a bounded part of) it, and text over :data:`MAX_NOTATION_CHARS`
    characters is refused unread."""
    if not issubclass(type(text), str):  # by type: an instance's __class__ may lie or raise
        raise ValueError(f"an action's notation is a string, not {describe(text)}")
    if type(text) is not str:  # a str subclass: its own len, split or isprintable could lie
        text = str.__str__(text)
    if len(text) > MAX_NOTATION_CHARS:
        raise refusal(text, f" is longer than {MAX_NOTATION_CHARS} characters")
    if not text.isprintable():
        raise refusal(text, " holds a control character")
    words = text.split()
    sentence = _read(words, text) if words else None
    if sentence is None:
        raise refusal(text, f" ({_EXPECTED})")
    return sentence


def _read(words: list[str], text: str) -> Sentence | None:
    head = _keyword(words[0])
    if head == DRAW:
        return Sentence(DRAW) if len(words) == 1 else None
    if head == REFUSE:
        return Sentence(REFUSE) if len(words) == 1 else None
    if head == TAKE:
        if len(words) == 1:
            return Sentence(TAKE)
        inner = _read_meld(words[1:], text)
        return None if inner is None else Sentence(TAKE, meld=inner)
    if head == DISCARD:
        return Sentence(DISCARD, (_card(words[1], text),)) if len(words) == 2 else None
    return _read_meld(words, text)


def _keyword(word: str) -> str:
    # Only ASCII letters are case-folded: "taKe" (KELVIN SIGN) is no keyword.
    return word.lower() if word.isascii() else ""


def _read_meld(words: list[str], text: str) -> Sentence | None:
    head = _keyword(words[0])
    if head == MELD and len(words) >= 2:
        return Sentence(MELD, tuple(_card(w, text) for w in words[1:]))
    if head == ADD and len(words) >= 3 and _INDEX.fullmatch(words[1]):
        return Sentence(ADD, tuple(_card(w, text) for w in words[2:]), int(words[1]))
    return None


def _card(word: str, text: str) -> Card:
    try:
        return Card.parse(word)
    except ValueError as error:
        raise refusal(text, f": {error}") from None

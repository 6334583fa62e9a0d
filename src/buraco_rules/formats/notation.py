"""The action notation: one short text per action, written by ``str(action)`` and
:func:`format_action`, read back by :func:`parse_action`.

The grammar (``docs/formats.md``), words separated by spaces, keywords in any case::

    action  = "draw" | "take" [ " " meld ] | meld | "discard " card
    meld    = "meld " cards | "add " index " " cards
    cards   = card { " " card }
    index   = 1 to 3 digits (the meld's position in the team's melds, from 0)

>>> from buraco_rules import variants, new_game
>>> parse_action("take meld 8H 9H JK")
TakeDiscardPile(meld=NewMeld(cards=(Card('8H'), Card('9H'), Card('JK'))))
>>> parse_action("add 0 9♦")
AddToMeld(meld=0, cards=(Card('9D'),))
>>> format_action(parse_action("meld 7s 5s 6s"))
'meld 5S 6S 7S'
>>> parse_action("fly 5S")
Traceback (most recent call last):
...
buraco_rules.formats.errors.NotationError: not an action: 'fly 5S' (expected draw, take, ...)
>>> parse_action("discard KH", new_game(variants.ITALIAN, 2, seed=1))
Traceback (most recent call last):
...
buraco_rules.errors.IllegalAction: draw first: from the stock or the discard pile (R4)
"""

from __future__ import annotations

import re
from typing import Final

from ..actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from ..cards import Card
from ..checks import describe, well_formed
from ..engine import why_illegal
from ..match import Match
from ..state import GameState
from ..views import PlayerView
from .errors import NotationError, quote

__all__ = ["MAX_NOTATION_CHARS", "format_action", "parse_action"]

MAX_NOTATION_CHARS: Final = 200
"""Longer text is refused before it is read: the longest action (15 cards) takes about 100."""

_EXPECTED: Final = (
    "expected draw, take, take meld CARDS, take add N CARDS, meld CARDS, add N CARDS "
    "or discard CARD"
)
_INDEX: Final = re.compile(r"[0-9]{1,3}")


def format_action(action: Action) -> str:
    """The notation of ``action`` (the same text as ``str(action)``); an object that is not a
    well-formed action is a :class:`NotationError`.

    >>> format_action(TakeDiscardPile(AddToMeld(0, "8H")))
    'take add 0 8H'
    """
    if not well_formed(action):
        raise NotationError(f"{describe(action)} is not an action, so it has no notation")
    return str(action)


def parse_action(text: str, state: GameState | PlayerView | Match | None = None) -> Action:
    """The action written ``text`` in the action notation.

    Without ``state`` this only reads the text. With one (or a match, for its hand in play), the
    action must also be legal there:
    otherwise the :class:`~buraco_rules.IllegalAction` that :func:`~buraco_rules.apply` would raise
    is raised, with the same code (given the view of the seat to act, the refusal
    :func:`~buraco_rules.why_illegal` gives that seat: what a server reading a player's move
    needs). Text that is no action is a :class:`NotationError` quoting (a
    bounded part of) it; text over :data:`MAX_NOTATION_CHARS` characters is refused unread.
    """
    action = _parse(text)
    if state is not None:
        error = why_illegal(state, action)
        if error is not None:
            raise error
    return action


def _parse(text: object) -> Action:
    if not isinstance(text, str):
        raise NotationError(f"an action's notation is a string, not {describe(text)}")
    if len(text) > MAX_NOTATION_CHARS:
        raise NotationError(
            f"not an action: {quote(text)} is longer than {MAX_NOTATION_CHARS} characters"
        )
    if not text.isprintable():
        raise NotationError(f"not an action: {quote(text)} holds a control character")
    words = text.split()
    action = _read(words, text) if words else None
    if action is None:
        raise NotationError(f"not an action: {quote(text)} ({_EXPECTED})")
    return action


def _read(words: list[str], text: str) -> Action | None:
    head = words[0].lower()
    if head == "draw":
        return DrawFromStock() if len(words) == 1 else None
    if head == "take":
        if len(words) == 1:
            return TakeDiscardPile()
        inner = _read_meld(words[1:], text)
        return None if inner is None else TakeDiscardPile(inner)
    if head == "discard":
        return Discard(_card(words[1], text)) if len(words) == 2 else None
    return _read_meld(words, text)


def _read_meld(words: list[str], text: str) -> NewMeld | AddToMeld | None:
    head = words[0].lower()
    if head == "meld" and len(words) >= 2:
        return NewMeld(tuple(_card(w, text) for w in words[1:]))
    if head == "add" and len(words) >= 3 and _INDEX.fullmatch(words[1]):
        return AddToMeld(int(words[1]), tuple(_card(w, text) for w in words[2:]))
    return None


def _card(word: str, text: str) -> Card:
    try:
        return Card.parse(word)
    except ValueError as error:
        raise NotationError(f"not an action: {quote(text)}: {error}") from None

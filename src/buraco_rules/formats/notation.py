"""The action notation: one short text per action, written by ``str(action)`` and
:func:`format_action`, read back by :func:`parse_action`.

The grammar (``docs/formats.md``), words separated by spaces, keywords in any case of their
ASCII letters (a look-alike such as the Kelvin sign, which lower-cases to ``k``, is refused)::

    action  = "draw" | "take" [ " " meld ] | meld | "discard " card
    meld    = "meld " cards | "add " index " " cards
    cards   = card { " " card }
    index   = 1 to 3 digits (the meld's position in the team's melds, from 0 to 999, as
              AddToMeld takes it)

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

from ..actions import (
    MAX_ACTION_CARDS,
    MAX_MELD_INDEX,
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    TakeDiscardPile,
)
from ..cards import Card
from ..checks import well_formed
from ..engine import why_illegal
from ..errors import MalformedAction
from ..match import Match
from ..quoting import describe, quote_text
from ..state import GameState
from ..views import PlayerView
from .errors import NotationError

__all__ = ["MAX_NOTATION_CHARS", "format_action", "parse_action"]

MAX_NOTATION_CHARS: Final = 500
"""Longer text is refused before it is read. Every action has a shorter notation: the longest,
``take add 999`` and :data:`~buraco_rules.actions.MAX_ACTION_CARDS` three-character cards,
takes 444 characters (a legal move takes some tens)."""

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
    if not well_formed(action) or not _writable(action):
        raise NotationError(f"{describe(action)} is not an action, so it has no notation")
    return str(action)


def _writable(action: Action) -> bool:
    # Only an action forged past its constructor (an index of -1) fails these: its text
    # would be refused by parse_action (or, for a huge int, could not even be written).
    if type(action) is TakeDiscardPile:
        return action.meld is None or _writable(action.meld)
    if type(action) is AddToMeld:
        index: int = action.meld
        return 0 <= index <= MAX_MELD_INDEX and len(action.cards) <= MAX_ACTION_CARDS
    if type(action) is NewMeld:
        return len(action.cards) <= MAX_ACTION_CARDS
    return True


def parse_action(
    text: str,
    state: GameState | PlayerView | Match | None = None,
    *,
    player: object = None,
) -> Action:
    """The action written ``text`` in the action notation.

    Without ``state`` this only reads the text. With one (or a match, for its hand in play), the
    action must also be legal there:
    otherwise the :class:`~buraco_rules.IllegalAction` that :func:`~buraco_rules.apply` would raise
    is raised, with the same code (given the view of the seat to act, the refusal
    :func:`~buraco_rules.why_illegal` gives that seat: what a server reading a player's move
    needs). With ``player``, the seat that sent the text, the move is checked for that seat: a
    seat that is not to act is refused ``NOT_YOUR_TURN``, and never told why the move would be
    illegal for the seat that is (given a view, ``player`` must be the view's seat: another is a
    ``ValueError``). Text that is no action is a :class:`NotationError` quoting (a
    bounded part of) it; text over :data:`MAX_NOTATION_CHARS` characters is refused unread.
    """
    if state is None:
        return _parse(text)
    try:
        action = _parse(text)
    except NotationError:
        # The raise puts this frame in the error's traceback: it must not hold the state.
        del state
        raise
    error = why_illegal(state, action, player)  # a fresh exception, without a traceback
    if error is None:
        return action
    del state  # the raise puts this frame in the error's traceback: it must not hold the state
    raise error


def _parse(text: object) -> Action:
    if not issubclass(type(text), str):  # by type: an instance's __class__ may lie or raise
        raise NotationError(f"an action's notation is a string, not {describe(text)}")
    if type(text) is not str:  # a str subclass: its own len, split or isprintable could lie
        text = str.__str__(text)
    if len(text) > MAX_NOTATION_CHARS:
        raise NotationError(
            f"not an action: {quote_text(text)} is longer than {MAX_NOTATION_CHARS} characters"
        )
    if not text.isprintable():
        raise NotationError(f"not an action: {quote_text(text)} holds a control character")
    words = text.split()
    try:
        action = _read(words, text) if words else None
    except MalformedAction as error:  # more cards than an action holds
        raise NotationError(f"not an action: {quote_text(text)}: {error}") from None
    if action is None:
        raise NotationError(f"not an action: {quote_text(text)} ({_EXPECTED})")
    return action


def _read(words: list[str], text: str) -> Action | None:
    head = _keyword(words[0])
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


def _keyword(word: str) -> str:
    # Only ASCII letters are case-folded: "taKe" (KELVIN SIGN) is no keyword.
    return word.lower() if word.isascii() else ""


def _read_meld(words: list[str], text: str) -> NewMeld | AddToMeld | None:
    head = _keyword(words[0])
    if head == "meld" and len(words) >= 2:
        return NewMeld(tuple(_card(w, text) for w in words[1:]))
    if head == "add" and len(words) >= 3 and _INDEX.fullmatch(words[1]):
        return AddToMeld(int(words[1]), tuple(_card(w, text) for w in words[2:]))
    return None


def _card(word: str, text: str) -> Card:
    try:
        return Card.parse(word)
    except ValueError as error:
        raise NotationError(f"not an action: {quote_text(text)}: {error}") from None

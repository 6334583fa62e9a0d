"""The action notation: one short text per action, written by ``str(action)`` and
:func:`format_action`, read back by :func:`parse_action`. Its grammar, both ways, is
:mod:`buraco_rules.core.action_notation` (below the actions, so that ``str(action)`` calls it); this
module makes the actions it reads, checks them where a state is given, and raises the
format's error, :class:`~buraco_rules.formats.errors.NotationError`. The grammar is written
out in ``docs/formats.md`` and in :mod:`buraco_rules.core.action_notation`.

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
buraco_rules.core.errors.IllegalAction: draw first: from the stock or the discard pile (R4)
"""

from __future__ import annotations

from ..core.action_notation import (
    ADD,
    DISCARD,
    DRAW,
    MAX_NOTATION_CHARS,
    REFUSE,
    TAKE,
    Sentence,
    read,
    refusal,
)
from ..core.actions import (
    MAX_ACTION_CARDS,
    MAX_MELD_INDEX,
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from ..core.errors import MalformedAction
from ..core.quoting import describe
from ..engine.checks import well_formed
from ..engine.state import GameState
from ..hidden.views import PlayerView
from ..play.face import why_illegal
from ..play.match import Match
from .errors import NotationError

__all__ = ["MAX_NOTATION_CHARS", "format_action", "parse_action"]


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
    try:
        sentence = read(text)
    except ValueError as error:
        raise NotationError(str(error)) from None
    try:
        return _action(sentence)
    except MalformedAction as error:  # more cards than an action holds
        raise NotationError(str(refusal(str.__str__(text), f": {error}"))) from None


def _action(sentence: Sentence) -> Action:
    if sentence.verb == DRAW:
        return DrawFromStock()
    if sentence.verb == REFUSE:
        return RefuseFirstDraw()
    if sentence.verb == TAKE:
        return TakeDiscardPile(None if sentence.meld is None else _meld(sentence.meld))
    if sentence.verb == DISCARD:
        return Discard(sentence.cards[0])
    return _meld(sentence)


def _meld(sentence: Sentence) -> NewMeld | AddToMeld:
    if sentence.verb == ADD and sentence.index is not None:
        return AddToMeld(sentence.index, sentence.cards)
    return NewMeld(sentence.cards)

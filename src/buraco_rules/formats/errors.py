"""The exceptions of the formats: one ``ValueError`` subclass per kind of input refused."""

from __future__ import annotations

from ..core.quoting import QUOTE_CHARS as QUOTE_CHARS  # where the formats' modules found it
from ..core.quoting import quote_text

__all__ = ["DecodeError", "InvalidRecord", "NotationError", "ReplayError", "quote"]

quote = quote_text
"""``repr`` of the first :data:`QUOTE_CHARS` characters of a text (marking a cut with ``…``), so
that a message never carries an unbounded input: :func:`buraco_rules.core.quoting.quote_text`, under
the name the formats' modules have always imported."""


class NotationError(ValueError):
    """Text that is not an action in the action notation, or an object that has none.

    The message quotes (a bounded part of) the input: ``not an action: 'fly 5S' ...``.
    """


class DecodeError(ValueError):
    """A JSON document (or decoded data) that is not a valid value of this library: malformed
    JSON, a wrong type or field, or a game that is not consistent. Nothing else escapes
    :func:`~buraco_rules.from_json` and :func:`~buraco_rules.from_data`."""


class InvalidRecord(ValueError):
    """A :class:`~buraco_rules.GameRecord` built from fields that are no game: not a rule set, a
    deck that is not the 108 cards, a seat or player count the rules do not have, an object
    that is not an action, names or ``meta`` that are not strings. (Whether the actions are
    legal is :func:`~buraco_rules.replay`'s question.)"""


class ReplayError(ValueError):
    """A record that does not replay: an illegal action (its :class:`~buraco_rules.IllegalAction`
    is the ``__cause__``), or a recorded score that the game does not give.

    ``index`` is the 0-based position of the refused action in ``record.actions``, or None when
    the fault is not one action's (a wrong final score).
    """

    index: int | None

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index

    def __reduce__(self) -> tuple[object, tuple[str, int | None]]:
        return (type(self), (str(self), self.index))

"""The exceptions of the engine: :class:`IllegalAction` (the one that :func:`buraco_rules.apply`
raises) and its machine-readable codes, and the refusals of bad input elsewhere:
:class:`MalformedAction` (action constructors), :class:`InvalidState` (``validate``) and
:class:`InvalidRules` (``RuleSet`` construction)."""

from __future__ import annotations

import enum

__all__ = ["ErrorCode", "IllegalAction", "InvalidRules", "InvalidState", "MalformedAction"]


class ErrorCode(enum.StrEnum):
    """Why an action was refused. The values are stable: match on them, not on messages."""

    GAME_OVER = "game-over"
    """The hand has ended; no action applies."""
    NOT_YOUR_TURN = "not-your-turn"
    """``apply(..., player=seat)`` named a seat that is not the one to act."""
    WRONG_PHASE = "wrong-phase"
    """A draw when the player must meld or discard, or the other way round (R4)."""
    NOT_IN_HAND = "not-in-hand"
    """The action uses a card the player does not hold (or more copies than they hold)."""
    INVALID_MELD = "invalid-meld"
    """The cards do not form a run (or, in Italian Buraco, a set), or the addition breaks the meld
    (R5, R6)."""
    ACE_LOW_ONLY = "ace-low-only"
    """A run that puts an ace above the king where the ace is low only (``RuleSet.ace_low_only``,
    a house rule every preset leaves off)."""
    MINIMUM_OPENING = "minimum-opening"
    """A house rule every preset leaves off (``RuleSet.minimum_opening``, R25): the team's first
    cards on the table this turn would stay short of the minimum opening: a discard before it is
    reached, a meld after which it cannot be reached this turn, or a closed-pile take whose meld
    does not reach it."""
    TAKE_WITH_WILDCARD = "take-with-wildcard"
    """A house rule every preset leaves off (``RuleSet.closed_take_naturals_only``, R26): the meld
    that takes a closed pile would hold a joker or a wildcard 2 from the hand."""
    SET_RANK = "set-rank"
    """A house rule every preset leaves off (``RuleSet.set_ranks``, R27): a set of a rank of
    which the rules allow no sets."""
    LOCKED_WILDCARD = "locked-wildcard"
    """A house rule every preset leaves off (``RuleSet.locked_wildcards``, R29): the addition
    would move a wildcard that stands between two natural cards of a run."""
    CANNOT_REFUSE = "cannot-refuse"
    """A house rule every preset leaves off (``RuleSet.first_draw_refusal``, R32): a
    ``RefuseFirstDraw`` anywhere but right after the first player's first draw of the hand."""
    TOO_MANY_WILDCARDS = "too-many-wildcards"
    """The meld would hold more than one wildcard (R7)."""
    NO_SUCH_MELD = "no-such-meld"
    """``AddToMeld`` names a meld index the team does not have."""
    DUPLICATE_SET = "duplicate-set"
    """A second set of a rank the team already holds a set of (R5)."""
    EMPTY_STOCK = "empty-stock"
    """No card to draw. The engine ends the hand or refills the stock before that can happen
    (R15), so only a state changed by hand shows it."""
    EMPTY_DISCARD_PILE = "empty-discard-pile"
    """There is no discard pile to take."""
    MUST_USE_TOP_CARD = "must-use-top-card"
    """Taking a closed discard pile needs a meld that uses its top card and otherwise only cards
    from the hand (R10). (An open pile is taken without a meld, R11; a meld there is a
    ``malformed-action``.)"""
    CANNOT_GO_OUT = "cannot-go-out"
    """The move would empty the hand, or leave one card that cannot be discarded, while the team
    may neither take its extra pile nor end the hand (R12-R14)."""
    CANNOT_DISCARD_TAKEN_CARD = "cannot-discard-taken-card"
    """The single card just taken from the discard pile may not be discarded this turn (R11)."""
    MALFORMED_ACTION = "malformed-action"
    """The object is not an action, or holds something that is not a card or a meld index."""


class IllegalAction(ValueError):
    """An action that the rules do not allow in this state; the state is left unchanged.

    ``code`` is an :class:`ErrorCode`; ``str(error)`` is a sentence for the player.
    """

    code: ErrorCode

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[object, tuple[ErrorCode, str]]:
        return (type(self), (self.code, str(self)))


class MalformedAction(ValueError):
    """An action constructor was given something that is not a card (a :class:`Card` or its
    notation), a list of cards, a meld index (an ``int``) or a meld; the message quotes it."""


class InvalidState(ValueError):
    """A :class:`GameState` breaks an invariant (``buraco_rules.validate`` names which), or a
    step found it corrupt; or a :class:`PlayerView` is one that no valid state shows
    (``buraco_rules.determinize`` and the view forms of ``legal_actions``, ``is_legal`` and
    ``why_illegal``). States from ``new_game`` and ``apply``, and their views, never do."""


class InvalidRules(ValueError):
    """A :class:`RuleSet` field has a wrong type or value, or the fields together cannot be dealt
    or played; the message names the field and the ruling. Raised on construction, so also by
    ``attrs.evolve``."""

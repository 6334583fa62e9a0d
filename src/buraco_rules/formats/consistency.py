"""The consistency of decoded values: each decoded state, view and match is checked by the core's
own check (:func:`buraco_rules.validate`, :func:`buraco_rules.hidden.determinize.canonical_state`,
:func:`buraco_rules.play.match.check_match`), its refusal raised as the decoder's one error,
:class:`~buraco_rules.formats.errors.DecodeError`. Nothing here checks a rule of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..core.errors import InvalidState
from ..engine.state import GameState
from ..engine.validate import validate
from ..hidden.determinize import canonical_state
from ..hidden.views import PlayerView
from ..play.match import Match, check_match
from .errors import DecodeError

__all__ = ["CHECKS"]


def _check_state(state: GameState) -> None:
    try:
        validate(state)
    except InvalidState as error:
        raise DecodeError(f"not a consistent state: {error}") from None


def _check_view(seen: PlayerView) -> None:
    # A view is consistent when it is the view of a consistent state: canonical_state checks its
    # shape and counts, deals the unseen cards in a fixed order, validates that state and checks
    # that it shows exactly this view (its message says "no game shows this view").
    try:
        canonical_state(seen)
    except ValueError as error:
        raise DecodeError(str(error)) from None


def _check_match(match: Match) -> None:
    # Each state was checked as it was decoded, and the match's own cheap checks passed as it
    # was built; match.check_match asks the rest (its hands make one match, R20).
    try:
        check_match(match)
    except ValueError as error:
        raise DecodeError(str(error)) from None


CHECKS: Final[dict[type, Callable[[Any], None]]] = {
    GameState: _check_state,
    PlayerView: _check_view,
    Match: _check_match,
}
"""The check run on each decoded object of a class (its refusal a ``DecodeError``)."""

"""The face of the reducer: ``new_game``, ``legal_actions``, ``is_legal``, ``apply`` and
``why_illegal`` on a hand's :class:`GameState`, a seat's :class:`PlayerView` or a :class:`Match`.

Each dispatches on its argument's type: a state goes to :mod:`buraco_rules.engine.reducer` (which
takes states only), a view is first turned into the state it shows (``canonical_state``: legality
depends on nothing the seat cannot see), and a match goes to :mod:`buraco_rules.play.match`. Both
modules below it build on the reducer, and neither imports this one, so there is no cycle.
"""

from __future__ import annotations

from typing import NoReturn, overload

from ..core.actions import Action
from ..core.decks import check_deck
from ..core.errors import IllegalAction
from ..core.quoting import describe, kind_of
from ..engine import reducer
from ..engine.reducer import _apply_unlisted, _generated, new_game  # noqa: F401 (see _check_deck)
from ..engine.state import GameState
from ..hidden.determinize import canonical_state
from ..hidden.views import PlayerView
from .match import Match, apply_to_match

__all__ = ["apply", "is_legal", "legal_actions", "new_game", "why_illegal"]

_check_deck = check_deck
"""The private names this module had before the reducer of states moved to
:mod:`buraco_rules.engine.reducer` (``_check_deck``, ``_apply_unlisted``, ``_generated``), kept for
code that reached for them; the deck check is public now,
:func:`buraco_rules.core.decks.check_deck`."""


def legal_actions(state: GameState | PlayerView | Match) -> tuple[Action, ...]:
    """Every legal action, in the deterministic order :mod:`buraco_rules.engine.movegen` documents.

    Computed once per state and kept with it. Given the :class:`PlayerView` of the seat to act,
    the same actions as on the state (they depend on nothing the seat cannot see); given another
    seat's view, ``()``. On a :class:`~buraco_rules.Match`, the legal actions of the hand in play
    (none once the match is over).
    """
    if type(state) is not GameState:
        if type(state) is PlayerView:
            return reducer.legal_actions(canonical_state(state)) if state.is_my_turn else ()
        state = _hand_of(state)
    cached = state._legal  # kept with the state: the most frequent call answers here
    return cached[0] if cached is not None else reducer.legal_actions(state)


def _hand_of(match: object) -> GameState:
    if issubclass(type(match), Match):  # by type: an instance's __class__ may lie or raise
        return match.hand  # type: ignore[attr-defined,no-any-return]
    if issubclass(type(match), GameState):
        return match  # type: ignore[return-value]
    raise TypeError(f"expected a GameState or a Match, not {kind_of(match)}")


def is_legal(state: GameState | PlayerView | Match, action: object) -> bool:
    """Whether ``apply(state, action)`` would succeed: membership in ``legal_actions(state)``,
    which the checker decides for this one action where the list is not made yet.

    Given a :class:`PlayerView`, whether the server would accept ``action`` from that seat (always
    False for a seat that is not the one to act).
    """
    if type(state) is not GameState:
        if type(state) is PlayerView:
            if not state.is_my_turn:
                return False
            state = canonical_state(state)
        else:
            try:
                state = _hand_of(state)
            except Exception:
                return False
    return reducer.is_legal(state, action)


def why_illegal(
    state: GameState | PlayerView | Match, action: object, player: object = None
) -> IllegalAction | None:
    """The :class:`IllegalAction` that ``apply(state, action, player)`` would raise, or None.

    Given a :class:`PlayerView`, the refusal the server would send that seat for ``action``: the
    same code and message as ``why_illegal(state, action, player=view.seat)`` (refusals depend on
    nothing the seat cannot see). ``player``, if given, must then be the view's seat (an ``int``);
    anything else is a ``ValueError``.
    """
    if type(state) is PlayerView:
        # Checked by type first: a player that is no int (1.0, or an object whose comparison
        # raises) must not pass for the view's seat, nor fail with another error.
        if player is not None and (type(player) is not int or player != state.seat):
            raise ValueError(
                f"a view of seat {state.seat} speaks for that seat only, not {describe(player)}"
            )
        return reducer.why_illegal(canonical_state(state), action, state.seat)
    try:
        _apply(state, action, player)  # type: ignore[arg-type]
    except IllegalAction as error:
        # A fresh copy: the caught one's traceback holds the frames of the check, and they
        # hold the whole state (every hand), which an error tracker would ship.
        return IllegalAction(error.code, str(error))
    return None


@overload
def apply(state: GameState, action: object, player: object = None) -> GameState: ...
@overload
def apply(state: Match, action: object, player: object = None) -> Match: ...
def apply(state: GameState | Match, action: object, player: object = None) -> GameState | Match:
    """The state after ``action``; ``state`` itself never changes.

    With ``player``, the action is also refused unless that seat is the one to act. Raises
    :class:`IllegalAction` (and nothing else) for any action the rules do not allow. On a
    :class:`~buraco_rules.Match`, the match after the action (R20).

    ``state`` must be a :class:`GameState` (from ``new_game``, ``apply`` or checked by
    ``validate``) or a ``Match``; anything else, a :class:`PlayerView` included, is a
    ``TypeError``: a view lacks the hidden cards, so only the server's state can be advanced.
    ``determinize`` deals a view into a state to explore.
    """
    try:
        if type(state) is GameState:  # the most frequent call: one frame less
            return reducer.apply_state(state, action, player)
        return _apply(state, action, player)
    except IllegalAction as error:
        refusal = IllegalAction(error.code, str(error))  # without the inner frames
    # The refusal's traceback starts in this frame as it leaves the library: it must not hold the
    # state (nor the caught exception, whose frames hold it; Python deletes that name above).
    del state
    raise refusal


def _apply(state: GameState | Match, action: object, player: object) -> GameState | Match:
    if type(state) is GameState:
        return reducer.apply_state(state, action, player)
    if isinstance(state, Match):
        return apply_to_match(state, action, player)
    if isinstance(state, GameState):
        return reducer.apply_state(state, action, player)
    _not_a_state(state)


def _not_a_state(state: object) -> NoReturn:
    if type(state) is PlayerView:
        raise TypeError(
            "apply needs the GameState: a PlayerView lacks the hidden cards, so it cannot be "
            "advanced. Send the action to whoever holds the state (check it first with "
            "is_legal(view, action)), or explore with apply(determinize(view, rng), action)"
        )
    raise TypeError(f"apply needs a GameState or a Match, not {kind_of(state)}")

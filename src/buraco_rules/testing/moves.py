"""Hypothesis strategies for actions: one of a state's legal actions, and illegal ones, each with
the code ``apply`` gives for it (a :class:`Refusal`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

import attrs
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..core.actions import (
    MAX_MELD_INDEX,
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from ..core.cards import all_cards
from ..core.errors import ErrorCode
from ..engine.state import GameState, Phase
from ..play.face import legal_actions

__all__ = ["Refusal", "illegal_actions_of", "legal_actions_of"]

_CARDS: Final = all_cards()
_NOT_ACTIONS: Final = (None, "draw", "discard 5S", 7, 1.5, ("discard", "5S"), b"draw")
"""Objects a careless or hostile client might send instead of an action."""


@attrs.frozen(kw_only=True)
class Refusal:
    """An action that ``apply(state, action, player)`` must refuse, and the code it gives (from
    :func:`illegal_actions_of`)."""

    action: object
    """What is sent: an action, or an object that is none."""
    player: int | None
    """The seat that sends it, or None for the seat to act."""
    code: ErrorCode
    """The code of the ``IllegalAction`` that ``apply`` raises."""
    reason: str
    """Why it is illegal, in words."""


def legal_actions_of(state: GameState) -> st.SearchStrategy[Action]:
    """One of the legal actions of ``state``, which must not be over; shrinks towards the first
    one listed."""
    if not isinstance(state, GameState):
        raise InvalidArgument(f"expected a GameState, not {state!r}")
    actions = legal_actions(state)
    if not actions:
        raise InvalidArgument("the hand is over: there is no legal action")
    return st.sampled_from(actions)


_Kind = tuple[str, ErrorCode, Sequence[object], Sequence[int | None]]
"""A kind of illegal action: why, the code, the actions to choose from, the seats that send it."""


def _refusal_kinds(state: GameState) -> list[_Kind]:
    """The kinds of illegal action this state allows. Every code depends only on what the seat
    to act can see (the checker goes in a documented order: game over, whose turn, kind of
    object, phase, then the move itself)."""
    code = ErrorCode
    hand = state.hands[state.current_player]
    held = Counter(hand)
    some_action: list[object] = [
        DrawFromStock(),
        TakeDiscardPile(),
        Discard(hand[0] if hand else _CARDS[0]),
    ]
    if state.phase is Phase.OVER:
        return [("the hand is over", code.GAME_OVER, some_action, [None])]
    others = [seat for seat in range(state.players) if seat != state.current_player]
    kinds: list[_Kind] = [
        ("another seat's turn", code.NOT_YOUR_TURN, some_action, others),
        ("not an action", code.MALFORMED_ACTION, _NOT_ACTIONS, [None]),
    ]
    if not (state.first_turn and state.phase is Phase.PLAY):
        reason = "a refusal but right after the hand's first draw (R32)"
        kinds.append((reason, code.CANNOT_REFUSE, [RefuseFirstDraw()], [None]))
    if state.phase is Phase.DRAW:
        plays = [NewMeld(_CARDS[:3]), AddToMeld(0, _CARDS[:1]), *map(Discard, sorted(held))]
        kinds.append(("a play before drawing (R4)", code.WRONG_PHASE, plays, [None]))
        top = state.discard_pile[-1] if state.discard_pile else None
        if top is None:
            kinds.append(("no pile to take", code.EMPTY_DISCARD_PILE, [TakeDiscardPile()], [None]))
        elif state.rules.closed_discard_pile:
            reason = "a closed pile taken without a meld (R10)"
            kinds.append((reason, code.MUST_USE_TOP_CARD, [TakeDiscardPile()], [None]))
        else:
            reason = "an open pile taken with a meld (R11)"
            take = TakeDiscardPile(NewMeld([top, top, top]))
            kinds.append((reason, code.MALFORMED_ACTION, [take], [None]))
        return kinds
    draws = [DrawFromStock(), TakeDiscardPile()]
    kinds.append(("a second draw (R4)", code.WRONG_PHASE, draws, [None]))
    missing = [c for c in _CARDS if c not in held]
    if missing:
        reason = "a discard of a card not in the hand"
        kinds.append((reason, code.NOT_IN_HAND, [Discard(c) for c in missing], [None]))
        melds = [NewMeld([c, *hand[:2]]) for c in missing] + [NewMeld([c]) for c in missing]
        reason = "a meld with a card not in the hand"
        kinds.append((reason, code.NOT_IN_HAND, melds, [None]))
    if hand:
        count = len(state.melds[state.current_team])
        additions = [
            AddToMeld(i, [c]) for i in (count, count + 5, MAX_MELD_INDEX) for c in sorted(held)
        ]
        reason = "an addition to a meld the team does not have"
        kinds.append((reason, code.NO_SUCH_MELD, additions, [None]))
        naturals = sorted(c for c in held if not c.is_wild)
        short = [NewMeld([a]) for a in naturals]
        short += [NewMeld([a, b]) for a in naturals for b in sorted(held) if a < b][:200]
        if short:
            reason = "a meld of fewer than three cards (R5)"
            kinds.append((reason, code.INVALID_MELD, short, [None]))
    taken = state.taken_single_card
    if taken is not None and held[taken] == 1:
        reason = "a discard of the single card just taken (R11)"
        kinds.append((reason, code.CANNOT_DISCARD_TAKEN_CARD, [Discard(taken)], [None]))
    return kinds


@st.composite
def _illegal_actions(draw: st.DrawFn, state: GameState) -> Refusal:
    reason, error, actions, players = draw(st.sampled_from(_refusal_kinds(state)), label="kind")
    return Refusal(
        action=draw(st.sampled_from(actions), label="action"),
        player=draw(st.sampled_from(players), label="player"),
        code=error,
        reason=reason,
    )


def illegal_actions_of(state: GameState) -> st.SearchStrategy[Refusal]:
    """Illegal actions for ``state``, each a :class:`Refusal` with the code ``apply`` gives:
    another seat's move, objects that are no action, moves of the wrong phase, cards not in the
    hand, melds the team does not have, melds too short, a closed pile taken without a meld, the
    single taken card discarded, anything once the hand is over.

    Every code depends only on what the seat to act can see, so a server may check that it
    refuses the same way.
    """
    if not isinstance(state, GameState):
        raise InvalidArgument(f"expected a GameState, not {state!r}")
    return _illegal_actions(state)

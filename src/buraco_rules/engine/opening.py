"""The minimum opening (R25, ``RuleSet.minimum_opening``, a house rule every preset leaves off): a
team's first cards on the table, laid in one turn, must be worth at least N card points (R17)
before that turn can end.

No state field records the opening: melds are never removed and only grow, and a turn can end only
with the team's table worth N or more (or bare), so a team with cards on the table worth less than
N is in its opening turn, short of the minimum (:func:`short`). There the discard is refused, and
a meld is allowed only if after it the minimum is reached, or still reachable this turn by more
melds (:func:`reaches`: a bounded depth-first search over the real next states). So the seat in
an opening turn always has a legal action: the meld that led there was allowed because a path
went on from it, and that path's next meld is found again by the same search.

The generator lists the actions of one move (:mod:`buraco_rules.engine.movegen`), and
:func:`restrict` filters its listing under the house rule; the checker asks the same predicates
(:func:`meld_refusal`, :func:`take_refusal`, :func:`discard_refusal`), so the two agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..core.actions import Action, AddToMeld, Discard, NewMeld, TakeDiscardPile
from ..core.cards import Card
from ..core.errors import ErrorCode
from ..melds.meld import Meld
from . import transitions
from .constraints import Refusal
from .movegen import Generated, generate
from .recipes import melds_with, result_of
from .scoring import table_points
from .state import TEAM, GameState, Listed, Phase

__all__ = [
    "SEARCH_NODES",
    "discard_refusal",
    "meld_refusal",
    "need_of",
    "opening_turn",
    "reachable",
    "reaches",
    "restrict",
    "short",
    "take_refusal",
]

SEARCH_NODES: Final = 48
"""The most states :func:`reaches` expands (generates the melds of) for one meld: past it the
meld is not allowed. A bound, so that a hand of many cards costs a bounded time; a meld refused
for it is refused the same way whenever it is asked (the search is deterministic)."""

_RULE: Final = "(R25, a house rule)"


def need_of(state: GameState, team: int | None = None) -> int:
    """The minimum opening of ``team`` (by default the team to act) in this hand: R25's, or R30's
    as the match set it for the team (``RuleSet.opening_minimums``)."""
    return state.rules.opening_minimums[TEAM[state.current_player] if team is None else team]


def short(state: GameState, melds: Sequence[Meld], team: int | None = None) -> bool:
    """The team whose ``melds`` these are (``team``, by default the team to act) has cards on
    the table worth less than its minimum opening: it is in its opening turn and has not reached
    the minimum yet (a bare table is not short: nothing has been opened)."""
    need = need_of(state, team)
    return bool(melds) and need > 0 and table_points(melds, state.rules)[0] < need


def opening_turn(state: GameState) -> bool:
    """The seat to act is in its team's opening turn, short of the minimum: it has drawn and its
    team's table holds cards worth less than the team's minimum opening (:func:`short`)."""
    return state.phase is Phase.PLAY and short(state, state.melds[TEAM[state.current_player]])


def reachable(state: GameState) -> bool:
    """The seat to act is not stuck short of its minimum opening: its team's table is bare or
    worth the minimum, or it is the team's opening turn and the hand can still reach the minimum
    (:func:`reaches`). The one condition a state must meet (:func:`buraco_rules.validate`), and
    the one a re-deal asks of the hand it deals the seat to act when another seat's view hides
    it (:mod:`buraco_rules.hidden.determinize`): the view shows the table, not the hand, so a
    view is consistent when some hand of that size meets it."""
    seat = state.current_player
    if not short(state, state.melds[TEAM[seat]]):
        return True
    return state.phase is Phase.PLAY and reaches(state, False, [SEARCH_NODES])


def reaches(after: GameState, emptied: bool, budget: list[int]) -> bool:
    """From ``after``, the state a meld of the player to act has just made (``emptied``: that meld
    used the last card of the hand), the team's table reaches the minimum opening this turn:
    it already does, or some meld that the generator lists reaches it, searched depth first in
    the generator's order; each state whose melds are generated spends one of ``budget[0]``.

    A meld that empties the hand must reach the minimum by itself: the extra pile it takes
    (R12) is hidden, so no search looks at it. The search depends only on the player's own hand
    and the table (what the player sees), and it is consistent: what it finds after one meld,
    it finds again one meld later, as the same subtree is searched with at least as much budget.
    """
    rules = after.rules
    need = need_of(after)
    seat = after.current_player
    melds = after.melds[TEAM[seat]]
    laid = table_points(melds, rules)[0]
    if laid >= need:
        return True
    if emptied or after.phase is not Phase.PLAY:
        return False
    hand = after.hands[seat]
    values = rules.value_by_id
    if laid + sum(values[c] for c in hand) < need:
        return False  # even every card of the hand would not reach it
    if budget[0] <= 0:
        return False
    budget[0] -= 1
    actions, recipes = generate(after)
    size = len(hand)
    for action, recipe in zip(actions, recipes, strict=True):
        if type(recipe) is not tuple:
            continue  # a discard ends the turn
        nxt = _after_meld(after, action, recipe)
        if nxt is not None and reaches(nxt, len(recipe[1]) == size, budget):
            return True
    return False


def _after_meld(state: GameState, action: Action, recipe: Listed) -> GameState | None:
    """The real next state of the listed meld ``action`` in the play phase."""
    if type(recipe) is not tuple or not isinstance(action, NewMeld | AddToMeld):
        return None
    result = result_of(state, recipe)
    return None if result is None else transitions.meld(state, action, result)


def _meld_reaches(state: GameState, action: NewMeld | AddToMeld, result: Meld) -> bool:
    hand = state.hands[state.current_player]
    after = transitions.meld(state, action, result)
    return reaches(after, len(action.cards) == len(hand), [SEARCH_NODES])


def restrict(state: GameState, listing: Generated) -> Generated:
    """The generator's ``listing`` of ``state`` under the minimum opening: in the draw phase,
    without the closed-pile takes that open the table short of the minimum; in the play phase,
    without the melds from which it cannot be reached this turn and, while the table is short,
    without the discards. The rest, in the generator's order."""
    need = need_of(state)
    if need <= 0 or state.phase is Phase.OVER:
        return listing
    melds = state.melds[TEAM[state.current_player]]
    if table_points(melds, state.rules)[0] >= need:
        return listing
    actions: list[Action] = []
    recipes: list[Listed] = []
    is_short = short(state, melds)
    for action, recipe in zip(*listing, strict=True):
        if type(recipe) is tuple:
            if not _listed_meld_allowed(state, action, recipe):
                continue
        elif type(action) is Discard and is_short:
            continue
        actions.append(action)
        recipes.append(recipe)
    return tuple(actions), tuple(recipes)


def _listed_meld_allowed(
    state: GameState, action: Action, recipe: tuple[int, tuple[Card, ...]]
) -> bool:
    result = result_of(state, recipe)
    if result is None:
        return False
    if type(action) is TakeDiscardPile:
        inner = action.meld
        if inner is None:
            return True
        return take_refusal(state, melds_with(_team_melds(state), inner, result)) is None
    if not isinstance(action, NewMeld | AddToMeld):
        return True
    return _meld_reaches(state, action, result)


def _team_melds(state: GameState) -> tuple[Meld, ...]:
    return state.melds[TEAM[state.current_player]]


def take_refusal(state: GameState, after: Sequence[Meld]) -> Refusal | None:
    """A closed-pile take (R10) by a team whose table is short of the minimum (or bare) must reach
    it with its own meld, ``after`` being the team's melds once it is laid: what the rest of the
    pile holds is hidden from the taker, so no search may count on it."""
    need = need_of(state)
    before = _team_melds(state)
    if need <= 0 or table_points(before, state.rules)[0] >= need:
        return None
    laid = table_points(after, state.rules)[0]
    if laid >= need:
        return None
    return (
        ErrorCode.MINIMUM_OPENING,
        f"taking the pile opens your team's table with {laid} points, short of the minimum "
        f"opening of {need}: the take's own meld must reach it {_RULE}",
    )


def meld_refusal(state: GameState, action: NewMeld | AddToMeld, result: Meld) -> Refusal | None:
    """A meld (``result`` being the meld it makes) from which the minimum opening cannot be
    reached this turn, while the team's table is short of it (or bare)."""
    need = need_of(state)
    if need <= 0 or table_points(_team_melds(state), state.rules)[0] >= need:
        return None
    if _meld_reaches(state, action, result):
        return None
    laid = table_points(melds_with(_team_melds(state), action, result), state.rules)[0]
    return (
        ErrorCode.MINIMUM_OPENING,
        f"that meld brings your team's table to {laid} points, and no further melds this turn "
        f"reach the minimum opening of {need} {_RULE}",
    )


def discard_refusal(state: GameState) -> Refusal | None:
    """The discard ends the turn, which the team may not do while its table is short."""
    melds = _team_melds(state)
    if not short(state, melds):
        return None
    laid = table_points(melds, state.rules)[0]
    need = need_of(state)
    return (
        ErrorCode.MINIMUM_OPENING,
        f"your team's table is worth {laid} points this turn, short of the minimum opening of "
        f"{need}: meld more before you discard {_RULE}",
    )

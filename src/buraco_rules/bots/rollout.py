"""The rollouts of the search bots: GreedyBot's policy for every seat, and what the position it
reaches is worth to a team."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ..core.rules import CANASTA_SIZE, RuleSet
from ..engine.scoring import score
from ..engine.state import GameState
from ..hidden.views import view
from ..melds.meld import Meld
from ..play.face import apply, legal_actions
from .heuristics import Assessment, rank_actions

__all__ = ["FITTED_LEAF", "fitted_leaf", "greedy_rollout", "leaf_value", "melds_promise"]

FITTED_LEAF: Mapping[tuple[bool, int], tuple[float, float]] = MappingProxyType(
    {
        (True, 2): (-4.53, 1.65),
        (True, 4): (-2.32, 1.48),
        (False, 2): (-0.96, 0.53),
        (False, 4): (0.04, 0.18),
    }
)
"""``(hand_weight, promise)`` for :func:`leaf_value` by ``(closed discard pile (R10), players)``:
least squares over GreedyBot's self-play of how its hands end (seed 100, 300 deals a variant
and player count; ``tools/fit_leaf_value.py``, its rows by kind of pile). In the closed-pile
games the cards a team holds mid-hand count for it, not against it (a negative weight: they
are its melds to come), and half-built melds promise more than in the open-pile games."""


def greedy_rollout(
    state: GameState, team: int, horizon: int, hand_weight: float, promise: float = 0.0
) -> float:
    """Greedy play by every seat for ``horizon`` turn changes (GreedyBot is deterministic: the
    sampled deal is all the luck there is); how much better ``team`` then stands
    (:func:`leaf_value`)."""
    turns = 0
    seat = state.current_player
    while not state.is_over and turns < horizon:
        actions = legal_actions(state)
        if len(actions) == 1:
            action = actions[0]
        else:
            action = actions[rank_actions(Assessment(view(state, seat)), actions)[0][1]]
        state = apply(state, action)
        if state.current_player != seat:
            seat = state.current_player
            turns += 1
    return leaf_value(state, team, hand_weight, promise)


def fitted_leaf(rules: RuleSet, players: int) -> tuple[float, float]:
    """The fitted ``(hand_weight, promise)`` for ``rules`` played by ``players``
    (:data:`FITTED_LEAF`; three players, which no preset has, take the two-player weights)."""
    return FITTED_LEAF[rules.closed_discard_pile, 4 if players == 4 else 2]


def leaf_value(state: GameState, team: int, hand_weight: float, promise: float = 0.0) -> float:
    """How much better ``team`` stands at the end of a rollout: the difference of the teams'
    scores (R16), with the cards still in hand counted at ``hand_weight`` of their value while
    the hand goes on (a card held mid-hand may still be melded; at full value, taking an open
    pile would look like a loss until its cards are laid), and ``promise`` times the difference
    of what the teams' unfinished melds promise (:func:`melds_promise`)."""
    scores = score(state)  # an unfinished hand: as if it ended now, nobody going out (R16)
    ours, theirs = scores[team], scores[1 - team]
    difference = float(ours.total - theirs.total)
    if state.is_over:
        return difference
    value = difference + (1.0 - hand_weight) * (ours.hands - theirs.hands)
    if promise:
        ours_promised = melds_promise(state.melds[team], state.rules)
        value += promise * (ours_promised - melds_promise(state.melds[1 - team], state.rules))
    return value


def melds_promise(melds: Sequence[Meld], rules: RuleSet) -> float:
    """What a team's unfinished melds promise, in points: each one's canasta bonus as it stands
    (clean or mixed, R18) times the square of the share of the way from three cards to a
    canasta it has come (a meld of six is far likelier to be finished than one of three)."""
    bonuses = rules.canasta_bonuses
    total = 0.0
    for meld in melds:
        size = len(meld.cards)
        if size < CANASTA_SIZE:
            bonus = bonuses.clean if meld.is_clean else bonuses.mixed
            total += bonus * ((size - 2) / (CANASTA_SIZE - 2)) ** 2
    return total

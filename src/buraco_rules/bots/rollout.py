"""The rollouts of the search bots: GreedyBot's policy for every seat, and what the position it
reaches is worth to a team."""

from __future__ import annotations

from ..engine.scoring import score
from ..engine.state import GameState
from ..hidden.views import view
from ..play.face import apply, legal_actions
from .heuristics import Assessment, rank_actions

__all__ = ["greedy_rollout", "leaf_value"]


def greedy_rollout(state: GameState, team: int, horizon: int, hand_weight: float) -> float:
    """Greedy play by every seat for ``horizon`` turn changes (GreedyBot is deterministic: the
    sampled deal is all the luck there is); how much better ``team`` then stands."""
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
    return leaf_value(state, team, hand_weight)


def leaf_value(state: GameState, team: int, hand_weight: float) -> float:
    """How much better ``team`` stands at the end of a rollout: the difference of the teams'
    scores (R16), with the cards still in hand counted at ``hand_weight`` of their value while
    the hand goes on (a card held mid-hand may still be melded; at full value, taking an open
    pile would look like a loss until its cards are laid)."""
    scores = score(state)  # an unfinished hand: as if it ended now, nobody going out (R16)
    ours, theirs = scores[team], scores[1 - team]
    difference = float(ours.total - theirs.total)
    if state.is_over:
        return difference
    return difference + (1.0 - hand_weight) * (ours.hands - theirs.hands)

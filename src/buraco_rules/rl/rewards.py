"""What the environments pay a learner: the hand's score difference, sparse or shaped.

The default scale is :data:`DEFAULT_REWARD_SCALE`: a point is worth 0.001, so a hand's difference
(a few thousand points at most, :func:`~buraco_rules.rl.openspiel.utility_bound`) is a reward of
order one, the size PPO's value function and advantage normalisation expect. With
``dense_rewards=True`` the environments also pay, at every step, the change in the learning team's
lead in points on the table (``PlayerView.public_points``: public, so nothing hidden reaches a
reward), and at the end the rest: the sum over a hand is the same score difference as the sparse
reward's, only paid earlier (a potential-based shaping that starts and ends at the result). A
hand cut at the environments' ``max_turns`` is ``truncated``: a time limit, not an end of the
hand, so its result is not paid (the dense rewards have paid the lead on the table so far), and a
learner bootstraps its value there.
"""

from __future__ import annotations

from typing import Final

from ._position import Position

__all__ = ["DEFAULT_REWARD_SCALE", "Payer"]

DEFAULT_REWARD_SCALE: Final = 0.001
"""The reward of one point of score difference in the PettingZoo and Gymnasium environments."""


class Payer:
    """Pays team 0's rewards for one hand (a team-1 seat's are their negation): ``pay(position)``
    after each step returns what is due since the last call; over a hand played out they sum to
    team 0's score difference × ``scale`` (a hand cut at the turn limit pays no result: the dense
    rewards have paid the table's lead, the sparse nothing)."""

    def __init__(self, scale: float, dense: bool) -> None:
        self.scale = scale
        self.dense = dense
        self.paid = 0
        """Points paid so far (team 0's)."""

    def pay(self, position: Position) -> float:
        """What is due to team 0 at ``position`` (0 before the end of a sparse hand). A hand cut
        at the turn limit has not ended: its result is not paid (a learner bootstraps there)."""
        if position.engine.is_over:
            due = position.team_difference() - self.paid
        elif self.dense:
            due = position.table_difference() - self.paid
        else:
            return 0.0
        self.paid += due
        return due * self.scale

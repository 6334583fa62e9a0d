"""ISMCTSBot: information-set Monte Carlo tree search over the bot's own turn, greedy rollouts."""

from __future__ import annotations

import math
import random

import attrs

from ..core.actions import Action, AddToMeld, NewMeld
from ..engine.state import GameState
from ..hidden.determinize import determinize
from ..hidden.views import PlayerView, view
from ..play.face import apply, legal_actions
from .budget import (
    finite_number,
    flag,
    positive_or_none,
    require_budget,
    sampled_deals,
    whole_or_none,
)
from .heuristics import MELD_FIRST, Assessment, rank_actions
from .rollout import greedy_rollout, leaf_value

__all__ = ["ISMCTSBot"]


class _Node:
    """One of the bot's decisions in its turn, reached by the actions played before it in the
    turn. The statistics are of the iterations that went through it; ``available`` counts the
    iterations in which it could have been chosen at its parent (ISMCTS: the sampled deal
    decides which actions a node offers, e.g. after a card drawn from the stock)."""

    __slots__ = ("available", "children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.children: dict[Action, _Node] = {}


@attrs.frozen
class ISMCTSBot:
    """Information-set Monte Carlo tree search from a player's view.

    Each iteration deals the unseen cards at random into a full state consistent with the view
    (:func:`buraco_rules.determinize`, with the bot's ``rng``) and walks a tree of the bot's own
    decisions for the rest of its turn in that deal. At each decision the actions the deal offers
    are ranked by GreedyBot's heuristics and only the best ``widening * (visits + 1) ** 0.25`` of
    them are open (progressive widening: the big sets of melds stay cheap); an untried open
    action is tried first, and among tried ones UCB1 picks (``exploration``), counted over the
    iterations in which each was available (the deal decides what a node offers, e.g. after a
    card drawn from the stock). When the turn passes, GreedyBot plays every seat for ``horizon``
    more turns, and the result is the difference of the teams' scores (R16; an unfinished hand
    as if it ended then, cards still in hand at ``hand_weight`` of their value) in units of
    ``scale`` points.

    With ``paired`` (the default) the root is searched in batches: each sampled deal is played
    from every one of GreedyBot's ``candidates`` best actions, so the root's actions are compared
    on the same luck (a deal's luck is worth far more points than a move), and the best mean is
    played if it beats GreedyBot's choice by ``margin`` points; below the root, the tree is as
    above. Without it, the root is one more UCB node (``candidates`` is not used) and the most
    visited action is played.

    With ``greedy_melds`` a decision at which GreedyBot would lay a meld lays it without
    searching, in the game and in the tree: the search goes into the draw (stock or pile) and the
    discard, and into whether to meld at all when GreedyBot would not. It halves the thinking
    time, and measured weaker (see docs/bots.md), so it is off by default.

    The budget is ``playouts`` sampled deals per decision or ``seconds`` of CPU time per decision
    (``time.thread_time``: the thinking thread's own, whatever else the machine runs), whichever
    ends first (at least one deal); ``playouts=None`` thinks by time only (then the choice
    depends on the machine's speed, not only on ``rng``). A decision with one legal action costs
    nothing. Bad settings are a ``ValueError``.
    """

    playouts: int | None = attrs.field(default=32, validator=whole_or_none)
    seconds: float | None = attrs.field(default=None, validator=positive_or_none)
    candidates: int = attrs.field(default=4, validator=whole_or_none)
    horizon: int = attrs.field(default=10, validator=whole_or_none)
    exploration: float = attrs.field(default=0.5, validator=finite_number)
    widening: float = attrs.field(default=1.5, validator=positive_or_none)
    hand_weight: float = attrs.field(default=0.5, validator=finite_number)
    scale: float = attrs.field(default=500.0, validator=positive_or_none)
    margin: float = attrs.field(default=0.0, validator=finite_number)
    paired: bool = attrs.field(default=True, validator=flag)
    greedy_melds: bool = attrs.field(default=False, validator=flag)

    def __attrs_post_init__(self) -> None:
        require_budget(self.playouts, self.seconds)

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The root action the search found best in ``view``."""
        actions = legal_actions(view)
        if len(actions) == 1:
            return actions[0]
        ranked = rank_actions(Assessment(view), actions)
        greedy = actions[ranked[0][1]]
        if self.greedy_melds and _lays_greedily(greedy, ranked[0][0]):
            return greedy
        if self.paired and min(self.candidates, len(actions)) == 1:
            return greedy
        root = self.search(view, rng)
        order = {actions[i]: place for place, (_, i) in enumerate(ranked)}
        tried = [a for a in root.children if a in order and root.children[a].visits]
        if not tried:  # cannot happen: the root's actions are the view's; play GreedyBot's
            return greedy

        def mean(action: Action) -> float:
            child = root.children[action]
            return child.total / child.visits

        if self.paired:
            best = max(tried, key=lambda a: (mean(a), -order[a]))
            if greedy in root.children and (mean(best) - mean(greedy)) * self.scale < self.margin:
                return greedy  # not enough evidence against GreedyBot's choice
            return best

        def visited(action: Action) -> tuple[int, float, int]:
            return (root.children[action].visits, mean(action), -order[action])

        return max(tried, key=visited)

    def search(self, seen: PlayerView, rng: random.Random) -> _Node:
        """Run the search from ``seen``; the root of its tree (its ``visits`` count the sampled
        deals)."""
        root = _Node()
        if self.paired:
            ranked = rank_actions(Assessment(seen), legal_actions(seen))
            actions = legal_actions(seen)
            for _, i in ranked[: self.candidates]:
                root.children[actions[i]] = _Node()
        for _ in sampled_deals(self.playouts, self.seconds):
            world = determinize(seen, rng)
            if self.paired:
                for action, child in root.children.items():
                    child.available += 1
                    self._iterate(child, [child], apply(world, action), seen.seat, seen.team)
                root.visits += 1
            else:
                self._iterate(root, [root], world, seen.seat, seen.team)
        return root

    def _iterate(
        self, node: _Node, path: list[_Node], state: GameState, seat: int, team: int
    ) -> None:
        """One iteration from ``node`` in the sampled deal ``state``: selection and expansion
        down the bot's turn, a greedy rollout, and the result backed up ``path``."""
        expanded = False
        while not expanded and not state.is_over and state.current_player == seat:
            actions = legal_actions(state)
            if len(actions) == 1:
                state = apply(state, actions[0])  # forced: no decision, no node
                continue
            ranked = rank_actions(Assessment(view(state, seat)), actions)
            if self.greedy_melds and _lays_greedily(actions[ranked[0][1]], ranked[0][0]):
                state = apply(state, actions[ranked[0][1]])
                continue
            open_count = max(1, int(self.widening * (node.visits + 1) ** 0.25))
            candidates = [actions[i] for _, i in ranked[:open_count]]
            children = node.children
            chosen = None
            for action in candidates:
                if action not in children:
                    chosen = action
                    children[action] = _Node()
                    expanded = True
                    break
            for action in candidates:
                if action in children:
                    children[action].available += 1
            if chosen is None:
                chosen = self._select(children, candidates)
            node = children[chosen]
            path.append(node)
            state = apply(state, chosen)
        if state.is_over:
            value = leaf_value(state, team, self.hand_weight)
        else:
            value = greedy_rollout(state, team, self.horizon, self.hand_weight)
        reward = value / self.scale
        for visited in path:
            visited.visits += 1
            visited.total += reward

    def _select(self, children: dict[Action, _Node], candidates: list[Action]) -> Action:
        """UCB1 over the tried candidates, with each one's availability count for the log term
        (ties: the first in GreedyBot's order)."""
        c = self.exploration
        best, best_value = candidates[0], -math.inf
        for action in candidates:
            child = children[action]
            value = child.total / child.visits + c * math.sqrt(
                math.log(max(1, child.available)) / child.visits
            )
            if value > best_value:
                best, best_value = action, value
        return best


def _lays_greedily(action: Action, worth: float) -> bool:
    """Whether GreedyBot's choice is a meld it lays for gain (ranked above every discard)."""
    return (type(action) is NewMeld or type(action) is AddToMeld) and worth > MELD_FIRST

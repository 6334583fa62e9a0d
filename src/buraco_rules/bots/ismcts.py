"""ISMCTSBot: information-set Monte Carlo tree search over the bot's own turn, greedy rollouts."""

from __future__ import annotations

import math
import random
import threading
from typing import Generic, TypeVar

import attrs

from ..core.actions import Action, AddToMeld, NewMeld
from ..core.rules import RuleSet
from ..engine.state import GameState
from ..hidden.determinize import determinize
from ..hidden.views import PlayerView, view
from ..play.face import apply, legal_actions
from .base import Forgetful
from .budget import (
    finite_number,
    flag,
    positive_or_none,
    require_budget,
    sampled_deals,
    whole_or_none,
    whole_or_zero,
)
from .heuristics import MELD_FIRST, Assessment, rank_actions
from .recall import Known, Recall, deal
from .rollout import fitted_leaf, greedy_rollout, leaf_value

__all__ = ["ISMCTSBot"]

_RACE_EVERY = 4
"""Sampled deals between two looks at the race (a look is cheap; a decision only changes when
enough new evidence has come in)."""
_RACE_AFTER = 8
"""Deals a root candidate is played on before the race may drop it (fewer say too little about
the spread of the differences)."""
CARRIED_MOST = 4
"""The most decisions' budgets ``carry`` hands on to one searched decision (so that no decision
thinks for more than five times the budget, however many melds a turn lays)."""
_Kept = TypeVar("_Kept")
_NEXT_VIEW_SEED = 0
"""The deal in which ``carry`` finds the view a greedily laid meld leads to (any deal gives the
same view when the meld shows nothing new; a fixed one leaves the bot's rng alone)."""


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


class _Race:
    """The paired root's candidates: each one's result on every sampled deal since it was opened,
    so that two of them are compared on the deals both were played on (the same luck)."""

    __slots__ = (
        "deals", "first", "following", "kept", "results", "root", "running", "waiting", "width"
    )  # fmt: skip

    def __init__(
        self, ranked: list[Action], width: int, spare: int, kept: _Node | None = None
    ) -> None:
        self.root = _Node()
        self.kept = {} if kept is None else kept.children
        self.following: dict[Action, PlayerView | None] = {}
        self.width = width
        self.deals = 0
        self.running: list[Action] = []  # in the order they were opened
        self.waiting = ranked[width : width + spare]  # opened, best first, as others drop out
        self.results: dict[Action, list[float]] = {}
        self.first: dict[Action, int] = {}
        for action in ranked[:width]:
            self._open(action)

    def _open(self, action: Action) -> None:
        # A subtree kept from the last decision of the turn goes on growing (see _Memory).
        self.root.children[action] = self.kept.get(action) or _Node()
        self.running.append(action)
        self.results[action] = []
        self.first[action] = self.deals

    def _differences(self, better: Action, worse: Action) -> list[float]:
        """``better``'s result less ``worse``'s on each deal both were played on."""
        start = max(self.first[better], self.first[worse])
        ours = self.results[better][start - self.first[better] :]
        theirs = self.results[worse][start - self.first[worse] :]
        return [a - b for a, b in zip(ours, theirs, strict=False)]

    def gains(self) -> dict[Action, float]:
        """Each running candidate played at least once: its mean gain over the longest-running
        one (which has been played on every deal the others have)."""
        anchor = self.running[0]
        gains = {}
        for action in self.running:
            if self.results[action]:
                differences = self._differences(action, anchor)
                gains[action] = sum(differences) / len(differences)
        return gains

    def drop_losers(self, z: float) -> None:
        """Drop every candidate the leader beats by more than ``z`` standard errors of the
        paired differences (after ``_RACE_AFTER`` common deals), and open waiting ones in
        their places."""
        gains = self.gains()
        leader = max(gains, key=gains.__getitem__)
        for action in list(self.running):
            if action == leader:
                continue
            differences = self._differences(leader, action)
            n = len(differences)
            if n < _RACE_AFTER:
                continue
            mean = sum(differences) / n
            spread = sum((d - mean) ** 2 for d in differences) / (n - 1)
            if mean > 0 and mean * mean * n > z * z * spread:
                self.running.remove(action)
        while len(self.running) < self.width and self.waiting:
            self._open(self.waiting.pop(0))

    def follow(self, action: Action, state: GameState, seat: int) -> None:
        """Note the view ``action`` led to in one sampled deal (``state``): the subtree below it
        can be kept for the next decision only if every deal led to the same view."""
        if state.is_over or state.current_player != seat:
            self.following[action] = None  # the turn passed: no next decision of this turn
            return
        after = view(state, seat)
        if self.following.setdefault(action, after) != after:
            self.following[action] = None

    @property
    def settled(self) -> bool:
        """One candidate left and none waiting: nothing more to compare."""
        return len(self.running) == 1 and not self.waiting


def _view_after_meld(seen: PlayerView, action: Action) -> PlayerView | None:
    """The view the meld ``action`` laid in ``seen`` leads to, if the turn goes on and that view
    does not depend on the unseen cards (``carry``: the decision its budgets are handed on to).
    It is found in two fixed deals, which leaves the bot's rng alone."""
    after = apply(determinize(seen, random.Random(_NEXT_VIEW_SEED)), action)
    if after.is_over or after.current_player != seen.seat:
        return None
    following = view(after, seen.seat)
    again = apply(determinize(seen, random.Random(_NEXT_VIEW_SEED + 1)), action)
    if view(again, seen.seat) != following:
        return None  # the meld showed something (a pile taken on emptying the hand, R12)
    return following


class _Memory(Forgetful, Generic[_Kept]):
    """What an ISMCTSBot keeps from one decision for the next one of the same turn, for the one
    view its last choice leads to: a decision in any other view drops it, so a bot's choices
    depend on its rng and on its last decision only. A copy or a pickle of the bot starts with
    an empty memory.

    With ``reuse`` it keeps the subtree of the action played, when every sampled deal led, after
    it, to the same view (a meld, an addition, an open pile taken: the action showed the bot
    nothing it did not know): then every deal behind its statistics is consistent with that
    view, and the next search goes on growing it. After a card drawn from the stock, the deals
    led to different views and nothing is kept. With ``carry`` it keeps the budgets of the melds
    laid without a search since the last search."""

    __slots__ = ("_lock", "_value", "_view")

    def __init__(self) -> None:
        self._lock = threading.Lock()  # a bot may be shared between threads
        self._view: PlayerView | None = None
        self._value: _Kept | None = None

    def take(self, seen: PlayerView) -> _Kept | None:
        """What was kept for ``seen``, if it is the view the last choice led to; the memory is
        empty afterwards."""
        with self._lock:
            kept, value = self._view, self._value
            self._view = self._value = None
        return value if kept is not None and kept == seen else None

    def keep(self, seen: PlayerView, value: _Kept) -> None:
        """Keep ``value`` for the decision in ``seen``."""
        with self._lock:
            self._view, self._value = seen, value


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

    With ``open_pile_only`` too, melds are laid unsearched only where the discard pile is open
    (R11): where it is closed (R10) a meld spends the cards that could take the pile with its top
    card, so those decisions are searched.

    With ``carry`` (which needs ``greedy_melds``) the budget of a decision laid without a search
    is handed on to the next decision of the turn (at most :data:`CARRIED_MOST` of them): at the
    same time a move on average, the draws and discards are searched longer. With ``recall`` and
    ``promise=1`` these beat MonteCarloBot at equal time with four players, from the Italian
    games (in Buraco Fechado it is behind; docs/bots.md).

    Five more settings are off by default (docs/bots.md has what each measured): ``racing=z``
    drops a root candidate that the leader beats by ``z`` standard errors of their paired
    differences, opening one of the ``reserve`` next ones in its place; ``reuse`` keeps the
    subtree of the action played for the next decision of the turn when the action showed
    nothing new; ``recall`` remembers, between decisions, the cards seen go into the pile and
    into other hands and samples only deals that agree (:mod:`buraco_rules.bots.recall`); and
    ``promise`` weighs, at a rollout's horizon, what each team's unfinished melds promise
    (:func:`buraco_rules.bots.rollout.melds_promise`). The last two together beat MonteCarloBot
    at equal time with two players and are level with it with four; against GreedyBot they win
    about as often as the defaults do.
    ``fitted_leaf`` replaces ``hand_weight`` and ``promise`` by the weights fitted to how
    GreedyBot's hands end in games of the same kind of pile and number of players
    (:data:`buraco_rules.bots.rollout.FITTED_LEAF`); it predicts the end of a hand better and
    measured level with MonteCarloBot at equal time with two and four players.

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
    racing: float | None = attrs.field(default=None, validator=positive_or_none)
    reserve: int = attrs.field(default=0, validator=whole_or_zero)
    reuse: bool = attrs.field(default=False, validator=flag)
    recall: bool = attrs.field(default=False, validator=flag)
    promise: float = attrs.field(default=0.0, validator=finite_number)
    fitted_leaf: bool = attrs.field(default=False, validator=flag)
    open_pile_only: bool = attrs.field(default=False, validator=flag)
    carry: bool = attrs.field(default=False, validator=flag)
    _recall: Recall = attrs.field(factory=Recall, init=False, eq=False, repr=False)
    _memory: _Memory[_Node] = attrs.field(factory=_Memory, init=False, eq=False, repr=False)
    _carried: _Memory[int] = attrs.field(factory=_Memory, init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        require_budget(self.playouts, self.seconds)
        for setting in ("open_pile_only", "carry"):
            if getattr(self, setting) and not self.greedy_melds:
                raise ValueError(f"{setting} is about melds laid unsearched: it needs "
                                 "greedy_melds=True")  # fmt: skip

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The root action the search found best in ``view``."""
        if not self.recall:
            return self._choose(view, rng, None)
        known = self._recall.known(view)
        chosen = self._choose(view, rng, known)
        self._recall.note(view, chosen, known)
        return chosen

    def _choose(self, view: PlayerView, rng: random.Random, known: Known | None) -> Action:
        kept = self._memory.take(view) if self.reuse else None
        carried = (self._carried.take(view) or 0) if self.carry else 0
        actions = legal_actions(view)
        if len(actions) == 1:
            return actions[0]
        ranked = rank_actions(Assessment(view), actions)
        greedy = actions[ranked[0][1]]
        if self._unsearched(view.rules, greedy, ranked[0][0]):
            following = _view_after_meld(view, greedy) if self.carry else None
            if following is not None:
                self._carried.keep(following, min(carried + 1, CARRIED_MOST))
            return greedy
        if self.paired and min(self.candidates, len(actions)) == 1:
            return greedy
        order = {actions[i]: place for place, (_, i) in enumerate(ranked)}
        if not self.paired:
            return self._most_visited(self._grow(view, rng, 1 + carried), order)
        ranked_actions = [actions[i] for _, i in ranked]
        race = self._race(view, rng, kept, ranked_actions, known, 1 + carried)
        gains = race.gains()
        chosen = max(gains, key=lambda a: (gains[a], -order[a]))
        if greedy in gains and (gains[chosen] - gains[greedy]) * self.scale < self.margin:
            chosen = greedy  # not enough evidence against GreedyBot's choice
        following = race.following.get(chosen)
        if following is not None:
            self._memory.keep(following, race.root.children[chosen])
        return chosen

    def search(self, seen: PlayerView, rng: random.Random) -> _Node:
        """Run the search from ``seen``; the root of its tree (its ``visits`` count the sampled
        deals)."""
        if self.paired:
            return self._race(seen, rng).root
        return self._grow(seen, rng)

    def _budget(self, budgets: int) -> tuple[int | None, float | None]:
        """``budgets`` times the bot's budget (``carry``): playouts and CPU seconds."""
        playouts = None if self.playouts is None else self.playouts * budgets
        return playouts, None if self.seconds is None else self.seconds * budgets

    def _grow(self, seen: PlayerView, rng: random.Random, budgets: int = 1) -> _Node:
        """The unpaired search (the root one more UCB node) with ``budgets`` times the
        budget."""
        root = _Node()
        for _ in sampled_deals(*self._budget(budgets)):
            self._iterate(root, [root], determinize(seen, rng), seen.seat, seen.team)
        return root

    def _race(
        self,
        seen: PlayerView,
        rng: random.Random,
        kept: _Node | None = None,
        ranked: list[Action] | None = None,
        known: Known | None = None,
        budgets: int = 1,
    ) -> _Race:
        """The paired root: every sampled deal played from each running candidate, and with
        ``racing`` the clearly worse ones dropped for waiting ones as the deals come in.
        ``ranked`` is ``seen``'s legal actions in GreedyBot's order, when the caller has them;
        the search has ``budgets`` times the bot's budget (``carry``)."""
        if ranked is None:
            actions = legal_actions(seen)
            ranked = [actions[i] for _, i in rank_actions(Assessment(seen), actions)]
        race = _Race(ranked, self.candidates, self.reserve, kept)
        root = race.root
        for _ in sampled_deals(*self._budget(budgets)):
            world = determinize(seen, rng) if known is None else deal(seen, known, rng)
            for action in race.running:
                child = root.children[action]
                child.available += 1
                before = child.total
                after = apply(world, action)
                if self.reuse:
                    race.follow(action, after, seen.seat)
                self._iterate(child, [child], after, seen.seat, seen.team)
                race.results[action].append(child.total - before)
            root.visits += 1
            race.deals += 1
            if self.racing is not None and race.deals % _RACE_EVERY == 0:
                race.drop_losers(self.racing)
                if race.settled:
                    break
        return race

    def _most_visited(self, root: _Node, order: dict[Action, int]) -> Action:
        """The unpaired root's choice: the most visited action (then the best mean, then
        GreedyBot's ``order``)."""

        def visited(action: Action) -> tuple[int, float, int]:
            child = root.children[action]
            return (child.visits, child.total / child.visits, -order[action])

        return max((a for a in root.children if root.children[a].visits), key=visited)

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
            if self._unsearched(state.rules, actions[ranked[0][1]], ranked[0][0]):
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
        hand_weight, promise = self.hand_weight, self.promise
        if self.fitted_leaf:
            hand_weight, promise = fitted_leaf(state.rules, len(state.hands))
        if state.is_over:
            value = leaf_value(state, team, hand_weight)
        else:
            value = greedy_rollout(state, team, self.horizon, hand_weight, promise)
        reward = value / self.scale
        for visited in path:
            visited.visits += 1
            visited.total += reward

    def _unsearched(self, rules: RuleSet, action: Action, worth: float) -> bool:
        """Whether GreedyBot's choice ``action`` (ranked ``worth``) is laid without a search
        (``greedy_melds``, and ``open_pile_only``)."""
        if not self.greedy_melds or (self.open_pile_only and rules.closed_discard_pile):
            return False
        return _lays_greedily(action, worth)

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

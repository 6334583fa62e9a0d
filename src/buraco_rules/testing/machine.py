"""A Hypothesis state machine that plays hands of Buraco and checks the engine after every step.

Needs `hypothesis <https://hypothesis.readthedocs.io>`_ (``pip install 'buraco-rules[testing]'``).
Run it as a test with ``TestBuraco = BuracoStateMachine.TestCase``, or subclass it to drive your own
code beside the engine (see the hooks ``on_start``, ``on_apply``, ``on_refuse``, ``on_reshuffle``).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import ClassVar, Final

import attrs
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ..core.actions import Action
from ..core.cards import Card
from ..core.decks import DECK_COUNTS
from ..core.errors import IllegalAction
from ..core.rules import RuleSet
from ..engine.scoring import TeamScore, canasta_bonus, score
from ..engine.state import GameState
from ..engine.validate import validate
from ..hidden.determinize import determinize
from ..hidden.views import view
from ..play.face import apply, is_legal, legal_actions, new_game
from .strategies import Refusal, illegal_actions_of, legal_actions_of, rule_sets, seeds

__all__ = ["BuracoStateMachine"]

_APPLIED_PER_STEP: Final = 6
"""About how many listed actions ``listed_actions_are_legal`` applies in each state (checking
them all would make long runs, and their shrinking, slow)."""


def _all_cards(state: GameState) -> Counter[Card]:
    """Every card of a state, wherever it lies."""
    counts: Counter[Card] = Counter()
    for hand in state.hands:
        counts.update(hand)
    counts.update(state.stock)
    counts.update(state.discard_pile)
    for team in state.melds:
        for meld in team:
            counts.update(meld.cards)
    for pile in state.extra_piles:
        if pile is not None:
            counts.update(pile)
    return counts


def _snapshot(state: GameState) -> tuple[object, ...]:
    """Everything a state holds, down to the immutable tuples and cards: equal for as long as no
    part of the state (its fields, its melds' fields, its rule set's fields) is changed."""
    melds = tuple(attrs.astuple(m, recurse=False) for team in state.melds for m in team)
    fields = attrs.astuple(state, recurse=False, filter=_not_a_cache)
    return (fields, melds, attrs.astuple(state.rules, recurse=False))


def _not_a_cache(field: attrs.Attribute[object], value: object) -> bool:
    return field.init  # the fields set by the constructor; not the legal actions cached later


class BuracoStateMachine(RuleBasedStateMachine):
    """Plays one hand by legal actions, illegal ones and hidden reshuffles, checking after each step
    that the 108 cards are all there, that the state validates, that every listed action is legal,
    that earlier states never changed, that the scores add up, and that views show what they must
    and nothing more.

    ``state`` is the state in play and ``history`` every state so far. Subclass it to test your own
    code: override the hooks (they do nothing here), add ``@rule()``s and ``@invariant()``s, and
    set ``rules_strategy`` to the rule sets to deal (default: presets and house rules).
    """

    rules_strategy: ClassVar[st.SearchStrategy[RuleSet]] = rule_sets()
    """The rule sets a hand is dealt with."""
    reshuffles: ClassVar[bool] = True
    """Whether the machine may deal anew what the seat to act cannot see (a different but equally
    possible game from that seat's point of view)."""

    def __init__(self) -> None:
        super().__init__()
        self.state: GameState | None = None
        self.history: list[tuple[GameState, tuple[object, ...]]] = []
        """Each state so far, with a snapshot of its contents taken when it was reached."""

    # --- hooks for subclasses ------------------------------------------------------------------

    def on_start(self, state: GameState) -> None:
        """Called with the first state of the hand."""

    def on_apply(self, before: GameState, action: Action, after: GameState) -> None:
        """Called after the engine applied a legal ``action``."""

    def on_refuse(
        self, state: GameState, action: object, player: int | None, error: IllegalAction
    ) -> None:
        """Called after the engine refused ``action`` (sent by ``player``) with ``error``."""

    def on_reshuffle(self, before: GameState, after: GameState) -> None:
        """Called after the hidden cards were dealt anew: ``after`` replaces ``before``."""

    # --- rules ---------------------------------------------------------------------------------

    @property
    def current(self) -> GameState:
        """The state in play (once the hand is dealt)."""
        if self.state is None:
            raise RuntimeError("no hand has been dealt yet")
        return self.state

    def _push(self, state: GameState) -> None:
        self.state = state
        self.history.append((state, _snapshot(state)))

    @initialize(data=st.data())
    def deal(self, data: st.DataObject) -> None:
        """Deal a hand of a drawn rule set and player count."""
        rules = data.draw(self.rules_strategy, label="rules")
        players = data.draw(st.sampled_from(rules.player_counts), label="players")
        first = data.draw(st.integers(min_value=0, max_value=players - 1), label="first player")
        state = new_game(rules, players, seed=data.draw(seeds(), label="seed"), first_player=first)
        self._push(state)
        self.on_start(state)

    @precondition(lambda self: self.state is not None and not self.state.is_over)
    @rule(data=st.data())
    def play_legal(self, data: st.DataObject) -> None:
        """Apply one of the legal actions (shrinks towards the first listed)."""
        before = self.current
        action = data.draw(legal_actions_of(before), label=f"seat {before.current_player} plays")
        after = apply(before, action)
        self._push(after)
        self.on_apply(before, action, after)

    @precondition(lambda self: self.state is not None)
    @rule(data=st.data())
    def play_illegal(self, data: st.DataObject) -> None:
        """Send an illegal action: ``apply`` must refuse it with the expected code and leave the
        state as it was."""
        state = self.current
        probe: Refusal = data.draw(illegal_actions_of(state), label="illegal action")
        try:
            apply(state, probe.action, probe.player)
        except IllegalAction as error:
            if error.code is not probe.code:
                raise AssertionError(
                    f"{probe.reason}: {probe.action!r} refused as {error.code}, "
                    f"not {probe.code}: {error}"
                ) from error
            self.on_refuse(state, probe.action, probe.player, error)
        else:
            raise AssertionError(f"{probe.reason}: {probe.action!r} was accepted")

    @precondition(lambda self: self.reshuffles and self.state is not None)
    @rule(seed=seeds())
    def reshuffle_hidden(self, seed: int) -> None:
        """Deal anew what the seat to act cannot see: its view and legal actions stay the same."""
        before = self.current
        seat = before.current_player
        after = determinize(view(before, seat), random.Random(seed))
        if view(after, seat) != view(before, seat):
            raise AssertionError("a hidden reshuffle changed the view of the seat to act")
        if legal_actions(after) != legal_actions(before):
            raise AssertionError("the legal actions depend on cards the seat to act cannot see")
        self._push(after)
        self.on_reshuffle(before, after)

    # --- invariants ----------------------------------------------------------------------------

    @invariant()
    def all_108_cards_are_there(self) -> None:
        """The cards of hands, stock, pile, melds and extra piles are the 108-card deck (R2)."""
        if self.state is not None and _all_cards(self.state) != DECK_COUNTS:
            raise AssertionError("the 108 cards are not all there")

    @invariant()
    def the_state_validates(self) -> None:
        """``validate`` finds nothing wrong, and the outcome is set exactly when the hand is
        over."""
        if self.state is None:
            return
        validate(self.state)
        if (self.state.outcome is None) == self.state.is_over:
            raise AssertionError("a hand has an outcome exactly when it is over")

    @invariant()
    def listed_actions_are_legal(self) -> None:
        """Every listed action is legal, and a sample of them (the first, the last and a few
        between) applies; a hand in play always has one, a finished hand none."""
        if self.state is None:
            return
        state = self.state
        actions = legal_actions(state)
        if state.is_over != (not actions):
            raise AssertionError("a hand in play must have legal actions, a finished one none")
        for action in actions:
            if not is_legal(state, action):
                raise AssertionError(f"{action} is listed but not legal")
        for action in actions[:: max(1, len(actions) // _APPLIED_PER_STEP)] + actions[-1:]:
            apply(state, action, state.current_player)

    @invariant()
    def earlier_states_never_change(self) -> None:
        """The state before the last step still holds what it held when it was reached (every
        earlier state is checked again at the end of the run)."""
        for state, reached in self.history[-2:]:
            if _snapshot(state) != reached:
                raise AssertionError("an earlier state changed")

    def teardown(self) -> None:
        """Check that no state of the run ever changed."""
        for index, (state, reached) in enumerate(self.history):
            if _snapshot(state) != reached:
                raise AssertionError(f"state {index} of the run changed after it was reached")

    @invariant()
    def scores_add_up(self) -> None:
        """Each team's total is its items' sum, the table and canasta items count its melds, and
        only the team that went out gets the bonus (R16-R18)."""
        if self.state is None:
            return
        state = self.state
        values = state.rules.value_by_id
        for team, points in enumerate(score(state)):
            if not isinstance(points, TeamScore):
                raise AssertionError("score must give TeamScores")
            melds = state.melds[team]
            expected_total = (
                points.table + points.canastas + points.going_out - points.hands - points.extra_pile
            )
            items = (points.table, points.canastas, points.going_out, points.hands)
            if points.total != expected_total or min(*items, points.extra_pile) < 0:
                raise AssertionError(f"team {team}'s score does not add up: {points}")
            if points.table != sum(values[c] for m in melds for c in m.cards):
                raise AssertionError(f"team {team}'s table points are not its melds' values")
            if points.canastas != sum(canasta_bonus(m, state.rules) for m in melds):
                raise AssertionError(f"team {team}'s canasta bonuses are wrong")
            bonus = state.rules.going_out_bonus if state.went_out == team else 0
            if points.going_out != bonus:
                raise AssertionError(f"team {team}'s going-out bonus is wrong")

    @invariant()
    def views_show_only_what_they_may(self) -> None:
        """Each seat's view holds its own hand, the sizes of the others, of a closed pile only its
        top card (R10), and the outcome; the view of the seat to act lists the state's legal
        actions, any other view none."""
        if self.state is None:
            return
        state = self.state
        for seat in range(state.players):
            seen = view(state, seat)
            if seen.hand != state.hands[seat]:
                raise AssertionError(f"seat {seat}'s view does not hold its own hand")
            if seen.hand_sizes != tuple(map(len, state.hands)):
                raise AssertionError("a view gives the wrong hand sizes")
            if seen.stock_size != len(state.stock):
                raise AssertionError("a view gives the wrong stock size")
            visible = state.discard_pile[-1:] if state.rules.closed_discard_pile else None
            if visible is not None and seen.discard_pile != visible:
                raise AssertionError("a view shows a closed pile below its top (R10)")
            if seen.outcome != state.outcome:
                raise AssertionError("a view gives another outcome than the state")
            if seen.idle_turns != state.idle_turns:
                raise AssertionError("a view gives another count of idle turns (R24)")
            listed = legal_actions(seen)
            if listed != (legal_actions(state) if seat == state.current_player else ()):
                raise AssertionError(f"seat {seat}'s view lists other legal actions")

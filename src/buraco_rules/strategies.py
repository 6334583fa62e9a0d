"""Hypothesis strategies for property-based tests of code built on buraco-rules.

This module needs `hypothesis <https://hypothesis.readthedocs.io>`_, which is not a dependency of
the engine: install it in your test environment (it comes with the ``dev`` extra).

>>> from hypothesis import given
>>> import buraco_rules as br
>>> from buraco_rules.strategies import game_states
>>> @given(game_states(max_steps=30))
... def test_every_state_has_a_move_until_the_end(state):
...     if not (state.is_over or br.legal_actions(state)):
...         raise RuntimeError("a live state with no legal action")
>>> test_every_state_has_a_move_until_the_end()
"""

from __future__ import annotations

from hypothesis import strategies as st

from . import variants
from .actions import Action
from .engine import apply, legal_actions, new_game
from .rules import RuleSet
from .state import GameState

__all__ = ["game_states", "legal_actions_of", "rule_sets", "seeds"]


def rule_sets() -> st.SearchStrategy[RuleSet]:
    """One of the three variants' rule sets."""
    return st.sampled_from([variants.get(name) for name in variants.NAMES])


def seeds() -> st.SearchStrategy[int]:
    """Seeds for ``new_game``."""
    return st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def _game_states(
    draw: st.DrawFn, rules: RuleSet | None, players: int | None, max_steps: int
) -> GameState:
    chosen_rules = rules if rules is not None else draw(rule_sets())
    count = players if players is not None else draw(st.sampled_from(chosen_rules.player_counts))
    state = new_game(chosen_rules, count, seed=draw(seeds()))
    for _ in range(draw(st.integers(min_value=0, max_value=max_steps))):
        actions = legal_actions(state)
        if not actions:
            break
        state = apply(state, actions[draw(st.integers(min_value=0, max_value=len(actions) - 1))])
    return state


def game_states(
    *, rules: RuleSet | None = None, players: int | None = None, max_steps: int = 200
) -> st.SearchStrategy[GameState]:
    """States reached by up to ``max_steps`` legal actions from a seeded deal (of ``rules`` with
    ``players``, or of any variant and player count). Shrinks towards early states and first
    actions."""
    if max_steps < 0:
        raise ValueError("max_steps must be at least 0")
    return _game_states(rules, players, max_steps)


def legal_actions_of(state: GameState) -> st.SearchStrategy[Action]:
    """One of the legal actions of ``state``, which must not be over."""
    actions = legal_actions(state)
    if not actions:
        raise ValueError("the hand is over: there is no legal action")
    return st.sampled_from(actions)

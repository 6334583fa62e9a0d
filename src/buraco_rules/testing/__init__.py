"""A testing kit for code built on buraco-rules: Hypothesis strategies and a state machine.

Needs `hypothesis <https://hypothesis.readthedocs.io>`_, which the engine itself does not:
install it with ``pip install 'buraco-rules[testing]'``.

>>> from hypothesis import given, settings
>>> import buraco_rules as br
>>> from buraco_rules.testing import game_states
>>> @settings(max_examples=10)
... @given(game_states(max_steps=30))
... def test_every_state_has_a_move_until_the_end(state):
...     if not (state.is_over or br.legal_actions(state)):
...         raise RuntimeError("a hand in play with no legal action")
>>> test_every_state_has_a_move_until_the_end()
"""

from __future__ import annotations

from .machine import BuracoStateMachine
from .strategies import (
    InvalidMeld,
    Refusal,
    cards,
    game_states,
    hands,
    illegal_actions_of,
    invalid_melds,
    legal_actions_of,
    matches,
    rule_sets,
    seeds,
    valid_melds,
    views,
)

__all__ = [
    "BuracoStateMachine",
    "InvalidMeld",
    "Refusal",
    "cards",
    "game_states",
    "hands",
    "illegal_actions_of",
    "invalid_melds",
    "legal_actions_of",
    "matches",
    "rule_sets",
    "seeds",
    "valid_melds",
    "views",
]

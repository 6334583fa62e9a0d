"""The old home of the Hypothesis strategies, kept so that existing imports work: everything here
is :mod:`buraco_rules.testing` (import from there in new code). Needs hypothesis.

>>> from buraco_rules.strategies import game_states
>>> from buraco_rules import testing
>>> game_states is testing.game_states
True
"""

from __future__ import annotations

from .testing import game_states, legal_actions_of, rule_sets, seeds

__all__ = ["game_states", "legal_actions_of", "rule_sets", "seeds"]

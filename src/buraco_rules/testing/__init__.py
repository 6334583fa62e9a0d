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

Installed as a package, the kit also registers its strategies with Hypothesis (through the
``hypothesis`` entry point), so that ``st.from_type`` and ``st.builds`` find them: a ``Card`` is
drawn with :func:`cards`, a ``RuleSet`` with :func:`rule_sets`, a ``GameState`` with
:func:`game_states`, a ``PlayerView`` with :func:`views`, a ``Match`` with :func:`matches` and a
``Meld`` with :func:`valid_melds` of a preset.

>>> from hypothesis import strategies as st
>>> @settings(max_examples=5)
... @given(st.from_type(br.GameState))
... def test_states_from_their_type(state):
...     br.validate(state)  # raises InvalidState if anything is wrong
>>> test_states_from_their_type()
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.cards import Card
from ..core.rules import RuleSet
from ..engine.state import GameState
from ..hidden.views import PlayerView
from ..melds.meld import Meld
from ..play.match import Match
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


def _hypothesis_setup_hook() -> None:
    """Register the kit's strategies for their types (Hypothesis calls this on import)."""
    st.register_type_strategy(Card, cards())
    st.register_type_strategy(RuleSet, rule_sets())
    st.register_type_strategy(GameState, game_states())
    st.register_type_strategy(PlayerView, views())
    st.register_type_strategy(Match, matches())
    presets = rule_sets(house_rules=False)
    st.register_type_strategy(Meld, presets.flatmap(lambda rules: valid_melds(rules)))


_hypothesis_setup_hook()  # also when the kit is imported without the entry point

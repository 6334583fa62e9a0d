"""Hypothesis strategies for cards, melds, rule sets, reachable states, views and actions.

This module draws rule sets, states, matches and views; the cards and melds are
:mod:`buraco_rules.testing.melds`' and the actions :mod:`buraco_rules.testing.moves`', both
importable from here as from :mod:`buraco_rules.testing`.

Every strategy needs `hypothesis <https://hypothesis.readthedocs.io>`_ (``pip install
'buraco-rules[testing]'``). Each one takes keyword arguments only (besides the rule set or state
it works on), checks them when called (a bad one raises Hypothesis' ``InvalidArgument``), and
returns a ``SearchStrategy`` that shrinks towards small, early, simple examples.
"""

from __future__ import annotations

from typing import Any, Final

import attrs
from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .. import variants
from ..core.errors import InvalidRules
from ..core.rules import MAX_STALEMATE_TURNS, MIN_STALEMATE_TURNS, RuleSet
from ..engine.state import GameState
from ..hidden.views import PlayerView, view
from ..play.face import apply, legal_actions, new_game
from ..play.match import Match, new_match
from .arguments import check_rules, check_size
from .melds import InvalidMeld, cards, hands, invalid_melds, valid_melds
from .moves import Refusal, illegal_actions_of, legal_actions_of

__all__ = [
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

_PRESETS: Final = tuple(variants.get(name) for name in variants.NAMES)


def seeds() -> st.SearchStrategy[int]:
    """Seeds for ``new_game``, shrinking towards 0."""
    return st.integers(min_value=0, max_value=2**32 - 1)


def _bonus() -> st.SearchStrategy[int]:
    return st.integers(min_value=0, max_value=20).map(lambda n: n * 50)


@st.composite
def _house_rules(draw: st.DrawFn, preset: RuleSet) -> RuleSet:
    bonuses = preset.canasta_bonuses
    mixed = draw(_bonus(), label="mixed canasta")
    clean = draw(_bonus().map(lambda extra: mixed + extra), label="clean canasta")
    changes: dict[str, Any] = {
        "hand_size": draw(st.integers(min_value=7, max_value=13), label="R2 hand"),
        "extra_pile_size": draw(st.integers(min_value=7, max_value=13), label="R2 extra pile"),
        "max_natural_aces_in_run": draw(st.sampled_from([1, 2]), label="R6"),
        "closed_discard_pile": draw(st.booleans(), label="R10"),
        "single_taken_card_discard_banned": draw(st.booleans(), label="R11"),
        "going_out_needs_clean_canasta": draw(st.booleans(), label="R13 clean"),
        "may_go_out_by_melding": draw(st.booleans(), label="R13 melding"),
        "may_go_out_discarding_wildcard": draw(st.booleans(), label="R13 wildcard"),
        "extra_pile_becomes_stock": draw(st.booleans(), label="R15"),
        "stock_reserve": draw(st.integers(min_value=0, max_value=3), label="R21"),
        "stalemate_turns": draw(
            st.integers(min_value=MIN_STALEMATE_TURNS, max_value=MAX_STALEMATE_TURNS), label="R24"
        ),
        "going_out_bonus": draw(_bonus(), label="R16 going out"),
        "extra_pile_penalty": draw(_bonus(), label="R16 penalty"),
        "untouched_extra_pile_is_void": draw(st.booleans(), label="R19"),
        "take_both_extra_piles": draw(st.booleans(), label="R31"),
        "canasta_bonuses": attrs.evolve(
            bonuses,
            mixed=mixed,
            clean=clean,
            all_ranks=draw(st.sampled_from([clean, bonuses.all_ranks]), label="R18 all ranks"),
            ace_to_ace=draw(st.sampled_from([clean, bonuses.ace_to_ace]), label="R18 A-A"),
        ),
        "match_target": draw(st.integers(min_value=1, max_value=40), label="R20") * 100,
    }
    if preset.sets_allowed:
        changes["max_set_size"] = draw(st.integers(min_value=7, max_value=9), label="R5 set size")
    changes["ace_low_only"] = draw(st.booleans(), label="house rule: the ace low only")
    changes["minimum_opening"] = draw(
        st.sampled_from([0, 15, 50, 90, 150]), label="house rule: the minimum opening (R25)"
    )
    # The catalogue of house rules (R26-R32, docs/rules/house-rules.md).
    if changes["closed_discard_pile"]:
        changes["closed_take_naturals_only"] = draw(st.booleans(), label="R26")
    if preset.sets_allowed:
        changes["set_ranks"] = draw(st.sampled_from([None, "AK", "A", "345678"]), label="R27")
    size, bonus = draw(st.sampled_from([(0, 0), (8, 50), (12, 300)]), label="R28")
    changes["long_meld_size"], changes["long_meld_bonus"] = size, bonus
    changes["locked_wildcards"] = draw(st.booleans(), label="R29")
    changes["first_draw_refusal"] = draw(st.booleans(), label="R32")
    changes["opening_thresholds"] = draw(
        st.sampled_from([(), ((300, 50),), ((100, 15), (1000, 90))]), label="R30"
    )
    try:
        return attrs.evolve(preset, **changes)
    except InvalidRules:
        reject()  # a combination the rules refuse (and say why): draw another


def rule_sets(*, house_rules: bool = True) -> st.SearchStrategy[RuleSet]:
    """The presets of :mod:`buraco_rules.variants` and, unless ``house_rules=False``, valid
    house-rule variations of them (hand and extra-pile sizes, a closed or open pile, ace and set
    limits, the ace low only, a minimum opening, going-out conditions, the stock's reserve,
    bonuses, penalties, match targets, and the catalogue of R26-R32; any combination the rules
    refuse with ``InvalidRules`` is skipped), shrinking towards the presets."""
    if not isinstance(house_rules, bool):
        raise InvalidArgument(f"house_rules must be a bool, not {house_rules!r}")
    presets = st.sampled_from(_PRESETS)
    if not house_rules:
        return presets
    return st.one_of(presets, presets.flatmap(_house_rules))


@st.composite
def _game_states(
    draw: st.DrawFn, rules: RuleSet | None, players: int | None, min_steps: int, max_steps: int
) -> GameState:
    if rules is None:
        fitting = [r for r in _PRESETS if players is None or players in r.player_counts]
        rules = draw(st.sampled_from(fitting), label="rules")
    if players is None:
        players = draw(st.sampled_from(rules.player_counts), label="players")
    state = new_game(rules, players, seed=draw(seeds(), label="seed"))
    steps = draw(st.integers(min_value=min_steps, max_value=max_steps), label="steps")
    for _ in range(steps):
        actions = legal_actions(state)
        if not actions:  # the hand ended sooner
            break
        index = draw(st.integers(min_value=0, max_value=len(actions) - 1))
        state = apply(state, actions[index])
    return state


def _check_play(rules: RuleSet | None, players: int | None, min_steps: int, max_steps: int) -> None:
    """The arguments of a strategy that plays from a deal: :func:`game_states`, :func:`matches`."""
    if rules is not None:
        check_rules(rules)
    if players is not None and players not in (rules.player_counts if rules else (2, 4)):
        raise InvalidArgument(f"players must be a count the rules allow or None, not {players!r}")
    check_size("max_steps", max_steps, 0, 100_000)
    check_size("min_steps", min_steps, 0, max_steps)


def game_states(
    *,
    rules: RuleSet | None = None,
    players: int | None = None,
    min_steps: int = 0,
    max_steps: int = 200,
) -> st.SearchStrategy[GameState]:
    """States reached by ``min_steps`` to ``max_steps`` legal actions from a seeded deal, or the
    final state of a hand that ended sooner: reachable states only.

    The deal is of ``rules`` (default: any of the three variants) with ``players`` (default: any
    count the rules allow). Shrinks towards short games, seed 0 and each state's first listed
    action. For house rules, ``rule_sets().flatmap(lambda r: game_states(rules=r))``.
    """
    _check_play(rules, players, min_steps, max_steps)
    return _game_states(rules, players, min_steps, max_steps)


@st.composite
def _matches(
    draw: st.DrawFn, rules: RuleSet | None, players: int | None, min_steps: int, max_steps: int
) -> Match:
    if rules is None:
        fitting = [r for r in _PRESETS if players is None or players in r.player_counts]
        target = draw(st.integers(min_value=1, max_value=6), label="match target") * 100
        rules = attrs.evolve(draw(st.sampled_from(fitting), label="rules"), match_target=target)
    if players is None:
        players = draw(st.sampled_from(rules.player_counts), label="players")
    first = draw(st.integers(min_value=0, max_value=players - 1), label="first player")
    match = new_match(rules, players, seed=draw(seeds(), label="seed"), first_player=first)
    steps = draw(st.integers(min_value=min_steps, max_value=max_steps), label="steps")
    for _ in range(steps):
        if match.is_over:
            break
        actions = legal_actions(match)
        match = apply(match, actions[draw(st.integers(min_value=0, max_value=len(actions) - 1))])
    return match


def matches(
    *,
    rules: RuleSet | None = None,
    players: int | None = None,
    min_steps: int = 0,
    max_steps: int = 400,
) -> st.SearchStrategy[Match]:
    """Matches (R20) reached by ``min_steps`` to ``max_steps`` legal actions from
    ``new_match``, or decided sooner.

    Without ``rules``, a preset whose match target is lowered to 100-600 points, so that matches
    end within a few hands and finished ones come up; pass ``rules`` for a preset's own target.
    Shrinks towards short matches, seed 0 and the first listed action.
    """
    _check_play(rules, players, min_steps, max_steps)
    return _matches(rules, players, min_steps, max_steps)


@st.composite
def _views(draw: st.DrawFn, states: st.SearchStrategy[GameState], to_act: bool) -> PlayerView:
    state = draw(states)
    if to_act:
        return view(state, state.current_player)
    return view(state, draw(st.integers(min_value=0, max_value=state.players - 1), label="seat"))


def views(
    *,
    rules: RuleSet | None = None,
    players: int | None = None,
    min_steps: int = 0,
    max_steps: int = 200,
    to_act: bool = False,
) -> st.SearchStrategy[PlayerView]:
    """Views of the states :func:`game_states` gives (same arguments), for any seat, or only for
    the seat to act with ``to_act=True``."""
    states = game_states(rules=rules, players=players, min_steps=min_steps, max_steps=max_steps)
    return _views(states, to_act)

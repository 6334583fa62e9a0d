"""Games played for the tests of the formats: seeded random play, and a simple greedy player that
plays real hands to the end (the recorded games of ``tests/data`` are its games)."""

from __future__ import annotations

import random

import buraco_rules as br
from buraco_rules import variants

VARIANTS = tuple(variants.get(name) for name in variants.NAMES)
CONFIGS = [(rules, n) for rules in VARIANTS for n in rules.player_counts]
CONFIG_IDS = [f"{rules.name}-{n}p" for rules, n in CONFIGS]
MAX_STEPS = 3000


def _cards_placed(action: br.Action) -> int:
    inner = action.meld if isinstance(action, br.TakeDiscardPile) else action
    return len(inner.cards) if isinstance(inner, br.NewMeld | br.AddToMeld) else 0


def greedy_choice(state: br.GameState, actions: tuple[br.Action, ...]) -> br.Action:
    """Meld as many cards as one action can; take a pile of three or more; otherwise draw, and
    discard the card worth the most that is no wildcard."""
    placing = [a for a in actions if _cards_placed(a)]
    if placing:
        return max(placing, key=lambda a: (_cards_placed(a), -actions.index(a)))
    if state.phase is br.Phase.DRAW:
        if br.TakeDiscardPile() in actions and len(state.discard_pile) >= 3:
            return br.TakeDiscardPile()
        return actions[0]
    values = state.rules.value_by_id
    return max(
        actions,
        key=lambda a: (
            isinstance(a, br.Discard) and not a.card.is_wild,
            values[a.card] if isinstance(a, br.Discard) else 0,
        ),
    )


def play(
    rules: br.RuleSet, players: int, seed: int, *, greedy: bool = False
) -> tuple[list[br.GameState], list[br.Action]]:
    """Every state of one game dealt from ``seed`` and the actions between them, chosen at random
    (from ``seed`` too) or by :func:`greedy_choice`."""
    rng = random.Random(seed)
    state = br.new_game(rules, players, seed=seed)
    states, actions = [state], []
    while not state.is_over:
        assert len(actions) < MAX_STEPS
        legal = br.legal_actions(state)
        action = greedy_choice(state, legal) if greedy else legal[rng.randrange(len(legal))]
        state = br.apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


def sample(states: list[br.GameState], k: int, seed: int) -> list[br.GameState]:
    """``k`` of ``states`` (always the first and the last)."""
    rng = random.Random(seed)
    middle = states[1:-1]
    return [states[0], *rng.sample(middle, min(k, len(middle))), states[-1]]


def play_match(
    rules: br.RuleSet, players: int, seed: int
) -> tuple[list[br.Match], list[br.Action]]:
    """Every match state of a whole match played by :func:`greedy_choice`, and its actions."""
    match = br.new_match(rules, players, seed=seed)
    matches, actions = [match], []
    while not match.is_over:
        action = greedy_choice(match.hand, br.legal_actions(match))
        match = br.apply(match, action)
        matches.append(match)
        actions.append(action)
    return matches, actions

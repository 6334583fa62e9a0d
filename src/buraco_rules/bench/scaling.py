"""What listing the legal actions costs by hand size (``--by-hand-size``): µs per call and per
listed action of ``legal_actions`` and of the RL encoding's ``legal_tokens``, on play-phase
states whose hand holds 11, 22, 44 or 72 cards.

Hands grow to 57-73 cards in real Italian play when a long pile is taken, and a state then lists
thousands of melds. The states here are random deals of two players, the seat to act having drawn,
with cards moved from the stock into its hand up to the size asked (so that every card is where
some legal hand could hold it); each state is timed on fresh copies (no listing kept): all of
them once right after the memo caches are emptied (``cold``: every search a miss, the ceiling),
and each as the best of three calls in a row (``warm``: the second and third calls find the
first's answers in the caches, so it is a cache-hit figure, the floor; a game's next state,
which differs by a card or a meld, finds some of them).
Its cost should grow no faster than the number of actions listed: the µs per listed action should
stay level from size to size.
"""

from __future__ import annotations

import random
import time
from typing import Any

from .. import variants
from ..core.memo import clear_caches
from ..core.rules import RuleSet
from ..engine.state import GameState, Phase
from ..engine.transitions import replace
from ..play.face import apply, legal_actions, new_game
from ..rl.encoding import legal_tokens
from .playouts import build

HAND_SIZES: tuple[int, ...] = (11, 22, 44, 72)
"""The hand sizes measured when none are given."""


def _state_with_hand(rules: RuleSet, size: int, rng: random.Random) -> GameState:
    """A two-player play-phase state whose seat to act holds ``size`` cards, the extra ones moved
    from the stock (in deal order) into its hand."""
    while True:
        state = new_game(rules, 2, seed=rng.getrandbits(32))
        state = apply(state, legal_actions(state)[0])  # the draw from the stock
        if state.phase is not Phase.PLAY:
            continue
        seat = state.current_player
        hand = state.hands[seat]
        extra = size - len(hand)
        if extra < 0 or extra > len(state.stock):
            hand, stock = hand[:size], state.stock + hand[size:]
        else:
            hand, stock = hand + state.stock[:extra], state.stock[extra:]
        hands = list(state.hands)
        hands[seat] = tuple(sorted(hand))
        return replace(state, hands=tuple(hands), stock=stock)


def _cold(fn: Any, states: list[GameState]) -> tuple[float, int]:
    """CPU seconds of ``fn`` over fresh copies of ``states`` (made outside the timed calls) right
    after the memo caches are emptied, and the actions they listed."""
    copies = [replace(s) for s in states]
    clear_caches()
    listed = 0
    start = time.process_time()
    for copy in copies:
        listed += len(fn(copy))
    return time.process_time() - start, listed


def _warm(fn: Any, states: list[GameState], repeat: int = 3) -> float:
    """CPU seconds of ``fn`` over ``states``, each the best of ``repeat`` calls on fresh copies in
    a row: the caches then hold what that hand needs, as they do for the next states of a game,
    which differ from it by a card or a meld (a pass over all the states at once would measure
    their eviction: tens of thousands of actions overflow the bounded caches)."""
    total = 0.0
    for state in states:
        copies = [replace(state) for _ in range(repeat)]
        best = float("inf")
        for copy in copies:
            start = time.process_time()
            fn(copy)
            best = min(best, time.process_time() - start)
        total += best
    return total


def hand_size_figures(
    rules: RuleSet, sizes: tuple[int, ...] = HAND_SIZES, states: int = 20, seed: int = 12345
) -> list[dict[str, Any]]:
    """For each hand size: the mean legal actions listed, and CPU µs per call and per listed
    action of ``legal_actions`` (cold and warm) and of ``legal_tokens`` (warm, its listing
    included), over ``states`` random states."""
    rng = random.Random(seed)
    rows = []
    for size in sizes:
        sample = [_state_with_hand(rules, size, rng) for _ in range(states)]
        cold, listed = _cold(legal_actions, sample)
        warm = _warm(legal_actions, sample)
        tokens = _warm(legal_tokens, sample)
        per_action = max(listed, 1)
        rows.append(
            {
                "variant": rules.name,
                "hand_size": size,
                "mean_legal_actions": listed / states,
                "us_legal_actions_cold": cold / states * 1e6,
                "us_legal_actions": warm / states * 1e6,
                "us_per_listed_action_cold": cold / per_action * 1e6,
                "us_per_listed_action": warm / per_action * 1e6,
                "us_legal_tokens": tokens / states * 1e6,
                "us_legal_tokens_per_listed_action": tokens / per_action * 1e6,
                "build": build(),
            }
        )
    return rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    """The rows of :func:`hand_size_figures` as a table."""
    lines = [
        f"{'variant':<16}{'hand':>5}{'actions':>9}{'µs cold':>10}{'µs warm':>10}"
        f"{'µs/action':>11}{'tokens µs':>11}{'tok/action':>11}"
    ]
    for r in rows:
        lines.append(
            f"{r['variant']:<16}{r['hand_size']:>5}{r['mean_legal_actions']:>9.0f}"
            f"{r['us_legal_actions_cold']:>10.0f}{r['us_legal_actions']:>10.0f}"
            f"{r['us_per_listed_action']:>11.2f}{r['us_legal_tokens']:>11.0f}"
            f"{r['us_legal_tokens_per_listed_action']:>11.2f}"
        )
    return "\n".join(lines)


def default_variants() -> tuple[RuleSet, ...]:
    """The variants measured when none are given: Italian Buraco and Buraco Fechado."""
    return (variants.ITALIAN, variants.BURACO_FECHADO)

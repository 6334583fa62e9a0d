"""What restoring a table costs: the longest records R24 allows, and matches of one-draw hands,
decoded and replayed (``--replay``)."""

from __future__ import annotations

import gc
import platform
import random
import tracemalloc
from typing import Any

import attrs

from .. import variants
from ..core.actions import Action, Discard, DrawFromStock, TakeDiscardPile
from ..core.memo import clear_caches
from ..core.rules import MAX_STALEMATE_TURNS
from ..engine.state import Phase
from ..formats import GameRecord, MatchRecord, from_json, replay, to_json
from ..play.face import apply, legal_actions, new_game
from ..play.match import new_match
from .playouts import _now, build


def adversarial_record(actions: int, *, house: bool = False, seed: int = 2026) -> GameRecord:
    """A legal Italian record of up to ``actions`` actions at the longest a hand can be (R24): the
    rules allow the most idle turns (``stalemate_turns`` at its maximum), and the seats take the
    one-card pile and discard another card, chosen at random, for as many turns in a row as R24
    allows, then draw once from the stock, until the stock runs out: ``2 * stalemate_turns``
    actions for each card the stock gives, the first term of :func:`~buraco_rules.longest_hand`,
    with hands that grow as the stock shrinks. ``house`` adds ``hand_size=1, extra_pile_size=2``
    (both extra piles become stock: a longer hand). Built without listing any legal actions
    (but for a pair of the taken card), so it costs little more than its replay."""
    rules = attrs.evolve(
        variants.ITALIAN,
        name="italian-longest",
        title="Italian, the longest hands",
        stalemate_turns=MAX_STALEMATE_TURNS,
    )
    if house:
        rules = attrs.evolve(
            rules, name="italian-house", title="Italian, house", hand_size=1, extra_pile_size=2
        )
    rng = random.Random(seed)
    start = new_game(rules, 2, seed=seed)
    state = start
    played: list[Action] = []
    while len(played) < actions and not state.is_over:
        action: DrawFromStock | TakeDiscardPile | Discard
        if state.phase is Phase.DRAW:
            idle = state.discard_pile and state.idle_turns < rules.stalemate_turns - 1
            action = TakeDiscardPile() if idle else DrawFromStock()
        else:
            hand = [c for c in state.hands[state.current_player] if c != state.taken_single_card]
            if not hand:  # a pair of the card taken: R11 decides which may go
                hand = [a.card for a in legal_actions(state) if type(a) is Discard]
            action = Discard(rng.choice(hand))
        state = apply(state, action)
        played.append(action)
    return GameRecord.from_game(start, played)


def short_hands_match_record(hands: int, seed: int = 2026) -> MatchRecord:
    """A legal record of a match of ``hands`` hands (fewer if it is decided first) under Italian
    rules with ``stock_reserve=62``, for two: each hand is one draw and one discard."""
    rules = attrs.evolve(
        variants.ITALIAN,
        name="italian-reserve-62",
        title="Italian, one draw a hand",
        player_counts=(2,),
        default_players=2,
        stock_reserve=62,
    )
    start = new_match(rules, 2, seed=seed)
    match = start
    played: list[Action] = []
    while len(match.finished_hands) < hands and not match.is_over:
        hand = match.hand
        action = (
            DrawFromStock()
            if hand.phase is Phase.DRAW
            else Discard(hand.hands[hand.current_player][0])
        )
        match = apply(match, action)
        played.append(action)
    return MatchRecord.from_match(start, played)


def _replay_seconds(text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        clear_caches()
        gc.collect()
        start = _now()
        replay(from_json(text))
        best = min(best, _now() - start)
    return best


def replay_figures(actions: int = 10_000, hands: tuple[int, int] = (5, 50)) -> dict[str, Any]:
    """The cost of restoring a table from its record: ``from_json`` + ``replay`` of
    :func:`adversarial_record` (best of three runs, caches emptied before each), in microseconds
    per action, and its peak traced memory; and of :func:`short_hands_match_record` at two
    lengths, in microseconds per hand."""
    record = adversarial_record(actions, house=True)
    text = to_json(record)
    seconds = _replay_seconds(text)
    clear_caches()
    gc.collect()
    tracemalloc.start()
    replay(from_json(text))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    result: dict[str, Any] = {
        "replay_actions": len(record.actions),
        "replay_chars": len(text),
        "replay_seconds": seconds,
        "us_replay_per_action": seconds / len(record.actions) * 1e6,
        "replay_peak_mb": peak / 2**20,
    }
    for n in hands:
        match_record = short_hands_match_record(n)
        result[f"us_match_replay_per_hand_{n}"] = (
            _replay_seconds(to_json(match_record)) / max(1, len(match_record.scores or ())) * 1e6
        )
    result["python"] = platform.python_version()
    result["build"] = build()
    return result

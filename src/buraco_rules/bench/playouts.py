"""Random playouts and the cost of each API call in them, per variant and player count
(:func:`run`), and which build runs (:func:`build`)."""

from __future__ import annotations

import gc
import importlib.machinery
import platform
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

from ..core.memo import clear_caches
from ..core.rules import RuleSet
from ..engine.scoring import score
from ..engine.state import GameState
from ..formats import from_json, to_json
from ..hidden.views import view
from ..play import face as engine
from ..play.face import apply, is_legal, legal_actions, new_game

ROUNDS = 5
_now = time.perf_counter
_now_ns = time.perf_counter_ns


def _playout(rules: RuleSet, players: int, rng: random.Random) -> int:
    state = new_game(rules, players, seed=rng.getrandbits(32))
    steps = 0
    while not state.is_over:
        actions = legal_actions(state)
        state = apply(state, actions[int(rng.random() * len(actions))])
        steps += 1
    return steps


def _timer_overhead_ns(n: int = 100_000) -> float:
    total = 0
    for _ in range(n):
        a = _now_ns()
        total += _now_ns() - a
    return total / n


def _playout_round(
    rules: RuleSet, players: int, rng: random.Random, seconds: float
) -> dict[str, float]:
    games = steps = 0
    start = _now()
    while True:
        steps += _playout(rules, players, rng)
        games += 1
        if _now() - start >= seconds:
            break
    elapsed = _now() - start
    return {
        "playouts_per_s": games / elapsed,
        "mean_decision_steps": steps / games,
        "us_per_decision": elapsed / steps * 1e6,
    }


def _cache_hit_round(
    rules: RuleSet, players: int, rng: random.Random, seconds: float
) -> dict[str, float]:
    """Fresh playouts for about ``seconds``, then the same playouts again (the same deals, the
    same choices): the second play finds every position's answers in the memo caches. Its µs per
    decision is what a benchmark of repeated games reports, and no server, bot or trainer sees."""
    replay = random.Random()
    replay.setstate(rng.getstate())
    games = 0
    start = _now()
    while not games or _now() - start < seconds:
        _playout(rules, players, rng)
        games += 1
    steps = 0
    start = _now()
    for _ in range(games):
        steps += _playout(rules, players, replay)
    return {"us_per_decision_cache_hit": (_now() - start) / steps * 1e6}


def _instrumented_round(
    rules: RuleSet, players: int, rng: random.Random, seconds: float, overhead: float
) -> dict[str, float]:
    ns = {"legal_actions": 0, "apply": 0}
    decisions = n_legal = max_legal = 0
    start = _now()
    while _now() - start < seconds:
        state = new_game(rules, players, seed=rng.getrandbits(32))
        while not state.is_over:
            t0 = _now_ns()
            actions = legal_actions(state)
            t1 = _now_ns()
            action = actions[int(rng.random() * len(actions))]
            t2 = _now_ns()
            state = apply(state, action)
            t3 = _now_ns()
            ns["legal_actions"] += t1 - t0
            ns["apply"] += t3 - t2
            decisions += 1
            n_legal += len(actions)
            max_legal = max(max_legal, len(actions))
    return {
        "us_legal_actions": max(0.0, ns["legal_actions"] / decisions - overhead) / 1000,
        "us_apply": max(0.0, ns["apply"] / decisions - overhead) / 1000,
        "mean_num_legal": n_legal / decisions,
        "max_num_legal": max_legal,
    }


def _sample_states(
    rules: RuleSet, players: int, rng: random.Random, games: int = 20
) -> list[GameState]:
    states = []
    for _ in range(games):
        state = new_game(rules, players, seed=rng.getrandbits(32))
        trail = []
        while not state.is_over:
            trail.append(state)
            actions = legal_actions(state)
            state = apply(state, actions[int(rng.random() * len(actions))])
        states += rng.sample(trail, min(10, len(trail)))
    return states


def _per_call(fn: Callable[[Any], object], items: Sequence[Any]) -> float:
    """µs per call of ``fn``, called once on each item: a second call on the same item would
    find what the first left in the memo caches, which a server or a bot meets only by chance."""
    start = _now()
    for item in items:
        fn(item)
    return (_now() - start) / len(items) * 1e6


def _op_round(rules: RuleSet, players: int, rng: random.Random, seconds: float) -> dict[str, float]:
    """µs per call of the other API calls, each once on states of fresh games (the deals
    ``new_game`` makes, on seeds not drawn before)."""
    states: list[GameState] = []
    start = _now()
    while not states or _now() - start < seconds:
        states += [s for s in _sample_states(rules, players, rng, games=5) if not s.is_over]
    pairs = [(s, a) for s in states for a in legal_actions(s)]
    rng.shuffle(pairs)
    pairs = pairs[: 4 * len(states)]
    seeds = [rng.getrandbits(32) for _ in range(len(states))]
    return {
        "us_new_game": _per_call(lambda seed: new_game(rules, players, seed=seed), seeds),
        "us_apply_listed": _per_call(lambda p: apply(p[0], p[1]), pairs),
        "us_is_legal": _per_call(lambda p: is_legal(p[0], p[1]), pairs),
        "us_score": _per_call(score, states),
        "us_view": _per_call(lambda s: view(s, s.current_player), states),
        "us_json_round_trip": _per_call(lambda s: from_json(to_json(s)), states),
    }


def _retained_bytes(rules: RuleSet, players: int, rng: random.Random) -> float:
    """Bytes per state when a whole game's states are kept, legal actions included. The game is
    played once untraced and then replayed, so that the engine's memo caches (shared by all
    games) are not counted as the states' memory."""
    seed = rng.getrandbits(32)
    choices = []
    state = new_game(rules, players, seed=seed)
    while not state.is_over:
        actions = legal_actions(state)
        choices.append(int(rng.random() * len(actions)))
        state = apply(state, actions[choices[-1]])
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    state = new_game(rules, players, seed=seed)
    kept = [state]
    for choice in choices:
        state = apply(state, legal_actions(state)[choice])
        kept.append(state)
    legal_actions(state)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / len(kept)


def run(
    rules: RuleSet, players: int, seconds: float, seed: int = 12345, warmup: float | None = None
) -> dict[str, Any]:
    """Benchmark one variant and player count: empty the engine's memo caches, time a first
    round cold, warm up for ``warmup`` seconds (default: ``seconds``), then measure for about
    ``seconds``; the figures as a dict. Every deal is drawn from ``seed``'s generator, so each
    game timed is one never played before in the process (a fresh deal, as a server, a bot or a
    trainer meets it), but for ``us_per_decision_cache_hit``, which replays a round's games."""
    rng = random.Random(seed)
    overhead = _timer_overhead_ns()
    clear_caches()  # every configuration starts cold, whatever ran before it in this process
    cold = _playout_round(rules, players, rng, 0.1 * seconds)
    _playout_round(rules, players, rng, seconds if warmup is None else warmup)
    rounds: list[dict[str, float]] = []
    for _ in range(ROUNDS):
        figures = _playout_round(rules, players, rng, 0.5 * seconds / ROUNDS)
        figures.update(_instrumented_round(rules, players, rng, 0.25 * seconds / ROUNDS, overhead))
        rounds.append(figures)
    result: dict[str, Any] = {"variant": rules.name, "players": players}
    result["us_per_decision_cold"] = cold["us_per_decision"]
    for key in rounds[0]:
        result[key] = statistics.median(r[key] for r in rounds)
    result["max_num_legal"] = max(r["max_num_legal"] for r in rounds)
    result.update(_cache_hit_round(rules, players, rng, 0.1 * seconds))
    result.update(_op_round(rules, players, rng, 0.25 * seconds))
    result["bytes_per_retained_state"] = statistics.median(
        _retained_bytes(rules, players, rng) for _ in range(5)
    )
    result["python"] = platform.python_version()
    result["build"] = build()
    return result


def build() -> str:
    """``"compiled"`` when the engine runs as extension modules (the mypyc build), else
    ``"pure"``."""
    path = engine.__file__ or ""
    return "compiled" if path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else "pure"

"""Benchmark: random playouts and the cost of each API call, per variant and player count.

Run ``buraco-rules bench [--variant V] [--players N] [--seconds S] [--json]`` (or ``python -m
buraco_rules.bench``). Every
figure is the median of several timed rounds, taken after a warm-up (``--warmup``, by default as
long as ``--seconds``, the measuring budget of each variant and player count): the engine's memo
caches are emptied before each configuration, so the order of the configurations does not matter,
and one round timed right after that is reported as ``us_per_decision_cold``. Timings vary with
the machine's load: compare figures taken in one session.

``us_per_decision`` is a playout's time (the deal, ``legal_actions``, a uniform choice and
``apply`` at every decision) divided by its decisions: ``1e6 / (playouts_per_s *
mean_decision_steps)``, the terms in which engines with chance steps are compared per decision.
``build`` says whether the engine ran pure or compiled.

``--memory`` measures the memo caches instead: it plays random games of every variant for
``--seconds`` under ``tracemalloc``, then empties the caches one by one, and reports what each
held, its bytes per entry and the bytes it would hold full (its bound).

``--replay`` measures restoring a table from its record instead (a few seconds): ``from_json``
and ``replay`` of a long adversarial Italian record (take-one/discard-one turns by a seat holding
about 70 cards), in microseconds per action and peak traced memory, and the replay of matches of
one-draw hands, in microseconds per hand at two match lengths (equal when replay is linear).

``--adapters [HANDS]`` measures the reinforcement-learning adapters instead (needs the
``openspiel`` and ``pettingzoo`` extras, imported only then): the same random hands replayed
through the engine, the OpenSpiel game and the PettingZoo env, in CPU µs per engine decision and
per token step (:func:`adapter_figures`).
"""

from __future__ import annotations

import argparse
import gc
import importlib.machinery
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from . import engine, memo, variants
from .actions import Action, Discard, DrawFromStock, TakeDiscardPile
from .engine import apply, is_legal, legal_actions, new_game
from .formats import GameRecord, MatchRecord, from_json, replay, to_json
from .match import new_match
from .memo import clear_caches
from .rules import MAX_STALEMATE_TURNS, RuleSet
from .scoring import score
from .state import GameState, Phase
from .views import view

__all__ = ["main", "parser", "run"]

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


def _per_call(fn: Callable[[Any], object], items: Sequence[Any], seconds: float) -> float:
    n = 0
    start = _now()
    while True:
        for item in items:
            fn(item)
        n += len(items)
        if _now() - start >= seconds:
            break
    return (_now() - start) / n * 1e6


def _op_round(rules: RuleSet, players: int, rng: random.Random, seconds: float) -> dict[str, float]:
    states = [s for s in _sample_states(rules, players, rng) if not s.is_over]
    pairs = [(s, a) for s in states for a in legal_actions(s)]
    rng.shuffle(pairs)
    pairs = pairs[:500]
    seeds = [rng.getrandbits(32) for _ in range(50)]
    share = seconds / 5
    return {
        "us_new_game": _per_call(lambda seed: new_game(rules, players, seed=seed), seeds, share),
        "us_apply_listed": _per_call(lambda p: apply(p[0], p[1]), pairs, share),
        "us_is_legal": _per_call(lambda p: is_legal(p[0], p[1]), pairs, share),
        "us_score": _per_call(score, states, share),
        "us_view": _per_call(lambda s: view(s, s.current_player), states, share),
        "us_json_round_trip": _per_call(lambda s: from_json(to_json(s)), states, share),
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
    ``seconds``; the figures as a dict."""
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


def cache_memory(seconds: float, seed: int = 12345) -> dict[str, Any]:
    """Fill the memo caches by random play of every variant and player count for ``seconds``
    under ``tracemalloc``; then the bytes each cache held (what emptying it gave back), per
    entry, and full (its bound, from the mean entry)."""
    rng = random.Random(seed)
    configs = [(variants.get(n), p) for n in variants.NAMES for p in variants.get(n).player_counts]
    clear_caches()
    gc.collect()
    tracemalloc.start()
    games = 0
    start = _now()
    while _now() - start < seconds:
        rules, players = configs[games % len(configs)]
        _playout(rules, players, rng)
        games += 1
    gc.collect()
    caches: dict[str, Any] = {}
    sizes = memo.cache_sizes()
    for name, size in sizes.items():
        before = tracemalloc.get_traced_memory()[0]
        memo.clear_cache(name)
        gc.collect()
        held = before - tracemalloc.get_traced_memory()[0]
        per_entry = held / size.entries if size.entries else 0.0
        caches[name] = {
            "entries": size.entries,
            "maxsize": size.maxsize,
            "bytes": held,
            "bytes_per_entry": per_entry,
            "bound_bytes": per_entry * size.maxsize,
        }
    tracemalloc.stop()
    return {
        "games": games,
        "bytes_held": sum(c["bytes"] for c in caches.values()),
        "bound_bytes": sum(c["bound_bytes"] for c in caches.values()),
        "caches": caches,
        "python": platform.python_version(),
        "build": build(),
    }


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


ADAPTER_HANDS = 20
"""The random hands ``--adapters`` plays when given no count."""


def adapter_figures(rules: RuleSet, players: int, hands: int, seed: int = 12345) -> dict[str, Any]:
    """The RL adapters' throughput beside the engine's (``--adapters``; needs the
    ``openspiel`` and ``pettingzoo`` extras, imported only here).

    ``hands`` random hands (uniform legal actions, the deals ``env.reset(seed=seed + k)``
    makes) are played once, then replayed by each loop, in CPU time: the engine
    (``legal_actions`` + ``apply``); the OpenSpiel game (``legal_actions`` + ``apply_action``
    per token), then also with the acting seat's ``observation_tensor`` (pyspiel's list) and with
    its observer (``make_py_observer``'s ``set_from``, as ``open_spiel.python.observation`` reads
    a Python game); the PettingZoo env as :func:`buraco_rules.rl.pettingzoo.env` wraps it
    (``last`` + ``step`` per token) and unwrapped (``observe`` + ``step``). Figures are µs per
    engine decision (``us_per_decision_*``) and per token step (``us_per_token_*``)."""
    import pyspiel

    from .rl import openspiel
    from .rl.encoding import action_to_tokens
    from .rl.pettingzoo import BuracoAECEnv, env

    clock = time.process_time
    played: list[tuple[int, list[Action]]] = []
    for k in range(hands):
        rng = random.Random(seed + k)
        state = new_game(rules, players, seed=random.Random(seed + k).getrandbits(64))
        actions = []
        while not state.is_over:
            action = rng.choice(legal_actions(state))
            actions.append(action)
            state = apply(state, action)
        played.append((seed + k, actions))
    decisions = sum(len(actions) for _, actions in played)
    tokens = sum(len(action_to_tokens(a)) for _, actions in played for a in actions)

    def deal(hand_seed: int) -> GameState:
        return new_game(rules, players, seed=random.Random(hand_seed).getrandbits(64))

    def engine_loop() -> float:
        start = clock()
        for hand_seed, actions in played:
            state = deal(hand_seed)
            for action in actions:
                legal_actions(state)
                state = apply(state, action)
        return clock() - start

    game = pyspiel.load_game(
        openspiel.GAME_NAME, {"variant": rules.name, "players": players, "max_turns": 10_000}
    )

    def openspiel_loop(observe: str) -> float:
        observer = game.make_py_observer()
        elapsed = 0.0
        for hand_seed, actions in played:
            state = openspiel.from_engine_state(game, deal(hand_seed))
            spelt = [t for a in actions for t in action_to_tokens(a)]
            start = clock()
            for token in spelt:
                if observe == "tensor":
                    state.observation_tensor(state.current_player())
                elif observe == "observer":
                    observer.set_from(state, state.current_player())
                state.legal_actions()
                state.apply_action(token)
            elapsed += clock() - start
        return elapsed

    def pettingzoo_loop(wrapped: bool) -> float:
        table: Any = (
            env(rules.name, players, max_turns=10_000)
            if wrapped
            else BuracoAECEnv(rules.name, players, max_turns=10_000)
        )
        elapsed = 0.0
        for hand_seed, actions in played:
            spelt = iter([t for a in actions for t in action_to_tokens(a)])
            table.reset(seed=hand_seed)
            start = clock()
            while table.agents:
                if wrapped:
                    _, _, terminated, truncated, _ = table.last()
                else:
                    agent = table.agent_selection
                    terminated, truncated = table.terminations[agent], table.truncations[agent]
                    if not (terminated or truncated):
                        table.observe(agent)
                table.step(None if terminated or truncated else next(spelt))
            elapsed += clock() - start
        return elapsed

    loops: dict[str, Callable[[], float]] = {
        "engine": engine_loop,
        "openspiel": lambda: openspiel_loop(""),
        "openspiel_tensor": lambda: openspiel_loop("tensor"),
        "openspiel_observer": lambda: openspiel_loop("observer"),
        "pettingzoo": lambda: pettingzoo_loop(True),
        "pettingzoo_raw": lambda: pettingzoo_loop(False),
    }
    result: dict[str, Any] = {
        "variant": rules.name,
        "players": players,
        "hands": hands,
        "decisions": decisions,
        "tokens_per_decision": round(tokens / decisions, 3),
    }
    for name, loop in loops.items():
        clear_caches()
        elapsed = loop()
        result[f"us_per_decision_{name}"] = round(elapsed / decisions * 1e6, 1)
        if name != "engine":
            result[f"us_per_token_{name}"] = round(elapsed / tokens * 1e6, 1)
    return result


def _format_adapters(result: dict[str, Any]) -> str:
    rows = [
        ("engine (legal_actions + apply)", "engine"),
        ("OpenSpiel (legal_actions + apply_action)", "openspiel"),
        ("OpenSpiel + observation_tensor", "openspiel_tensor"),
        ("OpenSpiel + observer set_from", "openspiel_observer"),
        ("PettingZoo env (last + step)", "pettingzoo"),
        ("PettingZoo unwrapped (observe + step)", "pettingzoo_raw"),
    ]
    lines = [
        f"{result['variant']} {result['players']}p: {result['hands']} hands, "
        f"{result['decisions']} decisions, {result['tokens_per_decision']} tokens a decision "
        "(CPU µs)",
        f"  {'loop':<42} {'per token':>10} {'per decision':>13}",
    ]
    for label, key in rows:
        token = result.get(f"us_per_token_{key}")
        lines.append(
            f"  {label:<42} {'—' if token is None else f'{token:.0f}':>10} "
            f"{result[f'us_per_decision_{key}']:>13.0f}"
        )
    return "\n".join(lines)


def _format(result: dict[str, Any]) -> str:
    lines = [f"{result['variant']}, {result['players']} players (median of {ROUNDS} rounds)"]
    for key, value in result.items():
        if key in ("variant", "players"):
            continue
        text = f"{value:,.2f}" if isinstance(value, float) else str(value)
        lines.append(f"  {key:<28}{text:>14}")
    return "\n".join(lines)


def _configurations(names: Sequence[str], counts: Sequence[int] | None) -> list[tuple[str, int]]:
    return [
        (name, players)
        for name in names
        for players in variants.get(name).player_counts
        if counts is None or players in counts
    ]


def _bare_run_minutes(seconds: float) -> int:
    """The expected length of a run with no arguments, in whole minutes: each configuration
    takes about twice its budget (warm-up and measuring) plus a few seconds of sampling."""
    configs = len(_configurations(variants.NAMES, None))
    return max(1, round(configs * (2.1 * seconds + 5) / 60))


def parser() -> argparse.ArgumentParser:
    """The benchmark's arguments, as ``buraco-rules bench`` takes them."""
    from .cli.options import non_negative_float, positive_float, positive_int, whole_number

    seconds = 10.0
    minutes = _bare_run_minutes(seconds)
    configs = len(_configurations(variants.NAMES, None))
    parser = argparse.ArgumentParser(
        prog="buraco-rules bench",
        description="Benchmark the engine: random playouts per second and the cost of each call, "
        "per variant and player count.",
        epilog=f"With no arguments it measures all {configs} pairs of variant and player count, "
        f"{seconds:g} s each after as long a warm-up: about {minutes} minutes. "
        "docs/performance.md explains each figure.",
    )
    parser.add_argument(
        "--variant",
        choices=variants.NAMES,
        action="append",
        metavar="NAME",
        help=f"measure this variant, one of {', '.join(variants.NAMES)} (repeat for more; "
        "default: all)",
    )
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 4),
        action="append",
        help="measure this player count, 2 or 4 (repeat for both; default: each variant's)",
    )
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=seconds,
        metavar="S",
        help=f"the measuring budget of each variant and player count (default {seconds:g})",
    )
    parser.add_argument(
        "--seed", type=whole_number, default=12345, help="the playouts' seed (default 12345)"
    )
    parser.add_argument(
        "--warmup",
        type=non_negative_float,
        metavar="S",
        help="seconds of play before measuring (default: as long as --seconds)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per line (default: a table)"
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="measure the memo caches' memory and bound instead, for --seconds of play",
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="measure restoring tables from long records instead (a few seconds)",
    )
    parser.add_argument(
        "--adapters",
        type=positive_int,
        nargs="?",
        const=ADAPTER_HANDS,
        metavar="HANDS",
        help="measure the RL adapters instead: µs per token step and per engine decision through "
        "the OpenSpiel game and the PettingZoo env beside the engine's, over HANDS random hands "
        f"(default {ADAPTER_HANDS}) of each variant and player count (needs the openspiel and "
        "pettingzoo extras)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``buraco-rules bench``); bad arguments exit with status 2."""
    arguments = parser()
    args = arguments.parse_args(argv)
    if args.replay:
        print(json.dumps(replay_figures(), indent=None if args.json else 2))
        return 0
    if args.memory:
        print(json.dumps(cache_memory(args.seconds, args.seed), indent=None if args.json else 2))
        return 0
    names = args.variant or variants.NAMES
    for name in names:
        rules = variants.get(name)
        if args.players and not _configurations([name], args.players):
            counts = " or ".join(map(str, rules.player_counts))
            given = " or ".join(map(str, sorted(set(args.players))))
            arguments.error(f"{rules.title} is played by {counts} players, not {given}")
    for name, players in _configurations(names, args.players):
        if args.adapters is not None:
            figures = adapter_figures(variants.get(name), players, args.adapters, args.seed)
            print(json.dumps(figures) if args.json else _format_adapters(figures), flush=True)
            continue
        result = run(variants.get(name), players, args.seconds, args.seed, args.warmup)
        print(json.dumps(result) if args.json else _format(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

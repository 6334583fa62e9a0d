"""The RL adapters' throughput beside the engine's (``--adapters``; needs the ``openspiel`` and
``pettingzoo`` extras, imported only when called)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from ..core.actions import Action
from ..core.memo import clear_caches
from ..core.rules import RuleSet
from ..engine.state import GameState
from ..play.face import apply, legal_actions, new_game

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

    from ..rl import openspiel
    from ..rl.encoding import action_to_tokens
    from ..rl.pettingzoo import BuracoAECEnv, env

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

"""Throughput of the RL adapters beside the engine's own: µs per token step and per engine
decision, on the same random hands.

    PYTHONPATH=src python tools/rl_throughput.py --hands 20

The hands are played first by a uniform choice among the engine's legal actions; every row then
replays the same actions: the engine (``legal_actions`` + ``apply``); the token code on the
engine (``legal_tokens`` for every token of the action, then ``apply``); the OpenSpiel game
(``legal_actions`` + ``apply_action`` per token; then also reading the acting seat's observation
tensor, as an RL loop does); the PettingZoo env (``last()`` + ``step()`` per token, wrapped as
:func:`env` builds it), and unwrapped, stepped with ``observe()`` + ``step()``. A token step
is one policy choice of a token; a decision is one engine action (a draw, a meld, a
discard...). Times are CPU time of this process
(``time.process_time``), so a loaded machine slows them less than wall time. For comparison,
RLCard's gin rummy environment took 386 µs a step when measured on this project's machine
(``rlcard`` is not a dependency). Needs the ``openspiel`` and ``pettingzoo`` extras.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import pyspiel

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.rl import openspiel
from buraco_rules.rl.encoding import action_to_tokens, legal_tokens
from buraco_rules.rl.pettingzoo import BuracoAECEnv, env

RLCARD_GIN_RUMMY_US = 386.0
clock = time.process_time

Hand = tuple[int, list[br.Action]]
"""The seed ``env.reset`` deals a hand from, and the actions played."""


def deal_of(rules: br.RuleSet, players: int, seed: int) -> br.GameState:
    """The deal ``env(...).reset(seed=seed)`` makes."""
    return br.new_game(rules, players, seed=random.Random(seed).getrandbits(64))


def random_hands(rules: br.RuleSet, players: int, hands: int) -> list[Hand]:
    out = []
    for seed in range(hands):
        rng = random.Random(seed)
        state = deal_of(rules, players, seed)
        actions = []
        while not state.is_over:
            action = rng.choice(br.legal_actions(state))
            actions.append(action)
            state = br.apply(state, action)
        out.append((seed, actions))
    return out


def engine_row(rules: br.RuleSet, players: int, hands: list[Hand]) -> float:
    start = clock()
    for seed, actions in hands:
        state = deal_of(rules, players, seed)
        for action in actions:
            br.legal_actions(state)
            state = br.apply(state, action)
    return clock() - start


def token_row(rules: br.RuleSet, players: int, hands: list[Hand]) -> float:
    start = clock()
    for seed, actions in hands:
        state = deal_of(rules, players, seed)
        for action in actions:
            tokens = action_to_tokens(action)
            for k in range(len(tokens)):
                legal_tokens(state, tokens[:k])
            state = br.apply(state, action)
    return clock() - start


def openspiel_row(rules: br.RuleSet, players: int, hands: list[Hand], observe: bool) -> float:
    game = pyspiel.load_game(
        openspiel.GAME_NAME, {"variant": rules.name, "players": players, "max_turns": 10_000}
    )
    elapsed = 0.0
    for seed, actions in hands:
        state = openspiel.from_engine_state(game, deal_of(rules, players, seed))
        spelt = [t for a in actions for t in action_to_tokens(a)]
        start = clock()
        for token in spelt:
            if observe:
                state.observation_tensor(state.current_player())
            state.legal_actions()
            state.apply_action(token)
        elapsed += clock() - start
    return elapsed


def pettingzoo_row(rules: br.RuleSet, players: int, hands: list[Hand]) -> float:
    table = env(variant=rules.name, players=players, max_turns=10_000)
    elapsed = 0.0
    for seed, actions in hands:
        spelt = iter([t for a in actions for t in action_to_tokens(a)])
        table.reset(seed=seed)
        start = clock()
        for _ in table.agent_iter():
            _, _, terminated, truncated, _ = table.last()
            table.step(None if terminated or truncated else next(spelt))
        elapsed += clock() - start
    return elapsed


def raw_pettingzoo_row(rules: br.RuleSet, players: int, hands: list[Hand]) -> float:
    """The unwrapped env, stepped with ``observe`` + ``step`` (no ``agent_iter`` or ``last``)."""
    raw = BuracoAECEnv(rules.name, players, max_turns=10_000)
    elapsed = 0.0
    for seed, actions in hands:
        spelt = iter([t for a in actions for t in action_to_tokens(a)])
        raw.reset(seed=seed)
        start = clock()
        while raw.agents:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
                continue
            raw.observe(agent)
            raw.step(next(spelt))
        elapsed += clock() - start
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--variant", default="buraco-fechado")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    rules = variants.get(args.variant)
    hands = random_hands(rules, args.players, args.hands)
    decisions = sum(len(actions) for _, actions in hands)
    tokens = sum(len(action_to_tokens(a)) for _, actions in hands for a in actions)
    n = args.players
    rows: list[tuple[str, Callable[[], float], bool]] = [
        ("engine (legal_actions + apply)", lambda: engine_row(rules, n, hands), False),
        ("token code on the engine", lambda: token_row(rules, n, hands), True),
        ("OpenSpiel python_buraco", lambda: openspiel_row(rules, n, hands, False), True),
        ("OpenSpiel, with observation_tensor", lambda: openspiel_row(rules, n, hands, True), True),
        ("PettingZoo env (last + step)", lambda: pettingzoo_row(rules, n, hands), True),
        ("PettingZoo raw env (observe + step)", lambda: raw_pettingzoo_row(rules, n, hands), True),
    ]
    print(
        f"{args.variant}, {n} players: {args.hands} random hands, {decisions} decisions, "
        f"{tokens} tokens ({tokens / decisions:.2f} a decision); CPU time\n"
    )
    print("| loop | µs per token step | µs per engine decision |")
    print("|---|---|---|")
    for name, run, by_token in rows:
        br.clear_caches()
        elapsed = run()
        per_token = f"{elapsed / tokens * 1e6:.0f}" if by_token else "—"
        print(f"| {name} | {per_token} | {elapsed / decisions * 1e6:.0f} |")
    print(f"| RLCard gin rummy (for comparison, a step) | {RLCARD_GIN_RUMMY_US:.0f} | — |")


if __name__ == "__main__":
    main()

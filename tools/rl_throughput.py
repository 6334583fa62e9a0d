"""Throughput of the RL adapters beside the engine's own: µs per token step and per engine
decision, on the same random hands.

    PYTHONPATH=src python tools/rl_throughput.py --hands 20

The hands are played first by a uniform choice among the engine's legal actions; every row then
replays the same actions (the Gymnasium rows: the other seats replay recorded actions, so their
cost is a replay's, not a bot's): the engine (``legal_actions`` + ``apply``); the token code on the
engine (``legal_tokens`` for every token of the action, then ``apply``); the OpenSpiel game
(``legal_actions`` + ``apply_action`` per token; then also reading the acting seat's observation
tensor, as an RL loop does); the PettingZoo env (``last()`` + ``step()`` per token, wrapped as
:func:`env` builds it), and unwrapped, stepped with ``observe()`` + ``step()``. A token step
is one policy choice of a token; a decision is one engine action (a draw, a meld, a
discard...). Times are CPU time of this process
(``time.process_time``), so a loaded machine slows them less than wall time. For comparison,
RLCard's gin rummy environment took 386 µs a step when measured on this project's machine
(``rlcard`` is not a dependency). A last table measures the Gymnasium environment as a learner
meets it: its default opponent, GreedyBot, thinking for the other seats, ``skip_forced`` on and
off alternated. Needs the ``openspiel`` and ``pettingzoo`` extras.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import pyspiel

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.rl import encoding as rl_encoding
from buraco_rules.rl import observation as rl_observation
from buraco_rules.rl import openspiel
from buraco_rules.rl._position import Position
from buraco_rules.rl.encoding import action_to_tokens, legal_tokens
from buraco_rules.rl.gymnasium import BuracoEnv
from buraco_rules.rl.observation import encode
from buraco_rules.rl.pettingzoo import BuracoAECEnv, env

RLCARD_GIN_RUMMY_US = 386.0
clock = time.process_time

Hand = tuple[int, list[br.Action]]
"""The seed ``env.reset`` deals a hand from, and the actions played."""


def clear_caches() -> None:
    """Empty the engine's memo caches and the RL adapters' own (the token trees, the encoder's
    blocks), whichever this version of the code has: every row starts cold."""
    br.clear_caches()
    for module in (rl_encoding, rl_observation):
        for name, value in vars(module).items():
            if isinstance(value, dict) and (name.endswith("_seen") or name == "_trees"):
                value.clear()
            elif callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


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


def openspiel_row(
    rules: br.RuleSet, players: int, hands: list[Hand], observe: bool, observer: bool = False
) -> float:
    """``legal_actions`` + ``apply_action`` per token; with ``observe``, the acting seat's
    observation first: ``observation_tensor`` (a list from pyspiel), or with ``observer`` the
    game's observer (``set_from``, then its ``tensor``, a numpy array, as
    ``open_spiel.python.observation.make_observation`` reads a Python game)."""
    game = pyspiel.load_game(
        openspiel.GAME_NAME, {"variant": rules.name, "players": players, "max_turns": 10_000}
    )
    seer = game.make_py_observer()
    elapsed = 0.0
    for seed, actions in hands:
        state = openspiel.from_engine_state(game, deal_of(rules, players, seed))
        spelt = [t for a in actions for t in action_to_tokens(a)]
        start = clock()
        for token in spelt:
            if observer:
                seer.set_from(state, state.current_player())
                seer.tensor.sum()  # read it, as a learner would
            elif observe:
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


class Replay:
    """A bot that plays recorded actions in order (the Gymnasium env's other seats)."""

    def __init__(self, actions: list[br.Action]) -> None:
        self.actions = iter(actions)

    def choose(self, view: object, rng: object) -> br.Action:
        return next(self.actions)


def choices(
    state: br.GameState, actions: list[br.Action], skip: bool, seat: int | None = None
) -> tuple[list[int], list[br.Action]]:
    """The tokens an agent steps in the hand (those of ``seat`` only, if given; with ``skip``,
    only those with an alternative), and the actions of the other seats."""
    position = Position(state)
    mine: list[int] = []
    others: list[br.Action] = []
    for action in actions:
        actor = position.engine.current_player
        if seat is not None and actor != seat:
            others.append(action)
            position = position.play(action, 10**9)
            continue
        for token in action_to_tokens(action):
            if not skip or len(position.legal()) > 1:
                mine.append(token)
            position = position.step(token, 10**9)
    return mine, others


def gymnasium_hands(rules: br.RuleSet, players: int, hands: int) -> list[Hand]:
    """Random hands from the deals ``BuracoEnv.reset(seed=...)`` makes (the learner, seat 0, is
    first to act, so the reset plays nothing)."""
    table = BuracoEnv(rules.name, players, max_turns=10_000, skip_forced=False)
    out = []
    for seed in range(hands):
        table.reset(seed=seed)
        state = table.engine_state
        rng = random.Random(seed)
        actions = []
        while not state.is_over:
            action = rng.choice(br.legal_actions(state))
            actions.append(action)
            state = br.apply(state, action)
        out.append((seed, actions))
    return out


def gymnasium_row(
    rules: br.RuleSet, players: int, hands: list[Hand], skip: bool
) -> tuple[float, int]:
    """The Gymnasium env: the learner (seat 0) steps its recorded tokens (``action_masks`` +
    ``step``), the other seats replay theirs; CPU time and the learner's steps."""
    elapsed = 0.0
    steps = 0
    dealer = BuracoEnv(rules.name, players, max_turns=10_000, skip_forced=False)
    for seed, actions in hands:
        dealer.reset(seed=seed)
        mine, others = choices(dealer.engine_state, actions, skip, seat=0)
        table = BuracoEnv(rules.name, players, max_turns=10_000, skip_forced=skip)
        table.opponent = Replay(others)
        table.reset(seed=seed)
        start = clock()
        for token in mine:
            table.action_masks()
            table.step(token)
        elapsed += clock() - start
        steps += len(mine)
    return elapsed, steps


def skipping_pettingzoo_row(
    rules: br.RuleSet, players: int, hands: list[Hand]
) -> tuple[float, int]:
    """The wrapped PettingZoo env with ``skip_forced`` (``last`` + ``step``); CPU time and the
    agents' steps."""
    table = env(variant=rules.name, players=players, max_turns=10_000, skip_forced=True)
    elapsed = 0.0
    steps = 0
    for seed, actions in hands:
        mine, _ = choices(deal_of(rules, players, seed), actions, skip=True)
        tokens = iter(mine)
        table.reset(seed=seed)
        start = clock()
        for _ in table.agent_iter():
            _, _, terminated, truncated, _ = table.last()
            table.step(None if terminated or truncated else next(tokens))
        elapsed += clock() - start
        steps += len(mine)
    return elapsed, steps


def real_opponent_run(
    rules: br.RuleSet, players: int, hands: int, skip: bool, first_seed: int
) -> tuple[float, int, int]:
    """The Gymnasium env as a learner meets it: the default opponent (GreedyBot) plays the other
    seats, the learner a uniform choice among its legal tokens, on ``hands`` deals from
    ``first_seed``; CPU time, the learner's steps and the turns of every seat. The learner's
    choice is drawn from a generator seeded by the deal, the turn and the tokens spelt so far,
    so that a forced token (the only choice) draws nothing: with ``skip_forced`` on and off the
    hands are the same, played the same way, and only the environment's work differs."""
    table = BuracoEnv(rules.name, players, skip_forced=skip)  # opponent="greedy", the default
    elapsed = 0.0
    steps = turns = 0
    for seed in range(first_seed, first_seed + hands):
        start = clock()
        table.reset(seed=seed)
        done = False
        while not done:
            legal = [t for t, ok in enumerate(table.action_masks()) if ok]
            where = f"{seed}/{table.position.turns}/{table.pending_tokens}"
            token = legal[0] if len(legal) == 1 else random.Random(where).choice(legal)
            _, _, terminated, truncated, _ = table.step(token)
            steps += 1
            done = terminated or truncated
        elapsed += clock() - start
        turns += table.position.turns
    return elapsed, steps, turns


def real_opponent_rows(rules: br.RuleSet, players: int, hands: int) -> None:
    """Gymnasium with its default opponent, ``skip_forced`` on and off in turn on the same deals,
    in two rounds of deals of their own (on, off; then off, on), caches cleared before each
    run."""
    print(
        f"\nGymnasium env against its default opponent (GreedyBot), the learner choosing "
        f"uniformly among its legal tokens, {hands} deals a round, each played with skip_forced "
        "on and off (the same hands, played the same way):\n"
    )
    print(
        "| run | deals | skip_forced | learner steps | µs a learner step | ms a hand | µs a turn |"
    )
    print("|---|---|---|---|---|---|---|")
    order = [(1, True), (1, False), (2, False), (2, True)]
    for run, (deals, skip) in enumerate(order):
        clear_caches()
        elapsed, steps, turns = real_opponent_run(rules, players, hands, skip, 100_000 * deals)
        print(
            f"| {run + 1} | round {deals} | {skip} | {steps} | {elapsed / steps * 1e6:.0f} "
            f"| {elapsed / hands * 1e3:.1f} | {elapsed / turns * 1e6:.0f} |"
        )


def encode_row(rules: br.RuleSet, players: int, hands: list[Hand]) -> float:
    """``encode(view)`` of the acting seat at every decision (a new engine state each)."""
    views = []
    for seed, actions in hands:
        state = deal_of(rules, players, seed)
        for action in actions:
            views.append(br.view(state, state.current_player))
            state = br.apply(state, action)
    start = clock()
    for seen in views:
        encode(seen)
    return clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--variant", default="buraco-fechado")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    rules = variants.get(args.variant)
    n = args.players
    hands = random_hands(rules, n, args.hands)
    gym_hands = gymnasium_hands(rules, n, args.hands)
    decisions = sum(len(actions) for _, actions in hands)
    gym_decisions = sum(len(actions) for _, actions in gym_hands)
    tokens = sum(len(action_to_tokens(a)) for _, actions in hands for a in actions)
    Row = tuple[str, Callable[[], tuple[float, int]], int]
    rows: list[Row] = [
        ("engine (legal_actions + apply)", lambda: (engine_row(rules, n, hands), decisions), 0),
        ("encode(view) at every decision", lambda: (encode_row(rules, n, hands), decisions), 0),
        ("token code on the engine", lambda: (token_row(rules, n, hands), tokens), 0),
        ("OpenSpiel python_buraco", lambda: (openspiel_row(rules, n, hands, False), tokens), 0),
        (
            "OpenSpiel, with its observer (set_from)",
            lambda: (openspiel_row(rules, n, hands, True, observer=True), tokens),
            0,
        ),
        (
            "OpenSpiel, with observation_tensor",
            lambda: (openspiel_row(rules, n, hands, True), tokens),
            0,
        ),
        ("PettingZoo env (last + step)", lambda: (pettingzoo_row(rules, n, hands), tokens), 0),
        (
            "PettingZoo raw env (observe + step)",
            lambda: (raw_pettingzoo_row(rules, n, hands), tokens),
            0,
        ),
        ("PettingZoo env, skip_forced", lambda: skipping_pettingzoo_row(rules, n, hands), 0),
        ("Gymnasium env, every token", lambda: gymnasium_row(rules, n, gym_hands, False), 1),
        ("Gymnasium env, skip_forced", lambda: gymnasium_row(rules, n, gym_hands, True), 1),
    ]
    print(
        f"{args.variant}, {n} players: {args.hands} random hands, {decisions} decisions, "
        f"{tokens} tokens ({tokens / decisions:.2f} a decision); CPU time. The Gymnasium rows "
        f"play {gym_decisions} decisions (its own deals), the other seats replayed by a bot.\n"
    )
    print(
        "| loop | steps | µs a step | µs a hand decision | steps/s ÷ engine decisions/s "
        "| hand decisions/s ÷ engine's |"
    )
    print("|---|---|---|---|---|---|")
    engine_rate = 0.0
    engine_per_decision = 0.0
    for name, run, gym in rows:
        clear_caches()  # every row starts cold, as the hands were new
        elapsed, steps = run()
        engine_rate = engine_rate or steps / elapsed
        per_decision = elapsed / (gym_decisions if gym else decisions) * 1e6
        engine_per_decision = engine_per_decision or per_decision
        ratio = steps / elapsed / engine_rate
        print(
            f"| {name} | {steps} | {elapsed / steps * 1e6:.0f} | {per_decision:.0f} | {ratio:.2f} "
            f"| {engine_per_decision / per_decision:.2f} |"
        )
    print(
        f"| RLCard gin rummy (for comparison: measured once on this project's machine, not in "
        f"this run) | — | {RLCARD_GIN_RUMMY_US:.0f} | — | — | — |"
    )
    real_opponent_rows(rules, n, args.hands)


if __name__ == "__main__":
    main()

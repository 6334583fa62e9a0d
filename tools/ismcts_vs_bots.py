"""OpenSpiel's Python ISMCTSBot, playing through the ``python_buraco`` adapter, against one of
the library's bots (GreedyBot, MonteCarloBot, ISMCTSBot, any name ``simulate`` takes, with its
budget): whole hands, each deal played in both seat orders.

    PYTHONPATH=src python tools/ismcts_vs_bots.py --deals 32 --opponent greedy
    PYTHONPATH=src python tools/ismcts_vs_bots.py --deals 20 --opponent ismcts:0.05s

ISMCTS chooses one token at a time (:mod:`buraco_rules.rl.encoding`), searching from the
OpenSpiel state each time: every simulation re-deals the cards its seat cannot see
(``resample_from_infostate``), walks the tree of tokens, and at a new node evaluates with a
GreedyBot rollout of ``--horizon`` turns (the action being spelt is completed with GreedyBot's
favourite among those the prefix allows), scored by the difference of the teams' scores, the
cards still in hand at half their value (as MonteCarloBot scores its rollouts). Needs the
``openspiel`` extra. Prints a Markdown table row per opponent.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import Bot, GreedyBot, bot_from_name
from buraco_rules.bots.heuristics import Assessment, rank_actions
from buraco_rules.bots.simulate import game_seed, play_game, wilson_interval
from buraco_rules.rl import openspiel
from buraco_rules.rl.encoding import action_to_tokens, is_complete, tokens_to_action

SCALE = 1e-3
"""Points are scaled to thousands, so that returns and UCT's exploration term are comparable."""
GREEDY = GreedyBot()


def rollout_value(state: br.GameState, horizon: int, hand_weight: float = 0.5) -> float:
    """Team 0's lead after GreedyBot plays every seat for ``horizon`` turns."""
    turns = 0
    seat = state.current_player
    while not state.is_over and turns < horizon:
        state = br.apply(state, GREEDY.choose(br.view(state, seat), random.Random(0)))
        if state.current_player != seat:
            seat = state.current_player
            turns += 1
    scores = br.score(state)
    lead = float(scores[0].total - scores[1].total)
    if not state.is_over:
        lead += (1.0 - hand_weight) * (scores[0].hands - scores[1].hands)
    return lead


class RolloutEvaluator:
    """OpenSpiel's evaluator interface: uniform priors, GreedyBot rollouts for values."""

    def __init__(self, horizon: int) -> None:
        self.horizon = horizon

    def evaluate(self, state: Any) -> np.ndarray:
        players = state.num_players()
        if state.is_terminal():
            return np.asarray(state.returns())
        position = state.position
        engine = position.engine
        if position.pending:
            prefix = position.pending
            matching = [
                a for a in br.legal_actions(engine) if action_to_tokens(a)[: len(prefix)] == prefix
            ]
            seen = br.view(engine, engine.current_player)
            engine = br.apply(engine, matching[rank_actions(Assessment(seen), matching)[0][1]])
        lead = rollout_value(engine, self.horizon) * SCALE
        return np.asarray([lead if seat % 2 == 0 else -lead for seat in range(players)])

    def prior(self, state: Any) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


class Timed:
    """A bot's CPU time (``time.process_time``) and decisions, counted around ``choose``: the
    machine may be shared, and wall time then says little."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seconds = 0.0
        self.decisions = 0

    def choose(self, view: br.PlayerView, rng: random.Random) -> br.Action:
        start = time.process_time()
        action = self.bot.choose(view, rng)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action


class ISMCTSPlayer:
    """A :class:`~buraco_rules.bots.Bot` that spells its action token by token with ISMCTS."""

    def __init__(self, rules: br.RuleSet, simulations: int, horizon: int, seed: int) -> None:
        self.game = pyspiel.load_game(
            openspiel.GAME_NAME,
            {"variant": rules.name, "players": 2, "reward_scale": SCALE, "max_turns": 10_000},
        )
        self.bot = ismcts.ISMCTSBot(
            game=self.game,
            evaluator=RolloutEvaluator(horizon),
            uct_c=1.0,
            max_simulations=simulations,
            random_state=np.random.RandomState(seed),
        )
        self.tokens = 0

    def choose(self, view: br.PlayerView, rng: random.Random) -> br.Action:
        # Any state showing this view will do: every search re-deals what the seat cannot see.
        state = openspiel.from_engine_state(self.game, br.determinize(view, rng))
        tokens: tuple[int, ...] = ()
        while not is_complete(tokens):
            token = self.bot.step(state)
            state.apply_action(token)
            tokens += (token,)
            self.tokens += 1
        return tokens_to_action(tokens)


def play_pair(args: tuple[str, str, int, int, int, int]) -> list[dict[str, Any]]:
    """One deal, played twice: ISMCTS as seat 0, then as seat 1."""
    variant, opponent, simulations, horizon, seed, index = args
    rules = variants.get(variant)
    deal = game_seed(seed, index)
    rows = []
    for ismcts_seat in (0, 1):
        player = ISMCTSPlayer(rules, simulations, horizon, seed=deal % 2**31)
        mine = Timed(player)
        other = Timed(bot_from_name(opponent))
        bots: list[Bot] = [mine, other] if ismcts_seat == 0 else [other, mine]
        start = time.perf_counter()
        result = play_game(rules, bots, seed=deal, first_player=0, index=index)
        rows.append(
            {
                "deal": index,
                "seat": ismcts_seat,
                "lead": result.scores[ismcts_seat] - result.scores[1 - ismcts_seat],
                "win": result.winner == ismcts_seat,
                "tie": result.winner is None,
                "decisions": mine.decisions,
                "tokens": player.tokens,
                "seconds": mine.seconds,
                "opponent_seconds": other.seconds,
                "opponent_decisions": other.decisions,
                "wall": time.perf_counter() - start,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="buraco-fechado")
    parser.add_argument(
        "--opponent",
        default="greedy",
        help="a bot name as simulate takes it: greedy, montecarlo, mc:0.1s, ismcts:0.1s, ...",
    )
    parser.add_argument("--deals", type=int, default=32, help="deals, each played twice")
    parser.add_argument("--first", type=int, default=0, help="index of the first deal")
    parser.add_argument("--simulations", type=int, default=32, help="per token")
    parser.add_argument("--horizon", type=int, default=2, help="rollout turns")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--out", help="append each hand as a JSON line to this file")
    parser.add_argument(
        "--summarise", metavar="FILE", help="print the table of the hands in FILE, play none"
    )
    args = parser.parse_args()
    if args.summarise:
        with open(args.summarise, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines if line.strip()]
        report(rows, args)
        return
    tasks = [
        (args.variant, args.opponent, args.simulations, args.horizon, args.seed, i)
        for i in range(args.first, args.first + args.deals)
    ]
    rows: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.processes) as pool:
        for pair in pool.map(play_pair, tasks):
            rows += pair
            if args.out:
                with open(args.out, "a", encoding="utf-8") as out:
                    out.writelines(json.dumps(r) + "\n" for r in pair)
            done = len(rows)
            wins = sum(r["win"] for r in rows)
            print(f"{done} hands, ISMCTS won {wins}", file=sys.stderr, flush=True)
    report(rows, args)


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """The Markdown table of ``rows``."""
    hands = len(rows)
    wins = sum(r["win"] for r in rows)
    ties = sum(r["tie"] for r in rows)
    low, high = wilson_interval(wins, hands)
    leads = np.asarray([r["lead"] for r in rows], dtype=float)
    half = 1.96 * leads.std(ddof=1) / np.sqrt(hands) if hands > 1 else float("nan")
    per_move = sum(r["seconds"] for r in rows) / max(1, sum(r["decisions"] for r in rows))
    per_token = sum(r["seconds"] for r in rows) / max(1, sum(r["tokens"] for r in rows))
    other = sum(r["opponent_seconds"] for r in rows) / max(
        1, sum(r["opponent_decisions"] for r in rows)
    )
    print(
        "| opponent | hands | ISMCTS wins (95 % interval) | ties | points ahead per hand "
        "(95 %) | ISMCTS CPU s per move (per token) | opponent CPU s per move |"
    )
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {args.opponent} | {hands} | {wins / hands:.0%} ({low:.0%}–{high:.0%}) | {ties} | "
        f"{leads.mean():+.0f} (±{half:.0f}) | {per_move:.2f} ({per_token:.3f}) | {other:.4f} |"
    )
    print(
        f"variant {args.variant}, {args.simulations} simulations a token, rollout horizon "
        f"{args.horizon} turns, seed {args.seed}",
    )


if __name__ == "__main__":
    main()

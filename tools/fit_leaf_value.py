"""Fit the search bots' leaf value to how hands really end: the weights of the cards still in
hand and of the unfinished melds' promise, by least squares over GreedyBot's self-play.

    python tools/fit_leaf_value.py --players 4 --deals 300 --seed 100

A rollout cut off by its horizon is worth ``leaf_value``: the difference of the teams' scores
as if the hand ended there, plus ``(1 - hand_weight)`` times the difference of the cards they
still hold, plus ``promise`` times the difference of what their unfinished melds promise
(:mod:`buraco_rules.bots.rollout`). Rollouts are GreedyBot's play for every seat, so what a cut
position is really worth to them is how the hand ends if GreedyBot plays it out. GreedyBot is
deterministic, so every position of a self-played hand ends as the hand did: each turn change of
every deal (``game_seed(seed, i)``) is one sample, the final difference minus the score
difference there is regressed on the two differences, and the intervals come from resampling
whole deals (the positions of one hand share its ending). The mean squared error of a few
settings says how much better a fitted leaf predicts the end.
"""

from __future__ import annotations

import argparse
import random

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot
from buraco_rules.bots.rollout import melds_promise
from buraco_rules.bots.simulate import game_seed

Sample = tuple[float, float, float]  # (final minus now, cards held, promise), team 0's side


def hand_samples(rules: br.RuleSet, players: int, seed: int) -> list[Sample]:
    """Every turn change of one greedy self-played hand, as a sample for team 0 and, mirrored,
    for team 1."""
    state = br.new_game(rules, players, seed=seed)
    greedy, rng = GreedyBot(), random.Random(0)
    cuts: list[Sample] = []  # (difference now, cards held, promise)
    seat = state.current_player
    while not state.is_over:
        state = br.apply(state, greedy.choose(br.view(state, state.current_player), rng))
        if state.current_player != seat and not state.is_over:
            seat = state.current_player
            ours, theirs = br.score(state)
            held = float(ours.hands - theirs.hands)
            promised = melds_promise(state.melds[0], rules) - melds_promise(state.melds[1], rules)
            cuts.append((float(ours.total - theirs.total), held, promised))
    final = br.score(state)
    end = float(final[0].total - final[1].total)
    samples = [(end - now, held, promised) for now, held, promised in cuts]
    return samples + [(-y, -h, -p) for y, h, p in samples]


def fit(groups: list[list[Sample]]) -> tuple[float, float]:
    """Least squares, no intercept (the mirrored samples make it zero): y = a * held + b *
    promise; returns (a, b)."""
    shh = shp = spp = shy = spy = 0.0
    for samples in groups:
        for y, h, p in samples:
            shh += h * h
            shp += h * p
            spp += p * p
            shy += h * y
            spy += p * y
    det = shh * spp - shp * shp
    return (spp * shy - shp * spy) / det, (shh * spy - shp * shy) / det


def mse(groups: list[list[Sample]], a: float, b: float) -> float:
    """Mean squared error of predicting the final difference with weights ``a`` and ``b``."""
    errors = [(y - a * h - b * p) ** 2 for samples in groups for y, h, p in samples]
    return sum(errors) / len(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variants", default="")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=400)
    args = parser.parse_args()
    names = (
        args.variants.split(",")
        if args.variants
        else [name for name in variants.NAMES if args.players in variants.get(name).player_counts]
    )
    print(
        "| variant, players | positions | hand_weight (95 %) | promise (95 %) | "
        "error at 0.5, 0 | at 0.5, 1 | fitted |"
    )
    print("| --- | ---: | --- | --- | ---: | ---: | ---: |")
    by_name: dict[str, list[list[Sample]]] = {}
    for name in names:
        rules = variants.get(name)
        by_name[name] = [
            hand_samples(rules, args.players, game_seed(args.seed, i)) for i in range(args.deals)
        ]
    rows = dict(by_name)
    for closed, label in ((True, "closed piles"), (False, "open piles")):
        kind = [
            g for n in names if variants.get(n).closed_discard_pile is closed for g in by_name[n]
        ]
        if kind:
            rows[label] = kind
    rows["all"] = [g for n in names for g in by_name[n]]
    for name, groups in rows.items():
        a, b = fit(groups)
        rng = random.Random(1)
        draws = sorted(fit([rng.choice(groups) for _ in groups]) for _ in range(args.resamples))
        weights = sorted(1 - d[0] for d in draws)
        promises = sorted(d[1] for d in draws)
        low, high = int(0.025 * len(draws)), int(0.975 * len(draws)) - 1
        rms = [mse(groups, 0.5, 0.0) ** 0.5, mse(groups, 0.5, 1.0) ** 0.5, mse(groups, a, b) ** 0.5]
        positions = sum(len(g) for g in groups) // 2
        print(
            f"| {name}, {args.players} | {positions} | {1 - a:.2f} "
            f"({weights[low]:.2f} to {weights[high]:.2f}) | {b:.2f} "
            f"({promises[low]:.2f} to {promises[high]:.2f}) | "
            + " | ".join(f"{r:.0f}" for r in rms)
            + " |"
        )


if __name__ == "__main__":
    main()

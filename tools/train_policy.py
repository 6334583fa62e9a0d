"""Train a token policy with sb3-contrib's MaskablePPO and evaluate it against the library's bots.

    nice -n 19 python tools/train_policy.py --variant buraco-fechado --players 2 \\
        --cpu-minutes 30 --checkpoints 10,20 --out runs/bf2

The defaults are the best recipe measured (docs/rl.md, "A training recipe and its result").

Training needs torch and sb3-contrib besides the ``pettingzoo`` extra (``pip install sb3-contrib``,
with a CPU build of torch); they are not dependencies of the project, and are imported only to
train: the policy it saves is plain numpy (``MLPPolicy.load``) that plays with no deep-learning
library, and ``--evaluate`` needs numpy alone. The recipe:

1. **Imitation first** (``--bc-hands``, ``--bc-epochs``): GreedyBot plays hands against itself;
   every token it spells with a choice (forced ones skipped, as the environment does) is a
   (observation, mask, token) example, and the hand's result from that seat the value target. The
   policy and value networks are fitted to them by cross-entropy over the legal tokens and squared
   error; the accuracy is measured on 40 other hands. A random token policy wins about 3 % of
   hands against GreedyBot; starting from its imitation, PPO need not rediscover how to spell a
   meld. ``--dagger-rounds`` adds rounds in which the imitator plays and GreedyBot labels the
   states it reaches (off by default: one round did not help, docs/rl.md).
2. **PPO** (MaskablePPO, the Gymnasium environment with forced tokens skipped, the compact
   observation, dense rewards by default) against an opponent drawn for each hand from
   ``--opponents`` (shares of GreedyBot, RandomBot and ``self``: one of the last ``--pool``
   frozen copies of the learner, a new copy every ``--refresh`` CPU minutes), so that it does not
   fit GreedyBot alone.
3. **Checkpoints** at the CPU minutes given (the process's CPU time, imitation included): the
   policy saved as numpy weights, then each evaluated at the end on held-out deals (a seed never
   used in training) against RandomBot and GreedyBot through ``simulate`` (seats alternate), with
   95 % Wilson intervals; the learning curve (the training hands' win rate against GreedyBot by CPU
   minute) is written as CSV and, with matplotlib, as a PNG.

``--net slot-card`` trains a :class:`~buraco_rules.rl.slot_card.SlotCardPolicy` instead of the
perceptron (meld slots and cards scored by shared scorers reading their own slot and card):
it imitates GreedyBot better, at twice the CPU a step. ``--bc-cache DIR`` keeps the imitation
examples for the next run; ``--fixture PATH`` writes the tests' fixture of a small slot-card
network's weights and torch's logits.

One thread (``torch.set_num_threads(1)``): the machine is shared.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot, RandomBot
from buraco_rules.bots.heuristics import Assessment, rank_actions
from buraco_rules.bots.simulate import simulate
from buraco_rules.cli.options import variant as checked_variant
from buraco_rules.engine.state import TEAM
from buraco_rules.play.face import legal_actions
from buraco_rules.rl.encoding import (
    FIRST_CARD,
    FIRST_SLOT,
    KIND_NAMES,
    NUM_TOKENS,
    action_to_tokens,
    is_complete,
    legal_tokens,
    tokens_to_action,
)
from buraco_rules.rl.gymnasium import BuracoEnv
from buraco_rules.rl.observation import OBSERVATION_SIZE, OWN_SLOTS, encode, with_prefix
from buraco_rules.rl.policies import SHIPPED, policy_bot
from buraco_rules.rl.policies import load as load_shipped
from buraco_rules.rl.policy import MLPPolicy, PolicyBot, load_policy
from buraco_rules.rl.slot_card import (
    CARD_FEATURES,
    SLOT_FEATURES,
    SlotCardPolicy,
    card_features,
    slot_features,
)

clock = time.process_time


def imitation_examples(
    variant: str, players: int, hands: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """GreedyBot against itself: observations, masks, tokens and the hand's result (× 0.001,
    the acting seat's team's) of every token with a choice."""
    rules = variants.get(variant)
    bot = GreedyBot()
    observations, masks, tokens, results = [], [], [], []
    for hand in range(hands):
        rng = random.Random(seed * 1_000_003 + hand)
        state = br.new_game(rules, players, seed=rng.getrandbits(64))
        seats: list[int] = []
        while not state.is_over:
            seat = state.current_player
            seen = br.view(state, seat)
            action = bot.choose(seen, rng)
            spelt = action_to_tokens(action)
            plain = encode(seen)
            for k, token in enumerate(spelt):
                legal = legal_tokens(state, spelt[:k])
                if len(legal) < 2:
                    continue
                observation = plain if k == 0 else encode(seen, spelt[:k])
                mask = np.zeros(NUM_TOKENS, np.bool_)
                mask[list(legal)] = True
                observations.append(observation)
                masks.append(mask)
                tokens.append(token)
                seats.append(seat)
            state = br.apply(state, action)
            if len(seats) > 4000:
                break
        totals = [s.total for s in br.score(state)]
        diff = (totals[0] - totals[1]) * 0.001
        results += [diff if TEAM[s] == 0 else -diff for s in seats]
    return (
        np.asarray(observations, np.float16),  # in [0, 1]: half the memory, ample precision
        np.asarray(masks),
        np.asarray(tokens, np.int64),
        np.asarray(results, np.float32),
    )


def cached_examples(args: argparse.Namespace, hands: int, seed: int) -> tuple[np.ndarray, ...]:
    """:func:`imitation_examples`, kept in ``--bc-cache`` (if given) for the next run."""
    if args.bc_cache is None:
        return imitation_examples(args.variant, args.players, hands, seed)
    path = args.bc_cache / f"{args.variant}-{args.players}p-{hands}-{seed}.npz"
    if path.exists():
        with np.load(path) as saved:
            return tuple(saved[f"a{i}"] for i in range(4))
    data = imitation_examples(args.variant, args.players, hands, seed)
    args.bc_cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, **{f"a{i}": a for i, a in enumerate(data)})
    return data


def dagger_examples(
    net: MLPPolicy | SlotCardPolicy, variant: str, players: int, hands: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The imitator ``net`` plays against GreedyBot (seats alternating); every token it spells
    with a choice is an example labelled with GreedyBot's token there: the next token of the
    best action in GreedyBot's ranking that starts with the prefix spelt so far (so the states
    are those the imitator reaches, its mistakes included: DAgger)."""
    rules = variants.get(variant)
    greedy = GreedyBot()
    observations, masks, tokens, results = [], [], [], []
    agreed = 0
    for hand in range(hands):
        rng = random.Random(seed * 1_000_003 + hand + 7_777_777)
        state = br.new_game(rules, players, seed=rng.getrandbits(64))
        learner = hand % players
        seats: list[int] = []
        while not state.is_over and len(seats) < 4000:
            seat = state.current_player
            seen = br.view(state, seat)
            if TEAM[seat] != TEAM[learner]:
                state = br.apply(state, greedy.choose(seen, rng))
                continue
            actions = legal_actions(seen)
            ranked = [
                action_to_tokens(actions[i]) for _, i in rank_actions(Assessment(seen), actions)
            ]
            plain = encode(seen)
            prefix: tuple[int, ...] = ()
            while not is_complete(prefix):
                legal = legal_tokens(state, prefix)
                if len(legal) < 2:
                    prefix += (legal[0],)
                    continue
                k = len(prefix)
                observation = with_prefix(plain, prefix) if prefix else plain
                mask = np.zeros(NUM_TOKENS, np.bool_)
                mask[list(legal)] = True
                observations.append(observation)
                masks.append(mask)
                tokens.append(next(t[k] for t in ranked if t[:k] == prefix))
                seats.append(seat)
                prefix += (net(observation, mask),)
                agreed += prefix[-1] == tokens[-1]
            state = br.apply(state, tokens_to_action(prefix))
        totals = [s.total for s in br.score(state)]
        diff = (totals[0] - totals[1]) * 0.001
        results += [diff if TEAM[s] == 0 else -diff for s in seats]
    print(f"dagger: the imitator agrees with GreedyBot on {agreed / len(tokens):.3f} of its tokens")
    return (
        np.asarray(observations, np.float16),
        np.asarray(masks),
        np.asarray(tokens, np.int64),
        np.asarray(results, np.float32),
    )


def imitate(
    model: Any,
    data: tuple[np.ndarray, ...],
    epochs: int,
    test: tuple[np.ndarray, ...],
    lr: float = 1e-3,
) -> float:
    """Fit the policy to the tokens and the value to the results of ``data``, the learning rate
    falling from ``lr`` to a tenth; the token accuracy on ``test`` (examples not fitted)."""
    import torch

    observations, masks, tokens, results = (torch.as_tensor(a) for a in data)
    test_observations, test_masks, test_tokens, _ = (torch.as_tensor(a) for a in test)
    policy = model.policy
    n = len(tokens)
    steps = epochs * ((n + 255) // 256)
    optimiser = torch.optim.Adam(policy.parameters(), lr=lr)
    decay = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: 1.0 - 0.9 * step / steps)

    def logits_values(observations: Any, masks: Any) -> tuple[Any, Any]:
        features = policy.extract_features(observations.float())
        latent_pi, latent_vf = policy.mlp_extractor(features)
        logits = torch.where(masks, policy.action_net(latent_pi), torch.tensor(-1e9))
        return logits, policy.value_net(latent_vf).squeeze(-1)

    accuracy = 0.0
    for epoch in range(epochs):
        order = torch.randperm(n)
        for start in range(0, n, 256):
            batch = order[start : start + 256]
            logits, values = logits_values(observations[batch], masks[batch])
            loss = torch.nn.functional.cross_entropy(logits, tokens[batch])
            loss = loss + 0.5 * torch.nn.functional.mse_loss(values, results[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            decay.step()
        with torch.no_grad():
            chosen = torch.cat(
                [
                    logits_values(test_observations[i : i + 1024], test_masks[i : i + 1024])[
                        0
                    ].argmax(-1)
                    for i in range(0, len(test_tokens), 1024)
                ]
            )
            right = chosen == test_tokens
            accuracy = float(right.float().mean())
        print(f"imitation epoch {epoch + 1}: held-out accuracy {accuracy:.3f}", flush=True)
    print("held-out accuracy by GreedyBot's token: " + accuracy_by_kind(right, test_tokens))
    return accuracy


def token_kind(token: int) -> str:
    """What a token chooses, for the accuracy by kind: its name for the kinds, else a slot or
    a card."""
    if token < FIRST_SLOT:
        return KIND_NAMES[token]
    return "slot" if token < FIRST_CARD else "card"


def accuracy_by_kind(right: Any, tokens: Any) -> str:
    """``right`` (booleans) by the kind of the expected ``tokens``: 'kind share accuracy'."""
    groups: dict[str, list[bool]] = {}
    for ok, token in zip(right.tolist(), tokens.tolist(), strict=True):
        groups.setdefault(token_kind(token), []).append(ok)
    total = len(tokens)
    return ", ".join(
        f"{kind} {len(oks) / total:.0%} of tokens {sum(oks) / len(oks):.3f}"
        for kind, oks in sorted(groups.items(), key=lambda item: -len(item[1]))
    )


def to_numpy(model: Any) -> MLPPolicy | SlotCardPolicy:
    """The actor of ``model`` as numpy weights: an :class:`MLPPolicy` (its Linear layers,
    tanh between) or a :class:`SlotCardPolicy`."""
    import torch

    extractor = model.policy.mlp_extractor
    if hasattr(extractor, "actor"):
        return SlotCardPolicy(extractor.actor.arrays())
    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(model.policy.action_net)
    return MLPPolicy(
        [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linears]
    )


def slot_card_policy(hidden: int, scorer: int, summary: int) -> Any:
    """MaskablePPO's policy class for a :class:`SlotCardPolicy` actor (a trunk of two layers of
    ``hidden``, scorers of ``scorer`` units, a summary of ``summary``) beside a perceptron
    critic; built here, since torch is imported only to train. The card and slot features are
    worked out by the numpy functions the policy plays with (they hold no weights, so no
    gradient crosses them): one definition for training and play."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    class Scorer(nn.Module):  # type: ignore[misc]
        """``tanh([features, summary] @ w1 + b1) @ w2 + b2 + bias[item]``."""

        def __init__(self, features: int, items: int) -> None:
            super().__init__()
            self.first = nn.Linear(features + summary, scorer)
            self.second = nn.Linear(scorer, 1)
            self.bias = nn.Parameter(torch.zeros(items))

        def forward(self, features: Any, summary_: Any) -> Any:
            f = features.shape[2]
            w = self.first.weight  # (scorer, f + summary)
            hidden = features @ w[:, :f].T + (summary_ @ w[:, f:].T)[:, None, :]
            hidden = torch.tanh(hidden + self.first.bias)
            return self.second(hidden).squeeze(-1) + self.bias

        def arrays(self, name: str) -> dict[str, np.ndarray]:
            return {
                f"{name}_w1": self.first.weight.detach().numpy().T.copy(),
                f"{name}_b1": self.first.bias.detach().numpy().copy(),
                f"{name}_w2": self.second.weight.detach().numpy()[0].copy(),
                f"{name}_b2": self.second.bias.detach().numpy().copy(),
                f"{name}_bias": self.bias.detach().numpy().copy(),
            }

    class Actor(nn.Module):  # type: ignore[misc]
        """The torch twin of :class:`SlotCardPolicy` (same weights, same logits)."""

        def __init__(self, inputs: int) -> None:
            super().__init__()
            self.trunk = nn.ModuleList([nn.Linear(inputs, hidden), nn.Linear(hidden, hidden)])
            self.head = nn.Linear(hidden, NUM_TOKENS)
            self.proj = nn.Linear(hidden, summary)
            self.cards = Scorer(CARD_FEATURES, NUM_TOKENS - FIRST_CARD)
            self.slots = Scorer(SLOT_FEATURES, OWN_SLOTS)

        def forward(self, observations: Any) -> Any:
            plain = observations.detach().cpu().numpy()
            cards = torch.as_tensor(card_features(plain))
            slots = torch.as_tensor(slot_features(plain))
            h = observations
            for layer in self.trunk:
                h = torch.tanh(layer(h))
            summary_ = torch.tanh(self.proj(h))
            logits = self.head(h)
            extra = torch.zeros_like(logits)
            extra[:, FIRST_CARD:] = self.cards(cards, summary_)
            extra[:, FIRST_SLOT : FIRST_SLOT + OWN_SLOTS] = self.slots(slots, summary_)
            return logits + extra

        def arrays(self) -> dict[str, np.ndarray]:
            out: dict[str, np.ndarray] = {}
            for i, layer in enumerate(self.trunk):
                out[f"trunk_w{i}"] = layer.weight.detach().numpy().T.copy()
                out[f"trunk_b{i}"] = layer.bias.detach().numpy().copy()
            out["head_w"] = self.head.weight.detach().numpy().T.copy()
            out["head_b"] = self.head.bias.detach().numpy().copy()
            out["proj_w"] = self.proj.weight.detach().numpy().T.copy()
            out["proj_b"] = self.proj.bias.detach().numpy().copy()
            return out | self.cards.arrays("card") | self.slots.arrays("slot")

    Actor_ = Actor

    class Extractor(nn.Module):  # type: ignore[misc]
        """sb3's ``mlp_extractor``: the actor's logits as the policy latent, a perceptron's
        last layer as the critic's."""

        def __init__(self, inputs: int) -> None:
            super().__init__()
            self.actor = Actor(inputs)
            self.critic = nn.Sequential(
                nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
            )
            self.latent_dim_pi = NUM_TOKENS
            self.latent_dim_vf = hidden

        def forward(self, features: Any) -> tuple[Any, Any]:
            return self.actor(features), self.critic(features)

        def forward_actor(self, features: Any) -> Any:
            return self.actor(features)

        def forward_critic(self, features: Any) -> Any:
            return self.critic(features)

    class Policy(MaskableActorCriticPolicy):  # type: ignore[misc]
        Actor = Actor_  # for the tests' fixture

        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = Extractor(self.features_dim)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            self.action_net = nn.Identity()  # the actor's outputs are the logits
            self.optimizer = self.optimizer_class(
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
            )

    return Policy


def write_fixture(path: Path) -> None:
    """A small :class:`SlotCardPolicy` fixture for the tests: the weights of a torch actor of
    random weights (tiny widths), observations of real hands (prefixes included) and the
    logits torch gives them, so that a test without torch checks numpy's forward pass against
    torch's."""
    import torch

    torch.manual_seed(0)
    actor = slot_card_policy(8, 4, 3).Actor(OBSERVATION_SIZE)
    observations = []
    rng = random.Random(0)
    for variant in ("italian", "buraco-fechado"):
        state = br.new_game(variants.get(variant), 2, seed=5)
        while not state.is_over and len(observations) < 8:  # the first melds and additions
            seen = br.view(state, state.current_player)
            action = GreedyBot().choose(seen, rng)
            spelt = action_to_tokens(action)
            if len(spelt) > 3:
                observations += [encode(seen, spelt[:k]) for k in range(3)]
            state = br.apply(state, action)
        observations = observations[:4] if variant == "italian" else observations
    batch = np.stack(observations)
    with torch.no_grad():
        logits = actor(torch.as_tensor(batch)).numpy()
    np.savez_compressed(path, observations=batch, logits=logits, **actor.arrays())


def schedule(args: argparse.Namespace, out: Path, started: float) -> Any:
    """The training callback (built here: stable-baselines3 is imported only to train)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Schedule(BaseCallback):  # type: ignore[misc]
        """Counts the training hands won against GreedyBot, saves checkpoints at CPU minutes,
        refreshes the self-play copy, stops at the budget."""

        def __init__(self, args: argparse.Namespace, out: Path, started: float) -> None:
            super().__init__()
            self.args = args
            self.out = out
            self.started = started
            self.marks = sorted(
                {float(m) for m in args.checkpoints.split(",")} | {args.cpu_minutes}
            )
            self.curve: list[tuple[float, int, float, int]] = []
            self.window: list[float] = []
            self.next_point = 0.5
            self.next_copy = args.refresh

        def minutes(self) -> float:
            return (clock() - self.started) / 60.0

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                if done and info.get("against") == "greedy":
                    self.window.append(float(info.get("won", 0.0)))
            minutes = self.minutes()
            if minutes >= self.next_point and self.window:
                recent = self.window[-200:]
                self.curve.append(
                    (minutes, self.num_timesteps, sum(recent) / len(recent), len(recent))
                )
                print(
                    f"{minutes:6.1f} CPU-min {self.num_timesteps:8d} steps "
                    f"win vs greedy (last {len(recent)}) {sum(recent) / len(recent):.3f}",
                    flush=True,
                )
                self.next_point = minutes + 0.5
                write_curve(self.curve, self.out / "curve.csv")
            if minutes >= self.next_copy:
                self.training_env.env_method("set_frozen", to_numpy(self.model))
                self.next_copy = minutes + self.args.refresh
            while self.marks and minutes >= self.marks[0]:
                mark = self.marks.pop(0)
                to_numpy(self.model).save(self.out / f"policy_{mark:g}min.npz")
                print(f"checkpoint at {mark:g} CPU-min, {self.num_timesteps} steps", flush=True)
            return bool(self.marks)

    return Schedule(args, out, started)


class Training(BuracoEnv):
    """The Gymnasium env whose opponent is drawn for each hand from ``mix`` (a share each for
    ``"greedy"``, ``"random"`` and ``"self"``: a frozen earlier copy of the learner, drawn from
    the last ``pool`` copies), with the opponent and the hand's outcome in ``info``."""

    def __init__(self, mix: dict[str, float], pool: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mix = mix
        self.pool = pool
        self.frozen: list[PolicyBot] = []
        self.against = "greedy"
        self.bots = {"greedy": GreedyBot(), "random": RandomBot()}
        self.pick = random.Random(kwargs.get("seat", 0) + 17)

    def set_frozen(self, net: MLPPolicy | SlotCardPolicy) -> None:
        self.frozen = [*self.frozen, PolicyBot(net)][-self.pool :]

    def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
        kinds = [k for k in self.mix if k != "self" or self.frozen]
        self.against = self.pick.choices(kinds, [self.mix[k] for k in kinds])[0]
        if self.against == "self":
            self.opponent = self.pick.choice(self.frozen)
        else:
            self.opponent = self.bots[self.against]
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        observation, reward, terminated, truncated, info = super().step(action)
        if terminated or truncated:
            totals = [s.total for s in br.score(self.engine_state)]
            mine = totals[TEAM[self.seat]]
            theirs = totals[1 - TEAM[self.seat]]
            info["against"] = self.against
            info["won"] = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        return observation, reward, terminated, truncated, info


def evaluate(args: argparse.Namespace, path: Path, opponent: str, hands: int) -> dict[str, Any]:
    """The policy at ``path`` against ``opponent`` on ``hands`` held-out deals."""
    started = clock()
    net = load_shipped(path.name) if _is_shipped(path) else load_policy(path)
    result = simulate(
        args.variant,
        args.players,
        games=hands,
        bots=(PolicyBot(net), opponent),
        seed=args.eval_seed,
    )
    rate, low, high = result.win_rate(0)
    return {
        "policy": str(path),
        "opponent": opponent,
        "hands": result.games,
        "win_rate": rate,
        "low": low,
        "high": high,
        "points_ahead": result.mean_score(0) - result.mean_score(1),
        "cpu_s": clock() - started,
    }


def write_curve(curve: list[tuple[float, int, float, int]], path: Path) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(_CURVE_HEADER)
        writer.writerows(curve)


def plot(
    curves: list[tuple[str, list[tuple[float, int, float, int]]]], path: Path, title: str
) -> None:
    """Each labelled curve (CPU minutes, steps, win rate, hands) in one picture at ``path``,
    the points of fewer than 20 hands left out."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no picture, the CSV has the curve")
        return
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    for label, curve in curves:
        shown = [c for c in curve if c[3] >= 20]  # a rate of a few hands is noise
        ax.plot([c[0] for c in shown], [c[2] for c in shown], label=label)
    ax.axhline(0.5, color="grey", linestyle=":")
    ax.set_xlabel("CPU minutes (imitation included)")
    ax.set_ylabel("wins vs GreedyBot\n(last 200 hands or fewer)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)


_CURVE_HEADER = ["cpu_minutes", "steps", "win_rate_vs_greedy_last_200", "hands"]


def read_curve(path: Path) -> list[tuple[float, int, float, int]]:
    """A curve as :func:`write_curve` wrote it; another file is a ``ValueError``."""
    with path.open(newline="", errors="replace") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != _CURVE_HEADER:
        raise ValueError(f"{str(path)!r} is not a curve.csv of this tool")
    return [(float(m), int(s), float(w), int(h)) for m, s, w, h in rows[1:]]


def _is_shipped(path: Path) -> bool:
    """``path`` names a shipped policy (``italian-2p``), not a file."""
    return str(path) in SHIPPED and not path.exists()


def _variant(name: str) -> str:
    """A variant's name, checked as the command line checks it (the tool passes names on)."""
    return checked_variant(name).name


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        epilog="A run writes into --out (policy_*.npz, curve.csv, curve.png), replacing the files "
        "of an earlier run there. A saved .npz does not record its game: evaluate it with the "
        "--variant and --players it was trained for.",
    )
    parser.add_argument(
        "--variant", type=_variant, default="buraco-fechado", help="the game to train or evaluate"
    )
    parser.add_argument("--players", type=int, choices=(2, 4), default=2, help="2 or 4 players")
    parser.add_argument(
        "--cpu-minutes", type=float, default=10.0, help="the run's CPU time, imitation included"
    )
    parser.add_argument(
        "--checkpoints",
        default="",
        help="CPU minutes to save the policy at, comma-separated (the end always)",
    )
    parser.add_argument(
        "--bc-hands", type=int, default=1200, help="GreedyBot's hands to imitate before PPO"
    )
    parser.add_argument("--bc-epochs", type=int, default=8, help="epochs of the imitation")
    parser.add_argument("--dagger-rounds", type=int, default=0, help="DAgger rounds after it")
    parser.add_argument("--dagger-hands", type=int, default=200, help="hands a DAgger round")
    parser.add_argument("--dagger-epochs", type=int, default=2, help="epochs a DAgger round")
    parser.add_argument(
        "--opponents",
        default="greedy:0.6,random:0.1,self:0.3",
        help="the share of training hands against each opponent (self: frozen earlier copies)",
    )
    parser.add_argument("--pool", type=int, default=5, help="frozen copies kept for self-play")
    parser.add_argument("--refresh", type=float, default=1.0, help="CPU minutes between copies")
    parser.add_argument("--lr", type=float, default=1e-4, help="PPO's learning rate")
    parser.add_argument("--n-steps", type=int, default=2048, help="PPO's steps a rollout")
    parser.add_argument("--batch", type=int, default=256, help="PPO's minibatch")
    parser.add_argument("--ent", type=float, default=0.003, help="PPO's entropy coefficient")
    parser.add_argument("--sparse", action="store_true", help="no dense reward shaping")
    parser.add_argument("--hidden", type=int, default=256, help="units of each hidden layer")
    parser.add_argument(
        "--net",
        choices=("mlp", "slot-card"),
        default="mlp",
        help="the actor: a perceptron (MLPPolicy) or shared slot and card scorers (SlotCardPolicy)",
    )
    parser.add_argument("--scorer", type=int, default=64, help="units of a slot-card scorer")
    parser.add_argument("--summary", type=int, default=32, help="the slot-card trunk summary")
    parser.add_argument(
        "--bc-cache", type=Path, help="keep the imitation examples in this directory, reuse them"
    )
    parser.add_argument("--seed", type=int, default=1, help="torch's and the deals' seed")
    parser.add_argument(
        "--eval-hands", type=int, default=400, help="held-out hands against GreedyBot"
    )
    parser.add_argument("--eval-seed", type=int, default=2027, help="the held-out deals' seed")
    parser.add_argument(
        "--eval-random-hands", type=int, default=100, help="held-out hands against RandomBot"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("runs/policy"), help="the run's directory, or the PNG"
    )
    parser.add_argument(
        "--evaluate",
        type=Path,
        nargs="+",
        help="only evaluate these saved policies (files, or shipped names: "
        + ", ".join(SHIPPED)
        + ")",
    )
    parser.add_argument(
        "--plot",
        nargs="+",
        metavar="LABEL=CSV",
        help="only draw these curves (curve.csv of runs) into --out as a PNG",
    )
    parser.add_argument("--fixture", type=Path, help="only write the tests' slot-card fixture")
    args = parser.parse_args()
    if args.fixture:
        write_fixture(args.fixture)
        return
    if args.plot:
        named = [item.split("=", 1) if "=" in item else (None, item) for item in args.plot]
        for _, csv_path in named:
            if not Path(csv_path).is_file():
                parser.error(f"--plot: no file {csv_path!r}")
        try:
            curves = [  # a curve without a label goes by its run's directory
                (label or Path(csv_path).resolve().parent.name, read_curve(Path(csv_path)))
                for label, csv_path in named
            ]
        except ValueError as error:
            parser.error(f"--plot: {error}")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        plot(curves, args.out, "")  # the labels name the runs
        return
    if args.evaluate:
        for path in args.evaluate:
            if not (path.is_file() or _is_shipped(path)):
                parser.error(f"--evaluate: no file {str(path)!r}, nor a shipped policy")
            game = (variants.get(args.variant), args.players)
            if _is_shipped(path) and policy_bot(str(path)).refusal(*game) is not None:
                parser.error(f"--evaluate: {path} was trained for another game than this one")
        try:
            report(args, args.evaluate)
        except (ValueError, OSError) as error:  # a file that is no policy
            parser.error(f"--evaluate: {str(error).splitlines()[0][:200]}")
        return
    if not args.checkpoints:
        args.checkpoints = f"{args.cpu_minutes:g}"
    if any(float(m) > args.cpu_minutes for m in args.checkpoints.split(",")):
        parser.error("a checkpoint lies beyond --cpu-minutes")
    import torch  # training only: evaluating a saved policy needs numpy alone
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    started = clock()
    mix = {k: float(v) for k, v in (part.split(":") for part in args.opponents.split(","))}
    if not set(mix) <= {"greedy", "random", "self"}:
        parser.error("--opponents names greedy, random and self")
    env = Training(
        mix,
        args.pool,
        variant=args.variant,
        players=args.players,
        skip_forced=True,
        dense_rewards=not args.sparse,
        max_turns=200,
    )
    if args.net == "slot-card":
        policy: Any = slot_card_policy(args.hidden, args.scorer, args.summary)
        policy_kwargs: dict[str, Any] = {"ortho_init": False}
    else:
        policy = "MlpPolicy"
        policy_kwargs = {"net_arch": [args.hidden, args.hidden]}
    model = MaskablePPO(
        policy,
        env,
        learning_rate=args.lr,
        n_steps=args.n_steps,
        batch_size=args.batch,
        n_epochs=4,
        gamma=0.995,
        clip_range=0.1,
        ent_coef=args.ent,
        policy_kwargs=policy_kwargs,
        seed=args.seed,
        verbose=0,
    )
    if args.bc_hands:
        data = cached_examples(args, args.bc_hands, args.seed)
        test = cached_examples(args, 40, args.seed + 1_000)
        accuracy = imitate(model, data, args.bc_epochs, test)
        for round_ in range(args.dagger_rounds):
            more = dagger_examples(
                to_numpy(model), args.variant, args.players, args.dagger_hands, args.seed + round_
            )
            data = tuple(np.concatenate(pair) for pair in zip(data, more, strict=True))
            accuracy = imitate(model, data, args.dagger_epochs, test, lr=3e-4)
        print(
            f"imitation: {len(data[2])} tokens, held-out accuracy {accuracy:.3f}, "
            f"{(clock() - started) / 60:.1f} CPU-min",
            flush=True,
        )
        net = to_numpy(model)
        net.save(args.out / "policy_imitation.npz")
        env.set_frozen(net)
    callback = schedule(args, args.out, started)
    model.learn(total_timesteps=10**9, callback=callback)
    write_curve(callback.curve, args.out / "curve.csv")
    plot([("", callback.curve)], args.out / "curve.png", f"{args.variant} {args.players}p")
    if args.eval_hands:
        report(args, sorted(args.out.glob("policy_*.npz")))


def report(args: argparse.Namespace, paths: list[Path]) -> None:
    """Evaluate each policy against GreedyBot (``--eval-hands``) and RandomBot
    (``--eval-random-hands``) on the held-out deals, printing a JSON line each."""
    for path in paths:
        for opponent, hands in (("greedy", args.eval_hands), ("random", args.eval_random_hands)):
            if hands:
                print(json.dumps(evaluate(args, path, opponent, hands)), flush=True)


if __name__ == "__main__":
    main()

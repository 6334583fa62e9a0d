"""Trained token policies shipped with the package, to play as bots with numpy alone.

Needs numpy (``pip install 'buraco-rules[rl]'``). Each is a policy saved by
``tools/train_policy.py`` (package data, read without pickle) and named for the game it was
trained on; :data:`SHIPPED` says how it was trained and what it measured against GreedyBot
(docs/rl.md, "A training recipe and its result"). The weights are stored as ``float16`` (half
the size; the measured hands were won alike) and played as ``float32``. The observation a
policy reads is the same in every variant, so it plays any of them, but it was trained and
measured only on its own, and :func:`policy_bot` plays it there only.

>>> import random
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> bot = policy_bot("italian-2p")
>>> state = br.apply(br.new_game(variants.ITALIAN, 2, seed=1), br.DrawFromStock())
>>> br.is_legal(state, bot.choose(br.view(state, 0), random.Random(0)))
True
"""

from __future__ import annotations

from importlib import resources
from types import MappingProxyType
from typing import Final

from ... import variants
from ...core.rules import RuleSet
from ..policy import MLPPolicy, PolicyBot, load_policy
from ..slot_card import SlotCardPolicy

__all__ = ["SHIPPED", "load", "policy_bot"]

SHIPPED: Final = MappingProxyType(
    {
        "buraco-fechado-2p": (
            "Buraco Fechado, two players: imitation of GreedyBot, then MaskablePPO against "
            "GreedyBot, RandomBot and frozen copies of itself for 120 CPU minutes "
            "(SlotCardPolicy); 58.3 % of 400 held-out hands won against GreedyBot (53.4-63.0 %, "
            "95 % Wilson interval), 66.9 % (63.9-69.7 %) of 1,000 more: 64.4 % (61.9-66.9 %) of "
            "the 1,400"
        ),
        "italian-2p": (
            "Italian Buraco, two players: imitation of GreedyBot, then MaskablePPO against "
            "GreedyBot, RandomBot and frozen copies of itself for 30 CPU minutes (a two-layer "
            "perceptron, MLPPolicy); 64.3 % of 400 held-out hands won against GreedyBot "
            "(59.4-68.8 %, 95 % Wilson interval), 65.4 % (62.4-68.3 %) of 1,000 more"
        ),
    }
)
"""The shipped policies by name, each with how it was trained and what it measured."""

_TRAINED_FOR: Final[dict[str, tuple[RuleSet, int]]] = {
    "buraco-fechado-2p": (variants.BURACO_FECHADO, 2),
    "italian-2p": (variants.ITALIAN, 2),
}


def load(name: str) -> MLPPolicy | SlotCardPolicy:
    """The shipped policy ``name`` (one of :data:`SHIPPED`); any other name is a
    ``ValueError`` naming those there are."""
    if not isinstance(name, str) or name not in SHIPPED:
        known = ", ".join(sorted(SHIPPED))
        raise ValueError(f"no shipped policy is called {str(name)[:40]!r} (there are: {known})")
    with resources.files(__name__).joinpath(f"{name}.npz").open("rb") as file:
        return load_policy(file)


def policy_bot(name: str) -> PolicyBot:
    """A :class:`~buraco_rules.rl.policy.PolicyBot` playing the shipped policy ``name``,
    called ``policy:NAME``, in the one game it was trained for (a view of another is a
    ``ValueError``: it would play it about as badly as a random policy)."""
    policy = load(name)
    return PolicyBot(policy, name=f"policy:{name}", trained_for=_TRAINED_FOR[name])

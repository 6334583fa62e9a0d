"""Token policies as bots: :class:`PolicyBot` plays any ``policy(observation, mask) -> token``
from a seat's view, a token at a time, wherever a :class:`~buraco_rules.bots.Bot` plays.

Needs numpy (``pip install 'buraco-rules[rl]'``). The bot spells its action as the environments
do: at each step it shows the policy ``encode(view, prefix)``
(:mod:`buraco_rules.rl.observation`) and the legal tokens as a mask (``int8``, 1 for legal,
the type the environments' masks have), and appends the
token chosen; with ``skip_forced`` (the default, as the Gymnasium environment's) a token with no
alternative is appended without asking. It sees nothing but the view, so it is as blind to hidden
cards as any bot. :class:`MLPPolicy` is a small numpy network (as ``tools/train_policy.py``
saves them) that plays with no deep-learning library.

>>> import random
>>> import numpy as np
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> lowest = PolicyBot(lambda observation, mask: int(np.flatnonzero(mask)[0]))
>>> state = br.new_game(variants.ITALIAN, 2, seed=1)
>>> lowest.choose(br.view(state, 0), random.Random(0))
DrawFromStock()
"""

from __future__ import annotations

import operator
import random
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import attrs
import numpy as np
import numpy.typing as npt

from .. import variants
from ..core.actions import Action
from ..core.rules import RuleSet
from ..hidden.views import PlayerView
from ._policy_input import masked_choice
from .encoding import NUM_TOKENS, is_complete, legal_tokens, token_to_string, tokens_to_action
from .observation import OBSERVATION_SIZE, encode, with_prefix
from .slot_card import SlotCardPolicy

__all__ = ["MLPPolicy", "Policy", "PolicyBot", "game_name", "load_policy", "load_policy_bot"]

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]
"""A token policy: ``policy(observation, mask)`` returns a legal token (an int, or anything
``int()`` reads, as numpy's integers)."""


class PolicyBot:
    """A :class:`~buraco_rules.bots.Bot` that spells its action with ``policy``, a token per
    step, from the seat's view (see the module). A policy that returns an illegal token is a
    ``ValueError`` naming it. The policy should be deterministic, or draw from its own seeded
    generator: the ``rng`` a bot is given is not passed on. ``name`` is what tables call it
    (:func:`~buraco_rules.bots.ladder.ladder`, :func:`~buraco_rules.bots.simulate.simulate`);
    two policies in one ladder need two names. ``trained_for`` (rules, players), when given,
    is the only game it plays: a view of another is a ``ValueError`` (a policy reads every
    variant's observation alike, and plays one it was not trained on about as badly as a random
    one, silently). A token the policy returns that is not an integer is a ``TypeError``."""

    def __init__(
        self,
        policy: Policy,
        skip_forced: bool = True,
        name: str = "policy",
        *,
        trained_for: tuple[RuleSet, int] | None = None,
    ) -> None:
        if not callable(policy):
            raise TypeError(f"policy must be callable, not {type(policy).__name__}")
        if type(skip_forced) is not bool:
            raise TypeError(f"skip_forced must be True or False, not {skip_forced!r}")
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, not {name!r}")
        if trained_for is not None and not (
            isinstance(trained_for, tuple)
            and len(trained_for) == 2
            and isinstance(trained_for[0], RuleSet)
            and type(trained_for[1]) is int
        ):
            raise TypeError(f"trained_for must be (rules, players), not {trained_for!r:.80}")
        self.policy = policy
        self.skip_forced = skip_forced
        self.name = name
        self.trained_for = trained_for

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        """The action ``policy`` spells in ``view``."""
        refused = self.refusal(view.rules, view.players)
        if refused is not None:
            raise ValueError(f"{self.name} {refused}")
        prefix: tuple[int, ...] = ()
        plain = encode(view)
        while not is_complete(prefix):
            legal = legal_tokens(view, prefix)
            if not legal:
                raise ValueError("the seat has nothing to play in this view")
            if self.skip_forced and len(legal) == 1:
                token = legal[0]
            else:
                mask = np.zeros(NUM_TOKENS, np.int8)
                mask[list(legal)] = 1
                observation = with_prefix(plain, prefix) if prefix else plain.copy()
                chosen = self.policy(observation, mask)
                try:
                    if isinstance(chosen, bool):  # an int to Python, but never a token
                        raise TypeError
                    token = operator.index(chosen)
                except TypeError:
                    raise TypeError(
                        f"{self.name} returned {type(chosen).__name__}, not a token (an int)"
                    ) from None
                if token not in legal:
                    raise ValueError(
                        f"the policy chose token {chosen!r}, not legal here (legal: "
                        + " ".join(token_to_string(t) for t in legal)
                        + ")"
                    )
            prefix += (token,)
        return tokens_to_action(prefix)

    def refusal(self, rules: RuleSet, players: int) -> str | None:
        """Why this bot may not play ``rules`` with ``players`` (``"was trained for ..., not
        ..."``, the games named by :func:`game_name`), or None: it plays any game unless
        ``trained_for`` names one. The one check behind every refusal of a policy's game."""
        if self.trained_for is None or self.trained_for == (rules, players):
            return None
        return f"was trained for {game_name(*self.trained_for)}, not {game_name(rules, players)}"

    def __repr__(self) -> str:
        return f"PolicyBot({self.policy!r}, name={self.name!r})"


def game_name(rules: RuleSet, players: int) -> str:
    """``rules`` and ``players`` for a message: the variant's name and the players, and the house
    rules where the rule set is not its variant's preset (``"italian, 2 players, house rules:
    first_draw_refusal"``), so that two games of one variant are told apart."""
    named = f"{rules.name or 'unnamed rules'}, {players} players"
    try:
        preset = variants.get(rules.name)
    except ValueError:
        return named
    changed = [
        f.name for f in attrs.fields(RuleSet) if getattr(rules, f.name) != getattr(preset, f.name)
    ]
    if not changed:
        return named
    return f"{named}, house rules: " + ", ".join(changed[:4]) + (" ..." if len(changed) > 4 else "")


def load_policy(path: str | Path | IO[bytes]) -> MLPPolicy | SlotCardPolicy:
    """The policy saved at ``path`` (a file name or a binary file open for reading: numpy's
    ``.npz``, read without pickle) by
    :meth:`MLPPolicy.save` or :meth:`~buraco_rules.rl.slot_card.SlotCardPolicy.save`, told
    apart by the names of its arrays."""
    with np.load(path, allow_pickle=False) as saved:
        if "card_w1" in saved.files:
            return SlotCardPolicy({k: saved[k] for k in saved.files})
        return MLPPolicy.from_arrays(saved)


def load_policy_bot(path: str | Path, name: str | None = None) -> PolicyBot:
    """A :class:`PolicyBot` playing the policy saved at ``path`` (:func:`load_policy`), called
    ``name`` (default ``policy:PATH``). A file that is missing, unreadable or not such a policy
    is a ``ValueError`` of one line."""
    try:
        if Path(path).is_file() and not zipfile.is_zipfile(path):
            raise ValueError("it is not an .npz file (numpy's zip of arrays)")
        policy = load_policy(path)
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        EOFError,
        zipfile.BadZipFile,
    ) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        if "allow_pickle" in reason:  # numpy's advice to trust the file: not to be shown
            reason = "it holds objects, not arrays of numbers"
        raise ValueError(
            f"{str(path)!r} is not a policy saved by MLPPolicy.save: {reason[:200]}"
        ) from None
    return PolicyBot(policy, name=f"policy:{path}" if name is None else name)


class MLPPolicy:
    """A multilayer perceptron in numpy: ``tanh`` hidden layers, the masked argmax of the last
    layer's logits. ``layers`` is a sequence of ``(weights, bias)`` with weights shaped ``(in,
    out)``, the first ``in`` :data:`~buraco_rules.rl.observation.OBSERVATION_SIZE` and the last
    ``out`` 96; a bad shape is a ``ValueError``."""

    def __init__(self, layers: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]]) -> None:
        built = [
            (np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers
        ]
        if not built:
            raise ValueError("it has no layers (arrays w0, b0, w1, b1, ...)")
        width = OBSERVATION_SIZE
        for w, b in built:
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(f"a layer of shape {w.shape} + {b.shape} after width {width}")
            width = w.shape[1]
        if width != NUM_TOKENS:
            raise ValueError(f"the last layer must have {NUM_TOKENS} outputs, not {width}")
        self.layers = built

    def logits(self, observation: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The last layer's outputs for ``observation``."""
        x = np.asarray(observation, dtype=np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = np.tanh(x)
        return x

    def __call__(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[Any]) -> int:
        """The legal token with the highest logit, for one observation and its mask (a batch, a
        wrong length or a mask with no token set is a ``ValueError``)."""
        return masked_choice(self.logits, observation, mask)

    def save(self, path: str | Path) -> None:
        """Write the weights to ``path`` (numpy's ``.npz``)."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> MLPPolicy:
        """The policy saved at ``path`` by :meth:`save`."""
        with np.load(path, allow_pickle=False) as saved:
            return cls.from_arrays(saved)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.ArrayLike]) -> MLPPolicy:
        """The policy of ``w0, b0, w1, b1, ...`` (as :meth:`save` writes them)."""
        count = len([k for k in arrays if k.startswith("w")])
        return cls([(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)])

    def __repr__(self) -> str:
        return "MLPPolicy(" + " -> ".join(str(w.shape[0]) for w, _ in self.layers) + " -> 96)"

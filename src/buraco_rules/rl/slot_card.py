"""A token policy whose meld-slot and card outputs each read their own slot and card.

Needs numpy (``pip install 'buraco-rules[rl]'``). A plain perceptron
(:class:`~buraco_rules.rl.policy.MLPPolicy`) must learn, output by output, which of the 1,156
numbers of the observation describe the meld a slot token names or the card a card token
names; imitating GreedyBot it fits about two thirds of its choices, and least those between
slots and between cards. :class:`SlotCardPolicy` shares one small scorer across the meld slots
and one across the cards, each fed what concerns its own slot or card (:func:`slot_features`,
:func:`card_features`: fixed gathers from the observation, no learnt weights) and a summary of
the whole observation from a trunk; the scores are added to a trunk head's logits for all 96
tokens. It plays with numpy alone; ``tools/train_policy.py --net slot-card`` trains it.

>>> import random
>>> import numpy as np
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> from buraco_rules.rl.policy import PolicyBot
>>> policy = SlotCardPolicy.random(np.random.default_rng(0), hidden=8, scorer=4, summary=2)
>>> state = br.new_game(variants.ITALIAN, 2, seed=1)
>>> type(PolicyBot(policy).choose(br.view(state, 0), random.Random(0))).__name__
'DrawFromStock'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ._policy_input import masked_choice
from .encoding import FIRST_CARD, FIRST_SLOT, NUM_CARD_TOKENS, NUM_TOKENS
from .observation import LAYOUT, MELD_FEATURES, OBSERVATION_SIZE, OTHER_SLOTS, OWN_SLOTS

__all__ = [
    "CARD_FEATURES",
    "SLOT_FEATURES",
    "SlotCardPolicy",
    "card_features",
    "slot_features",
]

_POSITIONS: Final = 14
"""Run positions 1-14 (the ace at both ends)."""
_JOKER: Final = 52
_TWOS: Final = np.array([1, 14, 27, 40])
# _GRID[s, p - 1]: the card id at run position p of suit s (the ace at positions 1 and 14).
_GRID: Final = np.array(
    [[s * 13 + (p - 1 if p <= 13 else 0) for p in range(1, 15)] for s in range(4)]
)
_CARD_POSITIONS: Final = np.zeros((NUM_CARD_TOKENS, _POSITIONS), np.float32)
for _card in range(52):
    _rank = _card % 13  # 0 is the ace
    _CARD_POSITIONS[_card, _rank] = 1.0
    if _rank == 0:
        _CARD_POSITIONS[_card, 13] = 1.0
_CARD_SUIT: Final = np.array([c // 13 for c in range(52)])
_CARD_RANK: Final = np.array([c % 13 for c in range(52)])
_S: Final = {name: field.start for name, field in LAYOUT.items()}

CARD_FEATURES: Final = 7 * _POSITIONS + 4 + 3 + 7 + 4
"""Numbers :func:`card_features` gives each card token: the card's run positions (one-hot, an
ace at both ends; none for the joker); by run position, the row of the card's suit in the hand,
on the table, in the visible discard pile, in the prefix being spelt, and in the runs of the
observer's team and of the other team (summed over those melds); the sets of the card's rank on
the table of each team, the first clipped to 1, and whether a run of the observer's team holds
the card's position in its suit; the hand's, the table's and the pile's count of the card's rank;
the card's own count in the hand, the pile, the prefix and the table, whether it tops the pile,
is a 2, is the joker; the jokers and 2s in the hand and in the prefix."""
SLOT_FEATURES: Final = MELD_FEATURES + 5 * _POSITIONS + 4 + 1
"""Numbers :func:`slot_features` gives each of the observer's team's meld slots: the slot's
:data:`~buraco_rules.rl.observation.MELD_FEATURES`; by run position, the hand's cards of the
run's suit, the prefix's cards of that suit, the pile's cards of that suit (all zero for a set),
and for a set the hand's and the prefix's cards of each rank; the jokers and 2s in the hand and
in the prefix; and whether the prefix names the slot."""


def _rows(values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``values`` by card (..., 53) as suit rows by run position (..., 4, 14)."""
    return values[..., _GRID]


def _blocks(observation: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
    x = np.asarray(observation, dtype=np.float32)
    if x.ndim != 2 or x.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"observations must be shaped (n, {OBSERVATION_SIZE}), not {x.shape}")
    prefix = x[:, LAYOUT["prefix"].slice]
    own = x[:, LAYOUT["own_melds"].slice].reshape(-1, OWN_SLOTS, MELD_FEATURES)
    other = x[:, LAYOUT["other_melds"].slice].reshape(-1, OTHER_SLOTS, MELD_FEATURES)
    return {
        "hand": x[:, LAYOUT["hand"].slice],
        "pile": x[:, LAYOUT["discard_pile"].slice],
        "top": x[:, LAYOUT["discard_top"].slice],
        "table": x[:, LAYOUT["table_cards"].slice],
        "prefix": prefix[:, FIRST_CARD:],
        "slots_named": prefix[:, FIRST_SLOT : FIRST_SLOT + OWN_SLOTS],
        "own": own,
        "other": other,
    }


def _wildcards(b: Mapping[str, npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    """(n, 4): jokers and 2s in the hand, then in the prefix."""
    return np.stack(
        [
            b["hand"][:, _JOKER],
            b["hand"][:, _TWOS].sum(1) / 4.0,
            b["prefix"][:, _JOKER],
            b["prefix"][:, _TWOS].sum(1) / 4.0,
        ],
        axis=1,
    )


def _runs_by_suit(melds: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """(n, 4, 14): the run positions held by a team's runs of each suit."""
    out: npt.NDArray[np.float32] = np.einsum(
        "nm,nms,nmp->nsp", melds[:, :, 0], melds[:, :, 2:6], melds[:, :, 6:20]
    )
    return out


def _sets_by_position(melds: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """(n, 14): the positions of the ranks of a team's sets."""
    out: npt.NDArray[np.float32] = np.einsum("nm,nmp->np", melds[:, :, 1], melds[:, :, 6:20])
    return out


def card_features(observation: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The :data:`CARD_FEATURES` numbers of each of the 53 card tokens (the joker last), for
    observations shaped ``(n, OBSERVATION_SIZE)``: an array ``(n, 53, CARD_FEATURES)``."""
    b = _blocks(observation)
    n = b["hand"].shape[0]
    hand_rows, table_rows = _rows(b["hand"]), _rows(b["table"])
    pile_rows, prefix_rows = _rows(b["pile"]), _rows(b["prefix"])
    own_runs, other_runs = _runs_by_suit(b["own"]), _runs_by_suit(b["other"])
    own_sets, other_sets = _sets_by_position(b["own"]), _sets_by_position(b["other"])
    out = np.zeros((n, NUM_CARD_TOKENS, CARD_FEATURES), np.float32)
    suited = slice(0, 52)
    at = 0
    out[:, :, at : at + _POSITIONS] = _CARD_POSITIONS
    at += _POSITIONS
    for rows in (hand_rows, table_rows, pile_rows, prefix_rows, own_runs, other_runs):
        out[:, suited, at : at + _POSITIONS] = rows[:, _CARD_SUIT]
        at += _POSITIONS
    out[:, suited, at] = own_sets[:, _CARD_RANK]
    out[:, suited, at + 1] = other_sets[:, _CARD_RANK]
    out[:, suited, at + 2] = np.minimum(own_sets[:, _CARD_RANK], 1.0)
    out[:, suited, at + 3] = np.minimum(own_runs[:, _CARD_SUIT, _CARD_RANK], 1.0)
    at += 4
    for rows in (hand_rows, table_rows, pile_rows):
        out[:, suited, at] = rows[:, :, :13].sum(1)[:, _CARD_RANK] / 4.0
        at += 1
    for values in (b["hand"], b["pile"], b["prefix"], b["table"], b["top"]):
        out[:, :, at] = values
        at += 1
    out[:, _TWOS, at] = 1.0
    out[:, _JOKER, at + 1] = 1.0
    at += 2
    out[:, :, at : at + 4] = _wildcards(b)[:, None, :]
    return out


def slot_features(observation: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The :data:`SLOT_FEATURES` numbers of each of the observer's team's first
    :data:`~buraco_rules.rl.observation.OWN_SLOTS` meld slots, for observations shaped ``(n,
    OBSERVATION_SIZE)``: an array ``(n, OWN_SLOTS, SLOT_FEATURES)``."""
    b = _blocks(observation)
    own = b["own"]
    n = own.shape[0]
    is_set = own[:, :, 1:2]
    suits = own[:, :, 2:6]
    hand_rows, prefix_rows, pile_rows = _rows(b["hand"]), _rows(b["prefix"]), _rows(b["pile"])
    out = np.zeros((n, OWN_SLOTS, SLOT_FEATURES), np.float32)
    out[:, :, :MELD_FEATURES] = own
    at = MELD_FEATURES
    for rows in (hand_rows, prefix_rows, pile_rows):
        out[:, :, at : at + _POSITIONS] = np.einsum("nms,nsp->nmp", suits, rows)
        at += _POSITIONS
    for rows in (hand_rows, prefix_rows):
        out[:, :, at : at + _POSITIONS] = is_set * rows.sum(1)[:, None, :] / 4.0
        at += _POSITIONS
    out[:, :, at : at + 4] = _wildcards(b)[:, None, :]
    out[:, :, at + 4] = b["slots_named"]
    return out


_SCALARS: Final = ("card_b2", "slot_b2")


class SlotCardPolicy:
    """A token policy (``policy(observation, mask) -> token``, the masked argmax of
    :meth:`logits`) in numpy, for :class:`~buraco_rules.rl.policy.PolicyBot`.

    ``arrays`` are its weights by name (as :meth:`save` writes them): ``trunk_w0, trunk_b0,
    ...`` a perceptron from the observation to a summary ``h`` (``tanh`` after every layer);
    ``head_w, head_b`` the logits of all 96 tokens from ``h``; ``proj_w, proj_b`` a short
    summary ``tanh(h @ proj_w + proj_b)`` for the scorers; ``card_w1, card_b1, card_w2,
    card_b2, card_bias`` the card scorer (``tanh([card_features, summary] @ w1 + b1) @ w2 + b2``
    plus a bias per card), added to the card tokens' logits; ``slot_w1 ... slot_bias`` the slot
    scorer, added to the logits of slots 0 to 15. A missing array or a bad shape is a
    ``ValueError``."""

    def __init__(self, arrays: Mapping[str, npt.ArrayLike]) -> None:
        try:
            depth = len([k for k in arrays if k.startswith("trunk_w")])
            self.trunk = [
                (_matrix(arrays[f"trunk_w{i}"]), _vector(arrays[f"trunk_b{i}"]))
                for i in range(depth)
            ]
            named = {
                k: _vector(arrays[k]) if k in _SCALARS else _array(arrays[k])
                for k in (
                    "head_w",
                    "head_b",
                    "proj_w",
                    "proj_b",
                    "card_w1",
                    "card_b1",
                    "card_w2",
                    "card_b2",
                    "card_bias",
                    "slot_w1",
                    "slot_b1",
                    "slot_w2",
                    "slot_b2",
                    "slot_bias",
                )
            }
        except KeyError as error:
            raise ValueError(f"the weights lack {error.args[0]!r}") from None
        self.arrays = named
        width = OBSERVATION_SIZE
        for w, b in self.trunk:
            _expect(
                w.shape[0] == width and b.shape == (w.shape[1],), "a trunk layer", w.shape, width
            )
            width = w.shape[1]
        _expect(bool(self.trunk), "the trunk", (0,), width)
        summary = named["proj_w"].shape[1] if named["proj_w"].ndim == 2 else -1
        shapes = {
            "head_w": (width, NUM_TOKENS),
            "head_b": (NUM_TOKENS,),
            "proj_w": (width, summary),
            "proj_b": (summary,),
            "card_w1": (CARD_FEATURES + summary, named["card_b1"].shape[0]),
            "card_w2": named["card_b1"].shape,
            "card_b2": (1,),
            "card_bias": (NUM_CARD_TOKENS,),
            "slot_w1": (SLOT_FEATURES + summary, named["slot_b1"].shape[0]),
            "slot_w2": named["slot_b1"].shape,
            "slot_b2": (1,),
            "slot_bias": (OWN_SLOTS,),
        }
        for key, shape in shapes.items():
            if named[key].shape != shape:
                raise ValueError(f"{key} has shape {named[key].shape}, not {shape}")

    @classmethod
    def random(
        cls, rng: np.random.Generator, hidden: int = 256, scorer: int = 64, summary: int = 32
    ) -> SlotCardPolicy:
        """A policy of random weights (two trunk layers of ``hidden``, scorers of ``scorer``
        units, a summary of ``summary``): for tests and examples."""

        def normal(*shape: int) -> npt.NDArray[np.float32]:
            return np.asarray(rng.standard_normal(shape) / np.sqrt(shape[0]), np.float32)

        return cls(
            {
                "trunk_w0": normal(OBSERVATION_SIZE, hidden),
                "trunk_b0": np.zeros(hidden),
                "trunk_w1": normal(hidden, hidden),
                "trunk_b1": np.zeros(hidden),
                "head_w": normal(hidden, NUM_TOKENS),
                "head_b": np.zeros(NUM_TOKENS),
                "proj_w": normal(hidden, summary),
                "proj_b": np.zeros(summary),
                "card_w1": normal(CARD_FEATURES + summary, scorer),
                "card_b1": np.zeros(scorer),
                "card_w2": normal(scorer),
                "card_b2": np.zeros(1),
                "card_bias": np.zeros(NUM_CARD_TOKENS),
                "slot_w1": normal(SLOT_FEATURES + summary, scorer),
                "slot_b1": np.zeros(scorer),
                "slot_w2": normal(scorer),
                "slot_b2": np.zeros(1),
                "slot_bias": np.zeros(OWN_SLOTS),
            }
        )

    def logits(self, observation: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The 96 logits of an observation (shape ``(OBSERVATION_SIZE,)``), or ``(n, 96)`` of
        ``n`` observations (shape ``(n, OBSERVATION_SIZE)``)."""
        x = np.asarray(observation, dtype=np.float32)
        single = x.ndim == 1
        batch = x[None, :] if single else x
        a = self.arrays
        h = batch
        for w, b in self.trunk:
            h = np.tanh(h @ w + b)
        out = h @ a["head_w"] + a["head_b"]
        summary = np.tanh(h @ a["proj_w"] + a["proj_b"])
        out[:, FIRST_CARD:] += self._score(card_features(batch), summary, "card")
        out[:, FIRST_SLOT : FIRST_SLOT + OWN_SLOTS] += self._score(
            slot_features(batch), summary, "slot"
        )
        return out[0] if single else out

    def _score(
        self, features: npt.NDArray[np.float32], summary: npt.NDArray[np.float32], which: str
    ) -> npt.NDArray[np.float32]:
        """The shared scorer ``which`` over each item of ``features`` (n, items, f)."""
        a = self.arrays
        w1 = a[f"{which}_w1"]
        f = features.shape[2]
        # [features, summary] @ w1, without building the concatenation per item:
        hidden = features @ w1[:f] + (summary @ w1[f:])[:, None, :] + a[f"{which}_b1"]
        out: npt.NDArray[np.float32] = (
            np.tanh(hidden) @ a[f"{which}_w2"] + a[f"{which}_b2"][0] + a[f"{which}_bias"]
        )
        return out

    def __call__(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[Any]) -> int:
        """The legal token with the highest logit, for one observation and its mask (a batch, a
        wrong length or a mask with no token set is a ``ValueError``)."""
        return masked_choice(self.logits, observation, mask)

    def to_arrays(self) -> dict[str, npt.NDArray[np.float32]]:
        """The weights by name, as the constructor takes them."""
        arrays = dict(self.arrays)
        for i, (w, b) in enumerate(self.trunk):
            arrays[f"trunk_w{i}"], arrays[f"trunk_b{i}"] = w, b
        return arrays

    def save(self, path: str | Path) -> None:
        """Write the weights to ``path`` (numpy's ``.npz``; ``float16`` halves the file and
        changes no logit by more than a few thousandths, so they are stored as written)."""
        arrays: dict[str, Any] = dict(self.to_arrays())
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> SlotCardPolicy:
        """The policy saved at ``path`` by :meth:`save` (read without pickle)."""
        with np.load(path, allow_pickle=False) as saved:
            return cls({k: saved[k] for k in saved.files})

    def __repr__(self) -> str:
        widths = " -> ".join(str(w.shape[1]) for w, _ in self.trunk)
        scorer = self.arrays["card_b1"].shape[0]
        return f"SlotCardPolicy(trunk {OBSERVATION_SIZE} -> {widths}, scorers of {scorer})"


def _array(value: npt.ArrayLike) -> npt.NDArray[np.float32]:
    return np.asarray(value, dtype=np.float32)


def _matrix(value: npt.ArrayLike) -> npt.NDArray[np.float32]:
    out = _array(value)
    if out.ndim != 2:
        raise ValueError(f"a trunk weight must be a matrix, not shaped {out.shape}")
    return out


def _vector(value: npt.ArrayLike) -> npt.NDArray[np.float32]:
    return _array(value).reshape(-1)


def _expect(ok: bool, what: str, shape: tuple[int, ...], width: int) -> None:
    if not ok:
        raise ValueError(f"{what} of shape {shape} does not follow width {width}")

"""What a token policy is called with, checked (internal to ``buraco_rules.rl``): one
observation and its mask, as the environments and :class:`~buraco_rules.rl.policy.PolicyBot` give
them. A batch, a wrong length or a mask with no legal token would otherwise give a token silently
(numpy broadcasts a batch, and the argmax of an all-masked row is 0)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .encoding import NUM_TOKENS
from .observation import OBSERVATION_SIZE


def masked_choice(
    logits_of: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]],
    observation: npt.ArrayLike,
    mask: npt.ArrayLike,
) -> int:
    """The legal token with the highest of ``logits_of(observation)``; an observation that is not
    one vector of :data:`~buraco_rules.rl.observation.OBSERVATION_SIZE` numbers, or a mask that is
    not 96 flags with at least one set, is a ``ValueError``."""
    seen = np.asarray(observation, dtype=np.float32)
    if seen.shape != (OBSERVATION_SIZE,):
        raise ValueError(
            f"a policy reads one observation of {OBSERVATION_SIZE} numbers, not an array of "
            f"shape {seen.shape}"
        )
    legal = np.asarray(mask, dtype=bool)
    if legal.shape != (NUM_TOKENS,):
        raise ValueError(f"a mask is {NUM_TOKENS} flags, not an array of shape {legal.shape}")
    if not legal.any():
        raise ValueError("the mask allows no token")
    return int(np.argmax(np.where(legal, logits_of(seen), -np.inf)))

"""Buraco as a single-agent Gymnasium environment: one learning seat, the others played by the
library's bots.

Needs Gymnasium (``pip install 'buraco-rules[pettingzoo]'``). Importing this module registers
:data:`ENV_ID` with Gymnasium. The learning seat spells its actions a token per step
(:mod:`buraco_rules.rl.encoding`); between its steps the other seats (its partner too, with four
players) play whole actions with their bot (``"greedy"`` by default). Observations are
``encode(view, prefix)`` (:mod:`buraco_rules.rl.observation`); :meth:`BuracoEnv.action_masks`
gives the legal tokens as sb3-contrib's ``MaskablePPO`` expects them, and ``info["action_mask"]``
the same. The reward is paid when the hand ends: the learning team's total less the other
team's, times ``reward_scale``; a hand cut at ``max_turns`` turns is truncated and scored as it
stands. An illegal token ends the hand with the game's lowest reward
(``info["illegal_action"]``).

>>> import gymnasium
>>> import buraco_rules.rl.gymnasium as rl_gym
>>> table = gymnasium.make(rl_gym.ENV_ID, variant="italian", players=2)
>>> observation, info = table.reset(seed=1)
>>> observation.shape == (rl_gym.OBSERVATION_SIZE,), int(info["action_mask"].sum())
(True, 2)
"""

from __future__ import annotations

import random
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..bots import Bot, bot_from_name
from ..engine.state import TEAM, GameState
from ..hidden.views import view
from ..play.face import new_game
from ._position import IllegalToken, Position, SteppedHand, utility_bound
from .encoding import NUM_TOKENS
from .observation import OBSERVATION_SIZE, encode, with_prefix
from .pettingzoo import _positive_int, _positive_number, _rules_and_players, render_table

__all__ = ["ENV_ID", "OBSERVATION_SIZE", "BuracoEnv"]

ENV_ID: Final = "buraco_rules/Buraco-v0"
"""The id the environment is registered under: ``gymnasium.make("buraco_rules/Buraco-v0")``."""


class BuracoEnv(SteppedHand, gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One learning seat against (and, with four players, beside) bots; see the module.

    ``opponent`` is a bot (anything with ``choose(view, rng)``) or a bot's name (``"random"``,
    ``"greedy"``, ``"montecarlo"``, ``"ismcts"``, or a search bot with its budget as in
    ``"ismcts:100"``, :func:`~buraco_rules.bots.bot_from_name`); ``seat`` is the learning seat.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 - declared so by gymnasium.Env

    def __init__(
        self,
        variant: str = "buraco-fechado",
        players: int = 2,
        max_turns: int = 300,
        reward_scale: float = 1.0,
        opponent: Bot | str = "greedy",
        seat: int = 0,
        render_mode: str | None = None,
    ) -> None:
        self.rules, self.players = _rules_and_players(variant, players)
        self.max_turns = _positive_int("max_turns", max_turns)
        self.reward_scale = _positive_number("reward_scale", reward_scale)
        self.opponent: Bot = bot_from_name(opponent) if isinstance(opponent, str) else opponent
        if not callable(getattr(self.opponent, "choose", None)):
            raise ValueError(f"opponent must be a bot or a bot's name, not {opponent!r}")
        if type(seat) is not int or not 0 <= seat < self.players:
            raise ValueError(f"seat must be a seat from 0 to {self.players - 1}, not {seat!r}")
        self.seat = seat
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_TOKENS)
        self.illegal_reward = -utility_bound(self.rules) * self.reward_scale
        """The reward of an illegal token: the game's lowest."""
        self._bots_rng = random.Random()
        self._position: Position | None = None  # read through SteppedHand.position
        self._ended = False
        self._seen: tuple[GameState, npt.NDArray[np.float32]] | None = None
        """The last engine state observed and its observation without a prefix."""

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal tokens of the learning seat, as booleans (all False once the hand is over)."""
        mask = np.zeros(NUM_TOKENS, np.bool_)
        position = self.position
        if not (position.over or self._ended) and position.engine.current_player == self.seat:
            mask[list(position.legal())] = True
        return mask

    def _observation(self) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        position = self.position
        engine = position.engine
        if self._seen is None or self._seen[0] is not engine:
            self._seen = (engine, encode(view(engine, self.seat)))
        observation = with_prefix(self._seen[1], position.pending)
        return observation, {"action_mask": self.action_masks().astype(np.int8)}

    def _play_bots(self, position: Position) -> Position:
        while not position.over and position.engine.current_player != self.seat:
            engine = position.engine
            action = self.opponent.choose(view(engine, engine.current_player), self._bots_rng)
            position = position.play(action, self.max_turns)
        return position

    def _reward(self, position: Position) -> float:
        diff = position.team_difference() * self.reward_scale
        return diff if TEAM[self.seat] == 0 else -diff

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal a new hand (the same seed, the same deal and the same bot play) and let the bots
        play until the learning seat is to act."""
        super().reset(seed=seed)
        deal = int(self.np_random.integers(2**63))
        self._bots_rng = random.Random(int(self.np_random.integers(2**63)))
        first = Position(new_game(self.rules, self.players, seed=deal))
        self._ended = False
        self._position = self._play_bots(first)
        return self._observation()

    def step(
        self, action: np.int64 | int
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Spell one token for the learning seat; the bots then play until it is to act again
        or the hand ends."""
        position = self.position
        if position.over or self._ended:
            raise RuntimeError("the hand is over: call reset()")
        try:
            position = position.step(int(action), self.max_turns)
        except IllegalToken:
            self._ended = True
            observation, info = self._observation()
            info["illegal_action"] = True
            return observation, self.illegal_reward, True, False, info
        position = self._play_bots(position)
        self._position = position
        observation, info = self._observation()
        if not position.over:
            return observation, 0.0, False, False, info
        return observation, self._reward(position), not position.truncated, position.truncated, info

    def render(self) -> str | None:
        """With ``render_mode="ansi"``, the learning seat's table as text."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        return render_table(self.position, self.seat)


gymnasium.register(id=ENV_ID, entry_point="buraco_rules.rl.gymnasium:BuracoEnv")

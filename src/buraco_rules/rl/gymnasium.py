"""Buraco as a single-agent Gymnasium environment: one learning seat, the others played by bots
or by policies (self-play).

Needs Gymnasium (``pip install 'buraco-rules[pettingzoo]'``). Importing this module registers
:data:`ENV_ID` with Gymnasium. The learning seat spells its actions a token per step
(:mod:`buraco_rules.rl.encoding`); with ``skip_forced`` (the default) a token with a single legal
choice is played by the environment, so every step is a real choice. Between its steps the other
seats (its partner too, with four players) play whole actions with ``opponent``: a bot, a bot's name
(``"greedy"`` by default), or a token policy ``policy(observation, mask) -> token`` (a
:class:`~buraco_rules.rl.policy.PolicyBot` plays it: a frozen copy of the learner, for self-play).
Observations are ``encode(view, prefix)`` (:mod:`buraco_rules.rl.observation`);
:meth:`BuracoEnv.action_masks` gives the legal tokens as sb3-contrib's ``MaskablePPO`` expects them,
and ``info["action_mask"]`` the same (both ``int8``, 1 for a legal token). The reward is the
learning team's total less the other team's, times ``reward_scale``
(:data:`~buraco_rules.rl.rewards.DEFAULT_REWARD_SCALE`, 0.001 a point), paid when the hand ends, or
with ``dense_rewards`` paid as the lead on the table changes, summing to the same
(:mod:`buraco_rules.rl.rewards`). A hand cut at ``max_turns`` turns is ``truncated``: a time
limit, its result not paid, to bootstrap from. An action that is no token (not an integer from 0
to 95) is a ``TypeError`` or ``ValueError``; a token that is not legal ends the hand with the
game's lowest return (``info["illegal_action"]``).

>>> import gymnasium
>>> import buraco_rules.rl.gymnasium as rl_gym
>>> table = gymnasium.make(rl_gym.ENV_ID, variant="italian", players=2)
>>> observation, info = table.reset(seed=1)
>>> observation.shape == (rl_gym.OBSERVATION_SIZE,), int(info["action_mask"].sum())
(True, 2)
>>> info["action_mask"].dtype == table.unwrapped.action_masks().dtype == "int8"
True
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
from ._position import (
    IllegalToken,
    Position,
    SteppedHand,
    checked_flag,
    checked_seed,
    checked_token,
    utility_bound,
)
from .encoding import NUM_TOKENS
from .observation import OBSERVATION_SIZE, _write_prefix, encode
from .pettingzoo import (
    _positive_int,
    _positive_number,
    _render_mode,
    _rules_and_players,
    render_table,
)
from .policy import PolicyBot
from .rewards import DEFAULT_REWARD_SCALE, Payer

__all__ = ["ENV_ID", "OBSERVATION_SIZE", "BuracoEnv", "as_bot"]

ENV_ID: Final = "buraco_rules/Buraco-v0"
"""The id the environment is registered under: ``gymnasium.make("buraco_rules/Buraco-v0")``."""


def as_bot(opponent: object) -> Bot:
    """A bot for ``opponent``: a bot as it is, a bot's name through
    :func:`~buraco_rules.bots.bot_from_name`, a token policy as a
    :class:`~buraco_rules.rl.policy.PolicyBot`; anything else is a ``ValueError``."""
    if isinstance(opponent, str):
        return bot_from_name(opponent)
    if callable(getattr(opponent, "choose", None)):
        return opponent  # type: ignore[return-value]
    if callable(opponent):
        return PolicyBot(opponent)
    raise ValueError(f"opponent must be a bot, a bot's name or a policy, not {opponent!r}")


class BuracoEnv(SteppedHand, gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One learning seat against (and, with four players, beside) bots or policies; see the
    module.

    ``opponent`` is a bot (anything with ``choose(view, rng)``), a bot's name (``"random"``,
    ``"greedy"``, ``"montecarlo"``, ``"ismcts"``, or a search bot with its budget as in
    ``"ismcts:100"``, :func:`~buraco_rules.bots.bot_from_name`) or a token policy; it may be
    replaced between hands through :attr:`opponent` (:func:`as_bot` reads what is given).
    ``seat`` is the learning seat.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 - declared so by gymnasium.Env

    def __init__(
        self,
        variant: str = "buraco-fechado",
        players: int = 2,
        max_turns: int = 300,
        reward_scale: float = DEFAULT_REWARD_SCALE,
        opponent: object = "greedy",
        seat: int = 0,
        render_mode: str | None = None,
        skip_forced: bool = True,
        dense_rewards: bool = False,
    ) -> None:
        self.rules, self.players = _rules_and_players(variant, players)
        self.max_turns = _positive_int("max_turns", max_turns)
        self.reward_scale = _positive_number("reward_scale", reward_scale)
        self._opponent = self._fitting(as_bot(opponent))
        if type(seat) is not int or not 0 <= seat < self.players:
            raise ValueError(f"seat must be a seat from 0 to {self.players - 1}, not {seat!r}")
        if self.max_turns <= seat:  # seat 0 plays first: the seats before it play a turn each
            raise ValueError(
                f"max_turns must be above the {seat} turns played before seat {seat}'s first, "
                f"not {self.max_turns}: every hand would be cut before the learner plays"
            )
        self.seat = seat
        self.render_mode = _render_mode(render_mode, self.metadata["render_modes"])
        self.skip_forced = checked_flag("skip_forced", skip_forced)
        self.dense_rewards = checked_flag("dense_rewards", dense_rewards)
        self.observation_space = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_TOKENS)
        self.illegal_reward = -utility_bound(self.rules) * self.reward_scale
        """The return of a hand ended by an illegal token: the game's lowest (the step's reward
        is this less what the hand had already paid, so the hand's rewards sum to it)."""
        self._bots_rng = random.Random()
        self._position: Position | None = None  # read through SteppedHand.position
        self._ended = False
        self._payer = Payer(self.reward_scale, self.dense_rewards)
        self._seen: tuple[GameState, npt.NDArray[np.float32]] | None = None
        """The last engine state observed and its observation without a prefix."""

    @property
    def opponent(self) -> Bot:
        """The bot of the other seats (set it to a bot, a bot's name or a policy)."""
        return self._opponent

    @opponent.setter
    def opponent(self, opponent: object) -> None:
        """Read through :func:`as_bot`."""
        self._opponent = self._fitting(as_bot(opponent))

    def set_opponent(self, opponent: object) -> None:
        """Set :attr:`opponent` (between hands): the method form, for a call that must reach
        the environment through wrappers, such as stable-baselines3's
        ``vec_env.env_method("set_opponent", bot)``. Setting the attribute on a wrapped
        environment (``vec_env.set_attr("opponent", bot)``, or ``wrapped.opponent = bot`` on
        what ``gymnasium.make`` returns) sets it on the outer wrapper and changes nothing here;
        Gymnasium's ``wrapped.set_wrapper_attr("opponent", bot)`` reaches it too."""
        self.opponent = opponent

    def _fitting(self, bot: Bot) -> Bot:
        """``bot``, if it may play this game: a policy bot trained for another (a shipped
        policy's, :func:`~buraco_rules.rl.policies.policy_bot`) is a ``ValueError`` here, not at
        the first step of a hand."""
        if isinstance(bot, PolicyBot):
            refused = bot.refusal(self.rules, self.players)
            if refused is not None:
                raise ValueError(f"the opponent {bot.name} {refused}")
        return bot

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal tokens of the learning seat, 1 for legal and 0 otherwise, as ``int8`` (all 0
        once the hand is over): the type ``info["action_mask"]`` has, PettingZoo's masks have and
        ``Discrete.sample(mask=)`` takes; sb3-contrib reads it as booleans. Index logits with
        ``mask.astype(bool)``, not with the mask itself (an int8 array indexes by position)."""
        position = self.position
        if not (position.over or self._ended) and position.engine.current_player == self.seat:
            return position.mask()  # worked out once a position, a new array each call
        return np.zeros(NUM_TOKENS, np.int8)

    def _observation(self, skipped: int = 0) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        position = self.position
        engine = position.engine
        if self._seen is None or self._seen[0] is not engine:
            self._seen = (engine, encode(view(engine, self.seat)))
        observation = self._seen[1].copy()  # the kept one has an empty prefix
        if position.pending:  # tokens the position checked already
            _write_prefix(observation, position.pending)
        return observation, {"action_mask": self.action_masks(), "forced_tokens": skipped}

    def _advance(self, position: Position) -> tuple[Position, int]:
        """Let the other seats play, and the forced tokens of the learning seat be played, until
        it has a choice or the hand ends."""
        skipped = 0
        while True:
            while not position.over and position.engine.current_player != self.seat:
                engine = position.engine
                choice = self._opponent.choose(view(engine, engine.current_player), self._bots_rng)
                position = position.play(choice, self.max_turns)
            if not self.skip_forced:
                return position, skipped
            position, played = position.play_forced(self.max_turns, self.seat)
            skipped += played
            if position.over or position.engine.current_player == self.seat:
                return position, skipped

    def _reward(self, position: Position) -> float:
        due = self._payer.pay(position)
        return due if TEAM[self.seat] == 0 else -due

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal a new hand (the same seed, the same deal and the same bot play) and let the other
        seats play, and the forced tokens be played, until the learning seat has a choice. A
        seed is ``None`` or an ``int`` from 0 (not a bool): anything else is a ``ValueError``."""
        super().reset(seed=checked_seed(seed))
        deal = int(self.np_random.integers(2**63))
        self._bots_rng = random.Random(int(self.np_random.integers(2**63)))
        first = Position(new_game(self.rules, self.players, seed=deal))
        self._ended = False
        self._payer = Payer(self.reward_scale, self.dense_rewards)
        self._position, skipped = self._advance(first)
        if self.render_mode == "human":
            self.render()
        return self._observation(skipped)

    def step(
        self, action: np.int64 | int
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Spell one token for the learning seat; the others then play (and its forced tokens
        are played) until it has a choice again or the hand ends. ``truncated`` is True when the
        hand was cut at ``max_turns``: a time limit, not an end, so the hand's result is not paid
        (a learner bootstraps its value there).

        ``action`` is an ``int`` or a numpy integer from 0 to 95: anything else is a
        ``TypeError``, an integer out of range a ``ValueError`` (a caller's bug, and the hand
        goes on). A token in range that is not legal here ends the hand (``terminated``,
        ``info["illegal_action"]``) with a reward that brings the hand's return to
        :attr:`illegal_reward`, the game's lowest."""
        position = self.position
        if position.over or self._ended:
            raise RuntimeError("the hand is over: call reset()")
        token = checked_token(action)
        try:
            position = position.step(token, self.max_turns)
        except IllegalToken:
            self._ended = True
            observation, info = self._observation()
            info["illegal_action"] = True
            paid = self._payer.paid * self.reward_scale
            already = paid if TEAM[self.seat] == 0 else -paid
            if self.render_mode == "human":
                self.render()
            return observation, self.illegal_reward - already, True, False, info
        position, skipped = self._advance(position)
        self._position = position
        observation, info = self._observation(skipped)
        reward = self._reward(position)
        if self.render_mode == "human":
            self.render()
        if not position.over:
            return observation, reward, False, False, info
        return observation, reward, not position.truncated, position.truncated, info

    def render(self) -> str | None:
        """The learning seat's table as text: returned with ``render_mode="ansi"``, printed with
        ``"human"`` (which ``reset`` and ``step`` also do, as Gymnasium's convention has it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        text = render_table(self.position, self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text


gymnasium.register(id=ENV_ID, entry_point="buraco_rules.rl.gymnasium:BuracoEnv")

"""Buraco as a PettingZoo AEC environment, one token per step.

Needs PettingZoo and Gymnasium (``pip install 'buraco-rules[pettingzoo]'``). :func:`env` builds it
wrapped as PettingZoo's classic environments are (an illegal token ends the hand with the game's
lowest return for the agent that played it; an action that is no token, not an integer from 0 to 95,
is a ``TypeError`` or ``ValueError``, and calls out of order are refused). Agents are ``player_0``,
``player_1``, ... by seat; each observes ``{"observation": encode(view, prefix), "action_mask":
legal tokens}`` (the mask ``int8``, 1 for a legal token, as in PettingZoo's classic environments;
all zero, and the prefix left out, for the agents not to act); actions are ``Discrete(96)`` tokens
(:mod:`buraco_rules.rl.encoding`); with ``skip_forced`` a token with a single legal choice is played
by the environment (one token per step otherwise, as in the OpenSpiel game). Rewards come when the
hand ends: each agent's is its team's total less the other team's, times ``reward_scale``
(:data:`~buraco_rules.rl.rewards.DEFAULT_REWARD_SCALE`, 0.001 a point), or with ``dense_rewards`` as
the team's lead on the table changes, summing to the same (:mod:`buraco_rules.rl.rewards`); a hand
cut at ``max_turns`` turns is truncated, its result not paid (a time limit, to bootstrap from).
``render_mode`` ``"ansi"`` returns
the acting seat's table as text, ``"human"`` prints it.

>>> from buraco_rules.rl.pettingzoo import env
>>> table = env(variant="italian", players=4)
>>> table.reset(seed=3)
>>> table.agent_selection, int(table.observe("player_0")["action_mask"].sum())
('player_0', 2)
>>> table.step(0)  # draw
>>> table.unwrapped.engine_state.phase.value
'play'
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import variants
from ..core.quoting import describe
from ..core.rules import RuleSet
from ..engine.state import TEAM, GameState
from ..hidden.views import view
from ..play.face import new_game
from ..play.rendering import render
from ._position import (
    Position,
    SteppedHand,
    checked_flag,
    checked_seed,
    checked_token,
    token_name,
    utility_bound,
)
from .encoding import NUM_TOKENS
from .observation import OBSERVATION_SIZE, _write_prefix, encode
from .rewards import DEFAULT_REWARD_SCALE, Payer

__all__ = ["ENV_NAME", "BuracoAECEnv", "env", "raw_env", "render_table"]

ENV_NAME: Final = "buraco_v0"
"""The environment's name in its metadata."""


def _rules_and_players(variant: object, players: object) -> tuple[RuleSet, int]:
    rules = variants.get(variant)  # type: ignore[arg-type]
    if type(players) is not int or players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        raise ValueError(f"{rules.title} is played by {counts} players, not {players!r} (R1)")
    return rules, players


def _positive_int(name: str, value: object) -> int:
    if type(value) is not int or value < 1:
        raise ValueError(f"{name} must be an int from 1, not {value!r}")
    return value


def _positive_number(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return float(value)


class _UnsupportedRenderMode(ValueError, TypeError):
    """A render mode the environment does not have: a ``ValueError``, and a ``TypeError`` too,
    because stable-baselines3's ``make_vec_env`` asks for ``"rgb_array"`` first and builds the
    environment without a render mode only when that is a ``TypeError`` (as it is for an
    environment that takes no ``render_mode`` at all)."""


def _render_mode(mode: object, modes: list[str]) -> str | None:
    if mode is not None and mode not in modes:
        raise _UnsupportedRenderMode(
            f"render_mode must be None or one of {modes}, not {describe(mode)}"
        )
    return None if mode is None else str(mode)


def render_table(position: Position, seat: int) -> str:
    """The table as ``seat`` sees it, as text: the turn, the seat to act and what it is spelling
    (shown to that seat only), then the view (:func:`buraco_rules.render`)."""
    state = position.engine
    head = f"turn {position.turns}, seat {state.current_player} to act ({state.phase.value})"
    if position.truncated:
        head += ", cut at the turn limit"
    if state.current_player == seat and position.pending:
        head += "; spelling: " + " ".join(token_name(t) for t in position.pending)
    return f"seat {seat} sees — {head}\n" + render(view(state, seat), ascii_only=True)


class BuracoAECEnv(SteppedHand, AECEnv):  # type: ignore[misc]
    """The raw AEC environment (:func:`env` wraps it); see the module."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "buraco-fechado",
        players: int = 2,
        max_turns: int = 300,
        reward_scale: float = DEFAULT_REWARD_SCALE,
        render_mode: str | None = None,
        skip_forced: bool = False,
        dense_rewards: bool = False,
    ) -> None:
        super().__init__()
        self.rules, self.players = _rules_and_players(variant, players)
        self.max_turns = _positive_int("max_turns", max_turns)
        self.reward_scale = _positive_number("reward_scale", reward_scale)
        self.render_mode = _render_mode(render_mode, self.metadata["render_modes"])
        self.skip_forced = checked_flag("skip_forced", skip_forced)
        self.dense_rewards = checked_flag("dense_rewards", dense_rewards)
        self._payer = Payer(self.reward_scale, self.dense_rewards)
        self.possible_agents = [f"player_{s}" for s in range(self.players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        self._first_team = tuple((agent, TEAM[s] == 0) for agent, s in self._seat.items())
        """Each agent, and whether it plays for team 0 (paid the rewards' sign as it is)."""
        self.illegal_reward = -utility_bound(self.rules) * self.reward_scale
        """The return of an agent whose illegal token ended the hand: the game's lowest (the
        step's reward is this less what the hand had already paid the agent)."""
        observation = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": observation,
                    "action_mask": spaces.Box(0, 1, (NUM_TOKENS,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_TOKENS) for agent in self.possible_agents}
        self._rng = random.Random()
        self._position: Position | None = None  # read through SteppedHand.position
        self._seen: dict[int, tuple[GameState, npt.NDArray[np.float32]]] = {}
        """By seat, the last engine state it observed and its observation without a prefix:
        while a seat spells an action, only the prefix changes."""

    # The PettingZoo API ----------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """``Dict(observation=Box(0, 1, (OBSERVATION_SIZE,), float32), action_mask=Box(0, 1,
        (96,), int8))``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(96)``: a token."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand: from ``seed`` if given (the same seed, the same deal), otherwise
        from the environment's own random stream (seeded by the last seed given). A seed is
        ``None`` or an ``int`` from 0, as Gymnasium takes them; anything else is a
        ``ValueError``."""
        if checked_seed(seed) is not None:
            self._rng = random.Random(seed)
        deal = self._rng.getrandbits(64)
        position = Position(new_game(self.rules, self.players, seed=deal))
        if self.skip_forced:
            position = position.play_forced(self.max_turns)[0]
        self._position = position
        self._payer = Payer(self.reward_scale, self.dense_rewards)
        self._seen.clear()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self._position.engine.current_player]
        if self.render_mode == "human":
            self.render()

    def paid(self, agent: str) -> float:
        """What the hand has paid ``agent`` so far (dense rewards; 0 before a sparse hand's
        end)."""
        due = self._payer.paid * self.reward_scale
        return due if TEAM[self._seat[agent]] == 0 else -due

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """What ``agent`` sees, and its action mask (all zero unless it is to act)."""
        position = self.position
        seat = self._seat[agent]
        engine = position.engine
        acting = seat == engine.current_player and not position.over
        # worked out once a position (the loop asks, then the wrapper), a new array each call
        mask = position.mask() if acting else np.zeros(NUM_TOKENS, np.int8)
        kept = self._seen.get(seat)
        if kept is None or kept[0] is not engine:
            kept = (engine, encode(view(engine, seat)))
            self._seen[seat] = kept
        observation = kept[1].copy()  # the kept one has an empty prefix
        if acting and position.pending:  # tokens the position checked already
            _write_prefix(observation, position.pending)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Spell one token for the agent to act (``None`` for an agent whose hand is over). An
        action that is no token is a ``TypeError`` or ``ValueError`` (as
        :func:`~buraco_rules.rl._position.checked_token` says), and here, unwrapped, a token in
        range that is not legal a ``ValueError`` too (:func:`env`'s wrapper ends the hand
        instead)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        position = self.position.step(checked_token(action), self.max_turns)
        if self.skip_forced:
            position = position.play_forced(self.max_turns)[0]
        self._position = position
        self._cumulative_rewards[agent] = 0.0
        due = self._payer.pay(position)
        self.rewards = {a: due if first else -due for a, first in self._first_team}
        if position.over:
            done = dict.fromkeys(self.agents, True)
            if position.truncated:
                self.truncations = done
            else:
                self.terminations = done
        self.agent_selection = self.possible_agents[position.engine.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The acting seat's table as text (:func:`render_table`): returned with
        ``render_mode="ansi"``, printed with ``"human"`` (which ``reset`` and ``step`` also do,
        as PettingZoo's classic environments do)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        position = self.position
        text = render_table(position, position.engine.current_player)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def _read_through(name: str) -> property:
    """The unwrapped environment's ``name``, read directly: PettingZoo's wrappers forward such a
    read through a ``__getattr__`` a level, several times a step (``last`` reads five)."""

    def read(self: Any) -> Any:
        return getattr(self._raw, name)

    return property(read, doc=f"The unwrapped environment's ``{name}``.")


_READ_THROUGH: Final = (
    "agent_selection",
    "agents",
    "terminations",
    "truncations",
    "infos",
    "rewards",
    "_cumulative_rewards",
)
"""What an AEC loop reads every step (``agent_iter``, ``last``, the wrappers' ``step``); none
of it is ever set on a wrapper."""


class _IllegalTokenEnds(wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper``, with three changes: an action that is no token is
    refused (``TypeError``/``ValueError``, as the unwrapped step does) before the mask is read;
    the offender's penalty is the game's lowest return less what the hand had already paid it,
    so that its return is bounded by that lowest, dense rewards or not; and the hand it ends is
    ``terminated``, not also ``truncated``, with ``info["illegal_action"]`` for the offender, as
    in the Gymnasium environment. The attributes a loop reads every step are read from the
    unwrapped environment directly (:func:`_read_through`)."""

    def __init__(self, env: BuracoAECEnv, illegal_reward: float) -> None:
        self._raw = env
        super().__init__(env, illegal_reward=illegal_reward)

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            checked_token(action)
            self._illegal_value = raw.illegal_reward - raw.paid(agent)
        ended_before = self._terminated
        super().step(action)
        if self._terminated and not ended_before:
            # PettingZoo's wrapper marks every agent terminated and truncated: the hand ended, it
            # was not cut at a time limit to bootstrap from; and the offender is told why.
            raw.truncations = dict.fromkeys(raw.truncations, False)
            raw.infos[agent] = {**raw.infos.get(agent, {}), "illegal_action": True}


class _InOrder(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``, the attributes a loop reads every step read from
    the unwrapped environment directly; before ``reset`` they are refused as the wrapper
    refuses them (an ``AttributeError``)."""

    def __init__(self, env: _IllegalTokenEnds) -> None:
        self._raw = env._raw
        super().__init__(env)

    def __str__(self) -> str:
        """The environment's name, as PettingZoo's own wrapper gives it."""
        return str(self.env)


for _name in _READ_THROUGH:
    setattr(_IllegalTokenEnds, _name, _read_through(_name))


def _read_after_reset(name: str) -> property:
    def read(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(read, doc=f"The unwrapped environment's ``{name}`` (after ``reset``).")


for _name in _READ_THROUGH:
    setattr(_InOrder, _name, _read_after_reset(_name))


raw_env = BuracoAECEnv
"""The unwrapped environment's class, by PettingZoo's usual name."""


def env(
    variant: str = "buraco-fechado",
    players: int = 2,
    max_turns: int = 300,
    reward_scale: float = DEFAULT_REWARD_SCALE,
    render_mode: str | None = None,
    skip_forced: bool = False,
    dense_rewards: bool = False,
) -> Any:
    """The environment, wrapped as PettingZoo's classic environments are: an illegal token ends
    the hand (``TerminateIllegalWrapper``, its penalty bringing the offender's return to the
    game's lowest, :attr:`BuracoAECEnv.illegal_reward`; every other agent, its partner too, gets
    0 for that step, so such a hand is neither zero-sum nor a team result), and calls out of
    order are refused (``OrderEnforcingWrapper``). An action that is no token is a ``TypeError``
    (not an integer) or a ``ValueError`` (out of range), in place of
    ``AssertOutOfBoundsWrapper``'s ``AssertionError``. Bad parameters are a ``ValueError``."""
    built = BuracoAECEnv(
        variant, players, max_turns, reward_scale, render_mode, skip_forced, dense_rewards
    )
    return _InOrder(_IllegalTokenEnds(built, illegal_reward=built.illegal_reward))

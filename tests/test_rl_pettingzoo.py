"""The PettingZoo and Gymnasium environments (:mod:`buraco_rules.rl.pettingzoo`,
:mod:`buraco_rules.rl.gymnasium`): their libraries' own checks (``api_test``, ``seed_test``,
``render_test``, ``check_env``) in every variant and player count, forced tokens skipped and not,
rewards (sparse and dense) summing to the score difference, truncation, reproducible deals,
action masks equal to ``legal_tokens``, self-play against policies."""

from __future__ import annotations

import random

import pytest

import buraco_rules as br
from buraco_rules.rl.encoding import NUM_TOKENS, legal_tokens

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from buraco_rules.rl import gymnasium as rl_gym  # noqa: E402
from buraco_rules.rl.observation import encode  # noqa: E402
from buraco_rules.rl.pettingzoo import env  # noqa: E402

CONFIGS = [
    ("buraco-fechado", 2),
    ("buraco-fechado", 4),
    ("canasta-stbl", 2),
    ("italian", 2),
    ("italian", 4),
    ("italian-fibur", 2),
    ("italian-fibur", 4),
]
configs = pytest.mark.parametrize(
    ("variant", "players"), CONFIGS, ids=[f"{v}-{n}p" for v, n in CONFIGS]
)

skips = pytest.mark.parametrize("skip_forced", [False, True], ids=["every-token", "skip-forced"])


endings: dict[str, tuple[bool, bool]] = {}
"""By agent, the (terminated, truncated) that ``last()`` gave it at the end of the last hand."""


def play_hand(table: object, rng: random.Random, check: bool = False) -> dict[str, float]:
    """Play random legal tokens to the end; each agent's total of the rewards ``last()`` gave."""
    totals: dict[str, float] = {}
    raw = table.unwrapped  # type: ignore[attr-defined]
    for agent in table.agent_iter():  # type: ignore[attr-defined]
        observation, reward, terminated, truncated, _ = table.last()  # type: ignore[attr-defined]
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            endings[agent] = (terminated, truncated)
            table.step(None)  # type: ignore[attr-defined]
            continue
        mask = observation["action_mask"]
        if raw.skip_forced:
            assert mask.sum() >= 2  # a single legal token is played by the environment
        if check:
            position = raw.position
            engine, pending = position.engine, position.pending
            assert [t for t in range(NUM_TOKENS) if mask[t]] == list(legal_tokens(engine, pending))
            seat = raw.possible_agents.index(agent)
            assert engine.current_player == seat
            seen = encode(br.view(engine, seat), pending)
            assert np.array_equal(observation["observation"], seen)
            for other in raw.possible_agents:
                if other != agent:
                    watched = table.observe(other)  # type: ignore[attr-defined]
                    assert not watched["action_mask"].any()
                    other_seat = raw.possible_agents.index(other)
                    assert np.array_equal(
                        watched["observation"], encode(br.view(engine, other_seat))
                    )
        table.step(int(rng.choice(np.flatnonzero(mask))))  # type: ignore[attr-defined]
    return totals


@configs
@skips
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoos_api_test_seed_test_and_render_test_pass(
    variant: str, players: int, skip_forced: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    api_test(env(variant=variant, players=players, skip_forced=skip_forced), num_cycles=100)
    seed_test(
        lambda: env(variant=variant, players=players, max_turns=30, skip_forced=skip_forced),
        num_cycles=100,
    )
    render_test(
        lambda render_mode: env(
            variant=variant, players=players, skip_forced=skip_forced, render_mode=render_mode
        )
    )
    assert "seat " in capsys.readouterr().out  # "human" prints the table


@configs
@skips
@pytest.mark.parametrize("dense", [False, True], ids=["sparse", "dense"])
def test_reward_totals_are_the_score_difference(
    variant: str, players: int, skip_forced: bool, dense: bool
) -> None:
    table = env(
        variant=variant,
        players=players,
        reward_scale=0.5,
        skip_forced=skip_forced,
        dense_rewards=dense,
    )
    table.reset(seed=players)
    endings.clear()
    totals = play_hand(table, random.Random(0), check=True)
    engine = table.unwrapped.engine_state
    assert engine.is_over
    assert endings == dict.fromkeys(table.unwrapped.possible_agents, (True, False))
    scores = [s.total for s in br.score(engine)]
    for agent, total in totals.items():
        team = int(agent.split("_")[1]) % 2
        assert total == pytest.approx(0.5 * (scores[team] - scores[1 - team]))
    assert sum(totals.values()) == pytest.approx(0.0)


@configs
@pytest.mark.parametrize("dense", [False, True], ids=["sparse", "dense"])
def test_a_hand_cut_at_max_turns_is_truncated_and_its_result_not_paid(
    variant: str, players: int, dense: bool
) -> None:
    # A cut is a time limit a learner bootstraps from: paying the hand scored as it stands too
    # would count its outcome twice (an outside probe's finding).
    table = env(
        variant=variant, players=players, max_turns=9, reward_scale=1.0, dense_rewards=dense
    )
    table.reset(seed=5)
    endings.clear()
    totals = play_hand(table, random.Random(1))
    assert endings == dict.fromkeys(table.unwrapped.possible_agents, (False, True))
    raw = table.unwrapped
    assert raw.position.truncated and raw.position.turns == 9 and not raw.engine_state.is_over
    assert raw.agents == []  # every agent was stepped out after the cut
    lead = raw.position.table_difference() if dense else 0  # team 0's lead on the table
    for agent, total in totals.items():
        team = int(agent.split("_")[1]) % 2
        assert total == (lead if team == 0 else -lead)


def test_reset_with_a_seed_reproduces_the_deal() -> None:
    table = env(variant="buraco-fechado", players=2)
    table.reset(seed=11)
    first = table.unwrapped.engine_state
    table.step(0)
    table.reset(seed=11)
    assert table.unwrapped.engine_state == first
    table.reset(seed=12)
    assert table.unwrapped.engine_state != first
    table.reset()
    following = table.unwrapped.engine_state
    table.reset(seed=12)
    table.reset()
    assert table.unwrapped.engine_state == following  # the stream after a seed repeats too


def test_an_illegal_token_ends_the_hand_with_the_lowest_reward() -> None:
    table = env(variant="italian", players=2)
    table.reset(seed=1)
    table.step(5)  # ADD before the draw (PettingZoo logs a warning)
    raw = table.unwrapped
    assert all(raw.terminations.values())
    # ended, not cut at a time limit (PettingZoo's own wrapper says both), and the offender told
    assert not any(raw.truncations.values())
    assert raw.infos["player_0"]["illegal_action"] and "illegal_action" not in raw.infos["player_1"]
    assert raw.rewards["player_0"] == raw.illegal_reward < 0


def test_pending_tokens_and_rendering() -> None:
    table = env(variant="italian", players=2, render_mode="ansi")
    table.reset(seed=0)
    table.step(0)  # draw
    table.step(4)  # start a new meld
    assert table.unwrapped.pending_tokens == (4,)
    picture = table.render()
    assert isinstance(picture, str) and "seat 0" in picture and "spelling: meld" in picture
    assert "Your hand" in picture


@pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array'")  # Gymnasium's, before the refusal
def test_stable_baselines3_make_vec_env_builds_the_environment() -> None:
    # make_vec_env asks for render_mode="rgb_array" first and falls back only on a TypeError
    # (an outside probe: it failed on the ValueError alone); the refusal is both.
    with pytest.raises(TypeError, match="render_mode must be None or one of"):
        rl_gym.BuracoEnv(render_mode="rgb_array")
    # Self-play through wrappers: set_attr on a wrapped env would set the outer wrapper's
    # attribute and change nothing (an outside probe); the method and set_wrapper_attr reach it.
    wrapped = gymnasium.make(rl_gym.ENV_ID, variant="italian", players=2)
    wrapped.get_wrapper_attr("set_opponent")("random")
    assert type(wrapped.unwrapped.opponent).__name__ == "RandomBot"
    wrapped.set_wrapper_attr("opponent", "greedy")
    assert type(wrapped.unwrapped.opponent).__name__ == "GreedyBot"
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    vectorised = env_util.make_vec_env(rl_gym.ENV_ID, n_envs=2, seed=3)
    observations = vectorised.reset()
    assert observations.shape == (2, rl_gym.OBSERVATION_SIZE)
    vectorised.env_method("set_opponent", "random")
    assert {type(e.unwrapped.opponent).__name__ for e in vectorised.envs} == {"RandomBot"}
    vectorised.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"variant": "canasta-stbl", "players": 4},
        {"variant": "nope"},
        {"max_turns": 0},
        {"reward_scale": -1.0},
        {"render_mode": "rgb_array"},
        {"skip_forced": "no"},  # bool("no") would be True
        {"dense_rewards": 1},
        {"skip_forced": None},
    ],
    ids=repr,
)
def test_bad_parameters_are_a_value_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        env(**kwargs)
    with pytest.raises(ValueError):
        rl_gym.BuracoEnv(**kwargs)  # type: ignore[arg-type]


# Gymnasium ---------------------------------------------------------------------------------


@configs
@skips
def test_gymnasiums_check_env_passes(
    variant: str, players: int, skip_forced: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    made = gymnasium.make(rl_gym.ENV_ID, variant=variant, players=players, skip_forced=skip_forced)
    check_env(made.unwrapped)
    for mode in ("ansi", "human"):  # check_env renders every mode of the spec's environment
        made = gymnasium.make(
            rl_gym.ENV_ID,
            variant=variant,
            players=players,
            opponent="random",
            seat=players - 1,
            skip_forced=skip_forced,
            render_mode=mode,
        )
        check_env(made.unwrapped)
    assert "seat " in capsys.readouterr().out


@configs
@skips
@pytest.mark.parametrize("dense", [False, True], ids=["sparse", "dense"])
def test_the_single_agent_reward_is_the_learning_teams_score_difference(
    variant: str, players: int, skip_forced: bool, dense: bool
) -> None:
    table = rl_gym.BuracoEnv(
        variant, players, reward_scale=2.0, seat=1, skip_forced=skip_forced, dense_rewards=dense
    )
    observation, info = table.reset(seed=3)
    rng = random.Random(2)
    total, steps, done, lead = 0.0, 0, False, 0
    while not done:
        mask = table.action_masks()
        engine, pending = table.engine_state, table.pending_tokens
        assert engine.current_player == 1
        assert [t for t in range(NUM_TOKENS) if mask[t]] == list(legal_tokens(engine, pending))
        assert np.array_equal(info["action_mask"].astype(bool), mask)
        assert np.array_equal(observation, encode(br.view(engine, 1), pending))
        assert mask.sum() >= (2 if skip_forced else 1)
        observation, reward, terminated, truncated, info = table.step(
            int(rng.choice(np.flatnonzero(mask)))
        )
        total += reward
        steps += 1
        done = terminated or truncated
        if not dense:
            assert reward == 0.0 or done
        elif not done:  # the change in the learning team's lead on the table since paid
            now = table.position.table_difference()
            assert reward == pytest.approx(2.0 * (lead - now))
            lead = now
    engine = table.engine_state
    scores = [s.total for s in br.score(engine)]
    assert total == pytest.approx(2.0 * (scores[1] - scores[0]))
    assert not table.action_masks().any()


def test_the_single_agent_env_truncates_and_reproduces_its_seed() -> None:
    def run(seed: int) -> tuple[object, float, bool, bool]:
        table = rl_gym.BuracoEnv("italian", 4, max_turns=13, reward_scale=1.0)
        table.reset(seed=seed)
        rng = random.Random(0)
        while True:
            action = int(rng.choice(np.flatnonzero(table.action_masks())))
            _, reward, terminated, truncated, _ = table.step(action)
            if terminated or truncated:
                return table.engine_state, reward, terminated, truncated

    engine, reward, terminated, truncated = run(4)
    assert truncated and not terminated and not engine.is_over  # type: ignore[attr-defined]
    assert reward == 0  # a cut is a time limit: no result paid (sparse rewards: nothing before)
    assert run(4) == (engine, reward, terminated, truncated)


def test_the_single_agent_env_refuses_a_cut_before_the_learner_plays() -> None:
    # reset() would return a hand already cut, with nothing to play (an outside probe)
    for players, seat, max_turns in ((2, 1, 1), (4, 3, 3), (4, 2, 1)):
        with pytest.raises(ValueError, match="cut before the learner plays"):
            rl_gym.BuracoEnv("italian", players, seat=seat, max_turns=max_turns)
    table = rl_gym.BuracoEnv("italian", 4, seat=3, max_turns=4)
    table.reset(seed=2)
    assert table.action_masks().any()


def test_an_illegal_token_ends_the_single_agent_hand() -> None:
    table = rl_gym.BuracoEnv("italian", 2)
    table.reset(seed=1)
    _, reward, terminated, truncated, info = table.step(6)  # END spells nothing
    assert terminated and not truncated and info["illegal_action"]
    assert reward == table.illegal_reward
    with pytest.raises(RuntimeError):
        table.step(0)


def test_the_single_agent_env_takes_a_bot_object() -> None:
    from buraco_rules.bots import RandomBot

    table = rl_gym.BuracoEnv("buraco-fechado", 4, opponent=RandomBot(), render_mode="ansi")
    table.reset(seed=2)
    assert "seat 0" in str(table.render())
    with pytest.raises(ValueError):
        rl_gym.BuracoEnv(opponent=object())
    with pytest.raises(ValueError):
        rl_gym.BuracoEnv(players=2, seat=2)


# Actions that are no token, illegal tokens, seeds, rendering, masks -------------------------

NOT_INTEGERS = [4.9, 4.0, "4", None, [4], float("nan"), True, np.float64(0.0), np.array([0])]
OUT_OF_RANGE = [96, -1, 10**20, np.int64(200)]


def test_actions_that_are_no_token_are_refused_and_the_hand_goes_on() -> None:
    single = rl_gym.BuracoEnv("italian", 2)
    single.reset(seed=1)
    table = env(variant="italian", players=2)
    table.reset(seed=1)
    raw = table.unwrapped
    before = (single.engine_state, raw.engine_state)
    for bad in NOT_INTEGERS:
        for step in (single.step, table.step, raw.step):
            with pytest.raises(TypeError, match="an action is an integer token from 0 to 95"):
                step(bad)
    for bad in OUT_OF_RANGE:
        for step in (single.step, table.step, raw.step):
            with pytest.raises(ValueError, match="an action is a token from 0 to 95"):
                step(bad)
    assert (single.engine_state, raw.engine_state) == before
    assert not any(raw.terminations.values())
    for token in (np.int64(0), np.array(0, dtype=np.int32)):  # numpy integers are tokens
        single.reset(seed=1)
        table.reset(seed=1)
        single.step(token)
        table.step(token)
        assert single.engine_state.phase.value == raw.engine_state.phase.value == "play"


@pytest.mark.parametrize("seed", [-1, "abc", 3.5, True, np.int64(3)], ids=repr)
def test_both_envs_refuse_a_seed_that_is_no_int_from_0(seed: object) -> None:
    for table in (env(variant="italian", players=2), rl_gym.BuracoEnv("italian", 2)):
        with pytest.raises(ValueError, match="seed must be None or an int from 0"):
            table.reset(seed=seed)


def _paid_then_illegal(step: object, mask_of: object, reward_of: object, seed: int) -> float:
    """Play random legal tokens until the dense rewards have paid something, then an illegal
    token; the total reward received."""
    rng = random.Random(seed)
    total = 0.0
    while total == 0.0:
        mask = mask_of()  # type: ignore[operator]
        total += step(int(rng.choice(np.flatnonzero(mask))))  # type: ignore[operator]
    illegal = int(np.flatnonzero(mask_of() == 0)[0])  # type: ignore[operator]
    return total + step(illegal) + reward_of()  # type: ignore[operator]


def test_an_illegal_token_after_dense_rewards_brings_the_return_to_the_lowest() -> None:
    single = rl_gym.BuracoEnv("buraco-fechado", 2, dense_rewards=True, opponent="random")
    single.reset(seed=2)
    total = _paid_then_illegal(
        lambda t: single.step(t)[1], single.action_masks, lambda: 0.0, seed=1
    )
    assert total == pytest.approx(single.illegal_reward)

    table = env(variant="buraco-fechado", players=2, dense_rewards=True)
    table.reset(seed=2)
    totals = dict.fromkeys(table.possible_agents, 0.0)

    def step(token: int) -> float:
        table.step(token)
        while table.agent_selection != "player_0" and not table.unwrapped.terminations["player_0"]:
            agent = table.agent_selection
            observation, reward, *_ = table.last()
            totals[agent] += reward
            table.step(int(np.flatnonzero(observation["action_mask"])[0]))
        observation, reward, *_ = table.last()
        return float(reward)

    def mask() -> object:
        return table.last()[0]["action_mask"]

    total = _paid_then_illegal(step, mask, lambda: 0.0, seed=1)
    assert total == pytest.approx(table.unwrapped.illegal_reward)  # the offender's return
    assert table.unwrapped.rewards["player_1"] == 0.0  # the others get nothing for it


def test_human_rendering_prints_on_reset_and_step(capsys: pytest.CaptureFixture[str]) -> None:
    single = rl_gym.BuracoEnv("italian", 2, render_mode="human")
    table = env(variant="italian", players=2, render_mode="human")
    for reset, step in ((single.reset, single.step), (table.reset, table.step)):
        reset(seed=1)
        assert "seat 0 sees" in capsys.readouterr().out
        step(0)
        assert "seat 0 sees" in capsys.readouterr().out


def test_one_mask_type_int8_in_info_action_masks_observations_and_policies() -> None:
    from buraco_rules.rl.policy import PolicyBot

    single = rl_gym.BuracoEnv("italian", 2)
    _, info = single.reset(seed=1)
    assert info["action_mask"].dtype == single.action_masks().dtype == np.int8
    assert single.action_space.sample(mask=single.action_masks()) in (0, 1)  # Gymnasium's type
    table = env(variant="italian", players=2)
    table.reset(seed=1)
    assert table.last()[0]["action_mask"].dtype == np.int8
    seen: list[object] = []

    def lowest(observation: object, mask: np.ndarray) -> int:
        seen.append(mask.dtype)
        return int(np.flatnonzero(mask)[0])

    PolicyBot(lowest).choose(br.view(single.engine_state, 0), random.Random(0))
    assert seen == [np.int8]


def test_the_wrappers_read_the_loop_attributes_from_the_env_and_enforce_order() -> None:
    """``env()`` is still PettingZoo's wrappers (order enforced, illegal tokens end the hand), the
    attributes a loop reads every step read from the unwrapped env itself."""
    from pettingzoo.utils import wrappers

    table = env(variant="italian", players=2)
    assert isinstance(table, wrappers.OrderEnforcingWrapper)
    assert isinstance(table.env, wrappers.TerminateIllegalWrapper)
    assert str(table) == "buraco_v0"
    with pytest.raises(AttributeError, match="before reset"):
        table.agent_selection  # noqa: B018
    table.reset(seed=1)
    raw = table.unwrapped
    for name in ("agent_selection", "agents", "terminations", "truncations", "infos", "rewards"):
        assert getattr(table, name) is getattr(raw, name)
        assert getattr(table.env, name) is getattr(raw, name)
    assert table._cumulative_rewards is raw._cumulative_rewards
    table.step(NUM_TOKENS - 1)  # no legal token here: the wrapper ends the hand
    assert all(raw.terminations.values()) and table.terminations is raw.terminations

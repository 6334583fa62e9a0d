"""Token policies as bots (:mod:`buraco_rules.rl.policy`): a :class:`PolicyBot` plays legal
actions wherever a bot does, sees what the environments show a learner, and, like the forced
tokens the environments skip, depends on nothing its seat cannot see (re-dealt with
``determinize``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.rl.encoding import NUM_TOKENS, is_complete, legal_tokens

np = pytest.importorskip("numpy")
policy = pytest.importorskip("buraco_rules.rl.policy")
from buraco_rules.bots import Bot  # noqa: E402
from buraco_rules.bots.simulate import simulate  # noqa: E402
from buraco_rules.rl._position import Position  # noqa: E402
from buraco_rules.rl.observation import OBSERVATION_SIZE, encode  # noqa: E402

MLPPolicy, PolicyBot = policy.MLPPolicy, policy.PolicyBot


def random_mlp(seed: int, hidden: int = 8) -> object:
    rng = np.random.default_rng(seed)
    return MLPPolicy(
        [
            (rng.normal(size=(OBSERVATION_SIZE, hidden)), rng.normal(size=hidden)),
            (rng.normal(size=(hidden, NUM_TOKENS)), rng.normal(size=NUM_TOKENS)),
        ]
    )


@pytest.mark.parametrize(
    ("variant", "players"), [("buraco-fechado", 2), ("italian", 4), ("canasta-stbl", 2)]
)
def test_a_policy_bot_plays_where_a_bot_plays(variant: str, players: int) -> None:
    bot = PolicyBot(random_mlp(1))
    result = simulate(variant, games=2, bots=(bot, "random"), seed=3, players=players)
    assert result.games == 2 and isinstance(bot, Bot)


def test_the_policy_sees_what_the_environment_shows_and_forced_tokens_are_skipped() -> None:
    asked: list[tuple[object, object]] = []

    def first_legal(observation: object, mask: object) -> int:
        asked.append((observation, mask))
        return int(np.flatnonzero(mask)[0])

    state = br.apply(br.new_game(variants.ITALIAN, 2, seed=4), br.DrawFromStock())
    seen = br.view(state, 0)
    action = PolicyBot(first_legal).choose(seen, random.Random(0))
    assert br.is_legal(state, action)
    prefix: tuple[int, ...] = ()
    for observation, mask in asked:
        legal = legal_tokens(state, prefix)
        assert len(legal) >= 2 and list(np.flatnonzero(mask)) == list(legal)
        assert np.array_equal(observation, encode(seen, prefix))
        prefix += (legal[0],)
        while not is_complete(prefix) and len(legal_tokens(state, prefix)) == 1:
            prefix += legal_tokens(state, prefix)
    every = PolicyBot(first_legal, skip_forced=False).choose(seen, random.Random(0))
    assert every == action


def test_an_illegal_token_from_the_policy_is_a_value_error() -> None:
    bot = PolicyBot(lambda observation, mask: 6)  # END, never first
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    with pytest.raises(ValueError, match="not legal"):
        bot.choose(br.view(state, 0), random.Random(0))
    with pytest.raises(TypeError):
        PolicyBot(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        MLPPolicy([(np.zeros((3, 96)), np.zeros(96))])
    # Anything but an integer token is the policy's error, named as such (not int()'s); a bool is
    # an int to Python, but True would be played as the token 1 (take).
    for odd in (None, 0.0, np.zeros(96), True, False, np.True_):
        with pytest.raises(TypeError, match=r"odd returned .*, not a token"):
            PolicyBot(lambda observation, mask, odd=odd: odd, name="odd").choose(
                br.view(state, 0), random.Random(0)
            )


def test_a_policy_trained_for_one_game_refuses_another() -> None:
    from buraco_rules.rl import policies

    first = policies.policy_bot("italian-2p")
    for rules, players in ((variants.BURACO_FECHADO, 2), (variants.ITALIAN, 4)):
        state = br.new_game(rules, players, seed=3)
        with pytest.raises(ValueError, match="trained for italian, 2 players, not"):
            first.choose(br.view(state, 0), random.Random(0))
    state = br.new_game(variants.ITALIAN, 2, seed=3)
    assert br.is_legal(state, first.choose(br.view(state, 0), random.Random(0)))
    with pytest.raises(TypeError):
        PolicyBot(lambda o, m: 0, trained_for=("italian", 2))  # type: ignore[arg-type]
    # as the Gymnasium opponent, refused when it is set, not at the first step of a hand
    from buraco_rules.rl import gymnasium as rl_gym

    with pytest.raises(ValueError, match="trained for italian, 2 players, not buraco-fechado"):
        rl_gym.BuracoEnv("buraco-fechado", 2, opponent=first)
    table = rl_gym.BuracoEnv("italian", 2, opponent=first)
    with pytest.raises(ValueError, match="not italian, 4 players"):
        rl_gym.BuracoEnv("italian", 4, opponent=first)
    table.opponent = "greedy"
    with pytest.raises(ValueError, match="trained for italian, 2 players, not canasta-stbl"):
        rl_gym.BuracoEnv("canasta-stbl", 2).opponent = first


def test_the_command_line_plays_a_shipped_policy_by_name_in_its_own_game_only() -> None:
    from tests.test_cli import ok, run

    name = "policy:italian-2p"
    out = ok(
        run(
            "simulate",
            "--variant",
            "italian",
            "--players",
            "2",
            "--games",
            "1",
            "--bots",
            f"{name},greedy",
        )
    )
    assert name in out
    refused = run(
        "ladder", "--variant", "buraco-fechado", "--hands", "1", "--bots", f"{name},greedy"
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "policy:italian-2p plays italian, 2 players only" in refused.stderr
    assert refused.stderr.count("\n") == 1  # one line, no usage: the arguments were right
    house = run(
        "simulate",
        "--variant",
        "italian",
        "--players",
        "2",
        "--option",
        "first_draw_refusal=true",
        "--games",
        "1",
        "--bots",
        f"{name},greedy",
    )
    assert house.returncode == 2
    assert "not italian, 2 players, house rules: first_draw_refusal" in house.stderr


@pytest.mark.parametrize(("variant", "players"), [("buraco-fechado", 2), ("italian-fibur", 4)])
def test_policy_bots_and_skipped_tokens_depend_only_on_the_view(variant: str, players: int) -> None:
    bot = PolicyBot(random_mlp(2))
    rng = random.Random(5)
    state = br.new_game(variants.get(variant), players, seed=6)
    decisions = 0
    while not state.is_over and decisions < 60:
        seat = state.current_player
        seen = br.view(state, seat)
        action = bot.choose(seen, rng)
        forced = Position(state).play_forced(10**6, seat)[0].pending
        for _ in range(2):
            redealt = br.determinize(seen, rng)
            assert br.view(redealt, seat) == seen
            assert bot.choose(br.view(redealt, seat), rng) == action
            assert Position(redealt).play_forced(10**6, seat)[0].pending == forced
        state = br.apply(state, action)
        decisions += 1


def test_weights_round_trip_through_a_file(tmp_path: object) -> None:
    net = random_mlp(3)
    path = tmp_path / "policy.npz"  # type: ignore[operator]
    net.save(path)
    loaded = MLPPolicy.load(path)
    observation = np.random.default_rng(0).random(OBSERVATION_SIZE, dtype=np.float32)
    assert np.array_equal(loaded.logits(observation), net.logits(observation))


def test_self_play_in_the_gymnasium_env() -> None:
    pytest.importorskip("gymnasium")
    from buraco_rules.rl import gymnasium as rl_gym

    learner = random_mlp(4)
    table = rl_gym.BuracoEnv("buraco-fechado", 2, opponent=learner, reward_scale=1.0, max_turns=40)
    assert isinstance(table.opponent, PolicyBot)
    table.opponent = random_mlp(5)  # a frozen copy, swapped between hands
    observation, _ = table.reset(seed=1)
    total, done = 0.0, False
    while not done:
        token = learner(observation, table.action_masks())
        observation, reward, terminated, truncated, _ = table.step(token)
        total += reward
        done = terminated or truncated
    scores = [s.total for s in br.score(table.engine_state)]
    # the hand's result, or nothing if it was cut at max_turns (a time limit: no result paid)
    assert total == (scores[0] - scores[1] if terminated else 0)


def test_a_policy_bot_of_a_numpy_network_pickles_for_process_pools() -> None:
    import pickle

    bot = PolicyBot(random_mlp(6))
    copy = pickle.loads(pickle.dumps(bot))
    state = br.apply(br.new_game(variants.ITALIAN, 2, seed=7), br.DrawFromStock())
    seen = br.view(state, 0)
    assert copy.choose(seen, random.Random(0)) == bot.choose(seen, random.Random(0))


def test_a_policy_bot_plays_in_the_ladder_and_a_match_beside_bots_by_name() -> None:
    from buraco_rules.bots.ladder import ladder
    from buraco_rules.bots.simulate import play_match

    table = ladder("canasta-stbl", 2, hands=1, bots=[PolicyBot(random_mlp(7)), "random", "greedy"])
    assert {name for name, *_ in table.ratings()} == {"policy", "random", "greedy"}
    assert [p.first for p in table.pairings] == ["policy", "policy", "random"]
    with pytest.raises(ValueError, match="each named once"):
        ladder("canasta-stbl", 2, hands=1, bots=[PolicyBot(random_mlp(7)), PolicyBot(abs)])
    two = [PolicyBot(random_mlp(7), name="a"), PolicyBot(random_mlp(8), name="b")]
    assert ladder("canasta-stbl", 2, hands=1, bots=two).bots == ("a", "b")
    hands: list[int] = []
    match = play_match(
        "canasta-stbl",
        bots=(PolicyBot(random_mlp(7)), "greedy"),
        seed=3,
        max_hands=2,
        on_hand=lambda m: hands.append(len(m.scores)),
    )
    assert hands == list(range(1, len(match.scores) + 1)) and 1 <= len(match.scores) <= 2


def test_the_command_line_names_a_saved_policy_and_refuses_a_bad_file(tmp_path: Path) -> None:
    from tests.test_cli import ok, run

    path = tmp_path / "net.npz"
    random_mlp(9).save(path)
    name = f"policy:{path}"
    out = ok(run("ladder", "--variant", "canasta-stbl", "--hands", "1", "--bots", f"{name},random"))
    assert name in out and "random" in out
    out = ok(
        run("simulate", "--variant", "canasta-stbl", "--games", "1", "--bots", f"{name},greedy")
    )
    assert name in out
    out = ok(
        run("match", "--variant", "canasta-stbl", "--max-hands", "1", "--bots", f"greedy,{name}")
    )
    assert f"team 1 {name}" in out
    (tmp_path / "bad.npz").write_text("not weights")
    (tmp_path / "empty.npz").write_bytes(b"")
    np.savez(tmp_path / "one.npz", x=np.zeros(3))
    # each refusal says why (an outside probe: a file that is no zip was said to hold objects, an
    # npz of other arrays to have 1156 outputs, a missing name not to be a shipped policy's)
    for bad, why in (
        ("bad.npz", "is not a policy saved by MLPPolicy.save: it is not an .npz file"),
        ("one.npz", "is not a policy saved by MLPPolicy.save: it has no layers"),
        ("missing.npz", "and no shipped policy of that name (there are: buraco-fechado-2p"),
    ):
        result = run("simulate", "--bots", f"policy:{tmp_path / bad},greedy")
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert why in result.stderr


def test_the_recipe_evaluates_a_saved_policy_without_torch(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "net.npz"
    random_mlp(10).save(path)
    tool = Path(__file__).resolve().parent.parent / "tools" / "train_policy.py"
    script = (
        "import runpy, sys\n"
        "for name in ('torch', 'sb3_contrib', 'stable_baselines3'):\n"
        "    sys.modules[name] = None  # importing any of them now fails\n"
        f"sys.argv = ['train_policy.py', '--variant', 'canasta-stbl', '--evaluate', {str(path)!r},"
        " '--eval-hands', '1', '--eval-random-hands', '0']\n"
        f"runpy.run_path({str(tool)!r}, run_name='__main__')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert '"opponent": "greedy", "hands": 1' in result.stdout


def test_bots_by_name_never_read_a_policy_file(tmp_path: Path) -> None:
    from buraco_rules.bots import BOT_NAMES, bot_from_name

    path = tmp_path / "net.npz"
    random_mlp(11).save(path)
    with pytest.raises(ValueError, match="unknown bot"):
        bot_from_name(f"policy:{path}")  # the server's path: names only
    assert not any(name.startswith("policy") for name in BOT_NAMES)


@pytest.mark.parametrize("load", ["mlp", "slot-card"])
def test_a_policy_refuses_what_is_not_one_observation_and_its_mask(load: str) -> None:
    # numpy would broadcast a batch (one token for row 0; the slot-card network's 104, no token)
    # and an all-zero mask's argmax is token 0: each is a ValueError instead (an outside probe).
    from buraco_rules.rl import policies

    policy = policies.load("italian-2p" if load == "mlp" else "buraco-fechado-2p")
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    observation = encode(br.view(state, 0))
    mask = np.zeros(96, np.int8)
    mask[[0, 1]] = 1
    assert policy(observation, mask) in (0, 1)
    for seen, legal, reason in (
        (np.stack([observation, observation]), np.stack([mask, mask]), "one observation"),
        (observation[:-1], mask, "one observation"),
        (observation, mask[:-1], "a mask is 96 flags"),
        (observation, np.zeros(96, np.int8), "allows no token"),
    ):
        with pytest.raises(ValueError, match=reason):
            policy(seen, legal)


def test_play_in_the_terminal_against_a_shipped_policy() -> None:
    # `play --bots policy:...` ended in a traceback: it did not load policies (an outside probe)
    from tests.test_cli import run

    result = run(
        "play",
        "--variant",
        "italian",
        "--players",
        "2",
        "--bots",
        "policy:italian-2p",
        "--seed",
        "1",
        stdin="q\n",
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "Your moves:" in result.stdout

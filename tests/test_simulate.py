"""Simulation: the same seed gives the same results on one core, in a process pool and on a Dask
cluster, whatever the chunking; the statistics add up."""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from buraco_rules import variants
from buraco_rules.bots import GreedyBot, RandomBot
from buraco_rules.bots.simulate import (
    Simulation,
    dask_executor,
    game_seed,
    seat_bots,
    simulate,
    wilson_interval,
)

GAMES = 8
GAME_SEED_1_2 = 0xF1A06D46872C9547


@pytest.fixture(scope="module")
def serial() -> Simulation:
    return simulate(variants.ITALIAN, 2, games=GAMES, bots=("greedy", "random"), seed=7)


def test_game_seeds_are_fixed_and_distinct() -> None:
    assert game_seed(7, 0) == game_seed(7, 0)
    seeds = {game_seed(s, i) for s in range(5) for i in range(200)}
    assert len(seeds) == 1000
    assert game_seed(1, 2) == GAME_SEED_1_2  # pinned: a seed must mean the same games forever


def test_game_seed_does_not_depend_on_the_process() -> None:
    with ProcessPoolExecutor(1) as pool:
        assert pool.submit(game_seed, 3, 4).result() == game_seed(3, 4)


def test_same_seed_same_results_whatever_the_executor(serial: Simulation) -> None:
    assert serial.games == GAMES and [r.index for r in serial.results] == list(range(GAMES))
    assert [r.first_player for r in serial.results] == [i % 2 for i in range(GAMES)]
    again = simulate(variants.ITALIAN, 2, games=GAMES, bots=("greedy", "random"), seed=7)
    assert again == serial
    with ThreadPoolExecutor(3) as pool:
        threaded = simulate(
            variants.ITALIAN, 2, games=GAMES, bots=("greedy", "random"), seed=7,
            executor=pool, chunk_size=3,
        )  # fmt: skip
    assert threaded == serial
    with ProcessPoolExecutor(2) as pool:
        pooled = simulate(
            "italian", games=GAMES, players=2, bots=(GreedyBot(), RandomBot()), seed=7,
            executor=pool,
        )  # fmt: skip
    assert pooled.results == serial.results
    other = simulate(variants.ITALIAN, 2, games=GAMES, bots=("greedy", "random"), seed=8)
    assert other.results != serial.results


def test_dask_cluster_gives_the_single_process_results(serial: Simulation) -> None:
    distributed = pytest.importorskip(
        "distributed", reason="Dask is optional: pip install 'buraco-rules[distributed]'"
    )
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        dask_executor(cluster.scheduler_address) as executor,
    ):
        on_dask = simulate(
            variants.ITALIAN, 2, games=GAMES, bots=("greedy", "random"), seed=7,
            executor=executor, chunk_size=1,
        )  # fmt: skip
    assert on_dask == serial


def test_statistics_add_up(serial: Simulation) -> None:
    wins, ties = serial.wins, serial.ties
    assert wins[0] + wins[1] + ties == GAMES
    rate, low, high = serial.win_rate(0)
    assert low <= rate <= high and rate == wins[0] / GAMES
    assert math.isclose(serial.mean_score(0), sum(r.scores[0] for r in serial.results) / GAMES)
    assert sum(serial.endings.values()) == GAMES
    assert serial.mean_turns > 0 and serial.games_per_s > 0
    summary = serial.to_dict()
    for key in ("games", "wins", "ties", "bots", "variant", "players", "games_per_s"):
        assert key in summary
    assert summary["wins"] == list(wins) and summary["bots"] == ["greedy", "random"]
    assert set(serial.seconds_per_move()) == {"greedy", "random"}


def test_progress_is_reported_up_to_the_total() -> None:
    calls: list[tuple[int, int]] = []
    simulate("canasta-stbl", games=3, seed=1, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_wilson_interval() -> None:
    low, high = wilson_interval(90, 100)
    assert math.isclose(low, 0.8256, abs_tol=1e-3) and math.isclose(high, 0.9448, abs_tol=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(6, 6)[1] == 1.0  # holds p = 1


def test_two_bots_are_the_teams_or_one_per_seat() -> None:
    assert seat_bots(("greedy", "random"), 4) == ("greedy", "random", "greedy", "random")
    per_seat = ("greedy", "random", "random", "greedy")
    assert seat_bots(per_seat, 4) == per_seat
    with pytest.raises(ValueError, match="give 2 bots"):
        seat_bots(("greedy", "random", "greedy"), 4)
    with pytest.raises(ValueError, match="unknown bot"):
        seat_bots(("greedy", "genius"), 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rules": "poker"}, "unknown variant"),
        ({"rules": "canasta-stbl", "players": 4}, "played by 2 players"),
        ({"games": 0}, "games must be"),
        ({"seed": 1.5}, "seed must be"),
        ({"bots": "greedy"}, "bots must be a sequence"),
        ({"chunk_size": 0}, "chunk_size must be"),
    ],
)
def test_bad_arguments_are_value_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate(**kwargs)  # type: ignore[arg-type]

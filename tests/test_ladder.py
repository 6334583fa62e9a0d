"""The ladder: a round robin on paired deals (the same deals, both seat orders), Bradley–Terry
ratings with intervals, the pairwise table, and the ``buraco-rules ladder`` command."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from buraco_rules.bots.ladder import Ladder, Pairing, bradley_terry, ladder
from buraco_rules.cli.ladder_command import format_ladder
from test_cli_hardening import cli


@pytest.fixture(scope="module")
def small() -> Ladder:
    return ladder("canasta-stbl", 2, bots=("random", "greedy", "mc:1"), hands=3, seed=5)


def test_every_pair_plays_the_same_deals_from_both_seat_orders(small: Ladder) -> None:
    pairs = [(p.first, p.second) for p in small.pairings]
    assert pairs == [("random", "greedy"), ("random", "mc:1"), ("greedy", "mc:1")]
    deals = None
    for p in small.pairings:
        assert p.hands == 6 and sum(p.wins) == 6
        assert p.forward.bots == (p.first, p.second) and p.backward.bots == (p.second, p.first)
        seeds = [(r.seed, r.first_player) for r in p.forward.results]
        assert seeds == [(r.seed, r.first_player) for r in p.backward.results]
        assert deals is None or seeds == deals  # every pairing on the same deals
        deals = seeds


def test_the_pairwise_figures_are_those_of_the_hands(small: Ladder) -> None:
    p = small.pairings[0]
    first = sum(1 for r in p.forward.results if r.winner == 0)
    first += sum(1 for r in p.backward.results if r.winner == 1)
    assert p.wins[0] == first
    ties = p.wins[2]
    rate, low, high = p.win_rate()
    assert rate == (first + ties / 2) / 6 and low <= rate <= high
    per_deal = [
        ((f.scores[0] - f.scores[1]) - (b.scores[0] - b.scores[1])) / 2
        for f, b in zip(p.forward.results, p.backward.results, strict=True)
    ]
    mean, half = p.points_ahead()
    assert mean == pytest.approx(sum(per_deal) / 3) and half > 0
    assert all(s >= 0 for s in p.cpu_per_move())
    assert small.pairings[1].cpu_per_move()[1] > 0  # the search bot thinks


def test_the_ladder_is_its_seed(small: Ladder) -> None:
    with ThreadPoolExecutor(2) as pool:
        again = ladder(
            "canasta-stbl", 2, bots=("random", "greedy", "mc:1"), hands=3, seed=5, executor=pool
        )
    assert again == small
    other = ladder("canasta-stbl", 2, bots=("random", "greedy"), hands=3, seed=6)
    assert other.pairings[0].forward.results != small.pairings[0].forward.results


def test_bradley_terry_refuses_bots_no_games_link() -> None:
    # a-b and c-d never met: no common scale (this was a ZeroDivisionError).
    with pytest.raises(ValueError, match=r"no games link these groups of bots.*a, b; c, d"):
        bradley_terry(["a", "b", "c", "d"], [("a", "b", 3, 1), ("c", "d", 2, 2)])
    with pytest.raises(ValueError, match="a, b; c"):
        bradley_terry(["a", "b", "c"], [("a", "b", 3, 1)])
    linked = bradley_terry(["a", "b", "c"], [("a", "b", 3, 1), ("c", "b", 2, 2)])
    assert sorted(row[0] for row in linked) == ["a", "b", "c"]


def test_bradley_terry_ratings() -> None:
    even = bradley_terry(["a", "b"], [("a", "b", 10, 10)])
    assert [round(r, 6) for _, r, _, _ in even] == [0, 0]
    rows = bradley_terry(
        ["a", "b", "c"], [("a", "b", 60, 40), ("b", "c", 60, 40), ("a", "c", 70, 30)]
    )
    assert [name for name, *_ in rows] == ["a", "b", "c"]
    assert sum(r for _, r, _, _ in rows) == pytest.approx(0, abs=1e-6)
    for _, rating, low, high in rows:
        assert low < rating < high
    # 3 to 2 odds between neighbours are about 70 Elo points.
    assert rows[0][1] - rows[1][1] == pytest.approx(400 * math.log10(1.5), abs=25)
    # A bot that never won still has a finite rating, and more games narrow the intervals.
    shut_out = bradley_terry(["a", "b"], [("a", "b", 20, 0)])
    assert all(math.isfinite(x) for row in shut_out for x in row[1:])
    wide = bradley_terry(["a", "b"], [("a", "b", 6, 4)])
    narrow = bradley_terry(["a", "b"], [("a", "b", 600, 400)])
    assert narrow[0][3] - narrow[0][2] < wide[0][3] - wide[0][2]


def test_the_ratings_order_the_small_ladder(small: Ladder) -> None:
    names = [name for name, *_ in small.ratings()]
    assert names[-1] == "random"
    summary = json.loads(json.dumps(small.to_dict()))
    assert {"variant", "players", "seed", "deals", "bots", "ratings", "pairings"} <= set(summary)
    assert len(summary["pairings"]) == 3 and summary["deals"] == 3
    table = format_ladder(small)
    assert "| random | greedy | 6 |" in table and "rating" in table


def test_ladder_refuses_bad_arguments() -> None:
    for bad in (
        {"bots": ("greedy",)},
        {"bots": ("greedy", "greedy")},
        {"bots": ("greedy", "clever")},
        {"bots": "greedy,random"},
        {"hands": 0},
        {"players": 3},
    ):
        with pytest.raises(ValueError):
            ladder("canasta-stbl", **bad)  # type: ignore[arg-type]
    assert isinstance(Pairing, type)


def test_the_ladder_command() -> None:
    status, out, err = cli(
        "ladder", "--variant", "italian", "--players", "4", "--hands", "1",
        "--bots", "random,greedy", "--seed", "3", "--json",
    )  # fmt: skip
    assert status == 0, err
    summary = json.loads(out)
    assert summary["players"] == 4 and summary["pairings"][0]["hands"] == 2
    status, out, err = cli("ladder", "--hands", "1", "--bots", "greedy,random", "--players", "2")
    assert status == 0 and "| greedy | random | 2 |" in out
    for args, message in (
        (("--bots", "greedy,greedy"), "each named once"),
        (("--bots", "greedy"), "two bots or more"),
        (("--hands", "0"), "must be 1 or more"),
        (("--bots", "greedy,ismcts:0"), "bad budget in 'ismcts:0'"),
    ):
        status, _, err = cli("ladder", *args)
        assert status == 2 and message in err, err

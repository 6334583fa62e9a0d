"""ISMCTSBot: it is shown views only, plays legal choices only, is replayable from its rng, keeps
to its playout budget (counted, never timed), and plays every variant with 2 and 4 players."""

from __future__ import annotations

import random

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import (
    BOT_NAMES,
    SEARCH_BOTS,
    GreedyBot,
    ISMCTSBot,
    MonteCarloBot,
    bot_from_name,
)
from buraco_rules.bots import ismcts as ismcts_module
from buraco_rules.bots.simulate import play_game
from test_bots import CONFIGS, IDS, Recording, _play

TINY = ISMCTSBot(playouts=3, horizon=1)


def _decision(rules: br.RuleSet, seed: int, steps: int) -> br.PlayerView:
    """The view of the seat to act after GreedyBot has played ``steps`` actions of a deal, at a
    decision with more than one legal action."""
    state = br.new_game(rules, 2, seed=seed)
    greedy = GreedyBot()
    done = 0
    while True:
        seen = br.view(state, state.current_player)
        if done >= steps and len(br.legal_actions(seen)) > 1:
            return seen
        state = br.apply(state, greedy.choose(seen, random.Random(0)))
        done += 1


@pytest.fixture
def dealt(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each deal the search samples (each call of determinize)."""
    counts: list[int] = []
    real = ismcts_module.determinize

    def counting(seen: br.PlayerView, rng: random.Random) -> br.GameState:
        counts.append(1)
        return real(seen, rng)

    monkeypatch.setattr(ismcts_module, "determinize", counting)
    return counts


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=IDS)
def test_ismcts_gets_views_only_and_plays_legally(rules: br.RuleSet, players: int) -> None:
    bots = [Recording(TINY if seat % 2 == 0 else GreedyBot()) for seat in range(players)]
    _play(bots, rules, seed=players)


@pytest.mark.parametrize("greedy_melds", [True, False])
def test_ismcts_searching_every_decision_plays_legally(greedy_melds: bool) -> None:
    for paired in (True, False):
        bot = ISMCTSBot(
            playouts=4, horizon=1, greedy_melds=greedy_melds, widening=5.0, paired=paired
        )
        _play([Recording(bot), Recording(GreedyBot())], variants.ITALIAN, seed=3)


def test_ismcts_is_replayable_from_its_rng() -> None:
    bot = ISMCTSBot(playouts=6, horizon=2)
    seen = _decision(variants.BURACO_FECHADO, seed=4, steps=9)
    assert bot.choose(seen, random.Random(7)) == bot.choose(seen, random.Random(7))
    first = play_game(variants.CANASTA_STBL, [bot, GreedyBot()], seed=11)
    again = play_game(variants.CANASTA_STBL, [bot, GreedyBot()], seed=11)
    assert first == again


def test_ismcts_keeps_to_its_playout_budget(dealt: list[int]) -> None:
    for playouts, paired in ((1, True), (5, False), (17, True), (17, False)):
        bot = ISMCTSBot(playouts=playouts, horizon=1, greedy_melds=False, paired=paired)
        for steps in (0, 1, 7):
            seen = _decision(variants.ITALIAN, seed=5, steps=steps)
            dealt.clear()
            bot.choose(seen, random.Random(1))
            assert len(dealt) == playouts  # one sampled deal per iteration, exactly the budget
            root = bot.search(seen, random.Random(1))
            assert root.visits == playouts
            visits = [child.visits for child in root.children.values()]
            if paired:  # every candidate played on every sampled deal
                assert len(visits) == min(bot.candidates, len(br.legal_actions(seen)))
                assert visits == [playouts] * len(visits)
            else:  # one root action per iteration
                assert sum(visits) == playouts


def test_ismcts_one_legal_action_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(seen: br.PlayerView, rng: random.Random) -> br.GameState:
        raise AssertionError("searched a forced decision")

    monkeypatch.setattr(ismcts_module, "determinize", refuse)
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=2)
    seen = br.view(state, state.current_player)
    forced = [a for a in br.legal_actions(seen)]
    if len(forced) == 1:
        assert ISMCTSBot().choose(seen, random.Random(0)) == forced[0]
    # A meld GreedyBot would lay is laid without a search (greedy_melds).
    greedy = GreedyBot()
    for seed in range(30):
        state = br.new_game(variants.CANASTA_STBL, 2, seed=seed)
        state = br.apply(state, br.DrawFromStock())
        seen = br.view(state, state.current_player)
        choice = greedy.choose(seen, random.Random(0))
        if type(choice) in (br.NewMeld, br.AddToMeld):
            assert ISMCTSBot(greedy_melds=True).choose(seen, random.Random(0)) == choice
            return
    pytest.fail("no deal of 30 offered a meld after the draw")


def test_ismcts_search_explores_beyond_greedy_choice() -> None:
    seen = _decision(variants.ITALIAN, seed=6, steps=0)
    root = ISMCTSBot(playouts=40, horizon=1, paired=False).search(seen, random.Random(2))
    assert len(root.children) >= 2  # progressive widening opened more than GreedyBot's choice
    assert all(a in br.legal_actions(seen) for a in root.children)
    # Below the root, the tree holds the bot's later decisions of the turn (after a draw).
    paired = ISMCTSBot(playouts=12, horizon=1).search(seen, random.Random(2))
    assert any(child.children for child in paired.children.values())


def test_ismcts_budget_and_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="give a budget"):
        ISMCTSBot(playouts=None)
    for bad in (
        {"playouts": 0},
        {"playouts": 2.5},
        {"seconds": 0},
        {"seconds": float("nan")},
        {"horizon": 0},
        {"widening": -1},
        {"scale": 0},
        {"exploration": float("inf")},
        {"greedy_melds": 1},
        {"paired": None},
        {"candidates": 0},
        {"margin": float("nan")},
        {"racing": 0},
        {"racing": float("inf")},
        {"reserve": -1},
        {"reserve": 1.5},
        {"reuse": "yes"},
    ):
        with pytest.raises(ValueError):
            ISMCTSBot(**bad)  # type: ignore[arg-type]
    assert ISMCTSBot(playouts=None, seconds=0.01).seconds == 0.01


def test_ismcts_is_made_by_name_with_a_budget() -> None:
    assert "ismcts" in BOT_NAMES and set(SEARCH_BOTS) <= set(BOT_NAMES)
    assert bot_from_name("ismcts") == ISMCTSBot()
    assert bot_from_name("ismcts:12") == ISMCTSBot(playouts=12)
    assert bot_from_name("ismcts:0.25s") == ISMCTSBot(playouts=None, seconds=0.25)
    assert bot_from_name("mc:7") == MonteCarloBot(playouts=7)
    assert bot_from_name("montecarlo:1.5s") == MonteCarloBot(playouts=None, seconds=1.5)
    for bad in ("ismcts:", "ismcts:0", "ismcts:-3", "ismcts:1e3", "ismcts:0s", "ismcts:nans",
                "greedy:3", "ismcts:" + "9" * 50, "ismcts:2000000"):  # fmt: skip
        with pytest.raises(ValueError):
            bot_from_name(bad)


def test_ismcts_is_selectable_in_simulate_match_and_play() -> None:
    import json

    from test_cli_hardening import cli

    status, out, err = cli(
        "simulate", "--variant", "canasta-stbl", "--players", "2", "--games", "1",
        "--bots", "ismcts:2,greedy", "--json",
    )  # fmt: skip
    assert status == 0, err
    assert json.loads(out)["bots"] == ["ismcts:2", "greedy"]
    status, out, err = cli(
        "match", "--variant", "canasta-stbl", "--players", "2", "--max-hands", "1",
        "--bots", "ismcts,greedy", "--playouts", "1",
    )  # fmt: skip
    assert status == 0 and "team 0 ismcts" in out, err
    status, out, err = cli(
        "play", "--variant", "canasta-stbl", "--players", "2", "--seat", "1", "--seed", "2",
        "--bots", "ismcts", "--playouts", "1", stdin="q\n",
    )  # fmt: skip
    assert status == 0 and "seat 0:" in out, err


def test_the_search_bots_take_the_budget_options() -> None:
    import argparse

    from buraco_rules.cli.options import montecarlo_bots

    parser = argparse.ArgumentParser()
    args = argparse.Namespace(
        bots=("ismcts", "mc", "ismcts:5", "greedy"), playouts=3, seconds_per_move=None
    )
    assert montecarlo_bots(parser, args) == (
        ISMCTSBot(playouts=3),
        MonteCarloBot(playouts=3),
        "ismcts:5",  # a budget in the name is kept
        "greedy",
    )
    args = argparse.Namespace(bots=("ismcts", "greedy"), playouts=None, seconds_per_move=0.5)
    assert montecarlo_bots(parser, args)[0] == ISMCTSBot(playouts=None, seconds=0.5)


def test_ismcts_plays_at_the_server_and_in_the_gymnasium_env() -> None:
    pytest.importorskip("starlette")
    from buraco_rules.server.tables import _read_spec

    spec = _read_spec({"variant": "italian", "players": 2, "seats": ["human", "ismcts"]})
    assert spec[2] == ["human", "ismcts"]
    pytest.importorskip("gymnasium")
    from buraco_rules.rl.gymnasium import BuracoEnv

    env = BuracoEnv("canasta-stbl", 2, opponent="ismcts:1", seat=1)
    assert env.opponent == ISMCTSBot(playouts=1)
    env.reset(seed=3)  # seat 0, the bot, has played its turn


def test_the_search_bots_share_one_budget_count() -> None:
    from buraco_rules.bots.budget import require_budget, sampled_deals

    assert list(sampled_deals(3, None)) == [0, 1, 2]
    assert list(sampled_deals(1, 3600.0)) == [0]  # the count ends first
    first = next(sampled_deals(None, 1e-9))  # at least one deal, whatever the time left
    assert first == 0
    with pytest.raises(ValueError, match="give a budget"):
        require_budget(None, None)
    for bot in (ISMCTSBot, MonteCarloBot):
        with pytest.raises(ValueError, match="playouts must be a whole number"):
            bot(playouts=1.5)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="seconds must be a positive number"):
            bot(seconds=0)


def test_ismcts_racing_drops_worse_candidates_within_its_budget(dealt: list[int]) -> None:
    bot = ISMCTSBot(playouts=48, horizon=2, racing=1.0, reserve=3)
    dropped = settled = 0
    for seed in range(6):
        seen = _decision(variants.ITALIAN, seed=seed, steps=3)
        dealt.clear()
        choice = bot.choose(seen, random.Random(seed))
        assert br.is_legal(seen, choice) and len(dealt) <= 48  # the race may stop early
        assert choice == bot.choose(seen, random.Random(seed))  # replayable
        race = bot._race(seen, random.Random(seed))
        assert race.root.visits == race.deals <= 48
        assert set(race.running) <= set(race.root.children) <= set(br.legal_actions(seen))
        # A running candidate was played on every deal since it was opened.
        for action in race.running:
            assert race.root.children[action].visits == race.deals - race.first[action]
        dropped += len(race.root.children) - len(race.running)
        settled += race.settled and race.deals < 48
    assert dropped > 0 and settled > 0  # at a loose threshold, the race does drop and settle
    # Without racing, every candidate runs on every deal (the budget test above).
    race = ISMCTSBot(playouts=12, horizon=1)._race(seen, random.Random(0))
    assert len(race.running) == len(race.root.children) and race.deals == 12


def test_ismcts_reuse_keeps_the_subtree_only_when_the_next_view_is_known() -> None:
    bot = ISMCTSBot(playouts=6, horizon=1, reuse=True)
    kept = dropped = 0
    for seed in range(40):
        state = br.new_game(variants.ITALIAN, 2, seed=seed)
        for _ in range(6):  # the bot plays seat 0's first turn
            seen = br.view(state, state.current_player)
            if state.current_player != 0:
                break
            choice = bot.choose(seen, random.Random(seed))
            state = br.apply(state, choice)
            memory = bot._memory
            after = br.view(state, 0)
            if type(choice) in (br.NewMeld, br.AddToMeld) and state.current_player == 0:
                # A meld shows the bot nothing new: the next decision's view is known.
                assert memory._view == after and memory._value is not None
                node = memory._value
                assert bot._memory.take(after) is node and bot._memory.take(after) is None
                bot._memory.keep(after, node)
                kept += 1
            elif type(choice) is br.DrawFromStock:
                assert memory._view is None  # the drawn card differs from deal to deal
                dropped += 1
    assert kept and dropped
    # Another view drops what was kept; a copy or a pickle of the bot forgets it.
    import copy
    import pickle

    bot._memory.keep(after, ismcts_module._Node())
    assert pickle.loads(pickle.dumps(bot)) == bot and copy.deepcopy(bot)._memory._view is None
    assert pickle.loads(pickle.dumps(bot))._memory._view is None
    other = br.view(br.new_game(variants.ITALIAN, 2, seed=99), 0)
    assert bot._memory.take(other) is None and bot._memory.take(after) is None


def test_ismcts_with_racing_and_reuse_plays_every_variant_replayably() -> None:
    bot = ISMCTSBot(playouts=4, horizon=1, racing=1.5, reserve=2, reuse=True)
    for rules, players in CONFIGS[:: max(1, len(CONFIGS) // 4)]:
        _play([Recording(bot if seat % 2 == 0 else GreedyBot()) for seat in range(players)],
              rules, seed=7)  # fmt: skip
    first = play_game(variants.BURACO_FECHADO, [bot, GreedyBot()], seed=12)
    assert play_game(variants.BURACO_FECHADO, [bot, GreedyBot()], seed=12) == first


def test_R18_unfinished_melds_promise_a_share_of_their_canasta_bonus() -> None:
    from buraco_rules.bots.rollout import melds_promise
    from buraco_rules.melds.meld import Meld

    rules = variants.ITALIAN
    bonuses = rules.canasta_bonuses
    six = Meld.from_cards(["3H", "4H", "5H", "6H", "7H", "8H"], rules)
    dirty_three = Meld.from_cards(["3H", "4H", "JK"], rules)
    canasta = Meld.from_cards(["3H", "4H", "5H", "6H", "7H", "8H", "9H"], rules)
    assert six is not None and dirty_three is not None and canasta is not None
    assert melds_promise([six], rules) == pytest.approx(bonuses.clean * 0.64)
    assert melds_promise([dirty_three], rules) == pytest.approx(bonuses.mixed * 0.04)
    assert melds_promise([canasta], rules) == 0  # its bonus is in the score already


def test_ismcts_promise_counts_at_the_horizon_only() -> None:
    from buraco_rules.bots.rollout import leaf_value

    state = br.new_game(variants.ITALIAN, 2, seed=3)
    greedy = GreedyBot()
    while not any(state.melds):
        state = br.apply(
            state, greedy.choose(br.view(state, state.current_player), random.Random(0))
        )
    plain = leaf_value(state, 0, 0.5)
    assert leaf_value(state, 0, 0.5, 1.0) != plain and leaf_value(state, 0, 0.5, 0.0) == plain
    with pytest.raises(ValueError, match="promise"):
        ISMCTSBot(promise=float("nan"))


def test_R10_fitted_leaf_weighs_by_kind_of_pile_and_plays_as_those_weights_do() -> None:
    from buraco_rules.bots.rollout import FITTED_LEAF, fitted_leaf

    for rules, players in CONFIGS:
        weights = fitted_leaf(rules, players)
        assert weights == FITTED_LEAF[rules.closed_discard_pile, players]
    closed, open_ = fitted_leaf(variants.BURACO_FECHADO, 4), fitted_leaf(variants.ITALIAN, 4)
    assert closed[0] < open_[0] and closed[1] > open_[1]  # held cards and melds count for more
    fitted = ISMCTSBot(playouts=6, horizon=2, fitted_leaf=True)
    for rules, players in CONFIGS:
        state = br.new_game(rules, players, seed=4)
        greedy = GreedyBot()
        for _ in range(12):  # into the hand, where held cards and half-built melds differ
            state = br.apply(
                state, greedy.choose(br.view(state, state.current_player), random.Random(0))
            )
        seen = br.view(state, state.current_player)
        hand_weight, promise = fitted_leaf(rules, players)
        same = ISMCTSBot(playouts=6, horizon=2, hand_weight=hand_weight, promise=promise)
        ours, theirs = fitted.search(seen, random.Random(5)), same.search(seen, random.Random(5))
        assert {a: c.total for a, c in ours.children.items()} == {
            a: c.total for a, c in theirs.children.items()
        }
    with pytest.raises(ValueError, match="fitted_leaf"):
        ISMCTSBot(fitted_leaf=1)  # type: ignore[arg-type]


def test_ismcts_carry_hands_the_budget_of_melds_laid_unsearched_on(dealt: list[int]) -> None:
    import copy

    playouts = 3
    for paired in (True, False):
        bot = ISMCTSBot(playouts=playouts, horizon=1, greedy_melds=True, carry=True, paired=paired)
        assert _carries(bot, dealt, playouts)  # some searches were longer
        assert copy.deepcopy(bot)._carried._view is None  # a copy forgets what was handed on
    with pytest.raises(ValueError, match="needs greedy_melds"):
        ISMCTSBot(carry=True)
    with pytest.raises(ValueError, match="carry"):
        ISMCTSBot(greedy_melds=True, carry=1)  # type: ignore[arg-type]


def _carries(bot: ISMCTSBot, dealt: list[int], playouts: int) -> int:
    """Play seat 0 of a few Italian deals with ``bot``, checking each decision's count of deals;
    the number of searches that had budgets handed on."""
    greedy = GreedyBot()
    longer = 0
    for seed in range(8):
        state = br.new_game(variants.ITALIAN, 2, seed=seed)
        owed = 0  # the budgets the melds laid unsearched since the last search handed on
        while not state.is_over:
            seen = br.view(state, state.current_player)
            if state.current_player != 0:
                state = br.apply(state, greedy.choose(seen, random.Random(0)))
                continue
            dealt.clear()
            choice = bot.choose(seen, random.Random(seed))
            after = br.apply(state, choice)
            if len(br.legal_actions(seen)) == 1:
                assert not dealt  # forced: no search, and what was handed on is dropped
                owed = 0
            elif len(dealt) < playouts:  # laid unsearched (finding the next view: 2 deals)
                assert type(choice) in (br.NewMeld, br.AddToMeld)
                shows_nothing = br.view(after, 0).extra_pile_taken == seen.extra_pile_taken
                goes_on = not after.is_over and after.current_player == 0
                owed = min(owed + 1, ismcts_module.CARRIED_MOST) if goes_on else 0
                owed *= shows_nothing
            else:
                assert len(dealt) == playouts * (1 + owed)  # its own budget and those handed on
                longer += owed > 0
                owed = 0
            state = after
    return longer


def _meld_decision(rules: br.RuleSet) -> br.PlayerView:
    """A view, after the draw, in which GreedyBot would lay a meld."""
    greedy = GreedyBot()
    for seed in range(30):
        state = br.apply(br.new_game(rules, 2, seed=seed), br.DrawFromStock())
        seen = br.view(state, state.current_player)
        if type(greedy.choose(seen, random.Random(0))) in (br.NewMeld, br.AddToMeld):
            return seen
    raise AssertionError("no deal of 30 offered a meld after the draw")


def test_R10_open_pile_only_searches_the_melds_where_the_pile_is_closed(dealt: list[int]) -> None:
    bot = ISMCTSBot(playouts=5, horizon=1, greedy_melds=True, open_pile_only=True)
    for rules in (variants.BURACO_FECHADO, variants.CANASTA_STBL, variants.ITALIAN):
        seen = _meld_decision(rules)
        dealt.clear()
        choice = bot.choose(seen, random.Random(0))
        if rules.closed_discard_pile:  # a meld spends the cards that could take the pile
            assert len(dealt) == 5
        else:
            assert not dealt and choice == GreedyBot().choose(seen, random.Random(0))
    with pytest.raises(ValueError, match="open_pile_only is about melds laid unsearched"):
        ISMCTSBot(open_pile_only=True)

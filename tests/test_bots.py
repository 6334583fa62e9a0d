"""Bots: they are shown views only, their choices are always legal, and GreedyBot plays the moves
its heuristics promise (each scenario names the ruling it leans on)."""

from __future__ import annotations

import random
from collections import Counter

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import (
    BOT_NAMES,
    Bot,
    GreedyBot,
    MonteCarloBot,
    RandomBot,
    bot_from_name,
)
from buraco_rules.bots.rollout import leaf_value as _leaf_value
from buraco_rules.bots.simulate import play_game
from buraco_rules.melds.meld import Meld

CONFIGS = [
    (rules, n) for rules in (variants.get(v) for v in variants.NAMES) for n in rules.player_counts
]
IDS = [f"{rules.name}-{n}" for rules, n in CONFIGS]


class Recording:
    """Wraps a bot: keeps every object it was handed and checks every answer is legal."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seen: list[object] = []

    def choose(self, view: br.PlayerView, rng: random.Random) -> br.Action:
        self.seen.append(view)
        action = self.bot.choose(view, rng)
        assert br.is_legal(view, action), (view, action)
        return action


def _holds_a_state(value: object) -> bool:
    if isinstance(value, br.GameState):
        return True
    if isinstance(value, tuple):
        return any(_holds_a_state(v) for v in value)
    return False


def _play(bots: list[Recording], rules: br.RuleSet, seed: int) -> None:
    play_game(rules, bots, seed=seed, first_player=seed % len(bots))
    for bot in bots:
        assert bot.seen, "every seat acted"
        for seen in bot.seen:
            assert type(seen) is br.PlayerView
            # The view's value holds no state (its cache, if filled, is a canonical state the
            # engine builds from the view itself).
            fields = [getattr(seen, f.name) for f in attrs.fields(br.PlayerView) if f.init]
            assert not any(_holds_a_state(v) for v in fields)


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=IDS)
def test_random_and_greedy_get_views_only_and_play_legally(rules: br.RuleSet, players: int) -> None:
    for seed in range(2):
        bots = [Recording(RandomBot() if seat % 2 else GreedyBot()) for seat in range(players)]
        _play(bots, rules, seed)


@pytest.mark.parametrize("rules", [variants.BURACO_FECHADO, variants.ITALIAN], ids=lambda r: r.name)
def test_montecarlo_gets_views_only_and_plays_legally(rules: br.RuleSet) -> None:
    bots = [Recording(MonteCarloBot(playouts=2, candidates=3, horizon=2)), Recording(GreedyBot())]
    _play(bots, rules, seed=5)


def test_bots_follow_the_protocol_and_are_made_by_name() -> None:
    for name in BOT_NAMES:
        assert isinstance(bot_from_name(name), Bot)
    assert isinstance(bot_from_name("mc"), MonteCarloBot)
    with pytest.raises(ValueError, match="unknown bot 'clever'"):
        bot_from_name("clever")


def test_random_bot_chooses_the_kind_of_action_first() -> None:
    # Play on until a view offers many melds and few discards: the kinds are still chosen evenly.
    rules = variants.ITALIAN
    rng = random.Random(2)
    for seed in range(50):
        state = br.new_game(rules, 2, seed=seed)
        while not state.is_over:
            actions = br.legal_actions(state)
            kinds = Counter(type(a) for a in actions)
            if len(kinds) >= 3 and max(kinds.values()) >= 4 * min(kinds.values()):
                break
            state = br.apply(state, actions[rng.randrange(len(actions))])
        else:
            continue
        break
    else:
        pytest.fail("no view with uneven kinds of action found")
    seen = br.view(state, state.current_player)
    picks = Counter(type(RandomBot().choose(seen, rng)) for _ in range(600))
    assert set(picks) == set(kinds)
    for kind in kinds:
        assert abs(picks[kind] / 600 - 1 / len(kinds)) < 0.08


# ------------------------------------------------------------------ GreedyBot's play
def _state(
    rules: br.RuleSet,
    *,
    hands: list[str],
    melds: tuple[list[str], list[str]] = ([], []),
    discard_pile: str = "",
    extra_pile_taken: tuple[bool, bool] = (False, False),
    phase: br.Phase = br.Phase.DRAW,
) -> br.GameState:
    """A two-player state holding exactly the 108 cards: the named ones where they are named,
    the rest in the untaken extra piles and the stock."""
    laid = tuple(tuple(Meld.from_cards(br.parse_cards(m), rules) for m in team) for team in melds)
    named = [c for h in hands for c in br.parse_cards(h)]
    named += [c for team in laid for m in team if m is not None for c in m.cards]
    named += br.parse_cards(discard_pile)
    rest = Counter(br.DECK)
    rest.subtract(named)
    left = sorted(rest.elements())
    extra: list[tuple[br.Card, ...] | None] = []
    for taken in extra_pile_taken:
        extra.append(None if taken else tuple(left[:11]))
        left = left if taken else left[11:]
    state = br.new_game(rules, 2, seed=0)
    return attrs.evolve(
        state,
        phase=phase,
        hands=tuple(tuple(sorted(br.parse_cards(h))) for h in hands),
        melds=laid,  # type: ignore[arg-type]
        discard_pile=br.parse_cards(discard_pile),
        extra_piles=(extra[0], extra[1]),
        extra_pile_taken=extra_pile_taken,
        stock=tuple(left),
    )


def _greedy(state: br.GameState) -> br.Action:
    return GreedyBot().choose(br.view(state, state.current_player), random.Random(0))


def test_R10_greedy_takes_a_closed_pile_whose_top_card_melds() -> None:
    state = _state(
        variants.BURACO_FECHADO,
        hands=["5S 6S 9H KC 4D", "3C 4C 5C 6C 7C"],
        discard_pile="QD JH 8C 7S",
    )
    action = _greedy(state)
    assert isinstance(action, br.TakeDiscardPile) and action.meld is not None
    assert br.Card("7S") in action.meld.cards


def test_greedy_discards_what_helps_neither_itself_nor_the_next_opponent() -> None:
    # 9♦ would lengthen the opponents' run; 5♥ 6♥ belong together; the joker is kept (R7).
    state = _state(
        variants.BURACO_FECHADO,
        phase=br.Phase.PLAY,
        hands=["5H 6H 9D KC JK", "3C 4C 5C 6C 7C"],
        melds=([], ["6D 7D 8D"]),
    )
    assert _greedy(state) == br.Discard("KC")


def test_R13_greedy_goes_out_when_it_may() -> None:
    rules = variants.BURACO_FECHADO
    state = _state(
        rules,
        phase=br.Phase.PLAY,
        hands=["10S KC", "3C 4C 5C 6C 7C"],
        melds=(["3S 4S 5S 6S 7S 8S 9S"], []),
        extra_pile_taken=(True, False),
    )
    first = _greedy(state)
    assert first == br.AddToMeld(0, "10S")
    state = br.apply(state, first)
    state = br.apply(state, _greedy(state))
    assert state.is_over and state.went_out == 0


def test_R13_greedy_keeps_its_best_clean_meld_clean_while_going_out_needs_one() -> None:
    state = _state(
        variants.BURACO_FECHADO,
        phase=br.Phase.PLAY,
        hands=["JK 9C QD KH 4D", "3C 4C 5C 6C 7C"],
        melds=(["3H 4H 5H 6H 7H"], []),
    )
    action = _greedy(state)
    assert isinstance(action, br.Discard) and action.card != br.JOKER


def test_greedy_reads_the_rule_set_not_its_name() -> None:
    for rules in (variants.BURACO_FECHADO, variants.ITALIAN):
        renamed = attrs.evolve(rules, name="house", title="House rules")
        a = play_game(rules, [GreedyBot(), GreedyBot()], seed=11)
        b = play_game(renamed, [GreedyBot(), GreedyBot()], seed=11)
        assert (a.scores, a.steps) == (b.scores, b.steps)


def test_greedy_beats_random_in_most_hands() -> None:
    # A sanity check on a few hands; the measured rates are in docs/bots.md.
    wins = 0
    for seed in range(10):
        result = play_game(variants.CANASTA_STBL, [GreedyBot(), RandomBot()], seed=seed)
        wins += result.winner == 0
    assert wins >= 8


# ------------------------------------------------------------------ MonteCarloBot
def test_montecarlo_budget_is_checked() -> None:
    with pytest.raises(ValueError, match="budget"):
        MonteCarloBot(playouts=None, seconds=None)
    with pytest.raises(ValueError, match="playouts must be a whole number"):
        MonteCarloBot(playouts=0)
    # The same checks as ISMCTSBot's (bots/budget.py): no fractional playouts, no endless time.
    with pytest.raises(ValueError, match="playouts must be a whole number"):
        MonteCarloBot(playouts=2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seconds must be a positive number"):
        MonteCarloBot(seconds=float("inf"))
    with pytest.raises(ValueError, match="seconds must be a number"):
        MonteCarloBot(seconds="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="margin must be a finite number"):
        MonteCarloBot(margin=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hand_weight must be a finite number"):
        MonteCarloBot(hand_weight="1")  # type: ignore[arg-type]


def test_montecarlo_is_replayable_from_its_rng_and_may_think_by_time() -> None:
    rules = variants.ITALIAN
    state = br.new_game(rules, 2, seed=8)
    state = br.apply(state, br.DrawFromStock())
    seen = br.view(state, 0)
    bot = MonteCarloBot(playouts=3, horizon=2)
    assert bot.choose(seen, random.Random(4)) == bot.choose(seen, random.Random(4))
    timed = MonteCarloBot(playouts=None, seconds=0.01, horizon=2)
    assert br.is_legal(seen, timed.choose(seen, random.Random(4)))


def test_R16_montecarlo_leaf_counts_cards_in_hand_at_its_weight_until_the_hand_ends() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=5)
    state = attrs.evolve(state, hands=(state.hands[0][:3], state.hands[1]))  # team 0 holds less
    ours, theirs = br.score(state)
    held = theirs.hands - ours.hands
    assert held > 0
    assert _leaf_value(state, 0, 1.0) == ours.total - theirs.total == held
    assert _leaf_value(state, 0, 0.25) == 0.25 * held
    assert _leaf_value(state, 1, 0.0) == 0.0
    done = _finished_state(variants.ITALIAN, seed=5)  # a finished hand counts in full
    a, b = br.score(done)
    assert a.hands + b.hands > 0
    assert _leaf_value(done, 0, 0.0) == a.total - b.total


def _finished_state(rules: br.RuleSet, seed: int) -> br.GameState:
    state = br.new_game(rules, 2, seed=seed)
    bot = GreedyBot()
    while not state.is_over:
        state = br.apply(state, bot.choose(br.view(state, state.current_player), random.Random(0)))
    return state

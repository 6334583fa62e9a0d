"""What a search bot remembers between its decisions (bots/recall.py): everything it knows is
true of the real deal (checked at every decision by tools/recall_counts.py's ``learnt``), it
does learn (the closed pile's hidden cards, the cards a taken pile put in a hand), the deals it
samples agree with it and with the view, and ISMCTSBot with ``recall`` is shown views only,
plays legally and is replayable."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bots import GreedyBot, ISMCTSBot
from buraco_rules.bots.recall import Known, Recall
from buraco_rules.bots.simulate import play_game
from test_bots import CONFIGS, IDS, Recording, _play
from test_strength_tables import load_tool

_learnt = load_tool("recall_counts").learnt  # checks what is known at each decision; counts it


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CONFIGS), st.integers(0, 10**6), st.booleans())
def test_what_a_bot_recalls_is_true_of_the_deal(
    config: tuple[br.RuleSet, int], seed: int, greedy: bool
) -> None:
    rules, players = config
    _learnt(rules, players, seed, greedy, steps=300)


@pytest.mark.parametrize(("name", "learns"), [("buraco-fechado", "pile"), ("italian", "held")])
def test_R10_R11_a_bot_recalls_the_closed_pile_and_the_cards_a_taken_pile_put_in_a_hand(
    name: str, learns: str
) -> None:
    # The closed pile's hidden cards (R10) are known from having been its top; with the open
    # pile (R11) the cards taken with it are known to be in the taker's hand.
    learnt: Counter[str] = Counter()
    for seed in range(3):
        learnt += _learnt(variants.get(name), 2, seed, True, 400)
    assert learnt[learns] > learnt["decisions"] // 2


def test_a_decision_that_continues_nothing_starts_from_the_view() -> None:
    recall = Recall()
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=5)
    seen = br.view(state, state.current_player)
    known = recall.known(seen)
    assert known == Known(seen.discard_pile, ((), ()))
    recall.note(seen, GreedyBot().choose(seen, random.Random(0)), known)
    other = br.view(br.new_game(variants.BURACO_FECHADO, 2, seed=6), 0)
    assert recall.known(other) == Known(other.discard_pile, ((), ()))
    assert (
        copy.deepcopy(recall)._entries == {} and pickle.loads(pickle.dumps(recall))._entries == {}
    )


@pytest.mark.parametrize(("rules", "players"), CONFIGS, ids=IDS)
def test_ismcts_with_recall_gets_views_only_and_plays_legally(
    rules: br.RuleSet, players: int
) -> None:
    bot = ISMCTSBot(playouts=3, horizon=1, recall=True)
    _play([Recording(bot if seat % 2 == 0 else GreedyBot()) for seat in range(players)],
          rules, seed=players + 1)  # fmt: skip


def test_ismcts_with_recall_is_replayable() -> None:
    first = play_game(variants.ITALIAN, [ISMCTSBot(playouts=3, horizon=1, recall=True),
                                         GreedyBot()], seed=4)  # fmt: skip
    again = play_game(variants.ITALIAN, [ISMCTSBot(playouts=3, horizon=1, recall=True),
                                         GreedyBot()], seed=4)  # fmt: skip
    assert again == first

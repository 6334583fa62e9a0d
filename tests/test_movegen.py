"""The move generator against the checker: on sampled states of random games, the actions that
``legal_actions`` lists are exactly those of a brute-force enumeration that the checker accepts
(every sub-multiset of the hand as a new meld or as an addition to each team meld, every discard,
every way to take the pile). Also "perft"-style pins of exact action counts on fixed deals."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.engine.checks import check
from buraco_rules.engine.movegen import result_of

CONFIGS = [(name, n) for name in variants.NAMES for n in variants.get(name).player_counts]


def sub_multisets(cards: tuple[br.Card, ...]) -> Iterator[tuple[br.Card, ...]]:
    counts = sorted(Counter(cards).items())

    def rec(i: int) -> Iterator[tuple[br.Card, ...]]:
        if i == len(counts):
            yield ()
            return
        card, n = counts[i]
        for rest in rec(i + 1):
            for k in range(n + 1):
                yield (card,) * k + rest

    for sub in rec(0):
        if sub:
            yield tuple(sorted(sub))


def candidates(state: br.GameState) -> Iterator[object]:
    team = state.current_player % 2
    hand = state.hands[state.current_player]
    melds = range(len(state.melds[team]))
    yield br.RefuseFirstDraw()  # R32: accepted only right after the hand's first draw
    if state.phase is br.Phase.DRAW:
        yield br.DrawFromStock()
        yield br.TakeDiscardPile()
        if state.discard_pile:
            top = state.discard_pile[-1]
            for sub in [(), *sub_multisets(hand)]:
                cards = tuple(sorted((*sub, top)))
                yield br.TakeDiscardPile(br.NewMeld(cards))
                for i in melds:
                    yield br.TakeDiscardPile(br.AddToMeld(i, cards))
    elif state.phase is br.Phase.PLAY:
        for sub in sub_multisets(hand):
            yield br.NewMeld(sub)
            for i in melds:
                yield br.AddToMeld(i, sub)
        for card in set(hand):
            yield br.Discard(card)


def accepted(state: br.GameState) -> set[object]:
    found = set()
    for action in candidates(state):
        try:
            check(state, action)
        except br.IllegalAction:
            continue
        found.add(action)
    return found


def sampled_states(name: str, players: int, games: int, seed: int) -> Iterator[br.GameState]:
    """States of random games, biased towards melding so that tables fill up."""
    rng = random.Random(seed)
    rules = variants.get(name)
    for _ in range(games):
        state = br.new_game(rules, players, seed=rng.getrandbits(32))
        while not state.is_over:
            if len(state.hands[state.current_player]) <= 12 and rng.random() < 0.25:
                yield state
            actions = br.legal_actions(state)
            melds = [a for a in actions if not isinstance(a, br.Discard)]
            pool = melds if melds and rng.random() < 0.7 else actions
            state = br.apply(state, rng.choice(pool))


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_R4_to_R14_generator_lists_exactly_what_the_checker_accepts(
    name: str, players: int
) -> None:
    for state in sampled_states(name, players, games=2, seed=players):
        listed = br.legal_actions(state)
        assert len(set(listed)) == len(listed)
        assert set(listed) == accepted(state), (name, state.hands[state.current_player])


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_generated_melds_are_those_the_checker_builds(name: str, players: int) -> None:
    checked = 0
    for state in sampled_states(name, players, games=3, seed=100 + players):
        actions = br.legal_actions(state)
        _, recipes = state._legal or ((), ())
        assert len(recipes) == len(actions)
        for action, recipe in zip(actions, recipes, strict=True):
            made = check(state, action)
            if type(recipe) is not tuple:  # a draw, a discard (its card) or an open take
                assert made is None
                continue
            assert made is not None and result_of(state, recipe) == made
            assert br.Meld.from_cards(made.cards, state.rules) == made
            checked += 1
    assert checked > 0


def test_R7_R8_run_additions_match_brute_force_on_crafted_melds() -> None:
    """Additions around wildcards and 2s, where positions shift (R7, R8)."""
    rules = variants.BURACO_FECHADO
    deck = br.arrange_deck(rules, 2, hands=["2S 4S 5S 6S 7S 8S 9S 3S 2H JK AS"], stock="QS")
    state = br.new_game(rules, 2, deck=deck)
    state = br.apply(state, br.DrawFromStock())
    state = br.apply(state, br.NewMeld("4S 5S 6S 7S 8S 9S 2H"))
    assert set(br.legal_actions(state)) == accepted(state)
    state = br.apply(state, br.NewMeld("2S JK AS"))
    assert set(br.legal_actions(state)) == accepted(state)


def test_R6_R8_additions_that_turn_the_ace_round_match_brute_force() -> None:
    rules = variants.BURACO_FECHADO
    for hand, meld in [
        ("AD JK 3D 4D 5D 6D 7D 8D 9D 10D JD", "AD JK 3D 4D 5D 6D 7D 8D 9D"),
        ("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD", "AD 2D 3D 4D 5D 6D 7D 8D 9D"),
    ]:
        deck = br.arrange_deck(rules, 2, hands=[hand], stock="KD")
        state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
        state = br.apply(state, br.NewMeld(meld))
        assert br.AddToMeld(0, "10D JD KD") in br.legal_actions(state)
        assert set(br.legal_actions(state)) == accepted(state)


@pytest.mark.parametrize(
    ("name", "hands", "stock", "discard", "take"),
    [
        (
            "buraco-fechado",
            ["2H 5C 6C 7C 8D 9D 10D JD QD KD 4S", "3H 2S 7S 8S 9S 10S JS QS KS 3C 4C"],
            "5H 6H",
            "2H",
            "2H 3H 2S",
        ),
        (
            "canasta-stbl",
            ["2D 5C 6C 7C 8H 9H 10H JH QH KH 4S", "AD JK 7S 8S 9S 10S JS QS KS 3C 4C"],
            "5D 6D",
            "2D",
            "AD 2D JK",
        ),
    ],
    ids=["2-natural-other-2-wild", "2-natural-joker-wild"],
)
def test_R7_R10_a_top_2_of_the_runs_suit_may_stand_in_its_own_place(
    name: str, hands: list[str], stock: str, discard: str, take: str
) -> None:
    """Regression: a new run taking a closed pile's top 2 in its own place, next to one natural
    card of the hand and a wildcard, was missing from legal_actions (found by fuzzing)."""
    rules = variants.get(name)
    deck = br.arrange_deck(rules, 2, hands=hands, stock=stock)
    state = br.apply(br.new_game(rules, 2, deck=deck), br.DrawFromStock())
    state = br.apply(state, br.Discard(discard))
    action = br.TakeDiscardPile(br.NewMeld(take))
    assert action in br.legal_actions(state)
    assert set(br.legal_actions(state)) == accepted(state)


# Exact action counts on fixed deals, like chess "perft": the number of legal actions along the
# line that always plays the first listed action. The brute-force tests above vouch for them; any
# change to these numbers is a change to the rules.
PINNED = [
    ("buraco-fechado", 4, 7, [1, 15, 9, 1, 16, 9, 7, 22, 10, 6, 1, 25]),
    ("buraco-fechado", 2, 5, [1, 28, 9, 3, 23, 11, 6, 1, 9, 1, 6, 1]),
    ("canasta-stbl", 2, 3, [1, 12, 2, 15, 8, 1, 13, 9, 1, 8, 2, 9]),
    ("italian", 4, 11, [2, 18, 9, 2, 21, 8, 2, 28, 15, 5, 2, 27]),
    ("italian", 2, 2, [2, 18, 8, 2, 21, 9, 2, 10, 6, 2, 9, 2]),
]


@pytest.mark.parametrize(("name", "players", "seed", "counts"), PINNED)
def test_perft_pins(name: str, players: int, seed: int, counts: list[int]) -> None:
    state = br.new_game(variants.get(name), players, seed=seed)
    seen = []
    for _ in counts:
        actions = br.legal_actions(state)
        seen.append(len(actions))
        assert set(actions) == accepted(state)
        state = br.apply(state, actions[0])
    assert seen == counts

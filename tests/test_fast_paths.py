"""The engine's fast paths against the simple definitions they stand for.

Each fast path of the generator (a memo of a suit's offer, the new runs kept with an offer, a
hand counted once for all ranks of sets) must answer exactly what the plain code answers; the
brute-force tests of ``tests/test_movegen.py`` hold the whole generator to the checker besides.
"""

from __future__ import annotations

import random
from typing import Any, cast

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.bench.scaling import _state_with_hand
from buraco_rules.core.cards import Card, all_cards
from buraco_rules.engine import movegen
from buraco_rules.engine.transitions import replace
from buraco_rules.melds import meld as melds
from buraco_rules.melds.search import (
    counted_set_options,
    set_options,
    suit_hand,
    suit_hands,
    wild_kinds,
)

CARDS = all_cards()
TWO_DECKS = [*CARDS[:52], *CARDS[:52], *[CARDS[52]] * 4]


def offer_fields(offer: object) -> tuple[object, ...]:
    return tuple(
        getattr(offer, name) for name in ("mask", "aces", "twos", "others", "held", "wild")
    )


def random_hands(seed: int, count: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    # Every size from one card to a hand that took a long pile (72 cards).
    return [
        tuple(sorted(rng.sample(TWO_DECKS, rng.choice((1, 2, 5, 11, 22, 44, 72)))))
        for _ in range(count)
    ]


def test_suit_hands_equal_suit_hand_of_each_suit() -> None:
    """Reading the whole hand at once gives each suit the offer that reading that suit gives."""
    for hand in random_hands(1, 400):
        kinds = wild_kinds(hand)
        offers = suit_hands(hand)
        for suit in range(4):
            assert offer_fields(offers[suit]) == offer_fields(suit_hand(hand, suit, kinds)), hand


def test_counted_set_options_are_set_options() -> None:
    """The generator counts a hand once by card; counted_set_options on those counts gives what
    set_options gives on the hand, for new sets and for additions to a team's set."""
    rules = variants.ITALIAN
    rng = random.Random(3)
    sets = []
    for _ in range(300):
        meld = melds.classify(tuple(sorted(rng.sample(TWO_DECKS, 3))), rules)
        if meld is not None and meld.rank is not None:
            sets.append(meld)
    assert sets
    for hand in random_hands(4, 200):
        counted = [0] * 53
        for c in hand:
            counted[c] += 1
        kinds = wild_kinds(hand)
        for rank in range(13):
            by_suit = tuple(counted[rank + 13 * s] for s in range(4))
            for meld in (None, *[m for m in sets if m.rank is not None and m.rank - 1 == rank]):
                assert counted_set_options(rank, by_suit, kinds, meld, rules.max_set_size) == (
                    set_options(rank, hand, kinds, meld, rules.max_set_size)
                )


def listing_option_by_option(state: br.GameState) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """The play phase's melds listed the simple way: each option of each group looked up alone
    (the kept action, unless it was forced to change), R14 applied by the generator's own test."""
    seat = state.current_player
    hand = state.hands[seat]
    actions: list[object] = []
    recipes: list[object] = []
    for index, options in movegen._option_groups(state, hand):
        for cards in options:
            if len(hand) - len(cards) < 2:
                continue  # R14's cases are left to the generator: compared apart below
            action, own = movegen._meld_action(index, cards)
            actions.append(action)
            recipes.append((index, own))
    return tuple(actions), tuple(recipes)


@pytest.mark.parametrize("name", ["italian", "buraco-fechado"])
def test_grouped_listing_is_the_listing_option_by_option(name: str) -> None:
    """The generator looks each group of options up at once (:func:`movegen._kept_group`); it
    lists the very objects and recipes that looking each option up alone gives."""
    rules = variants.get(name)
    rng = random.Random(5)
    compared = 0
    for size in (11, 22, 44):
        for _ in range(8):
            state = _state_with_hand(rules, size, rng)
            actions, recipes = movegen.generate(state)
            melds = [(a, r) for a, r in zip(actions, recipes, strict=True) if type(r) is tuple]
            expected_actions, expected_recipes = listing_option_by_option(state)
            hand_size = len(state.hands[state.current_player])
            kept = [(a, r) for a, r in melds if hand_size - len(cast(Any, r)[1]) >= 2]
            assert [a for a, _ in kept] == list(expected_actions)
            assert all(a is b for (a, _), b in zip(kept, expected_actions, strict=True))
            assert [r for _, r in kept] == list(expected_recipes)
            compared += len(kept)
    assert compared > 1000


def test_a_forced_kept_action_is_not_listed_by_a_group() -> None:
    """A kept action forced to change (``object.__setattr__``) is replaced in the listing by a
    fresh one holding the recipe's cards, even though its group is kept."""
    rules = variants.ITALIAN
    state = _state_with_hand(rules, 22, random.Random(9))
    actions, recipes = movegen.generate(state)
    index = next(i for i, r in enumerate(recipes) if type(r) is tuple)
    victim: Any = actions[index]
    original = victim.cards
    object.__setattr__(victim, "cards", tuple(reversed(original)))
    try:
        again: Any
        again_recipes: Any
        again, again_recipes = movegen.generate(replace(state))
        assert again[index] is not victim and again[index].cards is again_recipes[index][1]
        assert again == actions[:index] + (again[index],) + actions[index + 1 :]
        assert again[index].cards == original
    finally:
        object.__setattr__(victim, "cards", original)

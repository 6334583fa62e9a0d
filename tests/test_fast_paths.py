"""The engine's fast paths against the simple definitions they stand for.

Each fast path of the generator (a memo of a suit's offer, the new runs kept with an offer, a
hand counted once for all ranks of sets) must answer exactly what the plain code answers; the
brute-force tests of ``tests/test_movegen.py`` hold the whole generator to the checker besides.
"""

from __future__ import annotations

import random

import pytest

from buraco_rules import melds, variants
from buraco_rules.cards import Card, all_cards
from buraco_rules.meldsearch import (
    NOTHING_FIXED,
    counted_set_options,
    new_runs,
    run_options,
    set_options,
    suit_hand,
    suit_hands,
    wild_kinds,
)
from buraco_rules.memo import clear_caches

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
    """The memo of offers, keyed by a suit's cut of the hand, gives each suit the offer that
    reading the whole hand gives (fails if a cut were off by one: a 2 or an ace would move)."""
    for hand in random_hands(1, 400):
        kinds = wild_kinds(hand)
        offers = suit_hands(hand)
        for suit in range(4):
            assert offer_fields(offers[suit]) == offer_fields(suit_hand(hand, suit, kinds)), hand


@pytest.mark.parametrize("low_only", [False, True])
def test_new_runs_kept_with_an_offer_are_run_options_with_nothing_fixed(low_only: bool) -> None:
    """The new runs kept with a shared offer are those the search finds, whatever rules asked
    before (the offer is shared by every table, and two rules may differ in their ace limits)."""
    clear_caches()
    for hand in random_hands(2, 150):
        for suit, offer in enumerate(suit_hands(hand)):
            for max_aces in (1, 2, 1):  # the second ask of 1 comes after the offer kept 2's
                expected = tuple(
                    (-1, cards)
                    for cards in run_options(
                        suit, offer, NOTHING_FIXED, max_aces, low_only=low_only
                    )
                )
                assert new_runs(suit, offer, max_aces, low_only) == expected, (hand, suit)
                assert new_runs(suit, offer, max_aces, low_only) == expected  # kept, the same


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

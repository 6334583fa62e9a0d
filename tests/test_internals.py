"""The engine's inside: the quick filters against a brute-force search, the state builder's
``replace``, the memo caches' registry, and the boundary that both builds (pure and compiled)
must answer alike."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator
from itertools import product

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core import memo
from buraco_rules.core.cards import all_cards
from buraco_rules.engine.transitions import replace
from buraco_rules.melds.meld import IS_WILD, MeldKind, classify
from buraco_rules.melds.search import (
    might_extend,
    might_start,
    might_start_with_top,
    might_take_onto,
    run_facts,
    suit_hand,
    suit_hands,
    wild_kinds,
    with_top,
)

VARIANTS = (variants.BURACO_FECHADO, variants.CANASTA_STBL, variants.ITALIAN)
CARDS = all_cards()
JOKER = CARDS[52]


def random_states(rules: br.RuleSet, players: int, games: int, seed: int) -> Iterator[br.GameState]:
    rng = random.Random(seed)
    for _ in range(games):
        state = br.new_game(rules, players, seed=rng.getrandbits(32))
        yield state
        while not state.is_over:
            actions = br.legal_actions(state)
            state = br.apply(state, actions[rng.randrange(len(actions))])
            yield state


# --- replace --------------------------------------------------------------------------------------


def test_replace_with_no_change_keeps_every_field() -> None:
    fields = [a.name for a in attrs.fields(br.GameState) if a.init]
    changed: Counter[str] = Counter()
    for rules in VARIANTS:
        for state in random_states(rules, rules.player_counts[-1], 3, seed=1):
            copy = replace(state)
            for name in fields:
                assert getattr(copy, name) is getattr(state, name), name
                default = attrs.fields_dict(br.GameState)[name].default
                if getattr(state, name) != default:
                    changed[name] += 1
    # Every field with a default took another value somewhere, so a reset would have shown.
    assert changed["taken_single_card"] and changed["went_out"]


def test_replace_changes_only_the_fields_given() -> None:
    state = br.new_game(variants.ITALIAN, 4, seed=3)
    after = replace(state, current_player=2, taken_single_card=None, went_out=1)
    assert (after.current_player, after.went_out) == (2, 1)
    assert after.hands is state.hands and after.stock is state.stock and after.rules is state.rules


# --- the memo caches ------------------------------------------------------------------------------


def test_clear_caches_empties_every_memo_cache_and_changes_no_answer() -> None:
    states = list(random_states(variants.BURACO_FECHADO, 2, 2, seed=5))
    before = [br.legal_actions(s) for s in states]
    sizes = memo.cache_sizes()
    assert len(sizes) >= 10 and any(size.entries for size in sizes.values())
    assert all(size.maxsize > 0 and size.entries <= size.maxsize for size in sizes.values())
    br.clear_caches()
    assert all(size.entries == 0 for size in memo.cache_sizes().values())
    # A copy does not carry the legal actions kept with a state: they are generated afresh.
    fresh = [br.legal_actions(attrs.evolve(s)) for s in states]
    assert fresh == before


# --- the quick filters ----------------------------------------------------------------------------


def sub_multisets(cards: list[br.Card]) -> Iterator[tuple[br.Card, ...]]:
    counts = sorted(Counter(cards).items())
    for taken in product(*(range(n + 1) for _, n in counts)):
        yield tuple(c for (c, _), k in zip(counts, taken, strict=True) for _ in range(k))


def is_run_of(cards: tuple[br.Card, ...], suit: int, rules: br.RuleSet) -> bool:
    meld = classify(tuple(sorted(cards)), rules)
    return meld is not None and meld.kind is MeldKind.RUN and meld.suit == suit


@pytest.mark.parametrize(
    "rules",
    [*VARIANTS, attrs.evolve(variants.BURACO_FECHADO, name="ace-low", ace_low_only=True)],
    ids=lambda r: r.name,
)
def test_quick_filters_never_reject_what_a_brute_force_search_accepts(rules: br.RuleSet) -> None:
    """Each ``might_*`` test may let through what no meld uses, never the other way round: here
    every sub-multiset of a random hand is tried with the meld classifier, which knows nothing of
    the filters."""
    rng = random.Random(2024)
    seen: Counter[tuple[str, bool]] = Counter()
    for case in range(300):
        suit = rng.randrange(4)
        own = [CARDS[13 * suit + r] for r in range(13)] * 2
        wilds = [CARDS[13 * s + 1] for s in range(4) if s != suit] * 2 + [JOKER] * 4
        pool = own * 3 + wilds  # mostly the suit's own cards, so that runs are common
        # Small hands too: a filter's blind spots lie where only one or two cards make a meld.
        hand_cards = rng.sample(pool, rng.randint(1, 3) if case % 3 == 0 else rng.randint(2, 7))
        noise = [c for c in CARDS[:52] if c // 13 != suit and not IS_WILD[c]]
        hand = tuple(sorted(hand_cards + rng.sample(noise, rng.randint(0, 3))))
        offer = suit_hand(hand, suit, wild_kinds(hand))
        assert vars_of(offer) == vars_of(suit_hands(hand)[suit])
        usable = [c for c in hand if c // 13 == suit or IS_WILD[c]]
        parts = list(sub_multisets(usable))

        starts = any(len(p) >= 3 and is_run_of(p, suit, rules) for p in parts)
        seen["start", starts] += 1
        if starts:
            assert might_start(offer), hand

        meld = random_run(rng, rules, suit, pool)
        facts = run_facts(meld)
        extends = any(p and is_run_of(meld.multiset + p, suit, rules) for p in parts)
        seen["extend", extends] += 1
        if extends:
            assert might_extend(offer, facts), (hand, meld)

        top = rng.choice(pool) if case % 4 else CARDS[13 * suit + 1]  # its own 2 is special
        if top // 13 == suit or IS_WILD[top]:
            takes = any(len(p) >= 2 and is_run_of((*p, top), suit, rules) for p in parts)
            seen["take", takes] += 1
            if takes:
                assert might_start_with_top(offer, suit, top), (hand, top)
        onto = any(is_run_of((*meld.multiset, *p, top), suit, rules) for p in parts)
        seen["take onto", onto] += 1
        if onto:
            fixed = with_top(suit, facts.fixed, top)
            assert fixed is not None, (meld, top)
            assert IS_WILD[top] or might_take_onto(offer, meld, facts, top), (hand, meld, top)
    # Both answers came up for every filter, so each assertion above was put to the test.
    assert all(
        seen[kind, answer]
        for kind in ("start", "extend", "take", "take onto")
        for answer in (False, True)
    ), seen


def vars_of(offer: object) -> tuple[object, ...]:
    return tuple(
        getattr(offer, name) for name in ("mask", "aces", "twos", "others", "held", "wild")
    )


def random_run(rng: random.Random, rules: br.RuleSet, suit: int, pool: list[br.Card]) -> br.Meld:
    while True:
        meld = classify(tuple(sorted(rng.sample(pool, rng.randint(3, 6)))), rules)
        if meld is not None and meld.kind is MeldKind.RUN and meld.suit == suit:
            return meld


# --- the boundary: the same answers from the pure and the compiled build ------------------------


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"players": "2"}, "players"),
        ({"players": True}, "players"),
        ({"players": 2.0}, "players"),
        ({"players": 2, "first_player": True}, "first_player"),
        ({"players": 2, "first_player": "0"}, "first_player"),
    ],
)
def test_new_game_refuses_a_bad_argument_with_a_value_error(
    kwargs: dict[str, object], fragment: str
) -> None:
    with pytest.raises(ValueError, match=fragment):
        br.new_game(variants.ITALIAN, seed=1, **kwargs)  # type: ignore[arg-type]


def test_new_game_takes_every_seed_random_takes_and_refuses_others() -> None:
    for seed in (7, "abc", b"abc", 1.5):
        assert br.new_game(variants.ITALIAN, 2, seed=seed).hands
    assert br.new_game(variants.ITALIAN, 2, seed="abc") == br.new_game(
        variants.ITALIAN, 2, seed="abc"
    )
    with pytest.raises(ValueError, match="seed"):
        br.new_game(variants.ITALIAN, 2, seed=[1])


@pytest.mark.parametrize("player", ["0", 0.0, True, object()])
def test_apply_refuses_a_player_that_is_not_a_seat(player: object) -> None:
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=1)
    with pytest.raises(br.IllegalAction) as info:
        br.apply(state, br.legal_actions(state)[0], player)
    assert info.value.code is br.ErrorCode.NOT_YOUR_TURN
    error = br.why_illegal(state, br.legal_actions(state)[0], player)
    assert error is not None and error.code is br.ErrorCode.NOT_YOUR_TURN


@pytest.mark.parametrize("seat", ["0", True, 0.0, 5, -1])
def test_view_refuses_a_seat_that_does_not_exist(seat: object) -> None:
    state = br.new_game(variants.BURACO_FECHADO, 2, seed=1)
    with pytest.raises(ValueError, match="seat"):
        br.view(state, seat)


# --- the generator is the one source of legality --------------------------------------------------


def test_a_move_the_checker_accepts_but_the_generator_did_not_list_fails_loudly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from buraco_rules import bench
    from buraco_rules.engine import reducer

    if bench.build() == "compiled":
        pytest.skip("the compiled engine calls the generator directly: nothing to patch")
    # A meld: the generator decides it (a draw, a discard or an open take in a state never
    # listed is the checker's, which a property in test_replay.py holds to the generator).
    state = br.apply(br.new_game(variants.BURACO_FECHADO, 2, seed=1), br.DrawFromStock())
    meld = next(a for a in br.legal_actions(state) if type(a) is br.NewMeld)
    state = copy.copy(state)  # equal, its legal actions not listed
    real = reducer.generate
    monkeypatch.setattr(reducer, "generate", lambda s: ((), ()) if s is state else real(s))
    with pytest.raises(RuntimeError, match="engine bug"):
        br.apply(state, meld)

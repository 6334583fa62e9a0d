"""The observation vector of :mod:`buraco_rules.rl.observation`: fixed length, float32 in [0, 1],
every slice documented, decodable back to what the view shows, and unchanged when the cards the
seat cannot see are re-dealt with ``determinize``."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.cards import DECK
from buraco_rules.rl.encoding import MELD, TokenError, legal_tokens

np = pytest.importorskip("numpy")
observation = pytest.importorskip("buraco_rules.rl.observation")
LAYOUT, OBSERVATION_SIZE, encode = (
    observation.LAYOUT,
    observation.OBSERVATION_SIZE,
    observation.encode,
)

VARIANTS = (
    variants.BURACO_FECHADO,
    variants.CANASTA_STBL,
    variants.ITALIAN,
    variants.ITALIAN_FIBUR,
)
CONFIGS = [(rules, n) for rules in VARIANTS for n in rules.player_counts]
configs = pytest.mark.parametrize(
    ("rules", "players"), CONFIGS, ids=[f"{r.name}-{n}p" for r, n in CONFIGS]
)
COPIES = Counter(DECK)


def played(rules: br.RuleSet, players: int, seed: int, steps: int) -> list[br.GameState]:
    rng = random.Random(seed)
    state = br.new_game(rules, players, seed=seed)
    states = [state]
    for _ in range(steps):
        actions = br.legal_actions(state)
        if not actions:
            break
        state = br.apply(state, rng.choice(actions))
        states.append(state)
    return states


def prefixes(state: br.GameState) -> list[tuple[int, ...]]:
    """The empty prefix and a few proper prefixes of legal token sequences."""
    found: list[tuple[int, ...]] = [()]
    prefix: tuple[int, ...] = ()
    while True:
        nexts = legal_tokens(state, prefix)
        if not nexts:
            return found
        prefix += (nexts[-1],)
        if legal_tokens(state, prefix):
            found.append(prefix)


def counts_of(vector: object, name: str) -> Counter[int]:
    values = vector[LAYOUT[name].slice]  # type: ignore[index]
    return Counter(
        {c: round(float(v) * COPIES[br.Card.from_id(c)]) for c, v in enumerate(values) if v}
    )


def test_the_layout_covers_the_vector_in_order() -> None:
    at = 0
    for field in LAYOUT.values():
        assert field.start == at and field.stop > field.start and field.doc
        at = field.stop
    assert at == OBSERVATION_SIZE


@configs
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_observations_are_bounded_and_unchanged_by_redeals(
    rules: br.RuleSet, players: int, seed: int
) -> None:
    rng = random.Random(seed)
    states = played(rules, players, seed, steps=300)
    for state in states[:: max(1, len(states) // 10)] + [states[-1]]:
        for seat in range(players):
            seen = br.view(state, seat)
            pending = prefixes(state) if seat == state.current_player else [()]
            plain = encode(seen)
            for prefix in pending:
                vector = encode(seen, prefix)
                assert np.array_equal(observation.with_prefix(plain, prefix), vector)
                assert np.array_equal(observation.with_prefix(vector, ()), plain)
                assert vector.shape == (OBSERVATION_SIZE,) and vector.dtype == np.float32
                assert float(vector.min()) >= 0.0 and float(vector.max()) <= 1.0
                for _ in range(2):
                    redealt = br.determinize(seen, rng)
                    assert np.array_equal(encode(br.view(redealt, seat), prefix), vector)
            vector = encode(seen)
            points = seen.public_points
            for relative in (0, 1):
                p = points[(seat + relative) % 2]
                got = float(vector[LAYOUT["public_points"].start + relative])
                assert got == pytest.approx(p / (p + 1000.0))
            assert counts_of(vector, "hand") == Counter(seen.hand)
            assert counts_of(vector, "discard_pile") == Counter(seen.discard_pile)
            on_table = Counter(c for team in seen.melds for m in team for c in m.cards)
            assert counts_of(vector, "table_cards") == on_table
            for relative, field, slots in ((0, "own_melds", 16), (1, "other_melds", 10)):
                team = (seat + relative) % 2
                blocks = vector[LAYOUT[field].slice].reshape(slots, observation.MELD_FEATURES)
                for slot in range(slots):
                    assert_describes(blocks[slot], seen.melds[team][slot : slot + 1])


def assert_describes(block: object, melds: tuple[br.Meld, ...]) -> None:
    """The structural numbers of a meld slot: kind, suit, positions, wildcard, size, kind of
    canasta; all zero for an empty slot."""
    numbers = [float(x) for x in block]  # type: ignore[attr-defined]
    if not melds:
        assert not any(numbers)
        return
    (meld,) = melds
    run = meld.kind is br.MeldKind.RUN
    assert numbers[0:2] == [float(run), float(not run)]
    positions = sum(1 << (p + 1) for p in range(14) if numbers[6 + p])
    if run:
        assert numbers[2 + int(meld.suit)] == 1.0 and positions == meld.naturals
        held = positions | (1 << round(numbers[22] * 14) if numbers[22] else 0)
        low, high = (held & -held).bit_length() - 1, held.bit_length() - 1
        assert (round(numbers[20] * 14), round(numbers[21] * 14)) == (low, high)
        # Naturals and a wildcard in a gap fill the span: the run's cards, save a floating one.
        assert bin(held).count("1") == len(meld.cards) - (numbers[23] == 1.0)
    assert round(numbers[26] * 14) == min(14, len(meld.cards))
    assert numbers[27] == float(meld.is_canasta)
    assert numbers[28:31] == [
        float(meld.is_clean),
        float(not meld.is_clean and not meld.is_semi_clean),
        float(meld.is_semi_clean),
    ]
    assert numbers[24] + numbers[25] == float(not meld.is_clean)


def test_the_observation_tells_apart_what_the_seat_sees() -> None:
    state = br.new_game(variants.ITALIAN, 4, seed=2)
    before = encode(br.view(state, 0))
    after_draw = br.apply(state, br.DrawFromStock())
    seen = encode(br.view(after_draw, 0))
    assert not np.array_equal(before[LAYOUT["hand"].slice], seen[LAYOUT["hand"].slice])
    assert seen[LAYOUT["phase"].start + 1] == 1.0 and before[LAYOUT["phase"].start] == 1.0
    # Seat 1 sees its own hand and the same public part; seats are relative to the observer.
    other = encode(br.view(after_draw, 1))
    assert other[LAYOUT["to_act"].start + 3] == 1.0 and seen[LAYOUT["to_act"].start] == 1.0
    hand_sizes = seen[LAYOUT["hand_sizes"].slice] * 108
    assert [round(float(n)) for n in hand_sizes] == [12, 11, 11, 11]
    spelt = encode(br.view(after_draw, 0), (MELD,))
    assert spelt[LAYOUT["prefix"].start + MELD] == 1.0
    assert not np.array_equal(spelt, seen)


def test_a_bad_prefix_or_view_is_refused() -> None:
    state = br.new_game(variants.ITALIAN, 2, seed=2)
    with pytest.raises(TokenError):
        encode(br.view(state, 0), (500,))
    with pytest.raises(TypeError):
        encode(state)

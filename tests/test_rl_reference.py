"""The observation every adapter hands out is bit for bit a straightforward encoding of the seat's
view: :func:`reference_encode` below writes each number of :data:`LAYOUT` from the view alone,
field by field, with no cache, no shared block and nothing kept from an earlier state. The fast
paths (blocks kept by the identity of a hand or a team's melds, an observation kept while a seat
spells an action, the observer's tensor written in place) must change no float."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.cards import DECK, JOKER
from buraco_rules.melds.meld import POSITION_BITS
from buraco_rules.rl.encoding import FIRST_CARD, NUM_TOKENS, action_to_tokens

np = pytest.importorskip("numpy")
observation = pytest.importorskip("buraco_rules.rl.observation")
LAYOUT = observation.LAYOUT

COPIES = Counter(DECK)
PHASES = {br.Phase.DRAW: 0, br.Phase.PLAY: 1, br.Phase.OVER: 2}


def reference_encode(seen: br.PlayerView, prefix: tuple[int, ...] = ()) -> Any:
    """The observation of ``seen`` while ``prefix`` is spelt, as :data:`LAYOUT` documents it."""
    out = np.zeros(observation.OBSERVATION_SIZE, np.float32)

    def put(name: str, offset: int, value: float) -> None:
        field = LAYOUT[name]
        assert field.start + offset < field.stop
        out[field.start + offset] = value

    me, players = seat_and_players(seen)
    my_team = me % 2
    for name, cards in (("hand", seen.hand), ("discard_pile", seen.discard_pile)):
        for card, n in Counter(cards).items():
            put(name, int(card), n / COPIES[card])
    if seen.discard_pile:
        put("discard_top", int(seen.discard_pile[-1]), 1.0)
    on_table = Counter(c for team in seen.melds for meld in team for c in meld.cards)
    for card, n in on_table.items():
        put("table_cards", int(card), n / COPIES[card])
    for relative, name, slots in ((0, "own_melds", 16), (1, "other_melds", 10)):
        melds = seen.melds[my_team ^ relative]
        for slot, meld in enumerate(melds[:slots]):
            for i, value in enumerate(meld_numbers(meld)):
                put(name, slot * observation.MELD_FEATURES + i, value)
        put("more_melds", relative, max(0, len(melds) - slots) / 36)
        put("public_points", relative, points(seen.public_points[my_team ^ relative]))
        extra = seen.extra_pile_sizes[my_team ^ relative]
        put("extra_piles", 4 * relative, extra is not None)
        put("extra_piles", 4 * relative + 1, seen.extra_pile_taken[my_team ^ relative])
        put("extra_piles", 4 * relative + 2, seen.extra_pile_became_stock[my_team ^ relative])
        untouched = seen.untouched_extra_pile[my_team ^ relative]
        put("extra_piles", 4 * relative + 3, untouched is not None)
        if extra is not None:
            put("extra_pile_sizes", relative, extra / 108)
    for seat, size in enumerate(seen.hand_sizes):
        put("hand_sizes", (seat - me) % players, size / 108)
    put("stock_size", 0, seen.stock_size / 108)
    put("discard_pile_size", 0, seen.discard_pile_size / 108)
    put("phase", PHASES[seen.phase], 1.0)
    put("to_act", (seen.current_player - me) % players, 1.0)
    put("taken_single_card", 0, seen.taken_single_card is not None)
    if seen.went_out is not None:
        put("went_out", seen.went_out ^ my_team, 1.0)
    put("players", 0 if players == 2 else 1, 1.0)
    rules = seen.rules
    flags = [getattr(rules, name) for name in observation._FLAGS]
    for i, flag in enumerate([*flags, rules.max_natural_aces_in_run == 2]):
        put("rules", i, float(flag))
    spelt = Counter(prefix)
    for token, n in spelt.items():
        copies = COPIES[br.Card.from_id(token - FIRST_CARD)] if token >= FIRST_CARD else 1
        put("prefix", token, min(1.0, n / copies))
    return out


def seat_and_players(seen: br.PlayerView) -> tuple[int, int]:
    return seen.seat, seen.players


def points(p: int) -> float:
    return p / (p + 1000.0)


def meld_numbers(meld: br.Meld) -> list[float]:
    """The 31 numbers of a meld, as ``MELD_FEATURES`` documents them."""
    numbers = [0.0] * observation.MELD_FEATURES
    run = meld.kind is br.MeldKind.RUN
    wildcard = meld.wildcard
    if run:
        numbers[0] = 1.0
        if meld.suit is not None:
            numbers[2 + int(meld.suit)] = 1.0
        positions = meld.naturals
    else:
        numbers[1] = 1.0
        naturals = [c for c in meld.cards if c != wildcard]
        positions = POSITION_BITS[int(naturals[0])] if naturals else 0
    held = [p for p in range(1, 15) if positions >> p & 1]
    for p in held:
        numbers[5 + p] = 1.0
    if held:
        numbers[20], numbers[21] = held[0] / 14, held[-1] / 14
        gaps = [p for p in range(held[0], held[-1] + 1) if p not in held]
        if wildcard is not None:
            gap = gaps[0] if run and gaps else 0
            numbers[22] = gap / 14
            numbers[23] = float(run and not gap)
    if wildcard is not None:
        numbers[24] = float(wildcard == JOKER)
        numbers[25] = float(wildcard != JOKER)
    numbers[26] = min(len(meld.cards), 14) / 14
    numbers[27] = float(meld.is_canasta)
    numbers[28] = float(wildcard is None)
    numbers[29] = float(wildcard is not None and not meld.is_semi_clean)
    numbers[30] = float(meld.is_semi_clean)
    return numbers


def same(got: Any, want: Any) -> bool:
    """Equal bit for bit: the same float32 values (and no NaN anywhere to hide behind)."""
    return bool(got.dtype == want.dtype and got.tobytes() == want.tobytes())


CASES = [(variants.BURACO_FECHADO, 2), (variants.ITALIAN, 4), (variants.CANASTA_STBL, 2)]
cases = pytest.mark.parametrize(
    ("rules", "players"), CASES, ids=[f"{r.name}-{n}p" for r, n in CASES]
)


@cases
def test_encode_is_the_reference_encoding_bit_for_bit(rules: br.RuleSet, players: int) -> None:
    """Every seat at every state of a random hand, and every prefix of the action the seat to act
    then spells (the caches filled by one state serve the next, as in a loop)."""
    rng = random.Random(7)
    state = br.new_game(rules, players, seed=11)
    checked = 0
    while not state.is_over and checked < 400:
        action = rng.choice(br.legal_actions(state))
        tokens = action_to_tokens(action)
        for seat in range(players):
            seen = br.view(state, seat)
            assert same(observation.encode(seen), reference_encode(seen))
        seen = br.view(state, state.current_player)
        for k in range(1, len(tokens)):
            want = reference_encode(seen, tokens[:k])
            assert same(observation.encode(seen, tokens[:k]), want)
            assert same(observation.with_prefix(observation.encode(seen), tokens[:k]), want)
        state = br.apply(state, action)
        checked += 1
    assert checked > 50


def test_the_reference_reads_a_full_prefix_slice() -> None:
    # The reference's prefix: a kind or slot token 1 once present, a card by copies spelt.
    seen = br.view(br.new_game(variants.ITALIAN, 2, seed=1), 0)
    prefix = (4, FIRST_CARD + 52, FIRST_CARD + 52, FIRST_CARD + 52, FIRST_CARD)
    got = observation.encode(seen, prefix)[LAYOUT["prefix"].slice]
    assert same(got, reference_encode(seen, prefix)[LAYOUT["prefix"].slice])
    assert [float(got[t]) for t in (4, NUM_TOKENS - 1, FIRST_CARD)] == [1.0, 0.75, 0.5]


@cases
def test_the_adapters_observations_are_the_reference_encoding(
    rules: br.RuleSet, players: int
) -> None:
    """PettingZoo (``skip_forced`` on and off), Gymnasium and OpenSpiel's observer hand out
    ``reference_encode(view, prefix)`` at every step of a hand."""
    pettingzoo = pytest.importorskip("buraco_rules.rl.pettingzoo")
    for skip in (False, True):
        table = pettingzoo.BuracoAECEnv(rules.name, players, max_turns=60, skip_forced=skip)
        table.reset(seed=5)
        rng = random.Random(5)
        while table.agents:
            agent = table.agent_selection
            if table.terminations[agent] or table.truncations[agent]:
                table.step(None)
                continue
            position = table.position
            for other in table.agents:
                seat = table._seat[other]
                pending = position.pending if seat == position.engine.current_player else ()
                want = reference_encode(br.view(position.engine, seat), pending)
                assert same(table.observe(other)["observation"], want)
            table.step(rng.choice(position.legal()))
    gym = pytest.importorskip("buraco_rules.rl.gymnasium")
    env = gym.BuracoEnv(rules.name, players, max_turns=60, opponent="random")
    seen, _ = env.reset(seed=3)
    rng = random.Random(3)
    done = False
    while not done:
        position = env.position
        want = reference_encode(br.view(position.engine, env.seat), position.pending)
        assert same(seen, want)
        seen, _, terminated, truncated, _ = env.step(rng.choice(position.legal()))
        done = terminated or truncated
    pyspiel = pytest.importorskip("pyspiel")
    openspiel = pytest.importorskip("buraco_rules.rl.openspiel")
    game = pyspiel.load_game(
        openspiel.GAME_NAME, {"variant": rules.name, "players": players, "max_turns": 60}
    )
    observer = game.make_py_observer()
    state = openspiel.from_engine_state(game, br.new_game(rules, players, seed=9))
    rng = random.Random(9)
    while not state.is_terminal():
        for seat in range(players):
            position = state.position
            pending = position.pending if seat == position.engine.current_player else ()
            observer.set_from(state, seat)
            want = reference_encode(br.view(position.engine, seat), pending)
            assert same(observer.tensor[: observation.OBSERVATION_SIZE], want)
        state.apply_action(rng.choice(state.legal_actions()))

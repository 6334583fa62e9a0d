"""The token code of :mod:`buraco_rules.rl.encoding`: over random play in every variant and player
count it is one-to-one on the legal set, prefix-free, and the tree that ``legal_tokens`` walks
holds exactly the legal actions; on views it is what the state gives, and re-dealing the hidden
cards with ``determinize`` changes nothing a seat can be told."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.rl import encoding as enc
from buraco_rules.rl.encoding import (
    ADD,
    DRAW,
    END,
    FIRST_CARD,
    FIRST_SLOT,
    MELD,
    NUM_TOKENS,
    TAKE,
    TAKE_ADD,
    TAKE_MELD,
    TokenError,
    action_to_tokens,
    card_token,
    is_complete,
    legal_tokens,
    slot_token,
    token_to_string,
    tokens_to_action,
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
SETTINGS = settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def card(text: str) -> int:
    return FIRST_CARD + br.Card(text)


def played(rules: br.RuleSet, players: int, seed: int, steps: int) -> list[br.GameState]:
    """The states of a random hand (every one, the last included), at most ``steps`` actions."""
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


def walk(state: br.GameState | br.PlayerView) -> set[tuple[int, ...]]:
    """Every complete sequence reached from ``()`` by following ``legal_tokens``; fails if a
    branch dies before it completes or a complete sequence can be extended."""
    found: set[tuple[int, ...]] = set()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        nexts = legal_tokens(state, prefix)
        assert list(nexts) == sorted(set(nexts))
        if is_complete(prefix):
            assert nexts == (), prefix
            found.add(prefix)
            continue
        assert nexts, f"the branch {prefix} leads to no legal action"
        stack.extend(prefix + (t,) for t in nexts)
    return found


def check_code(state: br.GameState) -> None:
    actions = br.legal_actions(state)
    sequences = [action_to_tokens(a) for a in actions]
    assert len(set(sequences)) == len(actions)  # one-to-one on the legal set
    for action, tokens in zip(actions, sequences, strict=True):
        assert all(0 <= t < NUM_TOKENS for t in tokens)
        assert is_complete(tokens)
        assert not any(is_complete(tokens[:k]) for k in range(len(tokens)))
        assert tokens_to_action(tokens) == action
    every = set(sequences)
    for tokens in sequences:  # prefix-free: no legal sequence starts another
        assert not any(tokens[:k] in every for k in range(len(tokens)))
    if state.is_over:
        assert legal_tokens(state) == ()
    else:
        assert walk(state) == every


@configs
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_tokens_are_a_prefix_free_bijection_matching_the_legal_tokens_tree(
    rules: br.RuleSet, players: int, seed: int
) -> None:
    for state in played(rules, players, seed, steps=400):
        check_code(state)


@configs
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_tokens_of_a_view_are_the_states_and_survive_redeals(
    rules: br.RuleSet, players: int, seed: int
) -> None:
    rng = random.Random(seed)
    states = played(rules, players, seed, steps=300)
    for state in states[:: max(1, len(states) // 12)] + [states[-1]]:
        expected = walk(state) if not state.is_over else set()
        for seat in range(players):
            seen = br.view(state, seat)
            if seat == state.current_player and not state.is_over:
                assert walk(seen) == expected
            else:
                assert legal_tokens(seen) == ()
            redealt = br.determinize(seen, rng)
            again = br.view(redealt, seat)
            assert again == seen
            assert legal_tokens(again) == legal_tokens(seen)
            if seat == state.current_player and not state.is_over:
                assert walk(redealt) == expected
                assert walk(again) == expected


def test_each_kind_of_action_has_the_documented_sequence() -> None:
    assert action_to_tokens(br.DrawFromStock()) == (DRAW,)
    assert action_to_tokens(br.TakeDiscardPile()) == (TAKE,)
    assert action_to_tokens(br.Discard("AC")) == (FIRST_CARD,)
    assert action_to_tokens(br.Discard("JK")) == (NUM_TOKENS - 1,)
    meld = br.NewMeld("7S 5S 6S")
    assert action_to_tokens(meld) == (MELD, card("5S"), card("6S"), card("7S"), END)
    add = (ADD, FIRST_SLOT + 35, card("8S"), 95, END)
    assert action_to_tokens(br.AddToMeld(35, "JK 8S")) == add
    assert action_to_tokens(br.TakeDiscardPile(meld)) == (
        TAKE_MELD,
        card("5S"),
        card("6S"),
        card("7S"),
        END,
    )
    take_add = br.TakeDiscardPile(br.AddToMeld(0, "9H 9H"))
    assert action_to_tokens(take_add) == (TAKE_ADD, FIRST_SLOT, card("9H"), card("9H"), END)
    assert tokens_to_action([TAKE_ADD, FIRST_SLOT, card("9H"), card("9H"), END]) == take_add
    assert [token_to_string(t) for t in (DRAW, TAKE_ADD, FIRST_SLOT + 3, card("10H"), END)] == [
        "draw",
        "take-add",
        "#3",
        "10H",
        "end",
    ]
    assert slot_token(4) == FIRST_SLOT + 4 and card_token(br.JOKER) == 95
    # R32: END alone, which ends nothing, is the refusal of the first card drawn.
    assert action_to_tokens(br.RefuseFirstDraw()) == (END,)
    assert tokens_to_action([END]) == br.RefuseFirstDraw()


@pytest.mark.parametrize(
    "tokens",
    [
        (),
        (END, END),
        (MELD,),
        (DRAW, DRAW),
        (card("5S"), END),
        (MELD, END),
        (MELD, card("5S"), card("6S")),
        (MELD, card("6S"), card("5S"), card("7S"), END),
        (MELD, card("5S"), FIRST_SLOT, END),
        (MELD, card("5S"), DRAW, END),
        (ADD, card("5S"), END),
        (ADD, FIRST_SLOT),
        (TAKE_ADD, FIRST_SLOT, END),
        (MELD, card("5S"), card("5S"), card("5S"), END),
        (MELD, *[NUM_TOKENS - 1] * 5, END),
        (ADD, FIRST_SLOT, card("5S"), END, END),
        (FIRST_SLOT,),
        (NUM_TOKENS,),
        (-1,),
        (True,),
        (1.0,),
        ("draw",),
        "draw",
        None,
        5,
        (MELD, *[card("5S")] * 200, END),
    ],
    ids=repr,
)
def test_a_sequence_that_spells_no_action_is_a_token_error(tokens: object) -> None:
    with pytest.raises(TokenError):
        tokens_to_action(tokens)  # type: ignore[arg-type]
    assert issubclass(TokenError, ValueError)


def test_what_no_token_names_is_a_token_error() -> None:
    with pytest.raises(TokenError):
        action_to_tokens(br.AddToMeld(36, "5S"))
    with pytest.raises(TokenError):
        action_to_tokens("draw")  # type: ignore[arg-type]
    for bad in (36, -1, True):
        with pytest.raises(TokenError):
            slot_token(bad)
    for bad in (96, -1, False, "5S"):
        with pytest.raises(TokenError):
            token_to_string(bad)  # type: ignore[arg-type]
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    with pytest.raises(TokenError):
        legal_tokens(state, (400,))
    with pytest.raises(TokenError):
        legal_tokens(state, "draw")  # type: ignore[arg-type]
    with pytest.raises(TokenError):
        legal_tokens(state, (0.0,))  # type: ignore[arg-type]  # equal to DRAW, but no token
    with pytest.raises(TokenError):
        legal_tokens(br.view(state, 1), (400,))
    with pytest.raises(TypeError):
        legal_tokens("a state")  # type: ignore[arg-type]
    assert legal_tokens(state, (DRAW,)) == () and legal_tokens(state, (MELD,)) == ()


def test_numpy_style_integers_and_lists_are_read_as_tokens() -> None:
    class Index:
        def __init__(self, value: int) -> None:
            self.value = value

        def __index__(self) -> int:
            return self.value

    meld = br.NewMeld("5S 6S 7S")
    spelt = [Index(t) for t in action_to_tokens(meld)]
    assert tokens_to_action(spelt) == meld  # type: ignore[arg-type]
    state = br.new_game(variants.ITALIAN, 2, seed=1)
    assert legal_tokens(state, []) == legal_tokens(state, ())


def test_the_token_tree_cache_is_bounded_and_keyed_by_the_state_itself() -> None:
    states = played(variants.ITALIAN, 2, seed=5, steps=700)
    for state in states:
        legal_tokens(state)
    assert len(enc._trees) <= enc._TREE_CACHE_SIZE
    assert all(id(entry[0]) == key for key, entry in enc._trees.items())
    # A state equal to one cached but not the same object is answered the same way.
    first = states[0]
    copy = br.from_json(br.to_json(first))
    assert copy is not first and legal_tokens(copy) == legal_tokens(first)


def test_the_token_code_needs_nothing_beyond_the_engine() -> None:
    code = (
        "import sys, buraco_rules, buraco_rules.rl, buraco_rules.rl.encoding\n"
        "heavy = {'numpy', 'pyspiel', 'pettingzoo', 'gymnasium'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})


def test_R32_the_refusal_of_the_first_card_drawn_is_reachable_as_tokens() -> None:
    rules = variants.with_options("italian", first_draw_refusal=True)
    state = br.apply(br.new_game(rules, 2, seed=32), br.DrawFromStock())
    assert br.legal_actions(state)[0] == br.RefuseFirstDraw()
    check_code(state)
    assert END in legal_tokens(state) and legal_tokens(state, (END,)) == ()
    assert walk(br.view(state, 0)) == walk(state)
    assert legal_tokens(br.view(state, 1)) == ()  # another seat is offered nothing
    after = br.apply(state, tokens_to_action((END,)))
    assert END not in legal_tokens(after)
    check_code(after)

"""One predicate per constraint, in one module (``buraco_rules.engine.constraints``, and
``buraco_rules.engine.opening`` for the minimum opening across a turn): each returns a refusal, an
``(ErrorCode, message)`` pair, or None; the checker raises what they return and names no code of
its own; the generator asks the same predicates as a yes/no."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.errors import ErrorCode
from buraco_rules.engine import constraints
from buraco_rules.engine.checks import check
from buraco_rules.engine.opening import discard_refusal
from test_movegen import CONFIGS, sampled_states

SRC = Path(__file__).resolve().parent.parent / "src" / "buraco_rules"


def tree(module: str) -> ast.Module:
    return ast.parse((SRC / f"{module}.py").read_text(encoding="utf-8"))


def test_the_checker_names_no_code_and_raises_only_what_a_predicate_returns() -> None:
    checker = tree("engine/checks")
    codes = [
        n
        for n in ast.walk(checker)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        if n.value.id == "ErrorCode"
    ]
    assert codes == []
    raised = [
        n
        for n in ast.walk(checker)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "IllegalAction"
    ]
    assert raised and all(
        len(n.args) == 1 and isinstance(n.args[0], ast.Starred) for n in raised
    ), "IllegalAction is raised with a predicate's refusal (IllegalAction(*refusal))"


def test_every_code_has_its_predicate() -> None:
    """Each code is chosen in the constraint modules (or, for a meld's shape, by
    ``melds.meld_error``, which :func:`constraints.new_meld` and :func:`constraints.addition`
    ask)."""
    homes = {"engine/constraints", "engine/opening", "melds/meld"}
    named = {
        n.attr
        for module in homes
        for n in ast.walk(tree(module))
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        if n.value.id == "ErrorCode"
    }
    assert {code.name for code in ErrorCode} <= named


def test_the_generator_asks_the_constraints_not_the_bare_rules() -> None:
    """The yes/no that the constraints wrap (R11, R13, R14, the stock) are asked through them."""
    bare = {
        "may_leave",
        "may_discard",
        "may_discard_last",
        "may_keep_after_take",
        "stock_exhausted",
    }
    names = {
        alias.name
        for n in ast.walk(tree("engine/movegen"))
        if isinstance(n, ast.ImportFrom)
        for alias in n.names
    }
    assert names & bare == set()
    assert {"leaves", "leaves_after_take", "taken_card", "last_discard", "empty_stock"} <= names


def is_refusal(value: object) -> bool:
    return value is None or (
        type(value) is tuple
        and len(value) == 2
        and isinstance(value[0], ErrorCode)
        and type(value[1]) is str
        and bool(value[1])
    )


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_the_generator_lists_what_the_predicates_allow(name: str, players: int) -> None:
    """On sampled states: the draw is listed exactly when :func:`constraints.empty_stock` allows
    it; a one-card hand's discard exactly when :func:`constraints.last_discard` does; the taken
    card's discard exactly when :func:`constraints.taken_card` does; and the checker refuses each
    of them with the predicate's own refusal."""
    seen = 0
    for state in sampled_states(name, players, games=2, seed=7 + players):
        actions = br.legal_actions(state)
        seat = state.current_player
        team = seat % 2
        hand = state.hands[seat]
        if state.phase is br.Phase.DRAW:
            refusal = constraints.empty_stock(state)
            assert is_refusal(refusal)
            assert (br.DrawFromStock() in actions) == (refusal is None)
            continue
        assert constraints.empty_stock(state) is None or state.phase is br.Phase.PLAY
        banned = state.taken_single_card
        for card in dict.fromkeys(hand):
            refusals = [
                constraints.taken_card(hand, card, banned),
                constraints.last_discard(state, team, card, state.melds[team], banned)
                if len(hand) == 1
                else None,
                discard_refusal(state),
            ]
            assert all(map(is_refusal, refusals))
            first = next((r for r in refusals if r is not None), None)
            assert (br.Discard(card) in actions) == (first is None)
            if first is not None:
                with pytest.raises(br.IllegalAction) as error:
                    check(state, br.Discard(card))
                assert (error.value.code, str(error.value)) == first
            seen += 1
    assert seen > 0


def test_each_predicate_allows_or_refuses_with_a_code_and_a_sentence() -> None:
    rng = random.Random(3)
    rules = attrs.evolve(variants.ITALIAN, minimum_opening=50)
    for state in sampled_states("italian", 2, games=1, seed=3):
        state = attrs.evolve(state, rules=rules)
        team = state.current_player % 2
        hand = state.hands[state.current_player]
        card = rng.choice(hand)
        for value in (
            constraints.game_over(state),
            constraints.turn(state, rng.choice([None, 0, 1, "1", True])),
            constraints.draw_phase(state),
            constraints.play_phase(state),
            constraints.empty_stock(state),
            constraints.empty_pile(state),
            constraints.not_a_card(rng.choice([card, 5, "5S", None])),
            constraints.not_cards(rng.choice([(card,), (), [card], None])),
            constraints.in_hand(hand, (card, card, card)),
            constraints.meld_index(state, rng.choice([0, 1, 5, -1, "0"])),
            constraints.leaves(state, team, hand[: rng.randrange(3)], state.melds[team]),
            constraints.taken_card(hand, card, rng.choice([None, card])),
            constraints.last_discard(state, team, card, state.melds[team], None),
            constraints.open_take(state, rng.choice([None, br.NewMeld("3H 4H 5H")])),
            discard_refusal(state),
        ):
            assert is_refusal(value)
    assert constraints.not_an_action("draw")[0] is ErrorCode.MALFORMED_ACTION

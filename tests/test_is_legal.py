"""``is_legal`` checks one action (as python-chess does) where the legal actions are not listed
yet: on random states, for the listed actions and many perturbations of them (wrong cards, a
wrong meld index, forged objects), it answers as ``apply`` does and as membership in
``legal_actions`` does, and it lists nothing."""

from __future__ import annotations

import random
from collections.abc import Iterator

import attrs
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.core.cards import all_cards
from buraco_rules.engine.checks import well_formed
from test_movegen import CONFIGS, sampled_states

CARDS = all_cards()


def fresh(state: br.GameState) -> br.GameState:
    """An equal state whose legal actions were never listed."""
    copy = attrs.evolve(state)
    assert copy._legal is None
    return copy


def forced(action: object, name: str, value: object) -> object:
    """A copy of ``action`` with ``name`` forced to ``value`` (frozen objects can be)."""
    copy = attrs.evolve(action)  # type: ignore[misc]
    object.__setattr__(copy, name, value)
    return copy


class LookAlike(br.NewMeld):
    """A subclass: not an action of the engine's, whatever it holds."""


def perturbed(state: br.GameState, action: br.Action, rng: random.Random) -> Iterator[object]:
    """Actions near ``action``: other cards, another meld, forged fields."""
    hand = state.hands[state.current_player]
    other = rng.choice(CARDS)
    if isinstance(action, br.Discard):
        yield br.Discard(other)
        yield forced(action, "card", int(action.card))
        yield forced(action, "card", float(action.card))
    elif isinstance(action, br.NewMeld | br.AddToMeld):
        cards = list(action.cards)
        i = rng.randrange(len(cards))
        swapped = tuple(sorted([*cards[:i], other, *cards[i + 1 :]]))
        yield br.NewMeld(swapped)
        yield br.AddToMeld(0, swapped)
        yield br.NewMeld(tuple(sorted((*cards, rng.choice(hand)))))
        if len(cards) > 1:
            yield br.NewMeld(tuple(cards[1:]))
            yield forced(action, "cards", tuple(reversed(cards)))  # not in id order
        yield forced(action, "cards", list(cards))
        yield LookAlike(tuple(cards))
        if isinstance(action, br.AddToMeld):
            yield br.AddToMeld(action.meld + 1, action.cards)
            yield forced(action, "meld", True)
            yield forced(action, "meld", float(action.meld))
        else:
            yield br.AddToMeld(0, action.cards)
        yield br.TakeDiscardPile(br.NewMeld(action.cards))
    elif isinstance(action, br.TakeDiscardPile):
        inner = action.meld
        yield br.TakeDiscardPile()
        yield br.DrawFromStock()
        if inner is not None:
            yield inner
            yield br.TakeDiscardPile(br.NewMeld(inner.cards))
            yield br.TakeDiscardPile(br.AddToMeld(0, inner.cards))
            yield forced(action, "meld", LookAlike(inner.cards))
            cards = [c for c in inner.cards if c != state.discard_pile[-1]]
            if len(cards) >= 2:
                yield br.TakeDiscardPile(br.NewMeld(tuple(cards)))
    else:
        yield br.TakeDiscardPile()
        yield br.Discard(rng.choice(hand))
    yield "draw"
    yield None


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_is_legal_checks_one_action_as_apply_would(name: str, players: int) -> None:
    rng = random.Random(players * 31)
    compared = refused = 0
    rules = [variants.get(name), attrs.evolve(variants.get(name), minimum_opening=50)]
    for state in sampled_states(name, players, games=2, seed=40 + players):
        state = attrs.evolve(state, rules=rng.choice(rules))
        listed = br.legal_actions(state)
        tried: list[object] = list(rng.sample(listed, min(6, len(listed))))
        for action in list(tried):
            tried += perturbed(state, action, rng)  # type: ignore[arg-type]
        for action in tried:
            unlisted = fresh(state)
            answer = br.is_legal(unlisted, action)
            assert unlisted._legal is None, "is_legal listed the actions"
            applies = br.why_illegal(fresh(state), action) is None
            assert answer == applies == br.is_legal(state, action), action
            # Membership, for the actions made of real cards and meld indexes (a Discard holding
            # the int 6 compares equal to the Discard of card 6, and is no action).
            assert answer == (well_formed(action) and action in listed), action
            compared += 1
            refused += not answer
    assert compared > 0 and refused > 0


def test_is_legal_on_a_listed_state_refuses_a_listed_object_forced_to_change() -> None:
    """Where the actions are listed, is_legal makes apply's look-up: a listed object forced to
    hold another legal action is refused by both (what it holds now decides nothing)."""
    rules = variants.ITALIAN
    state = br.apply(br.new_game(rules, 2, seed=3), br.TakeDiscardPile())
    discards = [a for a in br.legal_actions(state) if isinstance(a, br.Discard)]
    first, second = discards[0], discards[1]
    original = first.card
    try:
        object.__setattr__(first, "card", second.card)
        assert not br.is_legal(state, first)
        assert br.why_illegal(state, first) is not None
        assert br.is_legal(fresh(state), first)  # unlisted: it is judged by what it holds
        assert br.why_illegal(fresh(state), first) is None
    finally:
        object.__setattr__(first, "card", original)

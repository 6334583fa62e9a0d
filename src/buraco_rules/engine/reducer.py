"""The reducer of hand states: ``new_game``, and ``legal_actions``, ``is_legal``, ``apply`` and
``why_illegal`` of a :class:`GameState`.

A state's legal actions are generated once (:mod:`buraco_rules.engine.movegen`; under the minimum
opening house rule, filtered by :func:`buraco_rules.engine.opening.restrict`) and kept with it;
``apply`` accepts exactly those and builds the next state (:mod:`buraco_rules.engine.transitions`)
without changing its input, and anything else is explained by the checker
(:mod:`buraco_rules.engine.checks`), which the tests hold the generator to.

It takes states only: :mod:`buraco_rules.play.face` is the face that also accepts a seat's
:class:`~buraco_rules.PlayerView` and a :class:`~buraco_rules.Match` (which builds on this module).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final, NoReturn

from ..core.actions import (
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from ..core.cards import DECK, Card, all_cards
from ..core.decks import check_deck
from ..core.errors import ErrorCode, IllegalAction
from ..core.quoting import describe, kind_of
from ..core.rules import RuleSet
from . import transitions
from .checks import check, well_formed
from .movegen import Generated, generate
from .opening import restrict
from .recipes import result_of
from .state import GameState, Listed, Phase

__all__ = ["apply", "is_legal", "legal_actions", "new_game", "why_illegal"]

_CARD_IDS: Final = len(all_cards())
_NO_MINIMUM: Final = (0, 0)


def new_game(
    rules: RuleSet,
    players: object = None,
    *,
    seed: object = None,
    deck: Iterable[Card | str] | None = None,
    first_player: object = 0,
) -> GameState:
    """Deal a new hand (R1-R3).

    Give either ``seed`` (the 108 cards are shuffled with ``random.Random(seed)``) or ``deck``, the
    full 108-card multiset in deal order: the hands of seats 0, 1, ... (11 cards each), the extra
    pile of team 0, then of team 1, then (when the rules turn one face up, R3) the first discard,
    then the stock, first card drawn first. A wrong player count, deck or seat is a ``ValueError``.

    A seed replays the deal, so it is as secret as the hands: a seat that sees its own hand can
    recover a small seed by trying them all. Deal real games from an unguessable one, kept on the
    server, such as ``seed=secrets.randbits(128)``.
    """
    if not isinstance(rules, RuleSet):
        raise ValueError(f"rules must be a RuleSet, not {kind_of(rules)}")
    if players is None:
        players = rules.default_players
    if type(players) is not int or players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        raise ValueError(
            f"{rules.title} is played by {counts} players, not {describe(players)} (R1)"
        )
    if type(first_player) is not int or not 0 <= first_player < players:
        raise ValueError(
            f"first_player must be a seat from 0 to {players - 1}, not {describe(first_player)}"
        )
    if (seed is None) == (deck is None):
        raise ValueError("give exactly one of seed= (a shuffled deck) or deck= (an explicit order)")
    if deck is None:
        if not issubclass(type(seed), int | float | str | bytes | bytearray):
            raise ValueError(f"seed must be an int, float, str or bytes, not {describe(seed)}")
        if type(seed) is not str and issubclass(type(seed), str):
            seed = str.__str__(seed)  # its own hash could raise or lie
        cards = list(DECK)
        random.Random(seed).shuffle(cards)  # type: ignore[arg-type]  # checked above
    else:
        cards = check_deck(deck)
    n = rules.hand_size
    hands = tuple(tuple(sorted(cards[i * n : (i + 1) * n])) for i in range(players))
    at = players * n
    e = rules.extra_pile_size
    extra = (tuple(cards[at : at + e]), tuple(cards[at + e : at + 2 * e]))
    at += 2 * e
    discard: tuple[Card, ...] = ()
    if rules.discard_pile_starts_face_up:  # R3
        discard = (cards[at],)
        at += 1
    return GameState(
        rules=rules,
        players=players,
        current_player=first_player,
        phase=Phase.DRAW,
        hands=hands,
        stock=tuple(cards[at:]),
        discard_pile=discard,
        melds=((), ()),
        extra_piles=extra,
        extra_pile_taken=(False, False),
        untouched_extra_pile=(None, None),
        taken_single_card=None,
        went_out=None,
        idle_turns=0,
        extra_pile_lost=None,
        first_turn=rules.first_draw_refusal,  # R32
        first_draw=None,
    )


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action in ``state``, in the deterministic order
    :mod:`buraco_rules.engine.movegen` documents; computed once per state and kept with it."""
    return _generated(state)[0]


def _generated(state: GameState) -> Generated:
    cached = state._legal
    if cached is None:
        cached = generate(state)
        if state.rules.opening_minimums != _NO_MINIMUM:  # a house rule across the turn (R25)
            cached = restrict(state, cached)
        object.__setattr__(state, "_legal", cached)  # a cache: not part of the state's value
    return cached


def is_legal(state: GameState, action: object) -> bool:
    """Whether ``apply(state, action)`` would succeed.

    Once the legal actions of ``state`` are listed, a look-up in the list (the one ``apply``
    makes). Before, the checker decides this one action without listing the others, as
    python-chess does: it accepts exactly what the generator lists (the brute-force tests hold
    them to it, listed actions and perturbed ones alike), and ``apply`` on such a state goes by
    what the action holds, as the checker does."""
    try:
        listing = state._legal
        if listing is None:
            if not _formed(action):  # decided before any cache, as apply
                return False
            check(state, action)
            return True
        return _listed_index(listing[0], listing[1], action) >= 0
    except Exception:  # an IllegalAction, or an object whose comparison fails: no legal action
        return False


def why_illegal(state: GameState, action: object, player: object = None) -> IllegalAction | None:
    """The :class:`IllegalAction` that ``apply(state, action, player)`` would raise, or None."""
    try:
        apply_state(state, action, player)
    except IllegalAction as error:
        # A fresh copy: the caught one's traceback holds the frames of the check, and they
        # hold the whole state (every hand), which an error tracker would ship.
        return IllegalAction(error.code, str(error))
    return None


def apply(state: GameState, action: object, player: object = None) -> GameState:
    """The state after ``action``; ``state`` itself never changes.

    With ``player``, the action is also refused unless that seat is the one to act. Raises
    :class:`IllegalAction` (and nothing else) for any action the rules do not allow, and a
    ``TypeError`` for anything but a :class:`GameState`.
    """
    try:
        return apply_state(state, action, player)
    except IllegalAction as error:
        refusal = IllegalAction(error.code, str(error))  # without the inner frames
    # The refusal's traceback starts in this frame as it leaves the library: it must not hold the
    # state (nor the caught exception, whose frames hold it; Python deletes that name above).
    del state
    raise refusal


def apply_state(state: GameState, action: object, player: object) -> GameState:
    """:func:`apply` without the copy of a refusal (the caller makes it, as its frames leave the
    library)."""
    if type(state) is not GameState and not isinstance(state, GameState):
        raise TypeError(f"apply needs a GameState or a Match, not {kind_of(state)}")
    if player is not None and (type(player) is not int or player != state.current_player):
        # Refused before the legal actions are generated: a move out of turn then costs the
        # same whatever the hand of the seat to act holds (no timing tells it apart).
        _refuse(state, action, player)
    listing = state._legal
    if listing is None:
        if not _formed(action):
            # So is an object that is no action of real cards: its refusal consults no cache
            # that another seat's hand has filled.
            _refuse(state, action, player)
        quick = _apply_unlisted(state, action, player)
        if quick is not None:
            return quick
        listing = _generated(state)
    actions, recipes = listing
    index = _listed_index(actions, recipes, action)  # the one lookup is_legal makes too
    if index < 0:  # not listed, or a listed object forced to change since it was listed
        _refuse(state, action, player, listed=index == _CHANGED)
    after = _build(state, action, recipes[index])  # type: ignore[arg-type]
    if after is None:
        _refuse(state, action, player, listed=True)
    return after


def _apply_unlisted(state: GameState, action: object, player: object) -> GameState | None:
    """The next state of a draw, a discard or an open take in a state whose legal actions were
    never listed, checked by the checker alone; None for any other action (the generator decides).

    Why: a replay (or a server that applies moves without listing them) would otherwise list
    every legal action of every state, and a hand of 70 cards lists thousands of melds, so that a
    record of take-one/discard-one turns cost milliseconds per action. These three kinds are
    cheap to check, and the checker accepts exactly what the generator lists (the tests hold
    them to it); melds, whose number in a hand is bounded by its cards, keep the generator."""
    if type(action) is Discard:
        card = action.card
        if type(card) is not Card or not 0 <= card < _CARD_IDS:  # is_card, inline
            return None
        check(state, action, player)  # raises the IllegalAction that _refuse would raise
        return transitions.discard(state, card)
    if type(action) is DrawFromStock:
        check(state, action, player)
        return transitions.draw(state)
    if type(action) is TakeDiscardPile and action.meld is None:
        check(state, action, player)
        return transitions.open_take(state)
    return None


def _formed(action: object) -> bool:
    """:func:`~buraco_rules.engine.checks.well_formed`, with the most frequent actions inline."""
    kind = type(action)
    if kind is Discard:
        card = action.card  # type: ignore[attr-defined]
        return type(card) is Card and 0 <= card < _CARD_IDS  # is_card, inline: the commonest
    return kind is DrawFromStock or well_formed(action)


def _still_listed(action: object, recipe: Listed) -> bool:
    """The listed ``action`` still holds what it was listed with (``recipe``). Only identities,
    exact types and exact ints are compared: whatever was forced into it, nothing of it runs.
    (The generator lists a meld's action with the very tuple of cards it holds.)"""
    kind = type(action)
    if kind is Discard:
        card = action.card  # type: ignore[attr-defined]
        return type(card) is Card and type(recipe) is Card and card == recipe
    if kind is DrawFromStock or kind is RefuseFirstDraw:
        return recipe is None
    if kind is TakeDiscardPile:
        inner = action.meld  # type: ignore[attr-defined]
        if recipe is None:
            return inner is None
        return (type(inner) is NewMeld or type(inner) is AddToMeld) and _still_listed(inner, recipe)
    if type(recipe) is not tuple:
        return False
    index, cards = recipe
    if action.cards is not cards:  # type: ignore[attr-defined]
        return False
    if kind is NewMeld:
        return index < 0
    meld = action.meld  # type: ignore[attr-defined]
    return kind is AddToMeld and index >= 0 and type(meld) is int and meld == index


_CHANGED: Final = -2
"""What :func:`_listed_index` says of a listed object forced to change since it was listed."""


def _listed_index(actions: tuple[Action, ...], recipes: tuple[Listed, ...], action: object) -> int:
    """The index of ``action`` among the legal ``actions``, by what each was listed as
    (``recipes``: values no one can change), or -1; :data:`_CHANGED` for a listed object that
    no longer holds what it was listed with. A listed object may be shared with other tables'
    listings, so what it holds now decides nothing."""
    for i, candidate in enumerate(actions):  # usually the very object legal_actions gave
        if candidate is action:
            return i if _still_listed(action, recipes[i]) else _CHANGED
    return _equal_index(actions, recipes, action) if _formed(action) else -1


def _equal_index(actions: tuple[Action, ...], recipes: tuple[Listed, ...], action: object) -> int:
    """The index of the legal action equal to the well-formed ``action``, by ``recipes``; or -1."""
    kind = type(action)
    for i, candidate in enumerate(actions):
        if type(candidate) is kind and _fits(action, recipes[i]):
            return i
    return -1


def _fits(action: object, recipe: Listed) -> bool:
    """The well-formed ``action`` holds what ``recipe`` lists (comparing only exact cards, ints and
    tuples of them: nothing of a caller's runs)."""
    kind = type(action)
    if kind is Discard:
        return type(recipe) is Card and action.card == recipe  # type: ignore[attr-defined]
    if kind is DrawFromStock or kind is RefuseFirstDraw:
        return recipe is None
    if kind is TakeDiscardPile:
        inner = action.meld  # type: ignore[attr-defined]
        return recipe is None if inner is None else recipe is not None and _fits(inner, recipe)
    if type(recipe) is not tuple:
        return False
    index, cards = recipe
    if kind is NewMeld:
        return index < 0 and action.cards == cards  # type: ignore[attr-defined]
    return (
        kind is AddToMeld
        and index >= 0
        and action.meld == index  # type: ignore[attr-defined]
        and action.cards == cards  # type: ignore[attr-defined]
    )


def _build(state: GameState, action: Action, recipe: Listed) -> GameState | None:
    """The next state for the legal ``action``, which holds what ``recipe`` lists; None if the
    meld no longer forms (a state must never be corrupted)."""
    if type(action) is Discard:
        return transitions.discard(state, action.card)
    if type(action) is DrawFromStock:
        return transitions.draw(state) if state.stock else None
    if type(action) is RefuseFirstDraw:
        return transitions.refuse_first_draw(state) if state.stock else None
    if type(recipe) is not tuple:
        return transitions.open_take(state)
    result = result_of(state, recipe, private=False)
    if result is None:
        return None
    if type(action) is TakeDiscardPile:
        return transitions.take_with_meld(state, action.meld, result)  # type: ignore[arg-type]
    return transitions.meld(state, action, result)  # type: ignore[arg-type]


def _refuse(state: GameState, action: object, player: object, *, listed: bool = False) -> NoReturn:
    """Raise the IllegalAction that says why ``action`` is not among the legal actions (or,
    ``listed``, why the listed object no longer matches what it was listed as)."""
    try:
        check(state, action, player)
    except IllegalAction:
        raise
    except Exception:
        pass  # a malformed object that upset the checker itself
    else:
        if not listed and well_formed(action):
            # The generator is the one source of legality and the checker its explainer: a move
            # that one accepts and the other did not list is a bug, never a malformed action.
            raise RuntimeError(
                f"engine bug: the checker accepts {describe(action)}, which legal_actions does "
                "not list"
            )
    raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{describe(action)} is not a legal action")

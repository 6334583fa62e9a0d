"""From a seat's view back to full states: the cards it cannot see, dealt into their places.

:func:`determinize` deals them at random (what an information-set search or a "what if" analysis
needs); :func:`canonical_state` deals them in a fixed order, and is how ``legal_actions``,
``is_legal`` and ``why_illegal`` answer for a view. That is sound because legality and refusals
depend on the view alone (the hidden-information guarantee, tested by re-dealing the hidden cards
of reachable states and comparing).

>>> import random
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.BURACO_FECHADO, 4, seed=1)
>>> guess = br.determinize(br.view(state, 2), random.Random(0))
>>> br.view(guess, 2) == br.view(state, 2)
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Final

from .cards import DECK, Card
from .state import GameState
from .views import PlayerView

__all__ = ["canonical_state", "determinize", "unseen_cards"]

_DECK_COUNTS: Final = Counter(DECK)


def unseen_cards(seen: PlayerView) -> tuple[Card, ...]:
    """The multiset of cards ``seen``'s seat cannot see (other hands, the stock, untaken extra
    piles, a closed pile below its top), sorted: the 108 cards (R2) less its own hand, the
    visible discards and the melds."""
    if not isinstance(seen, PlayerView):
        raise TypeError(f"expected a PlayerView, not {type(seen).__name__}")
    counts = _DECK_COUNTS.copy()
    counts.subtract(seen.hand)
    counts.subtract(seen.discard_pile)
    for team in seen.melds:
        for meld in team:
            counts.subtract(meld.cards)
    if any(n < 0 for n in counts.values()):
        raise ValueError("the view shows more copies of a card than the deck holds (R2)")
    return tuple(sorted(counts.elements()))


def _places(seen: PlayerView) -> int:
    """How many cards the hidden places hold, by the view's sizes."""
    others = sum(n for s, n in enumerate(seen.hand_sizes) if s != seen.seat)
    below = seen.discard_pile_size - len(seen.discard_pile)
    extras = sum(n for n in seen.extra_pile_sizes if n is not None)
    return others + seen.stock_size + below + extras


def _needs_taken_card(seen: PlayerView) -> bool:
    # The card just taken from an open pile is in the hand of the seat to act (R11).
    return seen.taken_single_card is not None and seen.current_player != seen.seat


def _deal(seen: PlayerView, cards: Sequence[Card]) -> GameState:
    """The state whose hidden places hold ``cards`` in this order: the other seats' hands by
    seat, the stock (first card drawn first), the pile below its top, the extra piles by team."""
    at = 0

    def take(n: int) -> tuple[Card, ...]:
        nonlocal at
        part = tuple(cards[at : at + n])
        at += n
        return part

    hands = tuple(
        seen.hand if s == seen.seat else tuple(sorted(take(n)))
        for s, n in enumerate(seen.hand_sizes)
    )
    stock = take(seen.stock_size)
    pile = take(seen.discard_pile_size - len(seen.discard_pile)) + seen.discard_pile
    size0, size1 = seen.extra_pile_sizes
    extra = (None if size0 is None else take(size0), None if size1 is None else take(size1))
    return GameState(
        rules=seen.rules,
        players=seen.players,
        current_player=seen.current_player,
        phase=seen.phase,
        hands=hands,
        stock=stock,
        discard_pile=pile,
        melds=seen.melds,
        extra_piles=extra,
        extra_pile_taken=seen.extra_pile_taken,
        untouched_extra_pile=seen.untouched_extra_pile,
        taken_single_card=seen.taken_single_card,
        went_out=seen.went_out,
    )


def _hand_before(seen: PlayerView) -> int:
    """Where the hand of the seat to act starts among the hidden places (see :func:`_deal`)."""
    return sum(n for s, n in enumerate(seen.hand_sizes[: seen.current_player]) if s != seen.seat)


def _unseen_checked(seen: PlayerView) -> list[Card]:
    cards = list(unseen_cards(seen))
    if len(cards) != _places(seen):
        raise ValueError(
            f"the view hides {_places(seen)} cards but {len(cards)} of the 108 are unseen"
        )
    if _needs_taken_card(seen) and seen.taken_single_card not in cards:
        raise ValueError("the card taken from the pile is neither seen nor unseen")
    return cards


def canonical_state(seen: PlayerView) -> GameState:
    """One fixed state consistent with ``seen``: the unseen cards in id order (a copy of a card
    just taken from an open pile first in the hand of the seat to act). Kept with the view."""
    cached = seen._state
    if cached is not None:
        return cached
    cards = _unseen_checked(seen)
    if _needs_taken_card(seen):
        card = seen.taken_single_card
        cards.remove(card)  # type: ignore[arg-type]
        cards.insert(_hand_before(seen), card)  # type: ignore[arg-type]
    state = _deal(seen, cards)
    object.__setattr__(seen, "_state", state)  # a cache: not part of the view's value
    return state


def determinize(seen: PlayerView, rng: random.Random) -> GameState:
    """A full state consistent with ``seen``, its unseen cards dealt at random into their places.

    Every arrangement of the unseen cards (:func:`unseen_cards`) over the other hands, the stock,
    the pile below a closed pile's top and the untaken extra piles is equally likely (copies of a
    card told apart), among those consistent with the view: ``view(result, seen.seat) == seen``.
    ``rng`` is a :class:`random.Random`, so that the result is reproducible. Only the view is
    conditioned on, not the history (cards seen going into a hand earlier, for instance).
    """
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, not {type(rng).__name__}")
    cards = _unseen_checked(seen)
    if not _needs_taken_card(seen):
        rng.shuffle(cards)
        return _deal(seen, cards)
    start = _hand_before(seen)
    stop = start + seen.hand_sizes[seen.current_player]
    while True:  # uniform among the deals that leave the taken card in its taker's hand (R11)
        rng.shuffle(cards)
        if seen.taken_single_card in cards[start:stop]:
            return _deal(seen, cards)

"""Decks: the 108 cards' multiset (R2), checking a deck given in deal order (``new_game(deck=...)``,
``new_match(decks=...)``), and arranging one from the cards that matter to a scenario."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from .cards import DECK, Card, is_card, parse_cards
from .quoting import describe
from .rules import RuleSet

__all__ = ["DECK_COUNTS", "arrange_deck", "check_deck"]

DECK_COUNTS: Final[Mapping[Card, int]] = MappingProxyType(Counter(DECK))
"""How many copies of each card the two decks hold (R2), read-only: the one multiset that every
check of a whole deck or state compares with (``Counter(cards) != DECK_COUNTS``); copy it with
``Counter(DECK_COUNTS)`` to count down from it."""

CardsLike = str | Iterable[Card | str]


def _cards(value: CardsLike) -> list[Card]:
    if isinstance(value, str):
        return list(parse_cards(value))
    return [Card.parse(c) if isinstance(c, str) else c for c in value]


def check_deck(deck: Iterable[Card | str]) -> list[Card]:
    """The cards of ``deck`` (cards or their notation), in order, if they are exactly the 108 of two
    decks (R2); otherwise a ``ValueError`` naming the first few counts that are wrong.

    >>> from buraco_rules.core.cards import DECK
    >>> len(check_deck(DECK))
    108
    >>> check_deck(DECK[1:])
    Traceback (most recent call last):
    ...
    ValueError: deck must be the 108 cards of two decks (R2); it has 107 cards: 1 × ... (expected 2)
    """
    items: Iterable[Any] = deck
    try:
        cards: list[Card] = [Card.parse(c) if issubclass(type(c), str) else c for c in items]
    except ValueError:
        raise
    except Exception:  # not iterable, or an iterator that raises its own error
        raise ValueError("deck must be an iterable of cards") from None
    for c in cards:
        if not is_card(c):
            raise ValueError(f"deck holds {describe(c)}, which is not a card")
    counts = Counter(cards)
    if counts != DECK_COUNTS:
        problems = []
        for card in sorted(set(counts) | set(DECK_COUNTS)):
            have, want = counts.get(card, 0), DECK_COUNTS.get(card, 0)
            if have != want:
                problems.append(f"{have} × {card.pretty} (expected {want})")
        raise ValueError(
            f"deck must be the 108 cards of two decks (R2); it has {len(cards)} cards: "
            + ", ".join(problems[:6])
            + (" …" if len(problems) > 6 else "")
        )
    return cards


def arrange_deck(
    rules: RuleSet,
    players: int | None = None,
    *,
    hands: Sequence[CardsLike] = (),
    extra_piles: Sequence[CardsLike] = (),
    face_up: Card | str | None = None,
    stock: CardsLike = (),
) -> tuple[Card, ...]:
    """The 108 cards in deal order for ``new_game(rules, players, deck=...)``, with the given cards
    in place.

    ``hands`` lists seat 0's cards, seat 1's, ...; ``extra_piles`` team 0's then team 1's (in deal
    order); ``face_up`` is the first discard (only where the rules turn one up, R3); ``stock`` its
    first cards, drawn first. Every place left open (a shorter or missing list) is filled with the
    cards not named, in id order. Naming more copies of a card than the deck holds, or more cards
    than a place takes, is a ``ValueError``.

    >>> from buraco_rules import variants, new_game
    >>> deck = arrange_deck(variants.CANASTA_STBL, hands=["5S 6S 7S"], stock="8S")
    >>> state = new_game(variants.CANASTA_STBL, deck=deck)
    >>> state.stock[0], state.hands[0][-3:]
    (Card('8S'), (Card('5S'), Card('6S'), Card('7S')))
    """
    players = rules.default_players if players is None else players
    if players not in rules.player_counts:
        raise ValueError(f"{rules.title} is played by {rules.player_counts} players, not {players}")
    if face_up is not None and not rules.discard_pile_starts_face_up:
        raise ValueError(f"{rules.title} starts with an empty discard pile (R3): no face_up card")
    hand_lists = [_cards(h) for h in hands]
    extra_lists = [_cards(p) for p in extra_piles]
    if len(hand_lists) > players or len(extra_lists) > 2:
        raise ValueError(f"{players} hands and 2 extra piles at most")
    hand_lists += [[] for _ in range(players - len(hand_lists))]
    extra_lists += [[] for _ in range(2 - len(extra_lists))]
    for what, size, lists in (
        ("hand", rules.hand_size, hand_lists),
        ("extra pile", rules.extra_pile_size, extra_lists),
    ):
        for i, cards in enumerate(lists):
            if len(cards) > size:
                raise ValueError(f"{what} {i} has {len(cards)} cards; it takes {size}")
    up = [] if face_up is None else _cards([face_up])
    top = _cards(stock)
    left = Counter(DECK_COUNTS)
    for card in [c for group in (*hand_lists, *extra_lists, up, top) for c in group]:
        if type(card) is not Card or left[card] == 0:
            raise ValueError(f"{card!r} is named more often than the deck holds it")
        left[card] -= 1
    spare = iter(sorted(left.elements()))
    deal: list[Card] = []
    for cards, size in [(h, rules.hand_size) for h in hand_lists] + [
        (e, rules.extra_pile_size) for e in extra_lists
    ]:
        deal += cards + [next(spare) for _ in range(size - len(cards))]
    if rules.discard_pile_starts_face_up:
        deal += up or [next(spare)]
    deal += top + list(spare)
    return tuple(deal)

"""Reading a hand for the run search: what it offers a run of each suit (:class:`SuitHand`), as
bitmasks of positions and counts, and its wild kinds. One job: the hand's side of
:mod:`buraco_rules.meldsearch`, which searches the runs those offers allow.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Final

from .cards import Card, all_cards
from .melds import IS_WILD, POSITION_BITS
from .memo import memoised
from .positions import ACE_BITS, TWO_BIT

__all__ = ["SuitHand", "suit_hand", "suit_hands", "wild_kinds"]

_CARDS: Final = all_cards()
_J: Final = 52
_TWOS: Final = tuple(_CARDS[13 * s + 1] for s in range(4))
_ACES: Final = tuple(_CARDS[13 * s] for s in range(4))
_BIT: Final = POSITION_BITS
_MIDDLE_BIT: Final = tuple(0 if IS_WILD[c] or c % 13 == 0 else POSITION_BITS[c] for c in range(53))
"""By card id: the position bit of a natural card 3-K, else 0."""


class SuitHand:
    """What a hand offers a run of one suit: the positions of its natural cards 3-K (``mask``,
    bits 3-13), its copies of the suit's ace and 2, one of each other wild card it holds (a joker,
    other suits' 2s) in id order; and, for the quick tests, every position it can fill (``held``)
    and whether it holds a wild card at all.

    The generator's offers are shared (see :func:`suit_hands`) and never written to after they are
    built, but for ``new_runs``: the hand's new runs of the suit, kept with the offer once searched
    (by the rules' ace limits), so that a suit no step has changed is not searched again."""

    __slots__ = ("aces", "held", "mask", "new_runs", "others", "twos", "wild")

    def __init__(self, mask: int, aces: int, twos: int, others: tuple[Card, ...]) -> None:
        self.mask = mask
        self.aces = aces
        self.twos = twos
        self.others = others
        self.held = mask | (ACE_BITS if aces else 0) | (TWO_BIT if twos else 0)
        self.wild = bool(others or twos)
        self.new_runs: tuple[int, bool, tuple[tuple[Card, ...], ...]] | None = None


def wild_kinds(hand: tuple[Card, ...]) -> tuple[Card, ...]:
    """One of each wild card in the sorted ``hand``: its 2s by suit, then a joker."""
    kinds = tuple(two for two in _TWOS if two in hand)
    return (*kinds, _CARDS[_J]) if hand and hand[-1] == _J else kinds


def suit_hand(hand: tuple[Card, ...], suit: int, wilds: tuple[Card, ...]) -> SuitHand:
    """What the sorted ``hand`` (with its :func:`wild_kinds` ``wilds``) offers a run of ``suit``."""
    base = 13 * suit
    mask = 0
    for c in hand[bisect_left(hand, base + 2) : bisect_left(hand, base + 13)]:
        mask |= _BIT[c]
    own_two = _CARDS[base + 1]
    twos = hand.count(own_two) if own_two in wilds else 0
    return SuitHand(mask, hand.count(_CARDS[base]), twos, _others_by_suit(wilds)[suit])


def suit_hands(hand: tuple[Card, ...]) -> list[SuitHand]:
    """The four :class:`SuitHand` of a sorted hand (each equal to :func:`suit_hand`'s).

    Fast path: a step changes one suit of one hand, so the hand is cut at the suits' bounds (the
    hand is sorted by id, id = suit x 13 + rank) and each suit's cards, with the other wild kinds
    held, are looked up in a memo of offers: the suits a step left alone find the very offer the
    previous state of that seat built, with its searched new runs (``SuitHand.new_runs``). A test
    holds it to :func:`suit_hand` on random hands."""
    c1 = bisect_left(hand, 13)
    c2 = bisect_left(hand, 26, c1)
    c3 = bisect_left(hand, 39, c2)
    c4 = bisect_left(hand, 52, c3)
    parts = (hand[:c1], hand[c1:c2], hand[c2:c3], hand[c3:c4])
    wilds = tuple([_TWOS[s] for s in range(4) if _TWOS[s] in parts[s]])
    if c4 < len(hand):
        wilds += (_CARDS[_J],)
    others = _others_by_suit(wilds)
    return [_offer(s, parts[s], others[s]) for s in range(4)]


@memoised(maxsize=1 << 14)  # one per suit's cards and other wild kinds: a few small ints
def _offer(suit: int, cards: tuple[Card, ...], others: tuple[Card, ...]) -> SuitHand:
    """The :class:`SuitHand` of the cards ``cards`` of ``suit`` (sorted) with the other wild kinds
    ``others``."""
    mask = 0
    for c in cards:
        mask |= _MIDDLE_BIT[c]
    return SuitHand(mask, cards.count(_ACES[suit]), cards.count(_TWOS[suit]), others)


@memoised(maxsize=1 << 5)  # one per set of wild kinds: 2s of four suits, a joker
def _others_by_suit(wilds: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    """By suit: the wild kinds ``wilds`` less that suit's own 2, which is no other wild card to a
    run of its suit."""
    return tuple(tuple(w for w in wilds if w != _TWOS[s]) for s in range(4))

"""Reading a hand for the run search: what it offers a run of each suit (:class:`SuitHand`), as
bitmasks of positions and counts, and its wild kinds. One job: the hand's side of
:mod:`buraco_rules.melds.search`, which searches the runs those offers allow.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Final

from ..core.cards import Card, all_cards
from ..core.memo import memoised
from .geometry import ACE_BITS, TWO_BIT
from .meld import IS_WILD, POSITION_BITS

__all__ = ["SuitHand", "suit_hand", "suit_hands", "wild_kinds"]

_CARDS: Final = all_cards()
_J: Final = 52
_TWOS: Final = tuple(_CARDS[13 * s + 1] for s in range(4))
_ACES: Final = tuple(_CARDS[13 * s] for s in range(4))
_BIT: Final = POSITION_BITS
_SUIT: Final = tuple(c // 13 for c in range(53))
_MIDDLE_BIT: Final = tuple(0 if IS_WILD[c] or c % 13 == 0 else POSITION_BITS[c] for c in range(53))
"""By card id: the position bit of a natural card 3-K, else 0."""


class SuitHand:
    """What a hand offers a run of one suit: the positions of its natural cards 3-K (``mask``,
    bits 3-13), its copies of the suit's ace and 2, one of each other wild card it holds (a joker,
    other suits' 2s) in id order; and, for the quick tests, every position it can fill (``held``)
    and whether it holds a wild card at all."""

    __slots__ = ("aces", "held", "mask", "others", "twos", "wild")

    def __init__(self, mask: int, aces: int, twos: int, others: tuple[Card, ...]) -> None:
        self.mask = mask
        self.aces = aces
        self.twos = twos
        self.others = others
        self.held = mask | (ACE_BITS if aces else 0) | (TWO_BIT if twos else 0)
        self.wild = bool(others or twos)


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
    """The four :class:`SuitHand` of a sorted hand (each equal to :func:`suit_hand`'s)."""
    masks = [0, 0, 0, 0, 0]
    for c in hand:
        masks[_SUIT[c]] |= _MIDDLE_BIT[c]
    twos = [hand.count(two) for two in _TWOS]
    wilds = tuple(two for two, n in zip(_TWOS, twos, strict=True) if n)
    if hand and hand[-1] == _J:
        wilds += (_CARDS[_J],)
    others = _others_by_suit(wilds)
    return [SuitHand(masks[s], hand.count(_ACES[s]), twos[s], others[s]) for s in range(4)]


@memoised(maxsize=1 << 5)  # one per set of wild kinds: 2s of four suits, a joker
def _others_by_suit(wilds: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    """By suit: the wild kinds ``wilds`` less that suit's own 2, which is no other wild card to a
    run of its suit."""
    return tuple(tuple(w for w in wilds if w != _TWOS[s]) for s in range(4))

"""Meld search: every new meld, and every addition to a meld, that some cards allow.

A run is searched by arithmetic on bitmasks of positions (1-14, see :mod:`buraco_rules.melds`):
the natural cards of a valid run cover an interval of positions with at most one hole, which
its one wildcard fills (R7, R8). A hand is read once into what it offers each suit
(:class:`SuitHand`); quick tests on those masks rule out most suits and melds at once; the search
proper (:func:`run_shapes`) walks the intervals of positions, sees only small integers, and is
memoised on them, so that all suits, hands and melds with the same shape share one entry.
Sets (Italian Buraco) are searched per rank.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import product
from typing import Final

from .cards import Card, all_cards
from .melds import IS_WILD, POSITION_BITS, Meld, _layout_set

__all__ = [
    "Option",
    "SuitHand",
    "might_extend",
    "might_start",
    "might_take",
    "run_options",
    "run_shapes",
    "set_options",
    "suit_hands",
]

_CARDS: Final = all_cards()
_J: Final = 52
_RANK: Final = tuple(c % 13 for c in range(53))
_SUIT: Final = tuple(c // 13 for c in range(53))
_BIT: Final = POSITION_BITS
_ACE_BITS: Final = 2 | 1 << 14
_MIDDLE: Final = 0b11111111111000
"""Positions 3-13, where the natural cards 3-K sit."""
_CARDS_AT: Final = tuple(
    tuple(_CARDS[13 * s if p in (1, 14) else 13 * s + p - 1] for p in range(15)) for s in range(4)
)
"""By suit and position: the card that fills it naturally (position 0 is unused)."""

Option = tuple[tuple[Card, ...], Meld]
"""The cards taken from the hand, and the meld they make (new, or the meld they were added to)."""


@cache
def _positions(mask: int) -> tuple[int, ...]:
    return tuple(p for p in range(15) if mask >> p & 1)


class SuitHand:
    """What a hand offers a run of one suit: the positions of its natural cards 3-K (bits 3-13),
    its copies of the suit's ace and 2, and one of each other wild card it holds (a joker, other
    suits' 2s), in id order."""

    __slots__ = ("aces", "mask", "others", "twos")

    def __init__(self, mask: int, aces: int, twos: int, others: tuple[Card, ...]) -> None:
        self.mask = mask
        self.aces = aces
        self.twos = twos
        self.others = others


def suit_hands(hand: tuple[Card, ...]) -> list[SuitHand]:
    """The four :class:`SuitHand` of a sorted hand, in one pass over it."""
    masks = [0, 0, 0, 0]
    aces = [0, 0, 0, 0]
    twos = [0, 0, 0, 0]
    wilds: list[Card] = []
    for c in hand:
        rank = _RANK[c]
        if rank > 1:
            masks[_SUIT[c]] |= _BIT[c]
        elif c == _J:
            if not wilds or wilds[-1] != c:
                wilds.append(c)
        elif rank == 1:
            suit = _SUIT[c]
            if not twos[suit]:
                wilds.append(c)
            twos[suit] += 1
        else:
            aces[_SUIT[c]] += 1
    return [
        SuitHand(masks[s], aces[s], twos[s], tuple(w for w in wilds if w != 13 * s + 1))
        for s in range(4)
    ]


def might_extend(hand: SuitHand, meld: Meld) -> bool:
    """A quick necessary condition for adding to the run ``meld`` from ``hand``: a natural card of
    a new place next to the meld's ends, or two places off when a wildcard can bridge the hole
    (R8: the natural cards of a run span an interval with at most one hole); or a wild card where
    the meld has room for one (R7). Most of a hand's suits fail it."""
    wilds = hand.others or hand.twos
    reach = 2 if wilds or meld.wildcard is not None or meld.naturals & 4 else 1
    naturals = meld.naturals | _ACE_BITS if meld.naturals & _ACE_BITS else meld.naturals
    lo = max(1, (naturals & -naturals).bit_length() - 1 - reach)
    hi = min(14, naturals.bit_length() - 1 + reach)
    near = ((2 << hi) - 1) ^ ((1 << lo) - 1)
    held = hand.mask | (_ACE_BITS if hand.aces else 0) | (4 if hand.twos else 0)
    if near & held & ~meld.naturals:
        return True
    if not wilds:
        return False
    wild = meld.wildcard
    # A meld's own 2 standing in as its wildcard may turn natural and leave room for another.
    return wild is None or (wild % 13 == 1 and wild // 13 == meld.suit and bool(near & 4))


def might_take(hand: SuitHand, top: Card) -> bool:
    """A quick necessary condition for a new run with the natural card ``top`` and cards of
    ``hand``: two more natural cards in a row with it, or one within two places and a wild card
    (R5, R7, R8)."""
    t = _BIT[top]
    held = (hand.mask | (_ACE_BITS if hand.aces else 0) | (4 if hand.twos else 0)) & ~t
    if hand.others or hand.twos:
        return bool(held & (t << 1 | t << 2 | t >> 1 | t >> 2))
    below, above = held & t >> 1, held & t << 1
    return bool((below and (above or held & t >> 2)) or (above and held & t << 2))


def might_start(hand: SuitHand, wild: bool = False) -> bool:
    """A quick necessary condition for a new run from ``hand`` (and a ``wild`` card from elsewhere,
    the pile's top card): three natural cards in a row, or two within three places and a wild
    card (R5, R7, R8)."""
    p = hand.mask | (_ACE_BITS if hand.aces else 0) | (4 if hand.twos else 0)
    if wild or hand.others or hand.twos:
        return bool(p & (p >> 1 | p >> 2))
    return bool(p & p >> 1 & p >> 2)


def run_options(
    suit: int, hand: SuitHand, fixed: tuple[Card, ...], max_aces: int, take: bool = False
) -> list[tuple[Card, ...]]:
    """Every sub-multiset S of the hand such that the cards ``fixed`` (a meld's, plus the pile's
    top card for a take; none for a new run) together with S form a valid run of ``suit``, each
    in id order, sorted. S is never empty unless ``take`` (the top card alone onto a meld).

    The search itself (:func:`run_shapes`) sees only positions and counts, so it is shared by all
    suits and memoised; here the fixed cards are read into that form, and the shapes found are
    turned back into cards.
    """
    base = suit * 13
    own_two = base + 1
    need = 0  # positions 3-K that fixed cards hold: every layout must keep them
    fixed_aces = fixed_twos = 0
    fixed_wild: Card | None = None
    for c in fixed:
        if c == own_two:
            fixed_twos += 1
        elif IS_WILD[c]:
            if fixed_wild is not None:
                return []  # R7: one wildcard
            fixed_wild = c
        elif c == base:
            fixed_aces += 1
        elif _SUIT[c] != suit or need & _BIT[c]:
            return []  # another suit, or a second copy in one place (R5)
        else:
            need |= _BIT[c]
    others = hand.others if fixed_wild is None else ()
    mask, aces = _useful(hand, need, fixed_aces, fixed_twos, bool(others) or fixed_wild is not None)
    shapes = run_shapes(
        mask,
        aces,
        hand.twos,
        len(others),
        need,
        fixed_aces,
        fixed_twos,
        fixed_wild is not None,
        max_aces,
        take,
    )
    if not shapes:
        return []
    cards_at = _CARDS_AT[suit]
    ace = (_CARDS[base],)
    two = (_CARDS[own_two],)
    found = []
    for bits, aces, twos, other in shapes:
        cards = ace * aces + two * twos + tuple([cards_at[p] for p in _positions(bits)])
        if other >= 0:
            wild = others[other]
            cards = (wild, *cards) if wild < base else (*cards, wild)
        found.append(cards)
    found.sort()
    return found


def _useful(
    hand: SuitHand, need: int, fixed_aces: int, fixed_twos: int, wild: bool
) -> tuple[int, int]:
    """The hand's natural cards 3-K and aces that some run with the fixed cards could use (the
    rest are forgotten, so that more searches share a memo entry): those connected to the fixed
    cards' positions with at most one place missing on each side, or, for a new run, those with
    another card near enough (R8)."""
    wild = wild or bool(hand.twos or fixed_twos)
    aces = hand.aces
    pool = hand.mask | need | (_ACE_BITS if aces or fixed_aces else 0)
    pool |= 4 if hand.twos or fixed_twos else 0
    if need:
        lo = (need & -need).bit_length() - 1
        hi = need.bit_length() - 1
        keep = ((2 << hi) - 1) ^ ((1 << lo) - 1)
        for step in (-1, 1):
            skips = 1 if wild else 0
            p = lo - 1 if step < 0 else hi + 1
            while 1 <= p <= 14:
                if not pool >> p & 1:
                    if not skips:
                        break
                    skips -= 1
                keep |= 1 << p
                p += step
    elif wild:
        pairs = pool & (pool >> 1 | pool >> 2)
        keep = pairs | pairs << 1 | pairs << 2
    else:
        triples = pool & pool >> 1 & pool >> 2
        keep = triples | triples << 1 | triples << 2
    if fixed_aces or not keep & _ACE_BITS:
        aces = aces if keep & _ACE_BITS else 0
    return hand.mask & keep, aces


Shape = tuple[int, int, int, int]
"""Hand cards for a run, by position: the bitmask of natural cards 3-K, how many of the suit's
aces and 2s, and which of the hand's other wild kinds (-1 for none)."""


@lru_cache(maxsize=1 << 16)  # keys are small ints: cheap to hash, and ignored by the collector
def run_shapes(
    mask: int,
    aces: int,
    twos: int,
    others: int,
    need: int,
    fixed_aces: int,
    fixed_twos: int,
    fixed_wild: bool,
    max_aces: int,
    take: bool,
) -> tuple[Shape, ...]:
    """The hand's part of every run made of fixed cards and hand cards, suit aside: the hand has
    natural cards 3-K at ``mask``, ``aces`` and ``twos`` of the suit's aces and 2s, and ``others``
    other wild kinds; the fixed cards are natural cards 3-K at ``need``, ``fixed_aces`` aces,
    ``fixed_twos`` 2s of the suit and perhaps another wildcard (``fixed_wild``).

    A valid run lays its natural cards on an interval of positions with at most one hole, which
    its one wildcard fills, or the wildcard floats at an end (R6-R8); whether some cards form one
    depends only on their multiset. So walk the intervals of positions that the fixed cards and
    the hand can fill together, with the hole that a held card may be left out of, and read the
    hand's part off each layout: the layout's cards minus the fixed ones. This enumerates exactly
    the multisets that :func:`buraco_rules.melds._layout_run` accepts.
    """
    all_aces = aces + fixed_aces
    all_twos = twos + fixed_twos
    pool = mask | need | (_ACE_BITS if all_aces else 0) | (4 if all_twos else 0)
    # The kinds of wildcard a layout can use: the fixed one, or any the hand holds (the suit's
    # own 2 is the last kind).
    kinds = [_FIXED_WILD] if fixed_wild else list(range(others))
    if all_twos and not fixed_wild:
        kinds.append(_OWN_TWO)
    need_lo = (need & -need).bit_length() - 1 if need else 15
    need_hi = need.bit_length() - 1
    if need and (((2 << need_hi) - (1 << need_lo)) & ~pool).bit_count() > (1 if kinds else 0):
        return ()  # the fixed cards cannot be joined: more holes than wildcards
    found: dict[Shape, None] = {}

    def lay(naturals: int, hole: bool, span: int) -> None:
        used_aces = (naturals >> 1 & 1) + (naturals >> 14 & 1)
        if used_aces > max_aces or used_aces < fixed_aces or used_aces > all_aces:
            return  # R6
        natural_two = naturals >> 2 & 1
        count = naturals.bit_count()
        bits = naturals & ~need & _MIDDLE
        hand_aces = used_aces - fixed_aces
        for wild in kinds if hole else (_NO_WILD, *kinds) if span < 14 else (_NO_WILD,):
            if wild == _NO_WILD:
                if count < 3 or fixed_wild:
                    continue
                used_twos = natural_two
            else:
                if count < 2:
                    continue
                used_twos = natural_two + (wild == _OWN_TWO)
            if used_twos < fixed_twos or used_twos - fixed_twos > twos:
                continue
            other = wild if wild >= 0 else -1
            if take or bits or hand_aces or used_twos > fixed_twos or other >= 0:
                found[bits, hand_aces, used_twos - fixed_twos, other] = None

    for lo in _positions(pool):
        if lo > need_lo:
            break
        missing = 0
        for hi in range(lo, 15):
            if not pool >> hi & 1:
                if missing:
                    break
                missing = hi
                continue
            if hi < need_hi:
                continue
            span = hi - lo + 1
            whole = ((2 << hi) - 1) ^ ((1 << lo) - 1)
            if missing:
                lay(whole ^ 1 << missing, True, span)
                continue
            lay(whole, False, span)
            for q in range(lo + 1, hi):  # leave a held card out, for a wildcard to stand in
                if not need >> q & 1:
                    lay(whole ^ 1 << q, True, span)
    return tuple(found)


_NO_WILD: Final = -1
_OWN_TWO: Final = -2
_FIXED_WILD: Final = -3


@lru_cache(maxsize=1 << 14)
def set_options(
    rank: int, hand: tuple[Card, ...], meld: Meld | None, max_set_size: int
) -> tuple[Option, ...]:
    """Every sub-multiset S of ``hand`` such that ``meld`` + S is a valid set of ``rank`` (0 = ace;
    with no meld: S alone is a new set), with the resulting meld; ``hand`` holds that rank's cards
    and the wild cards (R5, R7)."""
    naturals: list[tuple[Card, int]] = []
    wild_types: list[Card] = []
    for c in hand:
        if IS_WILD[c]:
            if not wild_types or wild_types[-1] != c:
                wild_types.append(c)
        elif c % 13 == rank:
            if naturals and naturals[-1][0] == c:
                naturals[-1] = (c, naturals[-1][1] + 1)
            else:
                naturals.append((c, 1))
    meld_cards = meld.multiset if meld is not None else ()
    meld_wild = meld is not None and meld.wildcard is not None
    room = max_set_size - len(meld_cards)
    found: dict[tuple[Card, ...], Meld] = {}
    for counts in product(*(range(n + 1) for _, n in naturals)):
        chosen: tuple[Card, ...] = ()
        for (card, _), k in zip(naturals, counts, strict=True):
            chosen += (card,) * k
        for wild in (None, *([] if meld_wild else wild_types)):
            addition = chosen if wild is None else tuple(sorted((*chosen, wild)))
            if not addition or len(addition) > room:
                continue
            if meld is None and (len(chosen) < 2 or len(addition) < 3):
                continue
            # Cards of one rank never form a run, so the set layout is the classifier's answer.
            result = _layout_set(tuple(sorted(meld_cards + addition)), max_set_size)
            if result is not None:
                found[addition] = result
    return tuple(sorted(found.items()))

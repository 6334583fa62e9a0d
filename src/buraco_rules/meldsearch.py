"""Meld search: every new meld, and every addition to a meld, that some cards allow.

A run is searched by arithmetic on bitmasks of positions (1-14, see :mod:`buraco_rules.melds`):
the natural cards of a valid run cover an interval of positions with at most one hole, which
its one wildcard fills (R7, R8). So the search walks the intervals the hand's cards can reach,
lets the hand leave out at most one interior card for a wildcard, and tries each wildcard type;
only the survivors are built and confirmed by the classifier, the one source of truth.

Both searches are pure functions of small tuples and are memoised: between two states of a
game most suits of a hand and most melds are unchanged, so most look-ups hit.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import product
from typing import Final

from .cards import Card, all_cards
from .melds import IS_WILD, POSITION_BITS, Meld, _classify, _layout_set

__all__ = ["Option", "run_options", "set_options", "take_options"]

_CARDS: Final = all_cards()

Option = tuple[tuple[Card, ...], Meld]
"""The cards taken from the hand, and the meld they make (new, or the meld they were added to)."""


@cache
def _positions(mask: int) -> tuple[int, ...]:
    return tuple(p for p in range(15) if mask >> p & 1)


def _span(a: int, b: int) -> int:
    return ((1 << (b + 1)) - 1) ^ ((1 << a) - 1)


def _fits(naturals: int, wilds: int, max_aces: int) -> bool:
    """Natural positions plus ``wilds`` wildcards make a run (R5-R8)."""
    if wilds > 1 or not naturals:
        return False
    if naturals & 2 and naturals >> 14 & 1 and max_aces < 2:
        return False  # R6
    lo = (naturals & -naturals).bit_length() - 1
    hi = naturals.bit_length() - 1
    count = naturals.bit_count()
    gaps = hi - lo + 1 - count
    if gaps > wilds or count + wilds < 3:
        return False
    return not (wilds and not gaps and hi - lo + 1 >= 14)


def _run_fits(naturals: int, wilds: int, own_twos: int, max_aces: int) -> bool:
    """Whether natural positions plus ``wilds`` wildcards, ``own_twos`` of them 2s of the run's
    suit, fit some layout: such a 2 may stand in its own place, and a natural 2 may act as the
    wildcard, whichever works (R7, R8)."""
    if own_twos and not naturals & 4 and _fits(naturals | 4, wilds - 1, max_aces):
        return True
    if _fits(naturals, wilds, max_aces):
        return True
    return bool(naturals & 4) and _fits(naturals & ~4, wilds + 1, max_aces)


NO_WILD: Final = 0
OTHER_WILD: Final = 1
OWN_TWO: Final = 2


@lru_cache(maxsize=1 << 16)  # keys are a few small ints, and few of them occur
def run_shapes(
    available: int,
    covered: int,
    meld_wild: int,
    aces: int,
    twos: int,
    other_wild: bool,
    new: bool,
    max_aces: int,
) -> tuple[tuple[int, int], ...]:
    """The ways to make a run from natural positions, independently of suit and of which
    wildcard: pairs ``(bits, wild)`` of the positions the hand supplies and the kind of wildcard it
    adds (``NO_WILD``, ``OTHER_WILD`` for a joker or another suit's 2, ``OWN_TWO``).

    ``available``: positions the hand can fill (an ace fills 1 and 14, its suit's 2 fills 2);
    ``covered``/``meld_wild``: the meld's natural positions and kind of wildcard (0 and NO_WILD
    for a new run); ``aces``/``twos``: copies of the suit's ace and 2 in the hand.

    The natural cards of a run cover an interval with at most one hole, which its one wildcard
    fills (R7, R8); so walk the intervals the hand can reach, let it leave out one interior card
    for a wildcard, and keep what :func:`_run_fits` accepts. Up to two holes are tried because a
    2 of the suit may move between its own place and a hole.
    """
    found: dict[tuple[int, int], None] = {}
    layouts = [covered]
    if not new and bool(covered & 2) != bool(covered >> 14 & 1):
        layouts.append(covered ^ (2 | 1 << 14))  # R6, R8: the meld's ace may turn to the other end
    for naturals in layouts:
        _search(found, available, naturals, meld_wild, aces, twos, other_wild, new, max_aces)
    return tuple(found)


def _search(
    found: dict[tuple[int, int], None],
    available: int,
    covered: int,
    meld_wild: int,
    aces: int,
    twos: int,
    other_wild: bool,
    new: bool,
    max_aces: int,
) -> None:
    if new:
        starts: tuple[int, ...] = _positions(available)
        lo = hi = 0
    else:
        lo = (covered & -covered).bit_length() - 1
        hi = covered.bit_length() - 1
        starts = tuple(a for a in range(lo, 0, -1) if a == lo or available >> a & 1)
    wild_kinds = [NO_WILD]
    if other_wild:
        wild_kinds.append(OTHER_WILD)
    if twos:
        wild_kinds.append(OWN_TWO)
    meld_wilds = 0 if meld_wild == NO_WILD else 1
    meld_twos = 1 if meld_wild == OWN_TWO else 0
    for a in starts:
        for b in range(max(a + 1, hi), 15):  # the natural cards span a..b
            if b != hi and not available >> b & 1:
                continue
            span = _span(a, b)
            supplied = span & available & ~covered
            holes = (span & ~covered & ~available).bit_count()
            if holes > 2:
                break  # wider spans only add holes
            inside = [1 << p for p in _positions(supplied) if a < p < b]
            # The hand may leave out interior cards for the wildcard to stand in, and for a 2 of
            # the suit to take its own place: at most two places in all, holes included.
            left_outs = [0]
            if holes < 2:
                left_outs += inside
            if holes == 0:
                left_outs += [p | q for i, p in enumerate(inside) for q in inside[i + 1 :]]
            for left_out in left_outs:
                bits = supplied & ~left_out
                if bits & 2 and bits >> 14 & 1 and aces < 2:
                    continue
                size = bits.bit_count()
                for wild in wild_kinds:
                    if wild == NO_WILD:
                        if not bits or (new and size < 3):
                            continue
                    elif new and size < 2:
                        continue
                    if wild == OWN_TWO and bits & 4 and twos < 2:
                        continue
                    wilds = meld_wilds + (wild != NO_WILD)
                    own = meld_twos + (wild == OWN_TWO)
                    if _run_fits(covered | bits, wilds, own, max_aces):
                        found[bits, wild] = None


@lru_cache(maxsize=1 << 14)
def _reach(available: int, covered: int) -> int:
    """The positions a run with natural positions ``covered`` could extend to with the hand's
    ``available`` ones: its span, and beyond each end until a third missing position (a run has
    one wildcard, and a 2 of its suit may free a second hole). Both ends are tried for an ace."""
    layouts = [covered]
    if bool(covered & 2) != bool(covered >> 14 & 1):
        layouts.append(covered ^ (2 | 1 << 14))
    reach = 0
    for naturals in layouts:
        lo = (naturals & -naturals).bit_length() - 1
        hi = naturals.bit_length() - 1
        reach |= _span(lo, hi)
        for step, start in ((1, hi + 1), (-1, lo - 1)):
            missing = 0
            p = start
            while 1 <= p <= 14 and missing < 3:
                reach |= 1 << p
                if not available >> p & 1:
                    missing += 1
                p += step
    return reach


def _card_at(base: int, position: int) -> Card:
    return _CARDS[base if position in (1, 14) else base + position - 1]


def _scan(suit: int, hand: tuple[Card, ...]) -> tuple[int, list[Card], int, int]:
    """The positions the hand's cards of ``suit`` can fill, its other wild kinds, and its copies
    of the suit's ace and 2."""
    base = suit * 13
    available = 0
    others: list[Card] = []
    for c in hand:
        if base <= c < base + 13:
            available |= POSITION_BITS[c]
        else:
            others.append(c)
    return available, others, hand.count(_CARDS[base]), hand.count(_CARDS[base + 1])


def _wild_kind(meld: Meld, own_two: Card) -> int:
    if meld.wildcard is None:
        return NO_WILD
    return OWN_TWO if meld.wildcard == own_two else OTHER_WILD


def _collect(
    found: dict[tuple[Card, ...], Meld],
    suit: int,
    shapes: tuple[tuple[int, int], ...],
    others: list[Card],
    meld_cards: tuple[Card, ...],
    extra: tuple[Card, ...],
    max_aces: int,
) -> tuple[Option, ...]:
    """Turn shapes into cards: each addition (with ``extra``, the pile's top card, in its key) and
    the meld it makes with ``meld_cards``, confirmed by the classifier."""
    base = suit * 13
    own_two = _CARDS[base + 1]
    for bits, wild in shapes:
        naturals = tuple(_card_at(base, p) for p in _positions(bits))
        if wild == NO_WILD:
            additions: list[tuple[Card, ...]] = [naturals]
        elif wild == OWN_TWO:
            additions = [(*naturals, own_two)]
        else:
            additions = [(*naturals, w) for w in others]
        for addition in additions:
            key = tuple(sorted(addition + extra))
            if key in found:
                continue
            result = _classify(tuple(sorted(meld_cards + addition)), max_aces, False, 0)
            if result is not None and result.suit == suit:
                found[key] = result
    return tuple(sorted(found.items()))


@lru_cache(maxsize=1 << 15)
def run_options(
    suit: int, hand: tuple[Card, ...], meld: Meld | None, max_aces: int
) -> tuple[Option, ...]:
    """Every sub-multiset S of ``hand`` such that ``meld`` + S is a valid run of ``suit`` (with no
    meld: S alone is a new run), with the resulting meld, in the order of S.

    ``hand`` is sorted and holds only cards that can matter: the suit's cards, and one of each
    other kind of wild card the hand holds.
    """
    available, others, aces, twos = _scan(suit, hand)
    meld_cards: tuple[Card, ...] = ()
    if meld is None:
        covered, meld_wild = 0, NO_WILD
    else:
        covered, meld_cards = meld.naturals, meld.multiset
        meld_wild = _wild_kind(meld, _CARDS[suit * 13 + 1])
        # Positions beyond reach of the meld cannot matter: forgetting them lets melds in
        # different hands share the (much smaller) shape search.
        available &= _reach(available, covered)
        if not available & (2 | 1 << 14):
            aces = 0
    shapes = run_shapes(
        available, covered, meld_wild, aces, twos, bool(others), meld is None, max_aces
    )
    return _collect({}, suit, shapes, others, meld_cards, (), max_aces) if shapes else ()


@lru_cache(maxsize=1 << 15)
def take_options(
    suit: int, hand: tuple[Card, ...], top: Card, meld: Meld | None, max_aces: int
) -> tuple[Option, ...]:
    """The runs of ``suit`` that the natural card ``top`` of a closed pile can go into with cards S
    of ``hand`` (R10): new runs (with no meld) or additions to ``meld``; each with ``top`` + S, in
    id order, and the resulting meld.

    The search is :func:`run_shapes` around the top card as if it were on the table already, so
    it looks only at the hand's positions within reach of it.
    """
    available, others, aces, twos = _scan(suit, hand)
    place = POSITION_BITS[top] & (2 | ~(1 << 14))  # an ace is tried low; run_shapes turns it
    meld_wild = NO_WILD
    meld_cards: tuple[Card, ...] = (top,)
    covered = place
    found: dict[tuple[Card, ...], Meld] = {}
    if meld is not None:
        meld_cards = tuple(sorted((*meld.multiset, top)))
        if meld.naturals & POSITION_BITS[top]:
            if top != suit * 13 or meld.naturals & (2 | 1 << 14) == 2 | 1 << 14:
                return ()  # a second natural card in one place
            place = (2 | 1 << 14) & ~meld.naturals  # the ace goes to the free end
        covered = meld.naturals | place
        meld_wild = _wild_kind(meld, _CARDS[suit * 13 + 1])
        alone = _classify(meld_cards, max_aces, False, 0)  # the top card on its own
        if alone is not None and alone.suit == suit:
            found[(top,)] = alone
    available &= _reach(available, covered)
    if not available & (2 | 1 << 14):
        aces = 0
    shapes = run_shapes(available, covered, meld_wild, aces, twos, bool(others), False, max_aces)
    return _collect(found, suit, shapes, others, meld_cards, (top,), max_aces)


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

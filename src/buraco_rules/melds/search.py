"""Meld search: every new meld, and every addition to a meld, that some cards allow.

A run is searched by arithmetic on bitmasks of positions (1-14, see :mod:`buraco_rules.melds.meld`):
the natural cards of a valid run cover an interval of positions with at most one hole, which
its one wildcard fills (R7, R8). A hand is read once into what it offers each suit
(:class:`SuitHand`, in :mod:`buraco_rules.melds.suithands`); quick tests on those masks rule out
most suits and melds at once; the search proper (:func:`run_shapes`) walks the intervals of
positions, sees only small integers, and is memoised on them, so that all suits, hands and melds
with the same shape share one entry. Sets (Italian Buraco) are searched per rank, in
:mod:`buraco_rules.melds.setsearch`; both modules' names are re-exported here.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from ..core.cards import Card, all_cards
from ..core.memo import memoised
from .geometry import (
    ACE_BITS,
    ACE_HIGH,
    ACE_LOW,
    MIDDLE,
    MIN_RUN,
    TWO_BIT,
    ace_allowed,
    aces_in,
    card_at,
    highest,
    interval,
    lowest,
    natural_twos_in,
    wildcard_floats,
)
from .meld import IS_WILD, POSITION_BITS, Meld
from .setsearch import counted_set_options as counted_set_options
from .setsearch import set_options as set_options
from .setsearch import set_shapes as set_shapes
from .suithands import SuitHand as SuitHand
from .suithands import suit_hand as suit_hand
from .suithands import suit_hands as suit_hands
from .suithands import wild_kinds as wild_kinds

__all__ = [
    "NOTHING_FIXED",
    "Fixed",
    "RunFacts",
    "SuitHand",
    "counted_set_options",
    "might_extend",
    "might_start",
    "might_start_with_top",
    "might_take",
    "might_take_onto",
    "run_facts",
    "run_options",
    "run_shapes",
    "set_options",
    "set_shapes",
    "suit_hand",
    "suit_hands",
    "wild_kinds",
    "with_top",
]

_CARDS: Final = all_cards()
_RANK: Final = tuple(c % 13 for c in range(53))
_SUIT: Final = tuple(c // 13 for c in range(53))
_BIT: Final = POSITION_BITS
_TWOS: Final = tuple(_CARDS[13 * s + 1] for s in range(4))
_FREE_FROM: Final = 5
_ABOVE_FREE: Final = 1 << 12
"""Runs whose cards all lie in positions 5-11 can reach neither an ace nor a natural 2."""
_CARDS_AT: Final = tuple(tuple(_CARDS[card_at(s, p)] for p in range(15)) for s in range(4))
"""By suit and position: the card that fills it naturally (position 0 is unused)."""


Shape = tuple[int, int, int, int]
"""The hand's part of a run, by position (what :func:`run_shapes` finds): the bitmask of its
natural cards 3-K, how many of the suit's aces, how many of its 2s, and which of the hand's
other wild kinds, by index (-1 for none). A plain tuple of ints, not a named one: the garbage
collector stops tracking an exact tuple of ints, so the memo entries of :func:`run_shapes` cost
no full collection anything (a named tuple stays tracked for good)."""


@memoised(maxsize=1 << 15)  # one per mask of positions 0-14
def _positions(mask: int) -> tuple[int, ...]:
    return tuple(p for p in range(15) if mask >> p & 1)


class Fixed(NamedTuple):
    """The cards a run must keep, by position: a meld's, and the pile's top card for a take."""

    naturals: int
    """The bitmask of its natural cards 3-K."""
    aces: int
    """How many of the suit's aces."""
    twos: int
    """How many of the suit's 2s (natural, or its wildcard)."""
    wild: Card | None
    """Its wildcard, unless that is a 2 of the suit."""


NOTHING_FIXED: Final = Fixed(0, 0, 0, None)
"""What a new run must keep: nothing."""


class RunFacts(NamedTuple):
    """What the search needs to know of a run on the table, worked out once per layout."""

    fixed: Fixed
    """Its cards, by position."""
    plain: int
    """The new places a hand's natural card may fill, for a hand without a wild card."""
    bridged: int
    """The same for a hand with a wild card (two places off: the wildcard bridges the hole)."""
    room: bool
    """Whether a wild card from the hand may join it."""


def run_facts(meld: Meld) -> RunFacts:
    """The :class:`RunFacts` of the run ``meld``."""
    return _run_facts(meld.naturals, meld.wildcard, meld.suit)


@memoised(maxsize=1 << 12)  # keyed by ints: no Meld to hash
def _run_facts(naturals: int, wild: Card | None, suit: int | None) -> RunFacts:
    aces = aces_in(naturals)
    twos = natural_twos_in(naturals)
    own_two = wild is not None and _RANK[wild] == 1 and _SUIT[wild] == suit
    fixed = (
        Fixed(naturals & MIDDLE, aces, twos + 1, None)
        if own_two
        else Fixed(naturals & MIDDLE, aces, twos, wild)
    )
    span = naturals | ACE_BITS if naturals & ACE_BITS else naturals  # an ace may turn round
    windows = []
    for reach in (1, 2):
        lo = max(ACE_LOW, lowest(span) - reach)
        hi = min(ACE_HIGH, highest(span) + reach)
        windows.append(interval(lo, hi))
    plain = windows[0] if wild is None and not naturals & TWO_BIT else windows[1]
    # A meld's own 2 standing in as its wildcard may turn natural and leave room for another.
    room = wild is None or (own_two and windows[1] & TWO_BIT != 0)
    return RunFacts(fixed, plain & ~naturals, windows[1] & ~naturals, room)


def might_extend(hand: SuitHand, meld: RunFacts) -> bool:
    """A quick necessary condition for adding to a run (``meld``, its facts) from ``hand``: a
    natural card of a new place next to the meld's ends, or two places off when a wildcard can
    bridge the hole (R8: the natural cards of a run span an interval with at most one hole); or a
    wild card where the meld has room for one (R7). Most of a hand's suits fail it."""
    if hand.wild:
        return meld.room or bool(meld.bridged & hand.held)
    return bool(meld.plain & hand.held)


def might_take(hand: SuitHand, top: Card) -> bool:
    """A quick necessary condition for a new run with the natural card ``top`` and cards of
    ``hand``: two more natural cards in a row with it, or one within two places and a wild card
    (R5, R7, R8)."""
    t = _BIT[top]
    held = hand.held & ~t
    if hand.wild:
        return bool(held & (t << 1 | t << 2 | t >> 1 | t >> 2))
    below, above = held & t >> 1, held & t << 1
    return bool((below and (above or held & t >> 2)) or (above and held & t << 2))


def might_take_onto(hand: SuitHand, meld: Meld, facts: RunFacts, top: Card) -> bool:
    """A quick necessary condition for taking the natural card ``top`` onto the run ``meld`` (with
    its ``facts``) with cards of ``hand``: the hand fills the places between them, or all but one
    when a wildcard can move there (R8)."""
    t = _BIT[top]
    naturals = meld.naturals
    if (naturals | t) & ACE_BITS:
        return True  # an ace may turn round: the search decides
    lo = lowest(naturals)
    hi = highest(naturals)
    between = t - (2 << hi) if t > naturals else (1 << lo) - (t << 1) if t < 1 << lo else 0
    missing = (between & ~hand.held).bit_count()
    # plain == bridged: the meld's wildcard or natural 2 may move into a hole.
    return missing == 0 or (missing == 1 and (hand.wild or facts.plain == facts.bridged))


def might_start(hand: SuitHand, *, top: int = 0, top_wild: bool = False) -> bool:
    """A quick necessary condition for a new run from ``hand`` (with the pile's top card: the
    places ``top`` it can fill, and whether it is a wild card): three natural cards in a row, or
    two within three places and a wild card (R5, R7, R8)."""
    p = hand.held | top
    if top_wild or hand.wild:
        return bool(p & (p >> 1 | p >> 2))
    return bool(p & p >> 1 & p >> 2)


def might_start_with_top(hand: SuitHand, suit: int, top: Card) -> bool:
    """A quick necessary condition for a new run of ``suit`` with a closed pile's ``top`` card (a
    natural card of the suit, or a wild card) and cards of ``hand`` (R10)."""
    if IS_WILD[top]:
        # A 2 of the run's own suit may also stand in its own place (R7).
        return might_start(hand, top=TWO_BIT if top == _TWOS[suit] else 0, top_wild=True)
    return might_take(hand, top)


def with_top(suit: int, fixed: Fixed, top: Card) -> Fixed | None:
    """``fixed`` and the pile's ``top`` card, or None if a run of ``suit`` cannot hold both."""
    need, aces, twos, wild = fixed
    if IS_WILD[top]:
        if _RANK[top] == 1 and _SUIT[top] == suit:
            return Fixed(need, aces, twos + 1, wild)
        return None if wild is not None else Fixed(need, aces, twos, top)
    if _SUIT[top] != suit:
        return None
    if _RANK[top] == 0:
        return Fixed(need, aces + 1, twos, wild)
    bit = _BIT[top]
    return None if need & bit else Fixed(need | bit, aces, twos, wild)


def run_options(
    suit: int,
    hand: SuitHand,
    fixed: Fixed,
    max_aces: int,
    *,
    take: bool = False,
    low_only: bool = False,
) -> tuple[tuple[Card, ...], ...]:
    """Every sub-multiset S of the hand such that the ``fixed`` cards (a meld's, plus the pile's
    top card for a take; none for a new run) together with S form a valid run of ``suit``, each
    in id order, sorted. S is never empty unless ``take`` (the top card alone onto a meld)."""
    need, fixed_aces, fixed_twos, fixed_wild = fixed
    # Positional: a memo key of positional arguments is built at C speed (keywords cost twice).
    return _run_cards(
        suit,
        hand.mask,
        hand.aces,
        hand.twos,
        hand.others if fixed_wild is None else (),
        need,
        fixed_aces,
        fixed_twos,
        fixed_wild is not None,
        max_aces,
        take,
        low_only,
    )


@memoised(maxsize=1 << 15)
def _run_cards(
    suit: int,
    mask: int,
    aces: int,
    twos: int,
    others: tuple[Card, ...],
    need: int,
    fixed_aces: int,
    fixed_twos: int,
    fixed_wild: bool,
    max_aces: int,
    take: bool,
    low_only: bool,
) -> tuple[tuple[Card, ...], ...]:
    """:func:`run_options` by positions. The search itself (:func:`run_shapes`) sees only
    positions and counts, so it is shared by all suits; here its shapes become cards."""
    # Forgetting the cards no run can use lets more searches share one memo entry.
    any_wild = bool(others or twos or fixed_twos or fixed_wild)
    mask, aces = _useful(mask, aces, twos, need, fixed_aces, fixed_twos, any_wild)
    # Away from the ends (an ace at 1 or 14, a natural 2 at 2) a run looks the same wherever it
    # lies: search it shifted down to a standard place, and shift the shapes back.
    shift = 0
    cards = mask | need
    if not (aces or fixed_aces) and cards and lowest(cards) >= _FREE_FROM and cards < _ABOVE_FREE:
        shift = lowest(cards) - _FREE_FROM
        mask >>= shift
        need >>= shift
    shapes = run_shapes(
        mask,
        aces,
        twos,
        len(others),
        need,
        fixed_aces,
        fixed_twos,
        fixed_wild=fixed_wild,
        max_aces=max_aces,
        take=take,
        low_only=low_only,
    )
    return _as_cards(shapes, suit, shift, others) if shapes else ()


@memoised(maxsize=1 << 14)
def _as_cards(
    shapes: tuple[Shape, ...], suit: int, shift: int, others: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """The cards of ``shapes`` (shifted back up by ``shift``) in ``suit``, sorted."""
    base = suit * 13
    cards_at = _CARDS_AT[suit]
    ace = (_CARDS[base],)
    two = (_CARDS[base + 1],)
    found = []
    for bits, n_aces, n_twos, other in shapes:
        chosen = ace * n_aces + two * n_twos
        chosen += tuple([cards_at[p] for p in _positions(bits << shift)])
        if other >= 0:
            wild = others[other]
            chosen = (wild, *chosen) if wild < base else (*chosen, wild)
        found.append(chosen)
    found.sort()
    return tuple(found)


def _useful(
    mask: int, aces: int, twos: int, need: int, fixed_aces: int, fixed_twos: int, wild: bool
) -> tuple[int, int]:
    """The hand's natural cards 3-K and aces that some run with the fixed cards could use: those
    of new places, connected to the fixed cards' positions with no more places missing than a
    wildcard can fill, or, for a new run, those with another card near enough (R5, R8)."""
    mask &= ~need  # a run holds one natural card per place
    pool = mask | need | (ACE_BITS if aces or fixed_aces else 0)
    pool |= TWO_BIT if twos or fixed_twos else 0
    if need:
        lo = lowest(need)
        hi = highest(need)
        keep = interval(lo, hi)
        holes = (keep & ~pool).bit_count()  # the wildcard must fill these
        for step in (-1, 1):
            skips = (1 if wild else 0) - holes
            p = lo - 1 if step < 0 else hi + 1
            while ACE_LOW <= p <= ACE_HIGH:
                if not pool >> p & 1:
                    if skips <= 0:
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
    return mask & keep, aces if keep & ACE_BITS else 0


@memoised(maxsize=1 << 16)  # keys are small ints: cheap to hash, and ignored by the collector
def run_shapes(
    mask: int,
    aces: int,
    twos: int,
    others: int,
    need: int,
    fixed_aces: int,
    fixed_twos: int,
    *,
    fixed_wild: bool,
    max_aces: int,
    take: bool,
    low_only: bool = False,
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
    the multisets that :func:`buraco_rules.melds.meld._layout_run` accepts.
    """
    all_aces = aces + fixed_aces
    all_twos = twos + fixed_twos
    pool = mask | need | (ACE_BITS if all_aces else 0) | (TWO_BIT if all_twos else 0)
    # The kinds of wildcard a layout can use: the fixed one, or any the hand holds (the suit's
    # own 2 is the last kind).
    kinds = [_FIXED_WILD] if fixed_wild else list(range(others))
    if all_twos and not fixed_wild:
        kinds.append(_OWN_TWO)
    need_lo = lowest(need) if need else ACE_HIGH + 1
    need_hi = highest(need)
    if need and (interval(need_lo, need_hi) & ~pool).bit_count() > (1 if kinds else 0):
        return ()  # the fixed cards cannot be joined: more holes than wildcards
    found: dict[Shape, None] = {}

    def lay(naturals: int, hole: bool, span: int) -> None:
        used_aces = aces_in(naturals)
        if used_aces > max_aces or used_aces < fixed_aces or used_aces > all_aces:
            return  # R6
        if not ace_allowed(naturals, low_only):
            return  # the house rule: the ace is low only
        natural_two = natural_twos_in(naturals)
        count = naturals.bit_count()
        bits = naturals & ~need & MIDDLE
        hand_aces = used_aces - fixed_aces
        floats = wildcard_floats(span)  # R8: a wildcard with no hole stands at an end
        for wild in kinds if hole else (_NO_WILD, *kinds) if floats else (_NO_WILD,):
            if wild == _NO_WILD:
                if count < MIN_RUN or fixed_wild:
                    continue
                used_twos = natural_two
            else:
                if count + 1 < MIN_RUN:
                    continue
                used_twos = natural_two + (wild == _OWN_TWO)
            if used_twos < fixed_twos or used_twos - fixed_twos > twos:
                continue
            other = wild if wild >= 0 else -1
            if take or bits or hand_aces or used_twos > fixed_twos or other >= 0:
                found[(bits, hand_aces, used_twos - fixed_twos, other)] = None

    for lo in _positions(pool):
        if lo > need_lo:
            break
        below = (1 << lo) - 1
        for hi in _positions(pool & ~below):
            if hi < need_hi:
                continue
            whole = interval(lo, hi)
            span = hi - lo + 1
            gaps = whole & ~pool
            if gaps:
                if gaps & gaps - 1 or not kinds:
                    break  # two holes, or one and no wildcard: wider spans only add holes
                lay(whole ^ gaps, True, span)
                continue
            lay(whole, False, span)
            if kinds:  # leave a held card out, for a wildcard to stand in
                for q in _positions(whole & ~need & ~(1 << lo | 1 << hi)):
                    lay(whole ^ 1 << q, True, span)
    return tuple(found)


_NO_WILD: Final = -1
_OWN_TWO: Final = -2
_FIXED_WILD: Final = -3

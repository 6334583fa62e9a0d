"""Melds: deciding from a multiset of cards whether it is a run or a set, and how it is laid.

R8 makes this a pure function of the multiset: whether cards form a valid meld, whether it is
clean, and where its wildcard sits never depend on the order the cards came in. So a meld is
re-laid from scratch after every addition, which also implements R8's displaced wildcards.

Positions of a run are 1-14: the ace is 1 (low) or 14 (high), a 2 of the run's suit is 2, and
ranks 3-K are 3-13. A run is stored as the bitmask of its natural positions.
"""

from __future__ import annotations

import enum
from functools import lru_cache
from itertools import product
from typing import Final

import attrs

from .cards import JOKER, Card, Rank, Suit, all_cards
from .errors import ErrorCode
from .rules import CANASTA_SIZE, MIN_MELD_SIZE, RuleSet

__all__ = ["CanastaKind", "Meld", "MeldKind"]

_CARDS: Final = all_cards()
_J: Final = int(JOKER)
_IS_WILD: Final = tuple(c == _J or c % 13 == 1 for c in range(53))
_FULL_RUN: Final = 0b111111111111110  # positions 1..14


class MeldKind(enum.Enum):
    """Run (one suit, consecutive) or set (one rank, Italian Buraco only), R5."""

    RUN = "run"
    SET = "set"


class CanastaKind(enum.Enum):
    """What a canasta is worth is decided by its kind (R18)."""

    MIXED = "mixed"
    CLEAN = "clean"
    ALL_RANKS = "all-ranks"
    ACE_TO_ACE = "ace-to-ace"


@attrs.frozen(cache_hash=True)
class Meld:
    """A meld on the table. Build one with :meth:`Meld.from_cards`; the engine lays it out.

    ``cards`` is the layout: a run in ascending order with a wildcard in the gap it fills, or, if
    it floats at an end (R8), last; a set's natural cards then its wildcard.
    """

    cards: tuple[Card, ...]
    kind: MeldKind
    wildcard: Card | None
    """The card acting as a wildcard, or None for a clean meld (R7, R9)."""
    suit: Suit | None
    """A run's suit (None for a set)."""
    rank: Rank | None
    """A set's rank (None for a run)."""
    naturals: int = attrs.field(eq=False, repr=False)
    """Bitmask of the positions (1-14) the run's natural cards fill; 0 for a set."""
    multiset: tuple[Card, ...] = attrs.field(eq=False, repr=False)
    """The cards in id order."""

    @classmethod
    def from_cards(cls, cards: tuple[Card, ...] | list[Card], rules: RuleSet) -> Meld | None:
        """The meld these cards form under ``rules``, or None when they form none (R5-R8)."""
        return _classify(tuple(sorted(cards)), *_meld_rules(rules))

    @property
    def is_clean(self) -> bool:
        """No wildcard (R9)."""
        return self.wildcard is None

    @property
    def is_canasta(self) -> bool:
        """Seven cards or more (R9)."""
        return len(self.cards) >= CANASTA_SIZE

    @property
    def canasta_kind(self) -> CanastaKind | None:
        """The kind that decides the canasta bonus (R18), or None for a meld under seven cards."""
        size = len(self.cards)
        if size < CANASTA_SIZE:
            return None
        if self.wildcard is not None:
            return CanastaKind.MIXED
        if size == 14:
            return CanastaKind.ACE_TO_ACE
        if size == 13 and self.kind is MeldKind.RUN:
            return CanastaKind.ALL_RANKS
        return CanastaKind.CLEAN

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


def _meld_rules(rules: RuleSet) -> tuple[int, bool, int]:
    return (rules.max_natural_aces_in_run, rules.sets_allowed, rules.max_set_size)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _card_at(base: int, position: int) -> Card:
    return _CARDS[base if position in (1, 14) else base + position - 1]


@lru_cache(maxsize=1 << 16)
def _classify(
    cards: tuple[Card, ...], max_aces: int, sets_allowed: bool, max_set_size: int
) -> Meld | None:
    run = _layout_run(cards, max_aces)
    if run is not None or not sets_allowed:
        return run
    return _layout_set(cards, max_set_size)


def _layout_run(cards: tuple[Card, ...], max_aces: int) -> Meld | None:
    suit = -1
    for c in cards:
        if not _IS_WILD[c]:
            if suit < 0:
                suit = c // 13
            elif c // 13 != suit:
                return None
    if suit < 0:
        return None
    base = suit * 13
    own_two = base + 1
    mask = aces = own_twos = 0
    other_wilds: list[Card] = []
    for c in cards:
        if c == own_two:
            own_twos += 1
        elif _IS_WILD[c]:
            other_wilds.append(c)
        elif c == base:
            aces += 1
        else:
            bit = 1 << (c - base + 1)
            if mask & bit:
                return None  # two copies of one natural card (R5)
            mask |= bit
    if aces > max_aces:
        return None  # R6
    # R7: a 2 of the run's suit is natural whenever the cards allow it, so try that first.
    for natural_twos in (1, 0) if own_twos else (0,):
        wilds = other_wilds + [_CARDS[own_two]] * (own_twos - natural_twos)
        if len(wilds) > 1:
            continue
        with_two = mask | (natural_twos << 2)
        if aces == 0:
            layouts: tuple[int, ...] = (with_two,)
        elif aces == 1:
            layouts = (with_two | 2, with_two | 1 << 14)  # R6: low or high, never both ways
        else:
            layouts = (with_two | 2 | 1 << 14,)
        for naturals in layouts:
            lo = (naturals & -naturals).bit_length() - 1
            hi = naturals.bit_length() - 1
            count = naturals.bit_count()
            gaps = hi - lo + 1 - count
            if gaps > len(wilds) or count + len(wilds) < MIN_MELD_SIZE:
                continue
            if wilds and not gaps and hi - lo + 1 >= 14:
                continue  # a floating wildcard needs room beyond an ace-to-ace run
            wild = wilds[0] if wilds else None
            laid = [_card_at(base, p) if naturals >> p & 1 else wilds[0] for p in range(lo, hi + 1)]
            if wild is not None and not gaps:
                laid.append(wild)  # R8: it floats at the ends
            return Meld(
                cards=tuple(laid),
                kind=MeldKind.RUN,
                wildcard=wild,
                suit=Suit(suit),
                rank=None,
                naturals=naturals,
                multiset=cards,
            )
    return None


def _layout_set(cards: tuple[Card, ...], max_set_size: int) -> Meld | None:
    if not MIN_MELD_SIZE <= len(cards) <= max_set_size:
        return None
    rank = -1
    wilds = []
    naturals = []
    for c in cards:
        if _IS_WILD[c]:
            wilds.append(c)
        else:
            naturals.append(c)
            if rank < 0:
                rank = c % 13
            elif c % 13 != rank:
                return None
    if rank < 0 or len(wilds) > 1:
        return None  # R5: no sets of 2s or jokers; R7: one wildcard at most
    return Meld(
        cards=tuple(naturals + wilds),
        kind=MeldKind.SET,
        wildcard=wilds[0] if wilds else None,
        suit=None,
        rank=Rank(rank + 1),
        naturals=0,
        multiset=cards,
    )


def meld_error(cards: tuple[Card, ...]) -> ErrorCode:
    """Why ``cards`` (which form no valid meld) fail: too many wildcards, or not a meld at all."""
    wild = sum(1 for c in cards if _IS_WILD[c])
    suits = {c // 13 for c in cards if not _IS_WILD[c]}
    own_twos = sum(1 for c in cards if c != _J and c % 13 == 1 and c // 13 in suits)
    # A 2 of the run's own suit may stand naturally (R7), so it is not counted against the limit.
    return ErrorCode.TOO_MANY_WILDCARDS if wild - min(own_twos, 1) > 1 else ErrorCode.INVALID_MELD


def classify(cards: tuple[Card, ...], rules: RuleSet) -> Meld | None:
    """The meld that the sorted ``cards`` form under ``rules``, or None."""
    return _classify(cards, *_meld_rules(rules))


# --- Generating every meld and addition a hand allows -------------------------------------------


def _merge(a: tuple[Card, ...], b: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(a + b))


@lru_cache(maxsize=1 << 15)
def run_options(
    suit: int,
    hand: tuple[Card, ...],
    meld: Meld | None,
    max_aces: int,
) -> tuple[tuple[tuple[Card, ...], Meld], ...]:
    """Every sub-multiset S of ``hand`` such that ``meld`` + S is a valid run of ``suit`` (or, with
    no meld, S alone is a new run), each with the resulting meld, in a deterministic order.

    ``hand`` holds only the cards that can matter: the suit's cards and the wild cards, sorted.
    Instead of trying every subset, walk the intervals of positions the run could cover: within
    one, the hand supplies the natural cards it has, one interior one may be left for a wildcard,
    and one wildcard may be added (R7, R8). The meld's validity is then decided by the classifier,
    so this only has to propose a superset of the answers.
    """
    base = suit * 13
    own_two = base + 1
    available = 0
    aces = own_twos = 0
    wild_types: list[Card] = []
    for c in hand:
        if c // 13 == suit and c != _J:
            if c == base:
                aces += 1
                available |= 2 | 1 << 14
            elif c == own_two:
                own_twos += 1
                available |= 4
            else:
                available |= 1 << (c - base + 1)
        if _IS_WILD[c] and (not wild_types or wild_types[-1] != c):
            wild_types.append(c)
    if meld is None:
        covered = 0
        starts = [p for p in range(1, 15) if available >> p & 1]
        found: dict[tuple[Card, ...], Meld] = {}
        for a in starts:
            for b in range(a + 1, 15):
                if not available >> b & 1:
                    continue
                if not _propose(
                    found, base, a, b, covered, available, aces, own_twos, wild_types, (), max_aces
                ):
                    break
        return tuple(sorted(found.items()))
    covered = meld.naturals
    if any(c == own_two for c in meld.multiset):
        covered |= 4  # the meld's own 2 may move into its natural place (R8)
    lo = (meld.naturals & -meld.naturals).bit_length() - 1
    hi = meld.naturals.bit_length() - 1
    found = {}
    for a in range(lo, 0, -1):
        if a != lo and not available >> a & 1:
            if _too_many_missing(a, hi, covered, available):
                break
            continue
        for b in range(hi, 15):
            if b != hi and not available >> b & 1:
                continue
            if not _propose(
                found,
                base,
                a,
                b,
                covered,
                available,
                aces,
                own_twos,
                wild_types,
                meld.multiset,
                max_aces,
            ):
                break
    return tuple(sorted(found.items()))


def _too_many_missing(a: int, b: int, covered: int, available: int) -> bool:
    span = ((1 << (b + 1)) - 1) ^ ((1 << a) - 1)
    return (span & ~covered & ~available).bit_count() > 2


def _propose(
    found: dict[tuple[Card, ...], Meld],
    base: int,
    a: int,
    b: int,
    covered: int,
    available: int,
    aces: int,
    own_twos: int,
    wild_types: list[Card],
    meld_cards: tuple[Card, ...],
    max_aces: int,
) -> bool:
    """Add the options whose natural cards span positions a..b; False when wider spans with the
    same start cannot help (more than two positions missing)."""
    span = ((1 << (b + 1)) - 1) ^ ((1 << a) - 1)
    need = span & ~covered
    missing = need & ~available
    if missing.bit_count() > 2:
        return False
    supplied = need & available
    interior = [p for p in _bits(supplied) if a < p < b]
    for left_out in [0, *interior]:
        if missing.bit_count() + (1 if left_out else 0) > 2:
            continue
        bits = supplied & ~(1 << left_out) if left_out else supplied
        if bits & 2 and bits >> 14 & 1 and aces < 2:
            continue
        naturals = tuple(_card_at(base, p) for p in _bits(bits))
        for wild in [None, *wild_types]:
            if wild is None:
                addition = naturals
            else:
                if wild == base + 1 and bits & 4 and own_twos < 2:
                    continue
                addition = naturals + (wild,)
            if not addition or (not meld_cards and len(addition) < MIN_MELD_SIZE):
                continue
            addition = tuple(sorted(addition))
            if addition in found:
                continue
            result = _classify(_merge(meld_cards, addition), max_aces, False, 0)
            if result is not None and result.suit == base // 13:
                found[addition] = result
    return True


@lru_cache(maxsize=1 << 14)
def set_options(
    rank: int,
    hand: tuple[Card, ...],
    meld: Meld | None,
    max_set_size: int,
) -> tuple[tuple[tuple[Card, ...], Meld], ...]:
    """Every sub-multiset S of ``hand`` such that ``meld`` + S is a valid set of ``rank`` (0 = ace),
    or with no meld a new set; ``hand`` holds that rank's cards and the wild cards (R5, R7)."""
    naturals: list[tuple[Card, int]] = []
    wild_types: list[Card] = []
    for c in hand:
        if _IS_WILD[c]:
            if not wild_types or wild_types[-1] != c:
                wild_types.append(c)
        elif c % 13 == rank:
            if naturals and naturals[-1][0] == c:
                naturals[-1] = (c, naturals[-1][1] + 1)
            else:
                naturals.append((c, 1))
    meld_cards = meld.multiset if meld is not None else ()
    found: dict[tuple[Card, ...], Meld] = {}
    for counts in product(*(range(n + 1) for _, n in naturals)):
        chosen: tuple[Card, ...] = ()
        for (card, _), k in zip(naturals, counts, strict=True):
            chosen += (card,) * k
        for wild in [None, *wild_types]:
            addition = chosen if wild is None else tuple(sorted((*chosen, wild)))
            if not addition:
                continue
            result = _classify(_merge(meld_cards, addition), 1, True, max_set_size)
            if result is not None and result.kind is MeldKind.SET:
                found[addition] = result
    return tuple(sorted(found.items()))

"""Melds: deciding from a multiset of cards whether it is a run or a set, and how it is laid.

R8 makes this a pure function of the multiset: whether cards form a valid meld, whether it is
clean, and where its wildcard sits never depend on the order the cards came in. So a meld is
re-laid from scratch after every addition, which also implements R8's displaced wildcards.

Positions of a run are 1-14: the ace is 1 (low) or 14 (high), a 2 of the run's suit is 2, and
ranks 3-K are 3-13. A run is stored as the bitmask of its natural positions.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

from ..core.cards import JOKER, Card, Rank, Suit, all_cards, is_card
from ..core.decks import DECK_COUNTS
from ..core.errors import ErrorCode
from ..core.memo import memoised
from ..core.quoting import describe
from ..core.rules import ALL_SET_RANKS, CANASTA_SIZE, MIN_MELD_SIZE, RuleSet
from .geometry import (
    ACE_BITS,
    ACE_HIGH,
    ACE_LOW,
    FULL_SPAN,
    MAX_HOLES,
    TWO_PLACE,
    ace_layouts,
    card_at,
    highest,
    lays_out,
    lowest,
)

__all__ = ["CanastaKind", "Meld", "MeldKind"]

_CARDS: Final = all_cards()
_J: Final = int(JOKER)
IS_WILD: Final = tuple(c == _J or c % 13 == 1 for c in range(53))
"""By card id: whether the card may act as a wildcard (jokers and 2s, R7)."""
POSITION_BITS: Final = tuple(
    0 if c == _J else ACE_BITS if c % 13 == 0 else 1 << (c % 13 + 1) for c in range(53)
)
"""By card id: the run positions a natural card can fill (an ace 1 or 14, a 2 its own place 2,
3-K 3-13) as a bitmask."""


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
    it floats at an end (R8), last (first where the run reaches the high ace, which has nothing
    above it: W-3...K-A, R22); a set's natural cards then its wildcard.
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
    def from_cards(cls, cards: Iterable[Card | str], rules: RuleSet) -> Meld | None:
        """The meld these cards form under ``rules``, or None when they form none (R5-R8).

        Notation strings are parsed; anything that is not a card is a ``ValueError``, and so are
        more copies of a card than the two decks hold (R2: two of each card, four jokers), naming
        the card: no game can lay seven A♠.
        """
        exact = []
        for c in cards:
            card = Card.parse(c) if isinstance(c, str) else c
            if not is_card(card):
                raise ValueError(f"{describe(c)} is not a card")
            exact.append(card)
        for card, count in sorted(Counter(exact).items()):
            if count > DECK_COUNTS[card]:
                raise ValueError(
                    f"{card.pretty} {count} times: the two decks hold {DECK_COUNTS[card]} (R2)"
                )
        return _own(_classify(tuple(sorted(exact)), *_meld_rules(rules)))

    @property
    def is_clean(self) -> bool:
        """No wildcard (R9)."""
        return self.wildcard is None

    @property
    def is_canasta(self) -> bool:
        """Seven cards or more (R9)."""
        return len(self.cards) >= CANASTA_SIZE

    @property
    def is_semi_clean(self) -> bool:
        """A canasta whose one wildcard stands beside at least seven natural cards without filling
        a gap among them: at an end of a run of seven or more consecutive naturals, or in a set of
        eight cards or more. It scores as mixed unless the rules price it (R22)."""
        if self.wildcard is None or len(self.cards) <= CANASTA_SIZE:
            return False
        naturals = self.naturals
        if self.kind is MeldKind.SET:
            return True
        return highest(naturals) - lowest(naturals) + 1 == naturals.bit_count()  # no gap (R8)

    @property
    def canasta_kind(self) -> CanastaKind | None:
        """The kind that decides the canasta bonus (R18), or None for a meld under seven cards."""
        size = len(self.cards)
        if size < CANASTA_SIZE:
            return None
        if self.wildcard is not None:
            return CanastaKind.MIXED
        if size == FULL_SPAN:  # clean, so every position from ace to ace
            return CanastaKind.ACE_TO_ACE
        if size == FULL_SPAN - 1 and self.kind is MeldKind.RUN:  # one ace, every rank
            return CanastaKind.ALL_RANKS
        return CanastaKind.CLEAN

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


def _meld_rules(rules: RuleSet) -> tuple[int, int, int, bool]:
    return (
        rules.max_natural_aces_in_run,
        rules.set_rank_mask,
        rules.max_set_size,
        rules.ace_low_only,
    )


_ACE_LOW_BIT: Final = 1 << ACE_LOW
_ACE_HIGH_BIT: Final = 1 << ACE_HIGH


def _card_at(base: int, position: int) -> Card:
    return _CARDS[card_at(base // 13, position)]


@memoised(maxsize=1 << 16)
def _classify(
    cards: tuple[Card, ...], max_aces: int, set_ranks: int, max_set_size: int, low_only: bool
) -> Meld | None:
    run = _layout_run(cards, max_aces, low_only)
    if run is not None or not set_ranks:
        return run
    return _layout_set(cards, max_set_size, set_ranks)


def _layout_run(cards: tuple[Card, ...], max_aces: int, low_only: bool) -> Meld | None:
    suit = -1
    for c in cards:
        if not IS_WILD[c]:
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
        elif IS_WILD[c]:
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
        if len(wilds) > MAX_HOLES:
            continue
        with_two = mask | (natural_twos << TWO_PLACE)
        for places in ace_layouts(aces, low_only):  # R6: an ace low or high
            naturals = with_two | places
            if not naturals or not lays_out(naturals, len(wilds)):
                continue
            lo = lowest(naturals)
            hi = highest(naturals)
            gaps = hi - lo + 1 - naturals.bit_count()
            if gaps and places == _ACE_LOW_BIT and not low_only:
                # R22: where the ace may stand high instead and leave no hole (A-W-3...K as
                # W-3...K-A), the wildcard is laid at the end, as a player would lay it.
                high = with_two | _ACE_HIGH_BIT
                if highest(high) - lowest(high) + 1 == high.bit_count():
                    naturals, lo, hi, gaps = high, lowest(high), highest(high), 0
            wild = wilds[0] if wilds else None
            laid = [_card_at(base, p) if naturals >> p & 1 else wilds[0] for p in range(lo, hi + 1)]
            if wild is not None and not gaps:
                # R8: it floats at the ends, laid last; but a run that reaches the high ace has
                # no end above it, so the wildcard stands below (W-3...K-A, R22), laid first.
                if hi == ACE_HIGH:
                    laid.insert(0, wild)
                else:
                    laid.append(wild)
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


def _layout_set(cards: tuple[Card, ...], max_set_size: int, set_ranks: int) -> Meld | None:
    if not MIN_MELD_SIZE <= len(cards) <= max_set_size:
        return None
    rank = -1
    wilds = []
    naturals = []
    for c in cards:
        if IS_WILD[c]:
            wilds.append(c)
        else:
            naturals.append(c)
            if rank < 0:
                rank = c % 13
            elif c % 13 != rank:
                return None
    if rank < 0 or len(wilds) > 1:
        return None  # R5: no sets of 2s or jokers; R7: one wildcard at most
    if not set_ranks >> rank & 1:
        return None  # R27: no sets of this rank
    return Meld(
        cards=tuple(naturals + wilds),
        kind=MeldKind.SET,
        wildcard=wilds[0] if wilds else None,
        suit=None,
        rank=Rank(rank + 1),
        naturals=0,
        multiset=cards,
    )


def meld_error(cards: tuple[Card, ...], rules: RuleSet) -> ErrorCode:
    """Why ``cards`` (which form no valid meld under ``rules``) fail: a run that needs a high ace
    where the ace is low only, a set of a rank the rules allow no sets of, too many wildcards,
    or not a meld at all."""
    max_aces, set_ranks, max_set_size, low_only = _meld_rules(rules)
    if low_only and _classify(cards, max_aces, set_ranks, max_set_size, False) is not None:
        return ErrorCode.ACE_LOW_ONLY
    narrowed = set_ranks and set_ranks != ALL_SET_RANKS  # R27
    if narrowed and _classify(cards, max_aces, ALL_SET_RANKS, max_set_size, low_only) is not None:
        return ErrorCode.SET_RANK
    naturals = [c for c in cards if not IS_WILD[c]]
    wild = len(cards) - len(naturals)
    suits = {c // 13 for c in naturals}
    could_be_run = len(suits) == 1 and len({c % 13 for c in naturals}) == len(naturals)
    # In a run, one 2 of the run's own suit may stand naturally (R7): it is not counted.
    if could_be_run and any(c == 13 * min(suits) + 1 for c in cards):
        wild -= 1
    return ErrorCode.TOO_MANY_WILDCARDS if wild > 1 else ErrorCode.INVALID_MELD


def wild_among(added: tuple[Card, ...], meld: Meld) -> Card | None:
    """A card of ``added`` (cards put into ``meld``, in id order) that stands in it as a
    wildcard, or None when every one of them stands as a natural card (R26). A joker never does;
    a 2 does unless it is of a run's own suit in its own place (R7), and copies are
    interchangeable (R2): the added copies count as natural before any the meld held already."""
    for c in added:
        if not IS_WILD[c]:
            continue
        if c == _J or meld.suit is None or c != meld.suit * 13 + 1:
            return c
        natural = meld.naturals >> TWO_PLACE & 1
        if added.count(c) > natural:
            return c
    return None


def gap_place(meld: Meld) -> int:
    """The run position (2-13) that ``meld``'s wildcard fills between two natural cards, or 0
    when it has none there (clean, floating at an end, or a set)."""
    return 0 if meld.wildcard is None else _hole(meld.naturals)


def _hole(naturals: int) -> int:
    """The position missing between the lowest and highest of ``naturals``, or 0."""
    if not naturals:
        return 0
    lo = lowest(naturals)
    holes = ((1 << (highest(naturals) + 1)) - (1 << lo)) & ~naturals
    return lowest(holes) if holes else 0


def moves_locked(old: Meld, new: Meld) -> bool:
    """R29: the addition that turns ``old`` into ``new`` moves a wildcard that stood between two
    natural cards (R8: the natural card of its place is laid, or the run is laid out again
    with the wildcard elsewhere)."""
    place = gap_place(old)
    if not place:
        return False
    if new.wildcard is None:
        return True  # it turned natural (R7, R8)
    # The layout decides, as it does for every meld (R8): where R22 lays A-W-3...K out again as
    # W-3...K-A, the wildcard floats at the end, so that addition moved it.
    return _hole(new.naturals) != place


def sets_by_rank(melds: Sequence[Meld]) -> dict[int, int]:
    """The index of each of a team's sets (``melds``) by its rank (0 = ace). A team holds one set
    of a rank: more cards of that rank go onto it (R5)."""
    return {m.rank - 1: i for i, m in enumerate(melds) if m.rank is not None}


def classify(cards: tuple[Card, ...], rules: RuleSet) -> Meld | None:
    """The meld that the sorted ``cards`` form under ``rules``, or None: a ``Meld`` of the
    caller's own, to put in a state."""
    return _own(_classify(cards, *_meld_rules(rules)))


def classify_kept(cards: tuple[Card, ...], rules: RuleSet) -> Meld | None:
    """:func:`classify`, but the very ``Meld`` the cache keeps: to read and drop, never to put in
    a state or hand out (so that no one can force a change on it)."""
    return _classify(cards, *_meld_rules(rules))


def _own(kept: Meld | None) -> Meld | None:
    """A copy of the cache's ``kept`` meld. The cache is shared by every table, and a frozen
    object can still be forced to change: a meld in a state is that state's alone."""
    if kept is None:
        return None
    return Meld(
        kept.cards, kept.kind, kept.wildcard, kept.suit, kept.rank, kept.naturals, kept.multiset
    )

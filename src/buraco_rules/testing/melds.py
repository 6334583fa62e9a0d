"""Hypothesis strategies for cards, hands and melds: any card, hands that one deck can hold, the
melds a rule set allows (read from the run geometry, :mod:`buraco_rules.melds.geometry`) and cards
that form none, with why."""

from __future__ import annotations

from typing import Final

import attrs
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..core.cards import DECK, JOKER, Card, all_cards
from ..core.errors import ErrorCode
from ..core.rules import RuleSet
from ..melds.geometry import ACE_HIGH, ACE_LOW, MIN_RUN, card_at, wildcard_floats
from ..melds.meld import Meld, MeldKind
from .arguments import check_rules, check_size

__all__ = ["InvalidMeld", "cards", "hands", "invalid_melds", "valid_melds"]

_CARDS: Final = all_cards()
_WILDCARDS: Final = (JOKER, *(_CARDS[suit * 13 + 1] for suit in range(4)))
"""The joker and the four 2s (R7)."""


@attrs.frozen(kw_only=True)
class InvalidMeld:
    """Cards that form no meld under a rule set, with why (from :func:`invalid_melds`)."""

    cards: tuple[Card, ...]
    """The cards, in id order."""
    reason: str
    """Why they form no meld, in words (``"two wildcards"``, ``"a gap in the run"``...)."""
    code: ErrorCode
    """The code ``apply`` gives for laying these cards as a new meld from the hand:
    ``too-many-wildcards`` or ``invalid-meld``."""


def cards() -> st.SearchStrategy[Card]:
    """Any of the 53 distinct cards, shrinking towards the ace of clubs."""
    return st.sampled_from(_CARDS)


def hands(*, min_size: int = 0, max_size: int = 22) -> st.SearchStrategy[tuple[Card, ...]]:
    """Sorted tuples of cards that one 108-card deck can hold (no suited card more than twice, no
    more than four jokers), of ``min_size`` to ``max_size`` cards (at most 108)."""
    check_size("max_size", max_size, 0, len(DECK))
    check_size("min_size", min_size, 0, max_size)
    positions = st.lists(
        st.integers(min_value=0, max_value=len(DECK) - 1),
        unique=True,
        min_size=min_size,
        max_size=max_size,
    )
    return positions.map(lambda picks: tuple(sorted(DECK[i] for i in picks)))


def _card_at(suit: int, position: int) -> Card:
    """The card of ``suit`` that fills run position 1-14 (1 and 14 are the ace)."""
    return _CARDS[card_at(suit, position)]


@st.composite
def _runs(draw: st.DrawFn, rules: RuleSet) -> tuple[Card, ...]:
    suit = draw(st.integers(min_value=0, max_value=3), label="suit")
    # By the run geometry (positions): from ace to ace, three cards at least, two aces only
    # where the rules allow them (R5, R6).
    low = draw(
        st.integers(min_value=ACE_LOW, max_value=ACE_HIGH - MIN_RUN + 1), label="first position"
    )
    two_aces = rules.max_natural_aces_in_run == 2 or low > ACE_LOW
    high_limit = ACE_HIGH if two_aces and not rules.ace_low_only else ACE_HIGH - 1
    high = draw(
        st.integers(min_value=low + MIN_RUN - 1, max_value=high_limit), label="last position"
    )
    naturals = [_card_at(suit, p) for p in range(low, high + 1)]
    wildcard = draw(st.sampled_from([None, *_WILDCARDS]), label="wildcard")
    if wildcard is None:
        return tuple(sorted(naturals))
    where = draw(st.integers(min_value=0, max_value=len(naturals) - 1), label="wildcard place")
    if len(naturals) > 3 and 0 < where < len(naturals) - 1:
        naturals[where] = wildcard  # stands in a gap
    elif wildcard_floats(len(naturals)):
        naturals.append(wildcard)  # floats at an end (R8)
    return tuple(sorted(naturals))


@st.composite
def _sets(draw: st.DrawFn, rules: RuleSet) -> tuple[Card, ...]:
    rank = draw(st.sampled_from([0, *range(2, 13)]), label="rank")  # no sets of 2s (R7)
    copies = [_CARDS[suit * 13 + rank] for suit in range(4)] * 2
    wildcard = draw(st.sampled_from([None, *_WILDCARDS]), label="wildcard")
    room = min(len(copies), rules.max_set_size - (wildcard is not None))
    least = 3 - (wildcard is not None)
    picks = draw(
        st.lists(
            st.integers(min_value=0, max_value=len(copies) - 1),
            unique=True,
            min_size=least,
            max_size=max(least, room),
        ),
        label="naturals",
    )
    chosen = [copies[i] for i in picks]
    if wildcard is not None:
        chosen.append(wildcard)
    return tuple(sorted(chosen))


def _meld_of(rules: RuleSet, kind: MeldKind | None) -> st.SearchStrategy[Meld]:
    def lay(cards: tuple[Card, ...]) -> Meld | None:
        meld = Meld.from_cards(cards, rules)
        return meld if meld is not None and (kind is None or meld.kind is kind) else None

    shapes: list[st.SearchStrategy[tuple[Card, ...]]] = []
    if kind is not MeldKind.SET:
        shapes.append(_runs(rules))
    if kind is not MeldKind.RUN and rules.sets_allowed:
        shapes.append(_sets(rules))
    return st.one_of(shapes).map(lay).filter(lambda meld: meld is not None)  # type: ignore[return-value]


def valid_melds(rules: RuleSet, *, kind: MeldKind | None = None) -> st.SearchStrategy[Meld]:
    """Melds that ``rules`` allow (R5-R9): runs of 3 to 14 cards, clean or with a wildcard in a
    gap or at an end, and, where the rules allow sets, sets; only runs or only sets with
    ``kind``. Each is laid as the engine lays it (``Meld.from_cards``)."""
    check_rules(rules)
    if kind is not None and not isinstance(kind, MeldKind):
        raise InvalidArgument(f"kind must be a MeldKind or None, not {kind!r}")
    if kind is MeldKind.SET and not rules.sets_allowed:
        raise InvalidArgument(f"{rules.title} has no sets (R5)")
    return _meld_of(rules, kind)


@st.composite
def _invalid_melds(draw: st.DrawFn, rules: RuleSet) -> InvalidMeld:
    suit = draw(st.integers(min_value=0, max_value=3), label="suit")
    low = draw(st.integers(min_value=3, max_value=10), label="first position")
    stretch = [_card_at(suit, p) for p in range(low, low + 4)]  # four naturals, no ace, no 2
    reasons = [
        "fewer than three cards",
        "two wildcards",
        "mixed suits",
        "a gap in the run",
        "a card twice in a run",
    ]
    if not rules.sets_allowed:
        reasons.append("sets are not allowed")
    if rules.max_natural_aces_in_run == 1:
        reasons.append("two natural aces")
    if rules.sets_allowed and rules.max_set_size < 8:
        reasons.append("a set too large")
    reason = draw(st.sampled_from(reasons), label="reason")
    code = ErrorCode.INVALID_MELD
    if reason == "fewer than three cards":
        size = draw(st.integers(min_value=1, max_value=2), label="size")
        chosen = stretch[:size]
    elif reason == "two wildcards":
        # Two jokers: neither can stand as a natural 2, whatever the other cards (R7).
        chosen = [*stretch[:2], JOKER, JOKER]
        code = ErrorCode.TOO_MANY_WILDCARDS
    elif reason == "mixed suits":
        other = draw(st.sampled_from([s for s in range(4) if s != suit]), label="other suit")
        chosen = [*stretch[:2], _card_at(other, low + 2)]
    elif reason == "a gap in the run":
        chosen = [stretch[0], stretch[1], stretch[3]]
        if draw(st.booleans(), label="gap at the start"):
            chosen = [stretch[0], stretch[2], stretch[3]]
    elif reason == "a card twice in a run":
        chosen = [stretch[0], stretch[0], stretch[1], stretch[2]]
    elif reason == "sets are not allowed":
        rank = draw(st.sampled_from([0, *range(2, 13)]), label="rank")
        chosen = [_CARDS[s * 13 + rank] for s in range(3)]
    elif reason == "two natural aces":
        chosen = [_card_at(suit, p) for p in range(1, 15)]  # A 2 3 ... K A
    else:  # a set too large
        rank = draw(st.sampled_from([0, *range(2, 13)]), label="rank")
        chosen = ([_CARDS[s * 13 + rank] for s in range(4)] * 2)[: rules.max_set_size + 1]
    return InvalidMeld(cards=tuple(sorted(chosen)), reason=reason, code=code)


def invalid_melds(rules: RuleSet) -> st.SearchStrategy[InvalidMeld]:
    """Cards that form no meld under ``rules``, each an :class:`InvalidMeld` that says why
    (``reason``) and which code ``apply`` gives for laying them (``code``)."""
    check_rules(rules)
    return _invalid_melds(rules)

"""A seat's view as a fixed-length vector of ``float32`` in [0, 1], for a policy network.

Needs numpy (``pip install 'buraco-rules[rl]'``). :func:`encode` reads a
:class:`~buraco_rules.PlayerView` and the tokens of the action being spelt (the prefix,
:mod:`buraco_rules.rl.encoding`) and nothing else, so nothing hidden can reach it. Seats and teams
are relative to the observer: seat 0 of the vector is the observer, 1 the next to play after it;
team 0 is the observer's team. Card counts are divided by the copies of the card in the deck (2,
or 4 for the joker), sizes of hands and piles by the 108 cards of the deck, and public points
squashed by ``p / (p + 1000)``. :data:`LAYOUT` names every slice:

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.ITALIAN, 2, seed=1)
>>> vector = encode(br.view(state, 0))
>>> vector.shape == (OBSERVATION_SIZE,), str(vector.dtype)
(True, 'float32')
>>> float(vector[LAYOUT["hand"].slice].sum() * 2)  # eleven suited cards, none twice
11.0
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from operator import add
from types import MappingProxyType
from typing import Final, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from ..core.cards import DECK, JOKER
from ..core.rules import DECK_SIZE, RuleSet
from ..engine.scoring import table_points
from ..engine.state import TEAM, Phase
from ..hidden.views import PlayerView
from ..melds.geometry import highest, interval, lowest
from ..melds.meld import POSITION_BITS, Meld, MeldKind
from .encoding import NUM_SLOTS, NUM_TOKENS, _as_tokens

__all__ = [
    "LAYOUT",
    "MELD_FEATURES",
    "OBSERVATION_SIZE",
    "OTHER_SLOTS",
    "OWN_SLOTS",
    "POINTS_SCALE",
    "Field",
    "encode",
    "with_prefix",
]


class Field(NamedTuple):
    """One slice of the observation: where it lies and what it holds."""

    start: int
    stop: int
    doc: str

    @property
    def slice(self) -> slice:
        """The slice of the vector this field fills."""
        return slice(self.start, self.stop)


POINTS_SCALE: Final = 1000.0
"""Public points ``p`` are written ``p / (p + POINTS_SCALE)``."""
OWN_SLOTS: Final = 16
"""Melds of the observer's team described slot by slot (the slots ``ADD`` tokens name); greedy
play leaves at most 14 on a team's table, and the cards of any further ones still count in
``table_cards``."""
OTHER_SLOTS: Final = 10
"""Melds of the other team described slot by slot."""
MELD_FEATURES: Final = 31
"""Numbers per meld slot, structural rather than card by card: run, set (both 0 for an empty
slot); the run's suit (4, one-hot); the run positions 1-14 its natural cards fill (a set: its
rank's); the low and high ends of the span its natural cards hold (÷ 14); where the wildcard
stands (its position in a gap ÷ 14, or a flag: it floats at an end of a run, R8); what it is (a
joker, a 2); the size ÷ 14; canasta; clean, mixed, semi-clean (R9, R22)."""
_FLAGS: Final = (
    "discard_pile_starts_face_up",
    "sets_allowed",
    "closed_discard_pile",
    "single_taken_card_discard_banned",
    "going_out_needs_clean_canasta",
    "may_go_out_by_melding",
    "may_go_out_discarding_wildcard",
    "extra_pile_becomes_stock",
    "untouched_extra_pile_is_void",
)

_FIELDS: Final = (
    ("hand", 53, "own hand: count of each card face ÷ its copies"),
    ("discard_pile", 53, "the visible discard pile (all of an open one, the top of a closed one)"),
    ("discard_top", 53, "the top card of the discard pile, one-hot (all zero if it is empty)"),
    ("table_cards", 53, "every card in a meld on the table, both teams: count ÷ copies"),
    (
        "own_melds",
        OWN_SLOTS * MELD_FEATURES,
        f"the observer's team's melds by slot 0-{OWN_SLOTS - 1}, {MELD_FEATURES} numbers each "
        "(MELD_FEATURES)",
    ),
    (
        "other_melds",
        OTHER_SLOTS * MELD_FEATURES,
        f"the other team's melds by slot 0-{OTHER_SLOTS - 1}, {MELD_FEATURES} numbers each",
    ),
    ("more_melds", 2, "by relative team: melds beyond the slots described, ÷ 36"),
    ("hand_sizes", 4, "cards in each hand ÷ 108, by relative seat (seats 2-3 zero with 2 players)"),
    ("stock_size", 1, "cards in the stock ÷ 108"),
    ("discard_pile_size", 1, "cards in the discard pile ÷ 108, seen or not"),
    (
        "extra_piles",
        8,
        "by relative team: extra pile set aside, taken, turned into the stock (R15), taken by "
        "discarding and still untouched (R19)",
    ),
    ("extra_pile_sizes", 2, "by relative team: cards in the extra pile set aside ÷ 108"),
    ("phase", 3, "draw, play, over: one-hot"),
    ("to_act", 4, "the seat to act, one-hot by relative seat"),
    ("taken_single_card", 1, "a single card was just taken from an open pile (R11)"),
    ("went_out", 2, "the relative team that went out, one-hot"),
    ("public_points", 2, "by relative team, points on the table p, as p / (p + 1000)"),
    ("players", 2, "two or four players, one-hot"),
    ("rules", len(_FLAGS) + 1, "the rule set's flags (" + ", ".join(_FLAGS) + ", two aces)"),
    (
        "prefix",
        NUM_TOKENS,
        "the tokens of the action being spelt: kinds and slots 1 if present, cards by count ÷ "
        "copies",
    ),
)


def _layout() -> tuple[Mapping[str, Field], int]:
    fields = {}
    at = 0
    for name, size, doc in _FIELDS:
        fields[name] = Field(at, at + size, doc)
        at += size
    return MappingProxyType(fields), at


LAYOUT, OBSERVATION_SIZE = _layout()
"""``LAYOUT``: every slice of the vector by name (a :class:`Field`, in order, covering it all);
``OBSERVATION_SIZE``: the vector's length."""

_COPIES: Final = np.array([DECK.count(c) for c in sorted(set(DECK))], dtype=np.float32)
_INVERSE_COPIES: Final = 1.0 / _COPIES
_PREFIX_SCALE: Final = np.concatenate(
    [np.ones(NUM_TOKENS - len(_COPIES), dtype=np.float32), _INVERSE_COPIES]
)
_S = {name: field.start for name, field in LAYOUT.items()}
_PHASE: Final = {Phase.DRAW: 0, Phase.PLAY: 1, Phase.OVER: 2}
_CARD_FIELDS: Final = slice(LAYOUT["hand"].start, LAYOUT["discard_top"].stop)
"""The ``hand``, ``discard_pile`` and ``discard_top`` fields, 53 numbers each and contiguous."""
_TABLE_AND_MELDS: Final = slice(LAYOUT["table_cards"].start, LAYOUT["other_melds"].stop)
_SCALARS: Final = slice(LAYOUT["more_melds"].start, LAYOUT["rules"].stop)
"""The fields from ``more_melds`` to ``rules``, contiguous: written at once (:func:`_scalars`)."""
_PREFIX: Final = LAYOUT["prefix"].slice
_T = TypeVar("_T")
_JOKER_ID: Final = int(JOKER)


_CARD_STEP: Final = tuple(float(x) for x in _INVERSE_COPIES)
"""By card id: what one copy adds to its count (1 ÷ the card's copies in the deck)."""
_NO_CARDS: Final = array("f", bytes(4 * (_CARD_FIELDS.stop - _CARD_FIELDS.start)))
_NO_PREFIX: Final = array("f", bytes(4 * NUM_TOKENS))


@lru_cache(maxsize=1 << 13)
def _meld_floats(meld: Meld) -> bytes:
    """The :data:`MELD_FEATURES` numbers of one meld, as the bytes of ``float32`` numbers (melds
    recur from state to state, so they are worked out once)."""
    out = np.zeros(MELD_FEATURES, dtype=np.float32)
    wildcard = meld.wildcard
    if meld.kind is MeldKind.RUN:
        out[0] = 1.0
        if meld.suit is not None:
            out[2 + int(meld.suit)] = 1.0
        naturals = meld.naturals
    else:
        out[1] = 1.0
        naturals = _set_positions(meld)
    out[6:20] = [(naturals >> (p + 1)) & 1 for p in range(14)]  # positions 1-14
    if naturals:
        low, high = lowest(naturals), highest(naturals)
        gap = 0
        if wildcard is not None and meld.kind is MeldKind.RUN:
            holes = interval(low, high) & ~naturals
            gap = lowest(holes) if holes else 0
        out[20], out[21] = low / 14.0, high / 14.0
        if wildcard is not None:
            out[22] = gap / 14.0 if gap else 0.0
            out[23] = meld.kind is MeldKind.RUN and not gap
    if wildcard is not None:
        out[24] = int(wildcard) == _JOKER_ID
        out[25] = int(wildcard) != _JOKER_ID
    out[26] = min(len(meld.cards), 14) / 14.0
    out[27] = meld.is_canasta
    semi = meld.is_semi_clean
    out[28] = wildcard is None
    out[29] = wildcard is not None and not semi
    out[30] = semi
    return out.tobytes()


def _set_positions(meld: Meld) -> int:
    """The run positions of a set's rank (an ace both ends)."""
    natural = next((c for c in meld.cards if c != meld.wildcard), None)
    return 0 if natural is None else POSITION_BITS[int(natural)]


def encode(view: PlayerView, prefix: Sequence[int] = ()) -> npt.NDArray[np.float32]:
    """The observation of ``view`` while the tokens ``prefix`` are spelt (see :data:`LAYOUT`).

    A function of the view and the prefix alone: re-dealing the cards the seat cannot see changes
    nothing. A prefix that is no token sequence is a
    :class:`~buraco_rules.rl.encoding.TokenError`.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(f"encode needs a PlayerView, not {type(view).__name__}")
    tokens = () if type(prefix) is tuple and not prefix else _as_tokens(prefix, "prefix")
    me = view.seat
    my_team = TEAM[me]
    melds = view.melds
    mine, theirs = melds[my_team], melds[1 - my_team]
    # Every slice is written (no zero-filled allocation to overwrite), through a memoryview of
    # float32: the hand and the pile change at nearly every decision, but a few cards each, and a
    # Python write to a memoryview costs a small part of a numpy call (in an RL loop, whose
    # engine work between two encodings evicts numpy's call path from the CPU's caches, a numpy
    # call costs several times what it does in a tight loop). A team's melds, a tuple shared from
    # state to state until a meld changes, are encoded once per tuple (_shared).
    out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    floats = out.data.cast("B").cast("f")
    floats[_CARD_FIELDS] = _NO_CARDS
    step = _CARD_STEP
    hand_at, pile_at, top_at = _S["hand"], _S["discard_pile"], _S["discard_top"]
    for card in view.hand:
        floats[hand_at + card] += step[card]
    pile = view.discard_pile
    for card in pile:
        floats[pile_at + card] += step[card]
    if pile:
        floats[top_at + pile[-1]] = 1.0
    floats[_TABLE_AND_MELDS] = _table_and_melds(mine, theirs)
    floats[_SCALARS] = array("f", _scalars(view, me, my_team, mine, theirs))
    floats[_PREFIX] = _NO_PREFIX
    if tokens:
        _write_prefix(out, tokens)
    return out


def _scalars(
    view: PlayerView, me: int, my_team: int, mine: tuple[Meld, ...], theirs: tuple[Meld, ...]
) -> list[float]:
    """The fields from ``more_melds`` to ``rules``, in order, as Python floats: one assignment
    to the vector converts them all to float32 as writing them one by one would."""
    players = view.players
    rules = view.rules
    hand_sizes = [0.0, 0.0, 0.0, 0.0]
    for seat, size in enumerate(view.hand_sizes):
        hand_sizes[(seat - me) % players] = size / DECK_SIZE
    extra_piles: list[float] = []
    extra_pile_sizes = [0.0, 0.0]
    sizes = view.extra_pile_sizes
    taken = view.extra_pile_taken
    became_stock = view.extra_pile_became_stock
    untouched = view.untouched_extra_pile
    for relative in (0, 1):
        team = my_team ^ relative  # relative 0 is the observer's team, 1 the other
        extra = sizes[team]
        extra_piles += (
            extra is not None,
            taken[team],
            became_stock[team],
            untouched[team] is not None,
        )
        if extra is not None:
            extra_pile_sizes[relative] = extra / DECK_SIZE
    phase = [0.0, 0.0, 0.0]
    phase[_PHASE[view.phase]] = 1.0
    to_act = [0.0, 0.0, 0.0, 0.0]
    to_act[(view.current_player - me) % players] = 1.0
    went_out = [0.0, 0.0]
    if view.went_out is not None:
        went_out[view.went_out ^ my_team] = 1.0
    p = _points(mine, rules)
    q = _points(theirs, rules)
    return [
        max(0, len(mine) - OWN_SLOTS) / NUM_SLOTS,
        max(0, len(theirs) - OTHER_SLOTS) / NUM_SLOTS,
        *hand_sizes,
        view.stock_size / DECK_SIZE,
        view.discard_pile_size / DECK_SIZE,
        *extra_piles,
        *extra_pile_sizes,
        *phase,
        *to_act,
        view.taken_single_card is not None,
        *went_out,
        p / (p + POINTS_SCALE),
        q / (q + POINTS_SCALE),
        *((1.0, 0.0) if players == 2 else (0.0, 1.0)),
        *_rule_flags(rules),
    ]


def _team_block(melds: tuple[Meld, ...], slots: int) -> tuple[bytes, tuple[float, ...]]:
    """One team's first ``slots`` melds, :data:`MELD_FEATURES` numbers each (the bytes of
    ``float32`` numbers), and the counts of all its melded cards ÷ copies (53)."""
    shown = melds[:slots]
    empty = bytes(4 * MELD_FEATURES * (slots - len(shown)))
    counts = [0.0] * 53
    step = _CARD_STEP
    for meld in melds:
        for card in meld.cards:
            counts[card] += step[card]
    return b"".join([*map(_meld_floats, shown), empty]), tuple(counts)


def _own_block(melds: tuple[Meld, ...]) -> tuple[bytes, tuple[float, ...]]:
    return _team_block(melds, OWN_SLOTS)


def _other_block(melds: tuple[Meld, ...]) -> tuple[bytes, tuple[float, ...]]:
    return _team_block(melds, OTHER_SLOTS)


_RULE_FLAGS_CACHE_SIZE: Final = 64
_rules_seen: dict[int, tuple[RuleSet, tuple[float, ...]]] = {}


def _rule_flags(rules: RuleSet) -> tuple[float, ...]:
    """The ``rules`` field, kept by the identity of the rule set (held by the entry)."""
    entry = _rules_seen.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    flags = [float(getattr(rules, name)) for name in _FLAGS]
    built = (*flags, float(rules.max_natural_aces_in_run == 2))
    if len(_rules_seen) >= _RULE_FLAGS_CACHE_SIZE:
        _rules_seen.clear()
    _rules_seen[id(rules)] = (rules, built)
    return built


_SHARED_CACHE_SIZE: Final = 256
"""Entries of each of the caches below (one per kind of part, so a key is an id alone)."""
_Seen = dict[int, tuple[object, tuple[bytes, tuple[float, ...]]]]
_own_seen: _Seen = {}
_other_seen: _Seen = {}


def _shared(
    part: _T, seen: _Seen, build: Callable[[_T], tuple[bytes, tuple[float, ...]]]
) -> tuple[bytes, tuple[float, ...]]:
    """``build(part)``, kept in ``seen`` by the identity of ``part`` (an immutable tuple, held by
    the entry so that its id is not reused while the entry lives)."""
    entry = seen.get(id(part))
    if entry is not None and entry[0] is part:
        return entry[1]
    built = build(part)
    if len(seen) >= _SHARED_CACHE_SIZE:
        seen.clear()
    seen[id(part)] = (part, built)
    return built


_tables_seen: dict[tuple[int, int], tuple[object, object, memoryview[float]]] = {}


def _table_and_melds(mine: tuple[Meld, ...], theirs: tuple[Meld, ...]) -> memoryview[float]:
    """The ``table_cards``, ``own_melds`` and ``other_melds`` fields (contiguous), as a
    read-only memoryview of ``float32`` numbers, kept by the identities of the two teams' melds
    (held by the entry)."""
    key = (id(mine), id(theirs))
    entry = _tables_seen.get(key)
    if entry is not None and entry[0] is mine and entry[1] is theirs:
        return entry[2]
    own_slots, own_counts = _shared(mine, _own_seen, _own_block)
    other_slots, other_counts = _shared(theirs, _other_seen, _other_block)
    table_cards = array("f", map(add, own_counts, other_counts)).tobytes()
    built = memoryview(b"".join((table_cards, own_slots, other_slots))).cast("f")
    if len(_tables_seen) >= _SHARED_CACHE_SIZE:
        _tables_seen.clear()
    _tables_seen[key] = (mine, theirs, built)
    return built


def _clear_caches() -> None:
    """Empty the encoder's caches (blocks kept by the identity of a team's melds
    or a rule set; meld numbers; public points): for a benchmark that must start cold. No
    observation changes, only the time the next ones take."""
    for cache in (
        _own_seen,
        _other_seen,
        _rules_seen,
        _tables_seen,
        _points_seen,
        _meld_points_seen,
    ):
        cache.clear()
    _meld_floats.cache_clear()


def _write_prefix(out: npt.NDArray[np.float32], tokens: tuple[int, ...]) -> None:
    at = _S["prefix"]
    for token in tokens:  # a prefix is a few tokens: element by element beats a bincount
        out[at + token] = min(1.0, float(out[at + token]) + _PREFIX_STEP[token])


_PREFIX_STEP: Final = tuple(float(x) for x in _PREFIX_SCALE)
_POINTS_CACHE_SIZE: Final = 256
_points_seen: dict[int, tuple[tuple[Meld, ...], RuleSet, int]] = {}


def _points(melds: tuple[Meld, ...], rules: RuleSet) -> int:
    """The points on the table of one team's ``melds`` (``PlayerView.public_points``), kept by
    the identity of the tuple: a team's melds are one tuple shared by every state until a meld
    changes."""
    entry = _points_seen.get(id(melds))
    if entry is not None and entry[0] is melds and entry[1] is rules:
        return entry[2]
    points = sum([_meld_points(meld, rules) for meld in melds])
    if len(_points_seen) >= _POINTS_CACHE_SIZE:
        _points_seen.clear()
    _points_seen[id(melds)] = (melds, rules, points)
    return points


_MELD_POINTS_CACHE_SIZE: Final = 1024
_meld_points_seen: dict[int, tuple[Meld, RuleSet, int]] = {}


def _meld_points(meld: Meld, rules: RuleSet) -> int:
    """The points on the table of one meld (``table_points`` of it alone), kept by the identity
    of the meld: when a team's melds change, most of its melds are the same objects as before."""
    entry = _meld_points_seen.get(id(meld))
    if entry is not None and entry[0] is meld and entry[1] is rules:
        return entry[2]
    points = sum(table_points((meld,), rules))
    if len(_meld_points_seen) >= _MELD_POINTS_CACHE_SIZE:
        _meld_points_seen.clear()
    _meld_points_seen[id(meld)] = (meld, rules, points)
    return points


def with_prefix(
    observation: npt.NDArray[np.float32], prefix: Sequence[int]
) -> npt.NDArray[np.float32]:
    """A copy of ``observation`` (one of :func:`encode`) with its prefix slice set to ``prefix``:
    ``with_prefix(encode(view), prefix)`` equals ``encode(view, prefix)``, at the cost of a copy
    (an adapter keeps the view's observation while its seat spells an action)."""
    tokens = prefix if type(prefix) is tuple and all(type(t) is int for t in prefix) else ()
    if len(tokens) != len(prefix) or not all(0 <= t < NUM_TOKENS for t in tokens):
        tokens = _as_tokens(prefix, "prefix")
    out = observation.copy()
    out[LAYOUT["prefix"].slice] = 0.0
    if tokens:
        _write_prefix(out, tokens)
    return out

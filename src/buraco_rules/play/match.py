"""Match play (R20): a series of hands until a team reaches the rules' target.

A :class:`Match` is a frozen record like a hand's state, and the one reducer advances it:
``br.apply(match, action)`` plays the action in the hand in play and, when that ends the hand,
records its scores and deals the next hand at once, unless the match is decided.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> match = br.new_match(variants.ITALIAN, 2, seed=7)
>>> match.hand.current_player, match.totals, match.winner
(0, (0, 0), None)
>>> match = br.apply(match, br.legal_actions(match)[0])
>>> match.hand.phase
<Phase.PLAY: 'play'>

Determinism: hand ``k`` (0 for the first) of a match with seed ``s`` is ``br.new_game(rules,
players, seed=Match.hand_seed(s, k), first_player=(first_player + k) % players)``, where
:meth:`Match.hand_seed` is the first 8 bytes, big-endian, of the SHA-256 digest of the text
``"buraco-rules match <s> hand <k>"``. So a match is its seed and its actions, on any machine and
any Python version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final, Generic, NoReturn, TypeVar, overload

import attrs

from ..core.cards import Card
from ..core.decks import check_deck
from ..core.limits import MAX_MATCH_HANDS
from ..core.quoting import describe
from ..core.rules import RuleSet
from ..engine import reducer
from ..engine.scoring import TeamScore, score
from ..engine.state import GameState

__all__ = ["History", "Match", "new_match"]

T = TypeVar("T")

MAX_SEED: Final = 2**256
"""The largest seed (in size) a match takes: the largest number a document holds
(:mod:`buraco_rules.formats.codec`), so that a match's document always reads back."""


class History(Sequence[T], Generic[T]):
    """An immutable sequence that equals the tuple of its items and shares all but its last item
    with the history it extends: :meth:`append` costs O(1), so a match with thousands of hands
    neither copies its finished hands at each new one nor keeps a copy per state of a replay.

    It reads like a tuple (``len``, indexing, slicing, iteration, ``==`` and ``hash`` as the
    tuple of its items), and is one (with ``tuple(history)``) where a tuple is needed.
    Prefixes are shared: ``history[:k]`` is the very history that had ``k`` items. Indexing
    walks back from the last item, so ``history[-1]`` is O(1) and ``history[0]`` O(len).

    >>> h = History(("a", "b")).append("c")
    >>> h == ("a", "b", "c"), h[-1], len(h), h[:2] == ("a", "b")
    (True, 'c', 3, True)
    """

    __slots__ = ("_before", "_item", "_length")
    _before: History[T] | None
    _item: T
    _length: int

    def __init__(self, items: Iterable[T] = ()) -> None:
        before: History[T] | None = None
        last: Any = None
        length = 0
        for item in items:
            if length:
                before = _node(before, last, length)
            last, length = item, length + 1
        _set = object.__setattr__
        _set(self, "_before", before)
        _set(self, "_item", last)
        _set(self, "_length", length)

    def append(self, item: T) -> History[T]:
        """This history with ``item`` after its last: a new history; this one does not change."""
        return _node(self if self._length else None, item, self._length + 1)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"a History is immutable: {name} cannot be set")

    def __len__(self) -> int:
        return self._length

    def _node_at(self, index: int) -> History[T]:
        """The history whose last item is item ``index`` (0 <= index < len)."""
        node: History[T] = self
        for _ in range(self._length - 1 - index):
            node = node._before  # type: ignore[assignment]  # never None above index 0
        return node

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> History[T]: ...
    def __getitem__(self, index: int | slice) -> T | History[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if start == 0 and step == 1:  # a prefix: shared, not copied
                return self._node_at(stop - 1) if stop > 0 else History()
            return History(tuple(self)[index])
        if type(index) is not int:
            index = index.__index__()
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("History index out of range")
        return self._node_at(index)._item

    def __iter__(self) -> Iterator[T]:
        return iter(tuple(reversed(self))[::-1])

    def __reversed__(self) -> Iterator[T]:
        node: History[T] | None = self if self._length else None
        while node is not None:
            yield node._item
            node = node._before

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            if self._length != other._length:
                return False
            a: History[Any] | None = self if self._length else None
            b: History[Any] | None = other if other._length else None
            while a is not None and b is not None:
                if a is b:  # a shared prefix: equal from here down
                    return True
                if a._item != b._item:
                    return False
                a, b = a._before, b._before
            return True
        if isinstance(other, tuple):
            return self._length == len(other) and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))  # equal to a tuple, so hashed as one

    def __add__(self, other: Iterable[T]) -> History[T]:
        history = self
        for item in other:
            history = history.append(item)
        return history

    def __repr__(self) -> str:
        return f"History({tuple(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[tuple[T, ...]]]:
        # Flat, so that pickling a long history does not recurse once per item.
        return (History, (tuple(self),))


def _node(before: History[T] | None, item: T, length: int) -> History[T]:
    node: History[T] = History.__new__(History)
    _set = object.__setattr__
    _set(node, "_before", before)
    _set(node, "_item", item)
    _set(node, "_length", length)
    return node


def _hands(values: Iterable[GameState]) -> History[GameState]:
    return values if type(values) is History else History(values)


def _score_pairs(
    values: Iterable[tuple[TeamScore, TeamScore]],
) -> History[tuple[TeamScore, TeamScore]]:
    return values if type(values) is History else History(values)


@attrs.frozen(kw_only=True)
class Match:
    """A match in progress or decided (R20). Start one with :func:`new_match`."""

    rules: RuleSet
    players: int
    first_player: int
    """The seat that starts the first hand; hand ``k`` starts with ``(first_player + k) %
    players`` (R20)."""
    seed: int | None
    """The seed every hand's deck is derived from (:meth:`hand_seed`), or None with ``decks``."""
    decks: tuple[tuple[Card, ...], ...] | None
    """Explicit decks in deal order, hand ``k`` dealt from ``decks[k % len(decks)]``; or None."""
    hand: GameState
    """The hand in play; once the match is over, its last hand (which is over too)."""
    finished_hands: History[GameState] = attrs.field(factory=History, converter=_hands)
    """The last state of every finished hand, in order (given as any sequence, kept as a
    :class:`History`, which equals the tuple of its items). Each new match gets its own
    (empty) history: no object is shared between matches that were not played from one."""
    scores: History[tuple[TeamScore, TeamScore]] = attrs.field(
        factory=History, converter=_score_pairs
    )
    """Each finished hand's scores (:func:`buraco_rules.score` of its last state), in order (a
    :class:`History` too)."""
    _totals: tuple[int, int] | None = attrs.field(
        default=None, init=False, eq=False, repr=False, hash=False
    )
    """The sum of ``scores`` by team, kept once known: :func:`apply_to_match` carries it from a
    match to the next and adds each new hand's scores, instead of summing them all again."""

    def __attrs_post_init__(self) -> None:
        # Cheap consistency checks: a Match built by hand must not break apply later.
        if not isinstance(self.rules, RuleSet) or not isinstance(self.hand, GameState):
            raise ValueError("a match needs a RuleSet and a GameState; start one with new_match")
        hand = self.hand
        if (hand.rules is not self.rules and not _same_match_rules(hand.rules, self.rules)) or (
            hand.players != self.players
        ):
            raise ValueError("the hand in play must be dealt under the match's rules and players")
        if (self.seed is None) == (not self.decks):
            raise ValueError("a match has either a seed or a non-empty tuple of decks")
        if len(self.scores) != len(self.finished_hands):
            raise ValueError("a match needs one pair of scores per finished hand")
        if len(self.scores) > MAX_MATCH_HANDS:
            raise ValueError(f"a match has at most {MAX_MATCH_HANDS} hands (R20)")

    @staticmethod
    def hand_seed(seed: int, k: int) -> int:
        """The seed of hand ``k`` (from 0) of a match with ``seed``: derived from the two alone.

        >>> Match.hand_seed(7, 0) == Match.hand_seed(7, 0) != Match.hand_seed(7, 1)
        True
        """
        digest = hashlib.sha256(f"buraco-rules match {seed} hand {k}".encode()).digest()
        return int.from_bytes(digest[:8], "big")

    @property
    def totals(self) -> tuple[int, int]:
        """Each team's total: the sum of its scores over the finished hands (R16, R20)."""
        totals = self._totals
        if totals is None:
            totals = (
                sum(pair[0].total for pair in self.scores),
                sum(pair[1].total for pair in self.scores),
            )
            object.__setattr__(self, "_totals", totals)  # a cache: not part of the value
        return totals

    @property
    def winner(self) -> int | None:
        """The team that won the match, or None while it goes on (R20): once a team's total has
        reached the target after a hand, the higher total wins; equal totals play another hand.
        After the last hand a match may have (:data:`~buraco_rules.core.limits.MAX_MATCH_HANDS`) the
        higher total wins whatever the target, and equal totals leave the match drawn (None)."""
        return winner_of(self.rules, self.totals, len(self.scores))

    @property
    def is_over(self) -> bool:
        """True once the match has a winner, or has played its last hand (R20)."""
        return len(self.scores) >= MAX_MATCH_HANDS or self.winner is not None


def hand_rules(rules: RuleSet, totals: tuple[int, int]) -> RuleSet:
    """The rules of a match's next hand when the teams' totals are ``totals`` (R20): ``rules``
    themselves, or under a rising minimum opening (R30, ``RuleSet.opening_thresholds``) with each
    team's minimum in force (``RuleSet.team_minimum_openings``)."""
    steps = rules.opening_thresholds
    if not steps:
        return rules
    needs = []
    for total in totals:
        need = rules.minimum_opening
        for threshold, minimum in steps:
            if total >= threshold:
                need = minimum
        needs.append(need)
    return attrs.evolve(rules, team_minimum_openings=(needs[0], needs[1]))


def _same_match_rules(hand: RuleSet, match: RuleSet) -> bool:
    """``hand`` is ``match`` (a match's rules) with at most R30's minimums set for the hand."""
    if hand == match:
        return True
    return bool(match.opening_thresholds) and hand == attrs.evolve(
        match, team_minimum_openings=hand.team_minimum_openings
    )


def winner_of(rules: RuleSet, totals: tuple[int, int], hands: int) -> int | None:
    """The team that has won a match with ``totals`` after ``hands`` finished hands, or None
    (R20): once a team's total has reached the target, the higher total wins; equal totals play
    another hand. After :data:`~buraco_rules.core.limits.MAX_MATCH_HANDS` hands the higher total
    wins whatever the target."""
    first, second = totals
    if first == second:
        return None
    if max(first, second) < rules.match_target and hands < MAX_MATCH_HANDS:
        return None
    return 0 if first > second else 1


def check_match(match: Match) -> None:
    """Raise ``ValueError`` unless ``match``'s hands make one match (R20), as :func:`new_match` and
    :func:`apply_to_match` build them: what the class's own cheap checks
    (``Match.__attrs_post_init__``) leave out, as too dear for every new hand. Every finished
    hand is over, of the match's rule set and player count, and scored as it is; the match was
    not decided before its last hand; the hand in play agrees with whether it is decided; the
    first seat is a seat and the decks are decks. (The states themselves are
    :func:`buraco_rules.validate`'s to check.)"""
    hands = match.finished_hands
    if any(h.players != match.players for h in hands):
        raise ValueError("the match's hands are not all of its rule set and player count")
    if not 0 <= match.first_player < match.players:
        raise ValueError(f"{match.rules.title} has no seat {match.first_player} of {match.players}")
    for deck in match.decks or ():
        try:
            check_deck(deck)
        except ValueError as error:
            raise ValueError(f"decks: {error}") from None
    totals = (0, 0)  # after the hands before hand k: added up once, not again for each k
    for k, (hand, pair) in enumerate(zip(hands, match.scores, strict=True)):
        if hand.rules != hand_rules(match.rules, totals):  # R30: the minimums of its totals
            raise ValueError("the match's hands are not all of its rule set and player count")
        if not hand.is_over or score(hand) != pair:
            raise ValueError(f"finished hand {k} is not over, or its scores are not its own")
        if k and winner_of(match.rules, totals, k) is not None:
            raise ValueError(f"the match was decided before hand {k} (R20)")
        totals = (totals[0] + pair[0].total, totals[1] + pair[1].total)
    if not match.is_over and match.hand.rules != hand_rules(match.rules, totals):
        raise ValueError("the hand in play is not dealt under the match's rules (R20, R30)")
    decided = match.hand.is_over and hands[-1:] == (match.hand,)
    if match.is_over != decided or (not match.is_over and match.hand.is_over):
        raise ValueError("the hand in play does not match whether the match is decided (R20)")


def new_match(
    rules: RuleSet,
    players: int | None = None,
    *,
    seed: int | None = None,
    decks: Sequence[Iterable[Card | str]] | None = None,
    first_player: int = 0,
) -> Match:
    """Start a match (R20) and deal its first hand.

    Give either ``seed``, an ``int`` from -2**256 to 2**256 (:data:`MAX_SEED`, so that the
    match's document reads back) from which each hand's deck is derived (see
    :meth:`Match.hand_seed`), or ``decks``, a non-empty sequence of explicit 108-card decks in the
    deal order of :func:`buraco_rules.new_game`, used in turn (the first for hand 0, and so on,
    starting again from the first when they run out). Bad arguments are a ``ValueError``, as for
    :func:`buraco_rules.new_game`.
    """
    if (seed is None) == (decks is None):
        raise ValueError("give exactly one of seed= (derived decks) or decks= (explicit decks)")
    if seed is not None and (type(seed) is not int or not -MAX_SEED <= seed <= MAX_SEED):
        # Bounded as documents bound their numbers: to_json writes the seed, from_json reads it.
        raise ValueError(f"seed must be an int from -2**256 to 2**256, not {describe(seed)}")
    explicit: tuple[tuple[Card, ...], ...] | None = None
    if decks is not None:
        kind = type(decks)  # by type: an instance's __class__ may lie or raise
        if issubclass(kind, str | bytes) or not issubclass(kind, Sequence):
            raise ValueError("decks must be a non-empty sequence of decks")
        try:
            decks = tuple(decks)
        except Exception:  # a sequence whose items raise their own error
            raise ValueError("decks must be a non-empty sequence of decks") from None
        if not decks:
            raise ValueError("decks must be a non-empty sequence of decks")
        if len(decks) > MAX_MATCH_HANDS:
            raise ValueError(
                f"decks holds {len(decks):,} decks, more than the {MAX_MATCH_HANDS} hands a match "
                "may have (R20)"
            )
        explicit = tuple(tuple(check_deck(deck)) for deck in decks)
    first = reducer.new_game(
        hand_rules(rules, (0, 0)) if isinstance(rules, RuleSet) else rules,
        players,
        seed=None if seed is None else Match.hand_seed(seed, 0),
        deck=None if explicit is None else explicit[0],
        first_player=first_player,
    )
    return Match(
        rules=rules,
        players=first.players,
        first_player=first_player,
        seed=seed,
        decks=explicit,
        hand=first,
    )


def _deal(match: Match, k: int) -> GameState:
    """Hand ``k`` of ``match`` (R20: the first player moves one seat each hand)."""
    first_player = (match.first_player + k) % match.players
    rules = hand_rules(match.rules, match.totals)  # R30: each team's minimum opening
    if match.seed is not None:
        seed = Match.hand_seed(match.seed, k)
        return reducer.new_game(rules, match.players, seed=seed, first_player=first_player)
    decks = match.decks or ()  # never empty: checked when the match was made
    deck = decks[k % len(decks)]
    return reducer.new_game(rules, match.players, deck=deck, first_player=first_player)


def apply_to_match(match: Match, action: object, player: object = None) -> Match:
    """``br.apply`` on a match: play ``action`` in the hand in play; when that ends the hand,
    record its scores and deal the next hand unless the match is decided. Raises only
    :class:`~buraco_rules.IllegalAction` (a decided match's last hand is over: ``game-over``)."""
    hand = reducer.apply(match.hand, action, player)
    totals = match.totals  # known already, but for the first action of a match built by hand
    if not hand.is_over:
        return _with_totals(attrs.evolve(match, hand=hand), totals)
    pair = score(hand)
    played = _with_totals(
        attrs.evolve(
            match,
            hand=hand,
            finished_hands=match.finished_hands.append(hand),
            scores=match.scores.append(pair),
        ),
        (totals[0] + pair[0].total, totals[1] + pair[1].total),
    )
    if played.is_over:
        return played
    following = attrs.evolve(played, hand=_deal(played, len(played.finished_hands)))
    return _with_totals(following, played.totals)


def _with_totals(match: Match, totals: tuple[int, int]) -> Match:
    object.__setattr__(match, "_totals", totals)
    return match

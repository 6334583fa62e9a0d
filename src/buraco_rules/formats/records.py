"""Game records and replay: a hand as its deal and its actions, checked action by action.

>>> import attrs
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> rules = variants.CANASTA_STBL
>>> start = br.new_game(rules, deck=br.arrange_deck(rules, stock="KH"))
>>> record = br.GameRecord.from_game(start, ["draw", "discard KH"], names=("Ana", "Bo"))
>>> states = br.replay(record)
>>> len(states), states[0] == start, states[-1].current_player
(3, True, 1)
>>> br.replay(attrs.evolve(record, actions=record.actions + (br.DrawFromStock(),) * 2))
Traceback (most recent call last):
...
buraco_rules.formats.errors.ReplayError: action 3 ('draw') is illegal: you have already drawn ...
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

from ..core.actions import Action
from ..core.cards import Card
from ..core.errors import IllegalAction
from ..core.limits import MAX_MATCH_HANDS, longest_hand
from ..core.quoting import describe
from ..core.rules import RuleSet
from ..engine.scoring import TeamScore, score
from ..engine.state import GameState, Phase
from ..play.face import apply, new_game
from ..play.match import History, Match, new_match
from .errors import InvalidRecord, NotationError, ReplayError
from .notation import format_action, parse_action

__all__ = [
    "MAX_META_ITEMS",
    "MAX_META_KEY_CHARS",
    "MAX_META_VALUE_CHARS",
    "MAX_NAME_CHARS",
    "GameRecord",
    "MatchRecord",
    "replay",
]

MAX_NAME_CHARS: Final = 100
"""The longest player's name a record keeps (longer is an :class:`InvalidRecord`)."""
MAX_META_ITEMS: Final = 16
"""The most entries of a record's ``meta``."""
MAX_META_KEY_CHARS: Final = 64
"""The longest key of a record's ``meta``."""
MAX_META_VALUE_CHARS: Final = 1000
"""The longest value of a record's ``meta``. With the other limits, a record's document has a
bounded size besides its actions, so that whatever ``to_json`` writes of a record that replays,
``from_json`` reads back."""


@attrs.frozen(kw_only=True)
class GameRecord:
    """One hand as it was played: its deal (``rules``, ``players``, ``deck`` in the deal order of
    :func:`~buraco_rules.new_game`, ``first_player``) and its ``actions``, with what else is worth
    keeping: the final ``scores`` (checked on replay), the players' ``names`` by seat and free
    ``meta`` data (strings to strings: a date, a table, an event).

    The fields are checked when the record is built (:class:`InvalidRecord`); cards and actions
    may be given in notation. Whether the actions are legal is :func:`replay`'s question. Make a
    record of a game played with :meth:`from_game`, and grow one move by move with
    :meth:`append`.
    """

    rules: RuleSet
    players: int
    deck: tuple[Card, ...]
    first_player: int = 0
    actions: History[Action] = attrs.field(factory=History)
    """The actions in the order played (given as any sequence, kept as a
    :class:`~buraco_rules.History`, which equals the tuple of its items and lets
    :meth:`append` share them)."""
    scores: tuple[TeamScore, TeamScore] | None = None
    """Each team's score at the end, as :func:`~buraco_rules.score` gives it; None if unknown."""
    names: tuple[str, ...] | None = None
    """The players' names, seat 0 first."""
    meta: Mapping[str, str] = attrs.field(factory=dict, hash=False)
    """Free-form information about the game (a read-only mapping once built)."""
    _last: GameState | None = attrs.field(
        default=None, init=False, eq=False, repr=False, hash=False
    )
    """The state after the last action, once known (:meth:`from_game` and :meth:`append` keep
    it), so that appending one more action costs one ``apply``, not a replay."""

    def __attrs_post_init__(self) -> None:
        set_field = object.__setattr__  # the fields are normalised once, here
        if not isinstance(self.rules, RuleSet):
            raise InvalidRecord(f"rules must be a RuleSet, not {describe(self.rules)}")
        try:
            first = new_game(
                self.rules, self.players, deck=self.deck, first_player=self.first_player
            )
        except ValueError as error:
            raise InvalidRecord(str(error)) from None
        set_field(self, "deck", _deal_order(first))
        if self.scores is not None and not _is_score_pair(self.scores):
            raise InvalidRecord(f"scores must be two TeamScores, not {describe(self.scores)}")
        _normalise(self)
        set_field(self, "actions", History(self.actions))

    @classmethod
    def from_game(
        cls,
        start: GameState,
        actions: Iterable[Action | str],
        *,
        names: Iterable[str] | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> GameRecord:
        """The record of the game played from ``start``, the first state of a hand as
        :func:`~buraco_rules.new_game` dealt it, by ``actions``. The actions are replayed: an
        illegal one is a :class:`ReplayError`; if they end the hand, the final scores are kept.
        """
        if type(start) is not GameState or not _is_fresh_deal(start):
            raise InvalidRecord(f"{describe(start)} is not the first state of a hand")
        record = cls(
            rules=start.rules,
            players=start.players,
            deck=_deal_order(start),
            first_player=start.current_player,
            actions=History(_actions(actions)),  # an InvalidRecord for no sequence of actions
            names=names,  # type: ignore[arg-type]  # checked on init (InvalidRecord)
            meta={} if meta is None else meta,
        )
        try:
            last = replay(record)[-1]
        except ReplayError:
            del start, record  # the traceback holds this frame: no state, no deck (see replay)
            raise
        if last.is_over:
            record = attrs.evolve(record, scores=score(last))
        object.__setattr__(record, "_last", last)  # a cache: not part of the value
        return record

    @property
    def initial_state(self) -> GameState:
        """The deal: the hand's first state, as :func:`~buraco_rules.new_game` deals it (a new
        object on each call, equal to ``replay(record)[0]``)."""
        return new_game(self.rules, self.players, deck=self.deck, first_player=self.first_player)

    def append(self, action: Action | str) -> GameRecord:
        """This record with ``action`` (an action, or its notation) played after its last: a
        new record, equal to :meth:`from_game` of the same actions (with the final scores once
        ``action`` ends the hand); this one does not change.

        An action that is illegal after the record's last one raises the
        :class:`~buraco_rules.IllegalAction` that :func:`~buraco_rules.apply` raises (text that
        is no action, a :class:`NotationError`), and a record that does not replay a
        :class:`ReplayError`. The state after the last action is kept with the record (replayed
        once, for a record decoded or built by hand), and the new record shares the actions of
        this one (a :class:`~buraco_rules.History`), so an append costs one ``apply`` and O(1)
        more, however long the hand: what a server that records its table after every move
        needs.
        """
        last = self._last
        if last is None:
            last = replay(self)[-1]
            object.__setattr__(self, "_last", last)  # a cache: not part of the value
        try:
            given: Any = action
            move = parse_action(given) if issubclass(type(given), str) else given
            after = apply(last, move)
        except (IllegalAction, NotationError):
            # The refusal's traceback holds this frame: it must not hold the state (nor this
            # record, which keeps the state and the deck), for an error tracker to ship.
            del last, self
            raise
        # A copy made field by field: the fields were checked when this record was built.
        record: GameRecord = object.__new__(GameRecord)
        set_field = object.__setattr__
        for field in attrs.fields(GameRecord):
            set_field(record, field.name, getattr(self, field.name))
        set_field(record, "actions", self.actions.append(move))
        set_field(record, "scores", score(after) if after.is_over else None)
        set_field(record, "_last", after)
        return record


@attrs.frozen(kw_only=True)
class MatchRecord:
    """A match (R20) as it was played: how it was started (``rules``, ``players``,
    ``first_player``, and ``seed`` or ``decks``, as :func:`~buraco_rules.new_match` takes them)
    and all its ``actions``, hand after hand (``br.apply`` on a match deals the next hand
    itself), with each finished hand's ``scores`` (checked on replay), the players' ``names`` and
    free ``meta`` data.

    Checked when built like a :class:`GameRecord`; :meth:`from_match` records a match played,
    :func:`replay` gives back every :class:`~buraco_rules.Match`, and :meth:`hands` the record of
    each hand.
    """

    rules: RuleSet
    players: int
    first_player: int = 0
    seed: int | None = None
    decks: tuple[tuple[Card, ...], ...] | None = None
    actions: tuple[Action, ...] = ()
    scores: tuple[tuple[TeamScore, TeamScore], ...] | None = None
    """The scores of each hand finished by the actions, as ``Match.scores`` holds them; None if
    unknown."""
    names: tuple[str, ...] | None = None
    """The players' names, seat 0 first."""
    meta: Mapping[str, str] = attrs.field(factory=dict, hash=False)
    """Free-form information about the match (a read-only mapping once built)."""

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.rules, RuleSet):
            raise InvalidRecord(f"rules must be a RuleSet, not {describe(self.rules)}")
        first = self.start()
        object.__setattr__(self, "decks", first.decks)
        if self.scores is not None and not (
            isinstance(self.scores, tuple) and all(_is_score_pair(p) for p in self.scores)
        ):
            raise InvalidRecord(f"scores must be pairs of TeamScores, not {describe(self.scores)}")
        _normalise(self)

    def start(self) -> Match:
        """The match as it starts, its first hand dealt."""
        try:
            return new_match(
                self.rules,
                self.players,
                seed=self.seed,
                decks=self.decks,
                first_player=self.first_player,
            )
        except ValueError as error:
            raise InvalidRecord(str(error)) from None

    @classmethod
    def from_match(
        cls,
        start: Match,
        actions: Iterable[Action | str],
        *,
        names: Iterable[str] | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> MatchRecord:
        """The record of the match played from ``start`` (as :func:`~buraco_rules.new_match`
        made it) by ``actions``; they are replayed (an illegal one is a :class:`ReplayError`), and
        the scores of the hands they finish are kept."""
        if type(start) is not Match or start.finished_hands:
            raise InvalidRecord(f"{describe(start)} is not a match as new_match starts it")
        record = cls(
            rules=start.rules,
            players=start.players,
            first_player=start.first_player,
            seed=start.seed,
            decks=start.decks,
            actions=_actions(actions),  # an InvalidRecord for what is no sequence of actions
            names=names,  # type: ignore[arg-type]  # checked on init (InvalidRecord)
            meta={} if meta is None else meta,
        )
        if record.start() != start:
            raise InvalidRecord(f"{describe(start)} is not a match as new_match starts it")
        try:
            matches = replay(record)
        except ReplayError:
            del start, record  # the traceback holds this frame: no state, no deck (see replay)
            raise
        return attrs.evolve(record, scores=tuple(matches[-1].scores))

    def hands(self) -> tuple[GameRecord, ...]:
        """The record of each hand of the match, in order (the last one unfinished while the
        match goes on), each with its final scores once finished."""
        try:
            matches = replay(self)
        except ReplayError:
            del self  # the traceback holds this frame: no deck in it (see replay)
            raise
        records = []
        first = 0
        for i in range(len(self.actions)):
            if len(matches[i + 1].finished_hands) > len(matches[i].finished_hands):
                start = matches[first].hand
                records.append(GameRecord.from_game(start, self.actions[first : i + 1]))
                first = i + 1
        if not matches[-1].is_over:
            records.append(GameRecord.from_game(matches[first].hand, self.actions[first:]))
        names, meta = self.names, self.meta
        return tuple(attrs.evolve(r, names=names, meta=meta) for r in records)


def _is_score_pair(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(type(s) is TeamScore for s in value)


def _normalise(record: GameRecord | MatchRecord) -> None:
    """Check and normalise the fields both records share (once, when the record is built)."""
    set_field = object.__setattr__
    actions = _actions(record.actions)
    most = longest_hand(record.rules, record.players)  # R24
    if isinstance(record, MatchRecord):
        most *= MAX_MATCH_HANDS  # R20
    if len(actions) > most:
        what = "match" if isinstance(record, MatchRecord) else "hand"
        raise InvalidRecord(
            f"{len(actions):,} actions are more than any {what} of {record.players} players of "
            f"{record.rules.title} can last ({most:,}, R24)"
        )
    set_field(record, "actions", actions)
    if record.names is not None:
        names = _strings(record.names, "names")
        if len(names) != record.players:
            raise InvalidRecord(f"names must name {record.players} players, not {len(names)}")
        set_field(record, "names", names)
    set_field(record, "meta", _meta(record.meta))


def _deal_order(start: GameState) -> tuple[Card, ...]:
    """The deck that deals ``start``: the hands (sorted, which deals the same), the extra piles,
    the first discard, then the stock."""
    hands = tuple(c for hand in start.hands for c in hand)
    extra = tuple(c for pile in start.extra_piles if pile is not None for c in pile)
    return hands + extra + start.discard_pile + start.stock


def _is_fresh_deal(state: GameState) -> bool:
    try:
        deck = _deal_order(state)
        dealt = new_game(state.rules, state.players, deck=deck, first_player=state.current_player)
    except ValueError:
        return False
    return dealt == state and state.phase is Phase.DRAW


def _items(values: object, what: str) -> tuple[object, ...]:
    """The items of the sequence ``values``, or an InvalidRecord (a str, a value that is not
    iterable, or one whose iteration raises its own error). Checked by type: an instance's
    ``__class__`` may lie or raise."""
    kind = type(values)
    if issubclass(kind, str) or not issubclass(kind, Iterable):
        raise InvalidRecord(f"{what} must be a sequence of {what}, not {describe(values)}")
    try:
        return tuple(values)  # type: ignore[arg-type]
    except Exception:
        raise InvalidRecord(
            f"{what} must be a sequence of {what}, not {describe(values)}"
        ) from None


def _actions(values: object) -> tuple[Action, ...]:
    actions: list[Action] = []
    value: Any
    for i, value in enumerate(_items(values, "actions")):
        try:
            action = parse_action(value) if issubclass(type(value), str) else value
        except NotationError as error:
            raise InvalidRecord(f"action {i}: {error}") from None
        try:  # one forged past its constructor (a meld index of 10**30) has no notation
            format_action(action)
        except NotationError:
            raise InvalidRecord(f"action {i}, {describe(value)}, is not an action") from None
        actions.append(action)
    return tuple(actions)


def _strings(values: object, what: str) -> tuple[str, ...]:
    out = _items(values, what)
    if not all(type(v) is str and _is_text(v) for v in out):
        raise InvalidRecord(f"{what} must be strings of Unicode text, not {describe(out)}")
    if any(len(v) > MAX_NAME_CHARS for v in out):  # type: ignore[arg-type]  # str, checked
        raise InvalidRecord(f"{what} must be at most {MAX_NAME_CHARS} characters each")
    return out  # type: ignore[return-value]


def _is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8 (no lone surrogate), as ``to_json`` writes it."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _meta(value: object) -> Mapping[str, str]:
    if not issubclass(type(value), Mapping):  # by type: an instance's __class__ may lie
        raise InvalidRecord(f"meta must be a mapping of strings, not {describe(value)}")
    try:
        items: dict[Any, Any] = dict(value)  # type: ignore[call-overload]
    except Exception:  # a mapping whose items raise their own error
        raise InvalidRecord(f"meta must be a mapping of strings, not {describe(value)}") from None
    if not all(
        type(k) is str and type(v) is str and _is_text(k) and _is_text(v) for k, v in items.items()
    ):
        raise InvalidRecord(f"meta must map strings to strings of text, not {describe(items)}")
    if len(items) > MAX_META_ITEMS or any(
        len(k) > MAX_META_KEY_CHARS or len(v) > MAX_META_VALUE_CHARS for k, v in items.items()
    ):
        raise InvalidRecord(
            f"meta holds at most {MAX_META_ITEMS} entries, keys of at most {MAX_META_KEY_CHARS} "
            f"characters and values of at most {MAX_META_VALUE_CHARS}"
        )
    return types.MappingProxyType(dict(sorted(items.items())))


@typing.overload
def replay(record: GameRecord) -> tuple[GameState, ...]: ...
@typing.overload
def replay(record: MatchRecord) -> tuple[Match, ...]: ...


def replay(record: GameRecord | MatchRecord) -> tuple[GameState, ...] | tuple[Match, ...]:
    """Every state of the recorded hand (or every :class:`~buraco_rules.Match` of a recorded
    match): the deal first, the state after the last action last.

    An illegal action is a :class:`ReplayError` whose ``index`` is its position in
    ``record.actions`` and whose ``__cause__`` is the :class:`~buraco_rules.IllegalAction`;
    recorded scores that the game does not give are a :class:`ReplayError` too.

    The time is linear in the actions, and the states returned keep no legal actions listed
    while replaying (a state of a 70-card hand would keep thousands): the memory is that of the
    states, which share their fields.
    """
    try:
        return _replay(record)
    except ReplayError as error:
        refusal = error
    # Raised from here, its traceback cut: the frames below held the states (every hand) and
    # the record (its deck), which an error tracker would ship. The cause's frames hold neither.
    del record
    raise refusal.with_traceback(None)


def _replay(record: GameRecord | MatchRecord) -> tuple[GameState, ...] | tuple[Match, ...]:
    if isinstance(record, MatchRecord):
        matches = _replayed(record.start(), record.actions)
        if record.scores is not None and matches[-1].scores != record.scores:
            raise ReplayError(
                f"the record gives {len(record.scores)} hands' scores "
                f"{[_totals(p) for p in record.scores]}, the match "
                f"{[_totals(p) for p in matches[-1].scores]}"
            )
        return matches
    if not isinstance(record, GameRecord):
        raise TypeError(f"replay takes a GameRecord or MatchRecord, not {type(record).__name__}")
    states = _replayed(record.initial_state, record.actions)
    if record.scores is not None:
        final = score(states[-1])
        if final != record.scores:
            raise ReplayError(
                f"the record gives the scores {_totals(record.scores)}, the game {_totals(final)}"
            )
    return states


Played = typing.TypeVar("Played", GameState, Match)


def _replayed(start: Played, actions: Iterable[Action]) -> tuple[Played, ...]:
    played = [start]
    for i, action in enumerate(actions):
        before = played[-1]
        try:
            played.append(apply(before, action))
        except IllegalAction as error:
            cause, index = error, i
            break
        _forget_legal_actions(before.hand if isinstance(before, Match) else before)
    else:
        return tuple(played)
    # The error and its cause hold this frame in their tracebacks: it must not hold the states
    # (every hand), for an error tracker to ship.
    del played, before, start
    raise ReplayError(f"action {index} ({str(action)!r}) is illegal: {cause}", index) from cause


def _forget_legal_actions(state: GameState) -> None:
    """Drop the legal actions that ``apply`` listed for ``state`` (a meld is checked against
    them): a replay keeps every state, and a state of a 70-card hand would keep thousands of
    actions (the states are the replay's own, made by it, so no caller loses a cache)."""
    if state._legal is not None:
        object.__setattr__(state, "_legal", None)


def _totals(scores: tuple[TeamScore, TeamScore]) -> str:
    return f"{scores[0].total} to {scores[1].total}"

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
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..actions import Action
from ..cards import Card
from ..checks import describe, well_formed
from ..engine import apply, new_game
from ..errors import IllegalAction
from ..rules import RuleSet
from ..scoring import TeamScore, score
from ..state import GameState, Phase
from .errors import InvalidRecord, NotationError, ReplayError
from .notation import parse_action

__all__ = ["GameRecord", "replay"]


@attrs.frozen(kw_only=True)
class GameRecord:
    """One hand as it was played: its deal (``rules``, ``players``, ``deck`` in the deal order of
    :func:`~buraco_rules.new_game`, ``first_player``) and its ``actions``, with what else is worth
    keeping: the final ``scores`` (checked on replay), the players' ``names`` by seat and free
    ``meta`` data (strings to strings: a date, a table, an event).

    The fields are checked when the record is built (:class:`InvalidRecord`); cards and actions
    may be given in notation. Whether the actions are legal is :func:`replay`'s question. Make a
    record of a game played with :meth:`from_game`.
    """

    rules: RuleSet
    players: int
    deck: tuple[Card, ...]
    first_player: int = 0
    actions: tuple[Action, ...] = ()
    scores: tuple[TeamScore, TeamScore] | None = None
    """Each team's score at the end, as :func:`~buraco_rules.score` gives it; None if unknown."""
    names: tuple[str, ...] | None = None
    """The players' names, seat 0 first."""
    meta: Mapping[str, str] = attrs.field(factory=dict, hash=False)
    """Free-form information about the game (a read-only mapping once built)."""

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
        set_field(self, "actions", _actions(self.actions))
        if self.scores is not None and not (
            isinstance(self.scores, tuple)
            and len(self.scores) == 2
            and all(type(s) is TeamScore for s in self.scores)
        ):
            raise InvalidRecord(f"scores must be two TeamScores, not {describe(self.scores)}")
        if self.names is not None:
            names = _strings(self.names, "names")
            if len(names) != self.players:
                raise InvalidRecord(f"names must name {self.players} players, not {len(names)}")
            set_field(self, "names", names)
        set_field(self, "meta", _meta(self.meta))

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
        if not isinstance(start, GameState) or not _is_fresh_deal(start):
            raise InvalidRecord(f"{describe(start)} is not the first state of a hand")
        record = cls(
            rules=start.rules,
            players=start.players,
            deck=_deal_order(start),
            first_player=start.current_player,
            actions=tuple(actions),  # type: ignore[arg-type]  # notation is parsed on init
            names=None if names is None else tuple(names),
            meta={} if meta is None else meta,
        )
        last = replay(record)[-1]
        return attrs.evolve(record, scores=score(last)) if last.is_over else record


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


def _actions(values: object) -> tuple[Action, ...]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise InvalidRecord(f"actions must be a sequence of actions, not {describe(values)}")
    actions = []
    for i, value in enumerate(values):
        try:
            action = parse_action(value) if isinstance(value, str) else value
        except NotationError as error:
            raise InvalidRecord(f"action {i}: {error}") from None
        if not well_formed(action):
            raise InvalidRecord(f"action {i}, {describe(value)}, is not an action")
        actions.append(action)
    return tuple(actions)


def _strings(values: object, what: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise InvalidRecord(f"{what} must be a sequence of strings, not {describe(values)}")
    out = tuple(values)
    if not all(type(v) is str for v in out):
        raise InvalidRecord(f"{what} must be strings, not {describe(out)}")
    return out


def _meta(value: object) -> Mapping[str, str]:
    if not isinstance(value, Mapping):
        raise InvalidRecord(f"meta must be a mapping of strings, not {describe(value)}")
    items: dict[Any, Any] = dict(value)
    if not all(type(k) is str and type(v) is str for k, v in items.items()):
        raise InvalidRecord(f"meta must map strings to strings, not {describe(items)}")
    return types.MappingProxyType(dict(sorted(items.items())))


def replay(record: GameRecord) -> tuple[GameState, ...]:
    """Every state of the recorded hand: the deal first, the state after the last action last.

    An illegal action is a :class:`ReplayError` whose ``index`` is its position in
    ``record.actions`` and whose ``__cause__`` is the :class:`~buraco_rules.IllegalAction`; a
    recorded final score that the game does not give is a :class:`ReplayError` too.
    """
    if not isinstance(record, GameRecord):
        raise TypeError(f"replay takes a GameRecord, not {type(record).__name__}")
    state = new_game(
        record.rules, record.players, deck=record.deck, first_player=record.first_player
    )
    states = [state]
    for i, action in enumerate(record.actions):
        try:
            state = apply(state, action)
        except IllegalAction as error:
            raise ReplayError(f"action {i} ({str(action)!r}) is illegal: {error}", i) from error
        states.append(state)
    if record.scores is not None:
        final = score(state)
        if final != record.scores:
            raise ReplayError(
                f"the record gives the scores {_totals(record.scores)}, the game {_totals(final)}"
            )
    return tuple(states)


def _totals(scores: tuple[TeamScore, TeamScore]) -> str:
    return f"{scores[0].total} to {scores[1].total} ({scores[0]}, {scores[1]})"

"""One hand played a token at a time: what every adapter steps (internal to ``buraco_rules.rl``).

A :class:`Position` is the engine state, the tokens of the action being spelt, and the turns
played; it is immutable, so an adapter's state shares it rather than copying it.
"""

from __future__ import annotations

import operator
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

from ..core.actions import Action
from ..core.cards import DECK, all_cards
from ..core.rules import DECK_SIZE, RuleSet
from ..engine.scoring import score
from ..engine.state import GameState
from ..play.face import apply
from .encoding import NUM_TOKENS, _Tree, is_complete, token_to_string
from .encoding import _tree as tree_of
from .observation import _points

_FACES: Final = all_cards()
_COPIES: Final = tuple(DECK.count(c) for c in _FACES)


def max_tokens_per_turn() -> int:
    """A bound on the token steps of one turn: a draw or a take (at most three tokens besides its
    cards), melds of at most three tokens besides their cards, each card leaving the hand once
    (a hand never holds more than the 108 cards), and a discard: ``5 + 4 × 108``."""
    return 5 + 4 * DECK_SIZE


def utility_bound(rules: RuleSet) -> int:
    """The most points one team's total can exceed the other's by: every card of the deck
    counted for it (its melds and the other team's hands are disjoint), a canasta of the best
    kind for every seven cards, the going-out bonus and the other team's extra-pile penalty
    (R16-R18, R22)."""
    values = rules.value_by_id
    bonuses = rules.canasta_bonuses
    best = max(
        bonuses.mixed,
        bonuses.clean,
        bonuses.all_ranks,
        bonuses.ace_to_ace,
        bonuses.semi_clean or 0,
    )
    cards = sum(values[c] * n for c, n in zip(_FACES, _COPIES, strict=True))
    return cards + (DECK_SIZE // 7) * best + rules.going_out_bonus + rules.extra_pile_penalty


def token_name(token: int) -> str:
    """``token_to_string``, or a placeholder for a value that is no token (for messages)."""
    try:
        return token_to_string(token)
    except ValueError:
        return f"<no token {token!r}>"


def checked_token(action: object) -> int:
    """``action`` as a token id, as both environments read a step's action: a Python ``int``
    (not a ``bool``) or a numpy integer (a 0-d integer array too), from 0 to 95. Anything else
    (a float, even ``4.0``, a string, ``None``, a list, NaN, a bool) is a ``TypeError`` and an
    integer out of range a ``ValueError``, each naming it: a bug of the caller's, not a move,
    unlike a token in range that is illegal here (which the environments penalise)."""
    integral = (type(action) is int) or isinstance(action, np.integer)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        integral = True
    if not integral:
        shown = repr(action)
        shown = shown if len(shown) <= 40 else shown[:40] + "…"
        raise TypeError(
            f"an action is an integer token from 0 to {NUM_TOKENS - 1}, not {shown} "
            f"({type(action).__name__})"
        )
    token = operator.index(action)  # type: ignore[arg-type]
    if not 0 <= token < NUM_TOKENS:
        raise ValueError(f"an action is a token from 0 to {NUM_TOKENS - 1}, not {token}")
    return token


def checked_flag(name: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False``; anything else (``"no"``, 0, None) is a
    ``ValueError`` naming ``name``: ``bool("no")`` would read as True."""
    if type(value) is not bool:
        raise ValueError(f"{name} must be True or False, not {value!r}")
    return value


def checked_seed(seed: object) -> int | None:
    """``seed`` if it is ``None`` or an ``int`` from 0 (as Gymnasium's ``reset`` takes seeds);
    anything else is a ``ValueError``."""
    if seed is not None and (type(seed) is not int or seed < 0):
        raise ValueError(f"seed must be None or an int from 0, not {seed!r}")
    return seed


class IllegalToken(ValueError):
    """A token that leads toward no legal action."""


@attrs.frozen
class Position:
    """The engine state, the tokens spelt so far, and the turns played (of any seat)."""

    engine: GameState
    pending: tuple[int, ...] = ()
    turns: int = 0
    truncated: bool = False
    """Cut at the game's ``max_turns``: over (OpenSpiel scores it as it stands; the
    environments call it truncated and pay no result)."""

    def __deepcopy__(self, memo: object) -> Position:
        return self  # immutable: share it

    @property
    def over(self) -> bool:
        """The hand ended, or was cut."""
        return self.truncated or self.engine.is_over

    _legal: tuple[int, ...] | None = attrs.field(default=None, init=False, eq=False, repr=False)
    """``legal()`` once asked (an adapter asks for the mask, then checks the token played)."""

    _tree: _Tree | None = attrs.field(default=None, init=False, eq=False, repr=False)
    """The token tree of the engine state once asked: handed on to the positions that spell the
    rest of the action (the same engine state), so they skip the trees' shared cache."""

    def tree(self) -> _Tree:
        """The token tree of the engine state's legal actions."""
        found = self._tree
        if found is None:
            found = tree_of(self.engine)
            object.__setattr__(self, "_tree", found)  # a memo: the position stays as it was
        return found

    _marks: bytes | None = attrs.field(default=None, init=False, eq=False, repr=False)
    """``mask()``'s bytes once asked (the environments ask for the mask several times a step)."""

    def mask(self) -> npt.NDArray[np.int8]:
        """A new ``int8`` array of the 96 tokens, 1 for each of :meth:`legal` (a fresh array
        each call: the caller may write to it)."""
        marks = self._marks
        if marks is None:
            marking = bytearray(NUM_TOKENS)
            for token in self.legal():
                marking[token] = 1
            marks = bytes(marking)
            object.__setattr__(self, "_marks", marks)  # a memo: the position stays as it was
        return np.frombuffer(bytearray(marks), np.int8)  # writable: it owns its bytearray

    def legal(self) -> tuple[int, ...]:
        """The tokens the seat to act may spell next (none once over)."""
        found = self._legal
        if found is None:
            # The token tree directly (``legal_tokens`` less its checks: the pending tokens
            # were checked as they were stepped).
            found = () if self.truncated else (self.tree().after(self.pending) or ())
            object.__setattr__(self, "_legal", found)  # a memo: the position stays as it was
        return found

    def step(self, token: int, max_turns: int) -> Position:
        """The position after ``token``; an illegal one is an :class:`IllegalToken`."""
        if token not in self.legal():
            raise IllegalToken(
                f"token {token!r} ({token_name(token)}) leads to no legal action here"
                + (" (the hand is over)" if self.over else "")
            )
        tokens = (*self.pending, int(token))
        if not is_complete(tokens):
            spelling = Position(self.engine, tokens, self.turns, self.truncated)
            object.__setattr__(spelling, "_tree", self._tree)  # the same engine state
            return spelling
        return self.play(self.tree().action(tokens), max_turns)

    def play(self, action: Action, max_turns: int) -> Position:
        """The position after a whole ``action`` (none may be pending); a turn ends when the seat
        to act changes or the hand ends."""
        before = self.engine
        after = apply(before, action)
        turns = self.turns + (after.current_player != before.current_player or after.is_over)
        return Position(
            engine=after, turns=turns, truncated=not after.is_over and turns >= max_turns
        )

    def play_forced(self, max_turns: int, seat: int | None = None) -> tuple[Position, int]:
        """The position after every token with a single legal choice (of ``seat`` only, if
        given) is played, and how many were: what ``skip_forced`` environments do."""
        position = self
        played = 0
        while not position.over and (seat is None or position.engine.current_player == seat):
            legal = position.legal()
            if len(legal) != 1:
                break
            position = position.step(legal[0], max_turns)
            played += 1
        return position, played

    def table_difference(self) -> int:
        """Team 0's points on the table less team 1's (``PlayerView.public_points``, public):
        the potential the dense rewards pay the changes of."""
        engine = self.engine
        return _points(engine.melds[0], engine.rules) - _points(engine.melds[1], engine.rules)

    def team_difference(self) -> int:
        """Team 0's total less team 1's, the hand scored as it stands."""
        totals = score(self.engine)
        return totals[0].total - totals[1].total


class SteppedHand:
    """What both environments expose of the hand they step: the :class:`Position`, its engine
    state and the tokens being spelt (each after ``reset``)."""

    _position: Position | None = None

    @property
    def position(self) -> Position:
        """The hand as stepped: engine state, pending tokens, turns (after ``reset``)."""
        if self._position is None:
            raise RuntimeError("call reset() first")
        return self._position

    @property
    def engine_state(self) -> GameState:
        """The engine's state (after ``reset``)."""
        return self.position.engine

    @property
    def pending_tokens(self) -> tuple[int, ...]:
        """The tokens of the action the seat to act is spelling (the bots spell none)."""
        return self.position.pending

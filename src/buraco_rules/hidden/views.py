"""What one player may see: the hidden-information boundary of a game server.

A :class:`PlayerView` holds the seat's own hand and everything public, and nothing else: not the
other hands, not the order or content of the stock or of an untaken extra pile, and, where the
discard pile is closed (R10), not the cards below its top. Send views, never states, to players.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.BURACO_FECHADO, 4, seed=1)
>>> seen = br.view(state, 2)
>>> len(seen.hand), seen.hand_sizes, seen.stock_size
(11, (11, 11, 11, 11), 42)
"""

from __future__ import annotations

import operator
from typing import Final

import attrs

from ..core.cards import Card
from ..core.outcome import Outcome, outcome_of
from ..core.quoting import describe, kind_of
from ..core.rules import RuleSet
from ..engine.scoring import table_points
from ..engine.state import TEAM, GameState, Phase
from ..melds.meld import Meld

__all__ = ["PlayerView", "view"]


@attrs.frozen(kw_only=True)
class PlayerView:
    """A seat's view of a state: its own hand and the public information (R10, R11).

    Build one with :func:`view`. ``br.legal_actions``, ``br.is_legal`` and ``br.why_illegal``
    accept a view in place of the state, and ``br.determinize`` deals its unseen cards into a
    full state.
    """

    rules: RuleSet
    """The rule set being played."""
    players: int
    """The number of seats (2 or 4, R1)."""
    seat: int
    """The seat whose view this is; its team is ``seat % 2``."""
    current_player: int
    """The seat to act (after the hand ends: the seat that acted last)."""
    phase: Phase
    """Where the seat to act is in its turn (R4), or ``Phase.OVER``."""
    hand: tuple[Card, ...]
    """The seat's own hand, sorted."""
    hand_sizes: tuple[int, ...]
    """How many cards each seat holds, by seat."""
    stock_size: int
    """How many cards are left in the stock (its order and content are hidden)."""
    discard_pile: tuple[Card, ...]
    """The visible part of the discard pile, top card last: all of it where the pile is open
    (R11), only the top card where it is closed (R10); empty when the pile is."""
    discard_pile_size: int
    """How many cards the discard pile holds, seen or not."""
    melds: tuple[tuple[Meld, ...], tuple[Meld, ...]]
    """Both teams' melds, by team, in the order they were laid down (they lie face up)."""
    extra_pile_sizes: tuple[int | None, int | None]
    """By team, the size of its extra pile while it is still set aside (its cards are hidden), or
    None once it is gone: taken into a hand (``extra_pile_taken``) or turned into the stock
    (``extra_pile_became_stock``, R15)."""
    extra_pile_taken: tuple[bool, bool]
    """By team, whether a player of the team has taken its extra pile into a hand (R12)."""
    untouched_extra_pile: tuple[int | None, int | None]
    """By team, the *seat* that took the team's extra pile by discarding its last card and has
    not had its next turn yet (R19), or None."""
    taken_single_card: Card | None
    """The single card taken from an open pile this turn, which may not be discarded this turn
    (everyone saw it, R11), or None."""
    went_out: int | None
    """The *team* (0 or 1) that ended the hand by going out (R13), or None: the hand goes on, or
    it ended because the stock ran out (R15) or in stalemate (R24)."""
    idle_turns: int = 0
    """R24: turns in a row without a card drawn from the stock or laid on the table (everyone
    sees both), as :attr:`GameState.idle_turns <buraco_rules.GameState.idle_turns>`."""
    extra_pile_lost: int | None = None
    """R31: the *team* whose extra pile the other team took too, as
    :attr:`GameState.extra_pile_lost <buraco_rules.GameState.extra_pile_lost>`, or None."""
    first_turn: bool = False
    """R32: the hand's first turn is in play and its player has done nothing but (at most) draw
    from the stock, as :attr:`GameState.first_turn <buraco_rules.GameState.first_turn>`: in the
    play phase, the seat to act may refuse the card it drew."""
    first_draw: Card | None = None
    """R32: the card this seat just drew and may refuse, while :attr:`first_turn` holds in the
    play phase; None in every other seat's view (which card it was is hidden) and otherwise."""
    _state: GameState | None = attrs.field(
        default=None, init=False, eq=False, repr=False, hash=False
    )
    """A cache of the canonical state of the view (:mod:`buraco_rules.hidden.determinize`)."""
    # None, not False, for "no": the compiled build (mypyc) checks a field's class-body default
    # against the type of its default value when the module loads, and the attrs field standing
    # for a default of False is no ``bool``.
    _of_a_state: bool | None = attrs.field(
        default=None, init=False, eq=False, repr=False, hash=False
    )
    """True when set by :func:`view` only: the view of a state is consistent by construction, so
    its canonical state need not be validated. A view built any other way (the decoder,
    ``attrs.evolve``, unpickling) is checked once (None)."""

    def __reduce__(self) -> tuple[object, tuple[dict[str, object]]]:
        # Pickle and deep-copy the value only, not the cached state.
        fields = {a.name: getattr(self, a.name) for a in attrs.fields(PlayerView) if a.init}
        return (_rebuild, (fields,))

    @property
    def is_over(self) -> bool:
        """True once the hand has ended."""
        return self.phase is Phase.OVER

    @property
    def outcome(self) -> Outcome | None:
        """None while the hand runs; once it is over, how it ended and who went out."""
        return outcome_of(
            self.phase is Phase.OVER,
            self.went_out,
            self.idle_turns >= self.rules.stalemate_turns,
        )

    @property
    def is_my_turn(self) -> bool:
        """True when this seat is the one to act (and the hand is not over)."""
        return self.current_player == self.seat and self.phase is not Phase.OVER

    @property
    def team(self) -> int:
        """The team of this view's seat (R1)."""
        return TEAM[self.seat]

    @property
    def current_team(self) -> int:
        """The team of the seat to act (R1)."""
        return TEAM[self.current_player]

    @property
    def top_of_discard_pile(self) -> Card | None:
        """The top card of the discard pile, which everyone sees, or None when it is empty."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def extra_pile_became_stock(self) -> tuple[bool, bool]:
        """By team, whether its extra pile was turned into the stock when the stock ran out (R15);
        such a pile was never taken, and the team cannot take it any more."""
        return (
            self.extra_pile_sizes[0] is None
            and not self.extra_pile_taken[0]
            and self.extra_pile_lost != 0,
            self.extra_pile_sizes[1] is None
            and not self.extra_pile_taken[1]
            and self.extra_pile_lost != 1,
        )

    @property
    def public_points(self) -> tuple[int, int]:
        """By team, the points on the table so far: the values of its melded cards (R17) plus
        its canasta bonuses (R18). Cards in hands, the going-out bonus and the extra-pile penalty
        are left out (the first are hidden, the others are settled when the hand ends)."""
        first, second = (sum(table_points(melds, self.rules)) for melds in self.melds)
        return first, second


def _rebuild(fields: dict[str, object]) -> PlayerView:
    return PlayerView(**fields)  # type: ignore[arg-type]


HIDDEN_FIELDS: Final = ("hands", "stock", "discard_pile", "extra_piles", "first_draw")
"""The fields of :class:`GameState` that a view shows in part, each by its own code here (and
back in :func:`buraco_rules.hidden.determinize.canonical_state`): its own hand and every hand's
size, the stock's size, the visible discards, the extra piles' sizes, the card just drawn to
its drawer only (R32)."""
PUBLIC_FIELDS: Final = tuple(
    f.name for f in attrs.fields(GameState) if f.init and f.name not in HIDDEN_FIELDS
)
"""Every other field of :class:`GameState`, derived from the class: shown whole, under the same
name in :class:`PlayerView` (a test holds the view to have each). A new public field of the state
is then a field of the state and of the view, and nothing else."""
_public: Final = operator.attrgetter(*PUBLIC_FIELDS)


def view(state: GameState, seat: object) -> PlayerView:
    """What ``seat`` may see of ``state``; a seat that does not exist is a ``ValueError``."""
    if type(state) is not GameState:
        raise TypeError(f"view needs a GameState, not {kind_of(state)}")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise ValueError(f"seat must be 0 to {state.players - 1}, not {describe(seat)}")
    pile = state.discard_pile
    visible = pile[-1:] if state.rules.closed_discard_pile else pile
    extra = state.extra_piles
    seen = PlayerView(
        seat=seat,
        hand=state.hands[seat],
        hand_sizes=tuple(map(len, state.hands)),
        stock_size=len(state.stock),
        discard_pile=visible,
        discard_pile_size=len(pile),
        extra_pile_sizes=(
            None if extra[0] is None else len(extra[0]),
            None if extra[1] is None else len(extra[1]),
        ),
        first_draw=state.first_draw if seat == state.current_player else None,
        **dict(zip(PUBLIC_FIELDS, _public(state), strict=True)),
    )
    object.__setattr__(seen, "_of_a_state", True)
    return seen

"""The game state: a frozen record of one hand of Buraco, shared structurally between steps.

Nothing here checks or changes a state: :mod:`buraco_rules.play.face` is the only way to advance
one.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Final

import attrs

from ..core.cards import Card
from ..core.outcome import Outcome, outcome_of
from ..core.rules import RuleSet
from ..melds.meld import Meld

if TYPE_CHECKING:
    from ..core.actions import Action

__all__ = ["TEAM", "GameState", "Phase", "team_seats"]

Recipe = tuple[int, tuple[Card, ...]]
"""What a meld-making legal action was built from (:mod:`buraco_rules.engine.movegen`): the index of
the meld it adds to (-1 for a new meld) and the cards it puts there (for a take, with the pile's top
card)."""

Listed = Recipe | Card | None
"""What the generator listed a legal action as, in values no one can force to change: a meld's
:data:`Recipe`, a discard's card, or None (a draw, or the take of an open pile). ``apply`` goes by
this, never by what the listed object holds by then."""


TEAM: Final = (0, 1, 0, 1)
"""By seat: its team. Partners sit opposite, so seats 0 and 2 play for team 0, seats 1 and 3 for
team 1 (R1); a table look-up, as cheap as the arithmetic it names. The one definition of a seat's
team: every other module reads this table (or :func:`team_seats`, derived from it)."""


def team_seats(team: int, players: int) -> tuple[int, ...]:
    """The seats of ``team`` at a table of ``players``, in order (R1; by :data:`TEAM`)."""
    return tuple(seat for seat in range(players) if TEAM[seat] == team)


class Phase(enum.Enum):
    """Where the current player is in their turn (R4), or OVER once the hand has ended."""

    DRAW = "draw"
    PLAY = "play"
    OVER = "over"


@attrs.frozen(kw_only=True)
class GameState:
    """One moment of a hand. Seats are 0..players-1; team = seat % 2 (R1).

    Every field is immutable and shared with the states before and after it, so keeping or
    branching a state costs nothing.
    """

    rules: RuleSet
    players: int
    current_player: int
    """The seat to act (after the hand ends: the seat that acted last)."""
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    """One sorted tuple of cards per seat."""
    stock: tuple[Card, ...]
    """Face-down stock; its first card is drawn next."""
    discard_pile: tuple[Card, ...]
    """The discard pile, top card last."""
    melds: tuple[tuple[Meld, ...], tuple[Meld, ...]]
    """Each team's melds, in the order they were laid down."""
    extra_piles: tuple[tuple[Card, ...] | None, tuple[Card, ...] | None]
    """Each team's extra pile (morto, pozzetto) in deal order, or None once taken or moved into the
    stock (R12, R15)."""
    extra_pile_taken: tuple[bool, bool]
    """Whether each team has taken its extra pile into a hand (R12, R16)."""
    untouched_extra_pile: tuple[int | None, int | None]
    """Per team, the seat that took the extra pile by discarding its last card and has not had its
    next turn yet (R19), or None."""
    taken_single_card: Card | None = None
    """The single card taken from an open discard pile this turn; it may not be discarded (R11)."""
    went_out: int | None = None
    """The team that ended the hand by going out (R13), or None."""
    idle_turns: int = 0
    """R24: how many turns in a row no card was drawn from the stock and none laid on the table,
    the turn in play included once it has taken the open pile and laid nothing yet. At
    ``rules.stalemate_turns`` the hand ends in stalemate."""
    extra_pile_lost: int | None = None
    """R31: the team whose extra pile the other team took too (that team never takes one and
    may not go out), or None."""
    first_turn: bool = False
    """R32 (``rules.first_draw_refusal``, a house rule): the hand's first turn is in play and its
    player has done nothing yet but (in the play phase) draw from the stock, so that the card
    drawn may still be refused. True from the deal under the rule; False otherwise, and from the
    first player's first action but that draw."""
    first_draw: Card | None = None
    """R32: the card the first player just drew and may refuse (while :attr:`first_turn` holds, in
    the play phase), or None. Hidden: only its drawer sees it (a hand is kept sorted, so nothing
    else tells which card it is)."""
    _legal: tuple[tuple[Action, ...], tuple[Listed, ...]] | None = attrs.field(
        default=None, init=False, eq=False, repr=False, hash=False
    )
    """A cache of the legal actions and their recipes (:mod:`buraco_rules.engine.movegen`)."""

    def __reduce__(self) -> tuple[object, tuple[dict[str, object]]]:
        # Pickle and deep-copy the value only, not the cached legal actions.
        fields = {a.name: getattr(self, a.name) for a in attrs.fields(GameState) if a.init}
        return (_rebuild, (fields,))

    @property
    def is_over(self) -> bool:
        """True once the hand has ended (R13, R15)."""
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
    def current_team(self) -> int:
        """The team of the seat to act (R1)."""
        return TEAM[self.current_player]

    def team_of(self, seat: int) -> int:
        """The team a seat plays for (R1)."""
        return TEAM[seat]

    @property
    def top_of_discard_pile(self) -> Card | None:
        """The visible top card of the discard pile, or None when it is empty."""
        return self.discard_pile[-1] if self.discard_pile else None


def _rebuild(fields: dict[str, object]) -> GameState:
    return GameState(**fields)  # type: ignore[arg-type]

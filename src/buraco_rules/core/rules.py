"""The rule set: every ruling that differs between variants is a field here, never a name check.

Build house rules with ``attrs.evolve(variants.BURACO_FECHADO, max_natural_aces_in_run=1)``.

A rule set checks itself on construction (and so on ``attrs.evolve``): each field has a validator
naming the field and its ruling (:func:`boolean`, :func:`integer`, ...), and
:meth:`RuleSet.__attrs_post_init__` checks the fields together (a deal that fits in the deck, a
default player count that is allowed). Anything wrong is an
:class:`~buraco_rules.core.errors.InvalidRules`. A new field gets a validator the same way.

>>> import attrs
>>> from buraco_rules import variants
>>> attrs.evolve(variants.BURACO_FECHADO, hand_size=0)
Traceback (most recent call last):
...
buraco_rules.core.errors.InvalidRules: RuleSet.hand_size must be an int from 1, not 0 (R2)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final, cast

import attrs

from .cards import JOKER, all_cards
from .errors import InvalidRules
from .quoting import describe

__all__ = ["CanastaBonuses", "CardValues", "RuleSet"]

CANASTA_SIZE: Final = 7
"""A meld of this many cards or more is a canasta (R9)."""
MIN_MELD_SIZE: Final = 3
"""The fewest cards a meld may hold (R5)."""
DECK_SIZE: Final = 108
"""Two 54-card decks (R2)."""
MAX_SET_SIZE: Final = 9
"""The most cards a set can ever hold: the 8 natural copies of a rank and one wildcard (R2, R5,
R7)."""

STALEMATE_TURNS: Final = 12
"""R24: the presets end a hand after this many turns in a row without progress: three rounds of
a table of four (six of a table of two), every seat having chosen each time not to draw."""
MIN_STALEMATE_TURNS: Final = 4
"""R24: the fewest turns a rule set may set, so that every seat of a table of four has had a turn
(and chosen not to draw) before a stalemate ends the hand."""
MAX_STALEMATE_TURNS: Final = 24
"""R24: the most turns a rule set may set (six rounds of four); it bounds the longest hand, from
which the decoders' limits are derived (:mod:`buraco_rules.core.limits`)."""
TEXT_CHARS: Final = 200
"""The longest ``name`` or ``title`` of a rule set: they are written into every document that
holds a customised rule set, whose size the decoders bound."""

MAX_POINTS: Final = 10**9
"""The most points a card, bonus, penalty or match target may be worth: far above any real rule
set (a target this high plays a match of as many hands as one likes), and it keeps every score a
number that prints and serialises (R16-R20)."""

Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def _refuse(instance: object, attribute: attrs.Attribute[Any], wanted: str, value: object) -> None:
    ruling = attribute.metadata.get("ruling", "")
    suffix = f" ({ruling})" if ruling else ""
    raise InvalidRules(
        f"{type(instance).__name__}.{attribute.name} must be {wanted}, "
        f"not {describe(value)}{suffix}"
    )


def boolean(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: ``value`` is True or False (not 0 or 1)."""
    if type(value) is not bool:
        _refuse(instance, attribute, "True or False", value)


def integer(low: int, high: int | None = None) -> Validator:
    """Validator: ``value`` is an ``int`` (not a bool) from ``low`` to ``high`` (if given)."""
    wanted = f"an int from {low}" + ("" if high is None else f" to {high}")

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if type(value) is not int or value < low or (high is not None and value > high):
            _refuse(instance, attribute, wanted, value)

    return check


def text(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: ``value`` is a non-empty ``str`` of at most :data:`TEXT_CHARS` characters of
    Unicode text (no lone surrogate, which ``to_json`` would write and no document may hold)."""
    if (
        type(value) is not str
        or not value.strip()
        or len(value) > TEXT_CHARS
        or not (value.isascii() or _is_unicode(value))
    ):
        _refuse(
            instance,
            attribute,
            f"a non-empty str of at most {TEXT_CHARS} characters of Unicode text",
            value,
        )


def _is_unicode(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, such as "\ud800"
        return False
    return True


def instance_of(kind: type[object]) -> Validator:
    """Validator: ``value`` is a ``kind``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, kind):
            _refuse(instance, attribute, f"a {kind.__name__}", value)

    return check


def optional(validator: Validator) -> Validator:
    """Validator: ``value`` is None or passes ``validator``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None:
            try:
                validator(instance, attribute, value)
            except InvalidRules as error:
                raise InvalidRules(
                    str(error).replace(" must be ", " must be None or ", 1)
                ) from None

    return check


def ruled(ruling: str, validator: Validator, **kwargs: Any) -> Any:
    """An ``attrs.field`` checked by ``validator``, whose errors cite ``ruling``."""
    return attrs.field(validator=validator, metadata={"ruling": ruling}, **kwargs)


@attrs.frozen
class CardValues:
    """Points of each card, counted on the table and against the hand (R17)."""

    joker: int = ruled("R17", integer(0, MAX_POINTS))
    two: int = ruled("R17", integer(0, MAX_POINTS))
    ace: int = ruled("R17", integer(0, MAX_POINTS))
    eight_to_king: int = ruled("R17", integer(0, MAX_POINTS))
    three_to_seven: int = ruled("R17", integer(0, MAX_POINTS))

    def by_id(self) -> tuple[int, ...]:
        """The value of each of the 53 cards, indexed by card id."""
        values = []
        for card in all_cards():
            if card == JOKER:
                values.append(self.joker)
                continue
            rank = card % 13 + 1
            if rank == 1:
                values.append(self.ace)
            elif rank == 2:
                values.append(self.two)
            elif rank >= 8:
                values.append(self.eight_to_king)
            else:
                values.append(self.three_to_seven)
        return tuple(values)


@attrs.frozen
class CanastaBonuses:
    """Bonus for each canasta, by kind; a canasta scores only its highest kind (R18)."""

    mixed: int = ruled("R18", integer(0, MAX_POINTS))
    """A canasta holding a wildcard."""
    clean: int = ruled("R18", integer(0, MAX_POINTS))
    """A canasta with no wildcard."""
    all_ranks: int = ruled("R18", integer(0, MAX_POINTS))
    """A clean run of all thirteen ranks (13 cards)."""
    ace_to_ace: int = ruled("R18", integer(0, MAX_POINTS))
    """A clean run from ace to ace (14 cards)."""
    semi_clean: int | None = ruled("R22", optional(integer(0, MAX_POINTS)), default=None)
    """R22: a semi-clean canasta (:attr:`Meld.is_semi_clean <buraco_rules.Meld.is_semi_clean>`),
    or None where the rules have no such kind and it scores as mixed."""


def _player_counts(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if (
        type(value) is not tuple
        or not value
        or any(type(n) is not int or n not in (2, 4) for n in value)
        or len(set(value)) != len(value)
    ):
        _refuse(instance, attribute, "a non-empty tuple of distinct counts from (2, 4)", value)


SET_RANK_LABELS: Final = ("A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""R5, R27: the labels of the ranks of which sets can be made (never the 2s, which are wild)."""
ALL_SET_RANKS: Final = sum(1 << r for r in range(13) if r != 1)
"""R5: the bitmask (bit ``r``: rank ``r + 1``) of every rank of which sets can be made."""
_SET_RANK_TOKEN: Final = re.compile("10|[A3-9JQK]")


def parse_set_ranks(text: str) -> tuple[int, ...] | None:
    """The ranks (1 = ace ... 13 = king) that ``text`` names, their labels written together in
    rank order, each once (``"AK"``, ``"10JQK"``); None for anything else."""
    tokens = _SET_RANK_TOKEN.findall(text)
    if not tokens or "".join(tokens) != text:
        return None
    ranks = tuple(1 if t == "A" else 11 + "JQK".index(t) if t in "JQK" else int(t) for t in tokens)
    if list(ranks) != sorted(set(ranks)):
        return None
    return ranks


def _set_ranks(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not str or parse_set_ranks(value) is None:
        _refuse(
            instance,
            attribute,
            "the labels of distinct ranks (A, 3-10, J, Q, K; no 2s) written together in rank "
            "order, such as 'AK'",
            value,
        )


def _long_meld_size(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not int or not (value == 0 or CANASTA_SIZE < value <= FULL_RUN):
        _refuse(instance, attribute, f"0 or an int from {CANASTA_SIZE + 1} to {FULL_RUN}", value)


FULL_RUN: Final = 14
"""The longest meld: a run from ace to ace (R6)."""

MIN_OPENING: Final = 15
"""R25: the smallest minimum opening a rule set may ask for (other than 0, off): one ace."""
MAX_OPENING: Final = 150
"""R25: the largest (Canasta's highest opening requirement)."""


def _opening(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not int or not (value == 0 or MIN_OPENING <= value <= MAX_OPENING):
        _refuse(instance, attribute, f"0 or an int from {MIN_OPENING} to {MAX_OPENING}", value)


MAX_THRESHOLDS: Final = 8
"""R30: the most steps a rising minimum opening may have."""


def _thresholds(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    wanted = (
        f"a tuple of at most {MAX_THRESHOLDS} (total, minimum) pairs, totals rising from 1 to "
        f"{MAX_POINTS}, each minimum 0 or from {MIN_OPENING} to {MAX_OPENING}"
    )
    if type(value) is not tuple or len(value) > MAX_THRESHOLDS:
        _refuse(instance, attribute, wanted, value)
    last = 0
    for pair in cast(tuple[Any, ...], value):
        if (
            type(pair) is not tuple
            or len(pair) != 2
            or type(pair[0]) is not int
            or not last < pair[0] <= MAX_POINTS
            or not _is_minimum(pair[1])
        ):
            _refuse(instance, attribute, wanted, value)
        last = pair[0]


def _team_minimums(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not tuple or len(value) != 2 or not all(_is_minimum(v) for v in value):
        _refuse(
            instance,
            attribute,
            f"a pair of minimums, each 0 or from {MIN_OPENING} to {MAX_OPENING}",
            value,
        )


def _is_minimum(value: object) -> bool:
    return type(value) is int and (value == 0 or MIN_OPENING <= value <= MAX_OPENING)


@attrs.frozen(kw_only=True)
class RuleSet:
    """Everything a variant decides. Each field names the ruling (``R``-id) it implements."""

    name: str = ruled("", text)
    """Short name, as accepted by ``variants.get``."""
    title: str = ruled("", text)
    """The variant's name for people."""
    player_counts: tuple[int, ...] = ruled("R1", _player_counts)
    """R1: the allowed numbers of players."""
    default_players: int = ruled("R1", integer(2, 4))
    """R1: the number of players when none is given."""
    hand_size: int = ruled("R2", integer(1), default=11)
    """R2: cards dealt to each player."""
    extra_pile_size: int = ruled("R2, R12", integer(2), default=11)
    """R2: cards in each team's extra pile (morto, pozzetto). At least 2: a player who takes a
    smaller one directly could be left with one card they may not discard (R12-R14)."""
    discard_pile_starts_face_up: bool = ruled("R3", boolean)
    """R3: a card is turned face up to start the discard pile."""
    sets_allowed: bool = ruled("R5", boolean)
    """R5: melds of one rank (sets) are allowed, besides runs."""
    set_ranks: str | None = ruled("R27", optional(_set_ranks), default=None)
    """R27, a house rule (every preset leaves it None): the ranks of which sets may be made,
    their labels in rank order (``"AK"``: aces and kings only; ``"10JQK"``), where sets are
    allowed (:attr:`sets_allowed`); None: every rank but the 2s (R5). Refused with ``set-rank``."""
    max_set_size: int = ruled("R5", integer(MIN_MELD_SIZE, MAX_SET_SIZE), default=MAX_SET_SIZE)
    """R5: the most cards a set may hold."""
    max_natural_aces_in_run: int = ruled("R6", integer(1, 2))
    """R6: natural aces a run may hold (2 lets a run span ace to ace)."""
    ace_low_only: bool = ruled("R6", boolean, default=False)
    """A house rule (every preset leaves it off): the ace is low only, A-2-3 but no Q-K-A, so a
    run holds one ace at most. Refused with ``ace-low-only``."""
    locked_wildcards: bool = ruled("R29", boolean, default=False)
    """R29, a house rule (every preset leaves it off): a wildcard standing between two natural
    cards of a run stays there: an addition that would move it (R8) is refused with
    ``locked-wildcard``."""
    minimum_opening: int = ruled("R25", _opening, default=0)
    """R25, a house rule (every preset leaves it at 0, off): a team's first cards on the table,
    laid in one turn, must be worth at least this many card points (R17) before the turn ends;
    0, or from 15 to 150. Refused with ``minimum-opening``."""
    opening_thresholds: tuple[tuple[int, int], ...] = ruled("R30", _thresholds, default=())
    """R30, a house rule (every preset leaves it empty): the minimum opening rises with the team's
    match total (R20): pairs ``(total, minimum)``, totals rising, each minimum 0 or 15-150 in
    force from that total on (below the first, :attr:`minimum_opening`). A
    :class:`~buraco_rules.Match` deals each hand with :attr:`team_minimum_openings` set."""
    team_minimum_openings: tuple[int, int] | None = ruled(
        "R30", optional(_team_minimums), default=None
    )
    """R30: the minimum opening of each team in this hand, as a match sets it from
    :attr:`opening_thresholds`; None: :attr:`minimum_opening` for both."""
    closed_discard_pile: bool = ruled("R10", boolean)
    """R10: taking the pile needs its top card in a meld at once; otherwise it is open (R11)."""
    closed_take_naturals_only: bool = ruled("R26", boolean, default=False)
    """R26, a house rule (every preset leaves it off; only where the pile is closed, R10): the
    meld that takes the pile holds, besides the pile's top card, natural cards of the hand only:
    no joker and no 2 standing as a wildcard. Refused with ``take-with-wildcard``."""
    single_taken_card_discard_banned: bool = ruled("R11", boolean)
    """R11: a pile of one card, once taken, may not be discarded again in the same turn."""
    going_out_needs_clean_canasta: bool = ruled("R13", boolean)
    """R13: ending the hand needs a clean canasta (otherwise any canasta)."""
    may_go_out_by_melding: bool = ruled("R13", boolean)
    """R13: the hand may end by melding the last card (otherwise only by discarding it)."""
    may_go_out_discarding_wildcard: bool = ruled("R13", boolean)
    """R13: the last card, discarded to end the hand, may be a wildcard."""
    extra_pile_becomes_stock: bool = ruled("R15", boolean)
    """R15: when the stock runs out, an untaken extra pile becomes the stock."""
    stock_reserve: int = ruled("R21", integer(0), default=0)
    """R21: cards at the bottom of the stock that are never drawn: the hand ends when the player
    to draw finds this many or fewer (0: only an empty stock ends it, R15)."""
    stalemate_turns: int = ruled(
        "R24", integer(MIN_STALEMATE_TURNS, MAX_STALEMATE_TURNS), default=STALEMATE_TURNS
    )
    """R24: a hand ends in stalemate, scored as when the stock runs out, after this many turns in a
    row in which no card was drawn from the stock and none laid on the table. Every turn makes
    progress where the pile is closed (R10), so only an open pile (R11) can reach it."""
    going_out_bonus: int = ruled("R16", integer(0, MAX_POINTS), default=100)
    """R16: points for the team that ends the hand by going out."""
    extra_pile_penalty: int = ruled("R16", integer(0, MAX_POINTS), default=100)
    """R16: points lost by a team that never took its extra pile."""
    take_both_extra_piles: bool = ruled("R31", boolean, default=False)
    """R31, a house rule (every preset leaves it off): a team that has taken its own extra pile
    and empties a hand again while the other team's is still set aside takes that one too, as it
    took its own (R12); the other team then never takes one and may not go out."""
    first_draw_refusal: bool = ruled("R32", boolean, default=False)
    """R32, a house rule (every preset leaves it off): on the hand's first turn, the first player
    may refuse the card just drawn from the stock, once (``RefuseFirstDraw``): it goes face up
    on the discard pile and the next stock card is drawn in its place. Elsewhere the refusal is
    refused with ``cannot-refuse``."""
    untouched_extra_pile_is_void: bool = ruled("R19, R23", boolean, default=True)
    """R19, R23: an extra pile taken by discarding and still untouched when the opponents end the
    hand counts as never taken (True), or as taken, its cards lost as cards held (False)."""
    card_values: CardValues = attrs.field(
        validator=instance_of(CardValues), metadata={"ruling": "R17"}
    )
    """R17: the points of each card."""
    canasta_bonuses: CanastaBonuses = attrs.field(
        validator=instance_of(CanastaBonuses), metadata={"ruling": "R18"}
    )
    """R18: the bonus of each kind of canasta."""
    long_meld_size: int = ruled("R28", _long_meld_size, default=0)
    """R28, a house rule (every preset leaves it 0, off): a meld of at least this many cards (8
    to 14) earns :attr:`long_meld_bonus` on top of its canasta bonus (R18)."""
    long_meld_bonus: int = ruled("R28", integer(0, MAX_POINTS), default=0)
    """R28, a house rule (0, off, in every preset): the points a meld of at least
    :attr:`long_meld_size` cards earns on top of its canasta bonus."""
    match_target: int = ruled("R20", integer(1, MAX_POINTS))
    """R20: the total that wins a match."""
    value_by_id: tuple[int, ...] = attrs.field(init=False, eq=False, repr=False)
    """R17 as a table indexed by card id (derived from ``card_values``)."""
    opening_minimums: tuple[int, int] = attrs.field(init=False, eq=False, repr=False)
    """R25, R30: the minimum opening of each team in a hand (derived from
    ``team_minimum_openings``, or ``minimum_opening`` for both); (0, 0) when off."""
    set_rank_mask: int = attrs.field(init=False, eq=False, repr=False)
    """R5, R27 as a bitmask: bit ``r`` is set when sets of rank ``r + 1`` may be made (0 where
    sets are not allowed; derived from ``sets_allowed`` and ``set_ranks``)."""

    @property
    def is_preset(self) -> bool:
        """True when these are exactly the rules of the preset called :attr:`name` (``variants.get
        (name) == self``); False for a customised copy that kept a preset's name, or any rule set
        of another name. Only a preset may be stored by its name: store any other rule set whole.
        """
        preset = _PRESETS.get(self.name)
        return preset is not None and preset == self

    @value_by_id.default
    def _value_by_id(self) -> tuple[int, ...]:
        # Computed before the validators run: a card_values that is no CardValues is refused
        # by its validator, not here.
        values = self.card_values
        return values.by_id() if isinstance(values, CardValues) else ()

    @opening_minimums.default
    def _opening_minimums(self) -> tuple[int, int]:
        teams = self.team_minimum_openings
        if type(teams) is tuple:
            return teams
        need = self.minimum_opening
        return need, need

    @set_rank_mask.default
    def _set_rank_mask(self) -> int:
        if self.sets_allowed is not True:
            return 0
        ranks = self.set_ranks
        if type(ranks) is not str:
            return ALL_SET_RANKS
        return sum(1 << (r - 1) for r in parse_set_ranks(ranks) or ())

    def __attrs_post_init__(self) -> None:
        """The checks of fields together (each field's own are its validator)."""
        if self.default_players not in self.player_counts:
            raise InvalidRules(
                f"RuleSet.default_players must be one of player_counts {self.player_counts}, "
                f"not {describe(self.default_players)} (R1)"
            )
        most = max(self.player_counts)
        face_up = int(self.discard_pile_starts_face_up)
        dealt = most * self.hand_size + 2 * self.extra_pile_size + face_up
        if DECK_SIZE - dealt <= self.stock_reserve:
            reserve = (
                f" beyond the {describe(self.stock_reserve)} never drawn (R21)"
                if self.stock_reserve
                else ""
            )
            raise InvalidRules(
                f"RuleSet.hand_size and extra_pile_size deal {most} × {describe(self.hand_size)}"
                f" + 2 × {describe(self.extra_pile_size)}"
                + (" + 1 face up" if face_up else "")
                + f" = {describe(dealt)} cards, which leaves no stock of the {DECK_SIZE} to draw "
                f"from{reserve} (R2, R3, R4)"
            )
        if self.set_ranks is not None and not self.sets_allowed:
            raise InvalidRules(
                "RuleSet.set_ranks needs sets (RuleSet.sets_allowed): sets of "
                f"{self.set_ranks} are no sets at all (R5, R27)"
            )
        if (self.long_meld_size == 0) != (self.long_meld_bonus == 0):
            raise InvalidRules(
                "RuleSet.long_meld_size and RuleSet.long_meld_bonus are both 0 (off) or both set, "
                f"not {describe(self.long_meld_size)} and {describe(self.long_meld_bonus)} (R28)"
            )
        self._check_thresholds()
        if self.closed_take_naturals_only and not self.closed_discard_pile:
            raise InvalidRules(
                "RuleSet.closed_take_naturals_only needs a closed discard pile "
                "(RuleSet.closed_discard_pile): an open pile is taken without a meld (R11, R26)"
            )
        if not _can_score(self):
            raise InvalidRules(
                "no hand can earn a point: every card value (RuleSet.card_values), canasta bonus "
                "(RuleSet.canasta_bonuses) and RuleSet.going_out_bonus is 0, so no team ever "
                "reaches RuleSet.match_target and a match never ends (R16-R18, R20)"
            )

    def _check_thresholds(self) -> None:
        """R30: every step of a rising minimum opening can take effect: it is reached before the
        match ends (R20) and asks more than the step below it (the first, more than
        :attr:`minimum_opening`)."""
        steps = self.opening_thresholds
        if not steps:
            return
        total = steps[-1][0]
        if total >= self.match_target:
            raise InvalidRules(
                f"opening_thresholds: a team whose match total reaches {total} has reached the "
                f"match target of {self.match_target}, so the match is over and that minimum never "
                "applies; keep every total below the target (R20, R30)"
            )
        below = self.minimum_opening
        for total, minimum in steps:
            if minimum <= below:
                raise InvalidRules(
                    f"opening_thresholds must rise: from a total of {total} the minimum opening "
                    f"would be {minimum}, not more than the {below} below it (R25, R30)"
                )
            below = minimum


_PRESETS: Final[dict[str, RuleSet]] = {}
"""The preset rule sets by name, which :mod:`buraco_rules.variants` enters as it defines them:
it builds on this module, so this module cannot import it (no import cycle)."""


def _can_score(rules: RuleSet) -> bool:
    """Some hand can earn a team points (R16-R18), so that a match can reach its target (R20):
    a card worth something (every card can be melded), a canasta bonus of a kind that can be
    laid (a clean ace-to-ace run needs two natural aces, R6), or the going-out bonus."""
    bonuses = rules.canasta_bonuses
    return (
        any(rules.value_by_id)
        or bonuses.mixed > 0
        or bonuses.clean > 0
        or bonuses.all_ranks > 0
        or (bonuses.semi_clean or 0) > 0
        or (
            bonuses.ace_to_ace > 0 and rules.max_natural_aces_in_run == 2 and not rules.ace_low_only
        )
        or rules.going_out_bonus > 0
    )

"""Hypothesis strategies for cards, melds, rule sets, reachable states, views and actions.

Every strategy needs `hypothesis <https://hypothesis.readthedocs.io>`_ (``pip install
'buraco-rules[testing]'``). Each one takes keyword arguments only (besides the rule set or state
it works on), checks them when called (a bad one raises Hypothesis' ``InvalidArgument``), and
returns a ``SearchStrategy`` that shrinks towards small, early, simple examples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

import attrs
from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .. import variants
from ..actions import (
    MAX_MELD_INDEX,
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    TakeDiscardPile,
)
from ..cards import DECK, JOKER, Card, all_cards
from ..engine import apply, legal_actions, new_game
from ..errors import ErrorCode, InvalidRules
from ..match import Match, new_match
from ..melds import Meld, MeldKind
from ..positions import ACE_HIGH, ACE_LOW, MIN_RUN, card_at, wildcard_floats
from ..rules import MAX_STALEMATE_TURNS, MIN_STALEMATE_TURNS, RuleSet
from ..state import GameState, Phase
from ..views import PlayerView, view

__all__ = [
    "InvalidMeld",
    "Refusal",
    "cards",
    "game_states",
    "hands",
    "illegal_actions_of",
    "invalid_melds",
    "legal_actions_of",
    "matches",
    "rule_sets",
    "seeds",
    "valid_melds",
    "views",
]

_CARDS: Final = all_cards()
_PRESETS: Final = tuple(variants.get(name) for name in variants.NAMES)
_WILDCARDS: Final = (JOKER, *(_CARDS[suit * 13 + 1] for suit in range(4)))
"""The joker and the four 2s (R7)."""
_NOT_ACTIONS: Final = (None, "draw", "discard 5S", 7, 1.5, ("discard", "5S"), b"draw")
"""Objects a careless or hostile client might send instead of an action."""


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


@attrs.frozen(kw_only=True)
class Refusal:
    """An action that ``apply(state, action, player)`` must refuse, and the code it gives (from
    :func:`illegal_actions_of`)."""

    action: object
    """What is sent: an action, or an object that is none."""
    player: int | None
    """The seat that sends it, or None for the seat to act."""
    code: ErrorCode
    """The code of the ``IllegalAction`` that ``apply`` raises."""
    reason: str
    """Why it is illegal, in words."""


def _check_size(name: str, value: object, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise InvalidArgument(f"{name} must be an int from {low} to {high}, not {value!r}")
    return value


def _check_rules(rules: object) -> RuleSet:
    if not isinstance(rules, RuleSet):
        raise InvalidArgument(f"rules must be a RuleSet, not {rules!r}")
    return rules


def seeds() -> st.SearchStrategy[int]:
    """Seeds for ``new_game``, shrinking towards 0."""
    return st.integers(min_value=0, max_value=2**32 - 1)


def cards() -> st.SearchStrategy[Card]:
    """Any of the 53 distinct cards, shrinking towards the ace of clubs."""
    return st.sampled_from(_CARDS)


def hands(*, min_size: int = 0, max_size: int = 22) -> st.SearchStrategy[tuple[Card, ...]]:
    """Sorted tuples of cards that one 108-card deck can hold (no suited card more than twice, no
    more than four jokers), of ``min_size`` to ``max_size`` cards (at most 108)."""
    _check_size("max_size", max_size, 0, len(DECK))
    _check_size("min_size", min_size, 0, max_size)
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
    _check_rules(rules)
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
    _check_rules(rules)
    return _invalid_melds(rules)


def _bonus() -> st.SearchStrategy[int]:
    return st.integers(min_value=0, max_value=20).map(lambda n: n * 50)


@st.composite
def _house_rules(draw: st.DrawFn, preset: RuleSet) -> RuleSet:
    bonuses = preset.canasta_bonuses
    mixed = draw(_bonus(), label="mixed canasta")
    clean = draw(_bonus().map(lambda extra: mixed + extra), label="clean canasta")
    changes: dict[str, Any] = {
        "hand_size": draw(st.integers(min_value=7, max_value=13), label="R2 hand"),
        "extra_pile_size": draw(st.integers(min_value=7, max_value=13), label="R2 extra pile"),
        "max_natural_aces_in_run": draw(st.sampled_from([1, 2]), label="R6"),
        "closed_discard_pile": draw(st.booleans(), label="R10"),
        "single_taken_card_discard_banned": draw(st.booleans(), label="R11"),
        "going_out_needs_clean_canasta": draw(st.booleans(), label="R13 clean"),
        "may_go_out_by_melding": draw(st.booleans(), label="R13 melding"),
        "may_go_out_discarding_wildcard": draw(st.booleans(), label="R13 wildcard"),
        "extra_pile_becomes_stock": draw(st.booleans(), label="R15"),
        "stock_reserve": draw(st.integers(min_value=0, max_value=3), label="R21"),
        "stalemate_turns": draw(
            st.integers(min_value=MIN_STALEMATE_TURNS, max_value=MAX_STALEMATE_TURNS), label="R24"
        ),
        "going_out_bonus": draw(_bonus(), label="R16 going out"),
        "extra_pile_penalty": draw(_bonus(), label="R16 penalty"),
        "untouched_extra_pile_is_void": draw(st.booleans(), label="R19"),
        "canasta_bonuses": attrs.evolve(
            bonuses,
            mixed=mixed,
            clean=clean,
            all_ranks=draw(st.sampled_from([clean, bonuses.all_ranks]), label="R18 all ranks"),
            ace_to_ace=draw(st.sampled_from([clean, bonuses.ace_to_ace]), label="R18 A-A"),
        ),
        "match_target": draw(st.integers(min_value=1, max_value=40), label="R20") * 100,
    }
    if preset.sets_allowed:
        changes["max_set_size"] = draw(st.integers(min_value=7, max_value=9), label="R5 set size")
    changes["ace_low_only"] = draw(st.booleans(), label="house rule: the ace low only")
    changes["minimum_opening"] = draw(
        st.sampled_from([0, 15, 50, 90, 150]), label="house rule: the minimum opening (R25)"
    )
    try:
        return attrs.evolve(preset, **changes)
    except InvalidRules:
        reject()  # a combination the rules refuse (and say why): draw another


def rule_sets(*, house_rules: bool = True) -> st.SearchStrategy[RuleSet]:
    """The presets of :mod:`buraco_rules.variants` and, unless ``house_rules=False``, valid
    house-rule variations of them (hand and extra-pile sizes, a closed or open pile, ace and set
    limits, the ace low only, a minimum opening, going-out conditions, the stock's reserve,
    bonuses, penalties, match targets; any combination the rules refuse with ``InvalidRules`` is
    skipped), shrinking towards the presets."""
    if not isinstance(house_rules, bool):
        raise InvalidArgument(f"house_rules must be a bool, not {house_rules!r}")
    presets = st.sampled_from(_PRESETS)
    if not house_rules:
        return presets
    return st.one_of(presets, presets.flatmap(_house_rules))


@st.composite
def _game_states(
    draw: st.DrawFn, rules: RuleSet | None, players: int | None, min_steps: int, max_steps: int
) -> GameState:
    if rules is None:
        fitting = [r for r in _PRESETS if players is None or players in r.player_counts]
        rules = draw(st.sampled_from(fitting), label="rules")
    if players is None:
        players = draw(st.sampled_from(rules.player_counts), label="players")
    state = new_game(rules, players, seed=draw(seeds(), label="seed"))
    steps = draw(st.integers(min_value=min_steps, max_value=max_steps), label="steps")
    for _ in range(steps):
        actions = legal_actions(state)
        if not actions:  # the hand ended sooner
            break
        index = draw(st.integers(min_value=0, max_value=len(actions) - 1))
        state = apply(state, actions[index])
    return state


def _check_play(rules: RuleSet | None, players: int | None, min_steps: int, max_steps: int) -> None:
    """The arguments of a strategy that plays from a deal: :func:`game_states`, :func:`matches`."""
    if rules is not None:
        _check_rules(rules)
    if players is not None and players not in (rules.player_counts if rules else (2, 4)):
        raise InvalidArgument(f"players must be a count the rules allow or None, not {players!r}")
    _check_size("max_steps", max_steps, 0, 100_000)
    _check_size("min_steps", min_steps, 0, max_steps)


def game_states(
    *,
    rules: RuleSet | None = None,
    players: int | None = None,
    min_steps: int = 0,
    max_steps: int = 200,
) -> st.SearchStrategy[GameState]:
    """States reached by ``min_steps`` to ``max_steps`` legal actions from a seeded deal, or the
    final state of a hand that ended sooner: reachable states only.

    The deal is of ``rules`` (default: any of the three variants) with ``players`` (default: any
    count the rules allow). Shrinks towards short games, seed 0 and each state's first listed
    action. For house rules, ``rule_sets().flatmap(lambda r: game_states(rules=r))``.
    """
    _check_play(rules, players, min_steps, max_steps)
    return _game_states(rules, players, min_steps, max_steps)


@st.composite
def _matches(
    draw: st.DrawFn, rules: RuleSet | None, players: int | None, min_steps: int, max_steps: int
) -> Match:
    if rules is None:
        fitting = [r for r in _PRESETS if players is None or players in r.player_counts]
        target = draw(st.integers(min_value=1, max_value=6), label="match target") * 100
        rules = attrs.evolve(draw(st.sampled_from(fitting), label="rules"), match_target=target)
    if players is None:
        players = draw(st.sampled_from(rules.player_counts), label="players")
    first = draw(st.integers(min_value=0, max_value=players - 1), label="first player")
    match = new_match(rules, players, seed=draw(seeds(), label="seed"), first_player=first)
    steps = draw(st.integers(min_value=min_steps, max_value=max_steps), label="steps")
    for _ in range(steps):
        if match.is_over:
            break
        actions = legal_actions(match)
        match = apply(match, actions[draw(st.integers(min_value=0, max_value=len(actions) - 1))])
    return match


def matches(
    *,
    rules: RuleSet | None = None,
    players: int | None = None,
    min_steps: int = 0,
    max_steps: int = 400,
) -> st.SearchStrategy[Match]:
    """Matches (R20) reached by ``min_steps`` to ``max_steps`` legal actions from
    ``new_match``, or decided sooner.

    Without ``rules``, a preset whose match target is lowered to 100-600 points, so that matches
    end within a few hands and finished ones come up; pass ``rules`` for a preset's own target.
    Shrinks towards short matches, seed 0 and the first listed action.
    """
    _check_play(rules, players, min_steps, max_steps)
    return _matches(rules, players, min_steps, max_steps)


@st.composite
def _views(draw: st.DrawFn, states: st.SearchStrategy[GameState], to_act: bool) -> PlayerView:
    state = draw(states)
    if to_act:
        return view(state, state.current_player)
    return view(state, draw(st.integers(min_value=0, max_value=state.players - 1), label="seat"))


def views(
    *,
    rules: RuleSet | None = None,
    players: int | None = None,
    min_steps: int = 0,
    max_steps: int = 200,
    to_act: bool = False,
) -> st.SearchStrategy[PlayerView]:
    """Views of the states :func:`game_states` gives (same arguments), for any seat, or only for
    the seat to act with ``to_act=True``."""
    states = game_states(rules=rules, players=players, min_steps=min_steps, max_steps=max_steps)
    return _views(states, to_act)


def legal_actions_of(state: GameState) -> st.SearchStrategy[Action]:
    """One of the legal actions of ``state``, which must not be over; shrinks towards the first
    one listed."""
    if not isinstance(state, GameState):
        raise InvalidArgument(f"expected a GameState, not {state!r}")
    actions = legal_actions(state)
    if not actions:
        raise InvalidArgument("the hand is over: there is no legal action")
    return st.sampled_from(actions)


_Kind = tuple[str, ErrorCode, Sequence[object], Sequence[int | None]]
"""A kind of illegal action: why, the code, the actions to choose from, the seats that send it."""


def _refusal_kinds(state: GameState) -> list[_Kind]:
    """The kinds of illegal action this state allows. Every code depends only on what the seat
    to act can see (the checker goes in a documented order: game over, whose turn, kind of
    object, phase, then the move itself)."""
    code = ErrorCode
    hand = state.hands[state.current_player]
    held = Counter(hand)
    some_action: list[object] = [
        DrawFromStock(),
        TakeDiscardPile(),
        Discard(hand[0] if hand else _CARDS[0]),
    ]
    if state.phase is Phase.OVER:
        return [("the hand is over", code.GAME_OVER, some_action, [None])]
    others = [seat for seat in range(state.players) if seat != state.current_player]
    kinds: list[_Kind] = [
        ("another seat's turn", code.NOT_YOUR_TURN, some_action, others),
        ("not an action", code.MALFORMED_ACTION, _NOT_ACTIONS, [None]),
    ]
    if state.phase is Phase.DRAW:
        plays = [NewMeld(_CARDS[:3]), AddToMeld(0, _CARDS[:1]), *map(Discard, sorted(held))]
        kinds.append(("a play before drawing (R4)", code.WRONG_PHASE, plays, [None]))
        top = state.discard_pile[-1] if state.discard_pile else None
        if top is None:
            kinds.append(("no pile to take", code.EMPTY_DISCARD_PILE, [TakeDiscardPile()], [None]))
        elif state.rules.closed_discard_pile:
            reason = "a closed pile taken without a meld (R10)"
            kinds.append((reason, code.MUST_USE_TOP_CARD, [TakeDiscardPile()], [None]))
        else:
            reason = "an open pile taken with a meld (R11)"
            take = TakeDiscardPile(NewMeld([top, top, top]))
            kinds.append((reason, code.MALFORMED_ACTION, [take], [None]))
        return kinds
    draws = [DrawFromStock(), TakeDiscardPile()]
    kinds.append(("a second draw (R4)", code.WRONG_PHASE, draws, [None]))
    missing = [c for c in _CARDS if c not in held]
    if missing:
        reason = "a discard of a card not in the hand"
        kinds.append((reason, code.NOT_IN_HAND, [Discard(c) for c in missing], [None]))
        melds = [NewMeld([c, *hand[:2]]) for c in missing] + [NewMeld([c]) for c in missing]
        reason = "a meld with a card not in the hand"
        kinds.append((reason, code.NOT_IN_HAND, melds, [None]))
    if hand:
        count = len(state.melds[state.current_team])
        additions = [
            AddToMeld(i, [c]) for i in (count, count + 5, MAX_MELD_INDEX) for c in sorted(held)
        ]
        reason = "an addition to a meld the team does not have"
        kinds.append((reason, code.NO_SUCH_MELD, additions, [None]))
        naturals = sorted(c for c in held if not c.is_wild)
        short = [NewMeld([a]) for a in naturals]
        short += [NewMeld([a, b]) for a in naturals for b in sorted(held) if a < b][:200]
        if short:
            reason = "a meld of fewer than three cards (R5)"
            kinds.append((reason, code.INVALID_MELD, short, [None]))
    taken = state.taken_single_card
    if taken is not None and held[taken] == 1:
        reason = "a discard of the single card just taken (R11)"
        kinds.append((reason, code.CANNOT_DISCARD_TAKEN_CARD, [Discard(taken)], [None]))
    return kinds


@st.composite
def _illegal_actions(draw: st.DrawFn, state: GameState) -> Refusal:
    reason, error, actions, players = draw(st.sampled_from(_refusal_kinds(state)), label="kind")
    return Refusal(
        action=draw(st.sampled_from(actions), label="action"),
        player=draw(st.sampled_from(players), label="player"),
        code=error,
        reason=reason,
    )


def illegal_actions_of(state: GameState) -> st.SearchStrategy[Refusal]:
    """Illegal actions for ``state``, each a :class:`Refusal` with the code ``apply`` gives:
    another seat's move, objects that are no action, moves of the wrong phase, cards not in the
    hand, melds the team does not have, melds too short, a closed pile taken without a meld, the
    single taken card discarded, anything once the hand is over.

    Every code depends only on what the seat to act can see, so a server may check that it
    refuses the same way.
    """
    if not isinstance(state, GameState):
        raise InvalidArgument(f"expected a GameState, not {state!r}")
    return _illegal_actions(state)

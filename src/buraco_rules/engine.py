"""The reducer: ``new_game``, ``legal_actions``, ``is_legal`` and ``apply``.

``apply`` checks an action in a fixed order (game over, whose turn, what kind of object, phase,
then the move's own rules) and builds the next state; it never changes its input. The same
checker answers ``is_legal``; :mod:`buraco_rules.movegen` lists the actions it accepts.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final, NoReturn

from .actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from .cards import DECK, Card
from .errors import ErrorCode, IllegalAction
from .going_out import (
    banned_after,
    has_required_canasta,
    may_discard_last,
    may_leave,
    remove_cards,
)
from .melds import Meld, MeldKind, classify, meld_error
from .movegen import generate
from .rules import RuleSet
from .state import GameState, Phase

__all__ = ["apply", "is_legal", "legal_actions", "new_game"]

_DECK_COUNTS: Final = Counter(DECK)


def new_game(
    rules: RuleSet,
    players: int | None = None,
    *,
    seed: int | None = None,
    deck: Iterable[Card | str] | None = None,
    first_player: int = 0,
) -> GameState:
    """Deal a new hand (R1-R3).

    Give either ``seed`` (the 108 cards are shuffled with ``random.Random(seed)``) or ``deck``, the
    full 108-card multiset in deal order: the hands of seats 0, 1, ... (11 cards each), the extra
    pile of team 0, then of team 1, then (when the rules turn one face up, R3) the first discard,
    then the stock, first card drawn first. A wrong player count, deck or seat is a ``ValueError``.
    """
    if not isinstance(rules, RuleSet):
        raise ValueError(f"rules must be a RuleSet, not {type(rules).__name__}")
    if players is None:
        players = rules.default_players
    if type(players) is not int or players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        raise ValueError(f"{rules.title} is played by {counts} players, not {players!r} (R1)")
    if type(first_player) is not int or not 0 <= first_player < players:
        raise ValueError(
            f"first_player must be a seat from 0 to {players - 1}, not {first_player!r}"
        )
    if (seed is None) == (deck is None):
        raise ValueError("give exactly one of seed= (a shuffled deck) or deck= (an explicit order)")
    if deck is None:
        cards = list(DECK)
        random.Random(seed).shuffle(cards)
    else:
        cards = _check_deck(deck)
    n = rules.hand_size
    hands = tuple(tuple(sorted(cards[i * n : (i + 1) * n])) for i in range(players))
    at = players * n
    e = rules.extra_pile_size
    extra = (tuple(cards[at : at + e]), tuple(cards[at + e : at + 2 * e]))
    at += 2 * e
    discard: tuple[Card, ...] = ()
    if rules.discard_pile_starts_face_up:  # R3
        discard = (cards[at],)
        at += 1
    return GameState(
        rules=rules,
        players=players,
        current_player=first_player,
        phase=Phase.DRAW,
        hands=hands,
        stock=tuple(cards[at:]),
        discard_pile=discard,
        melds=((), ()),
        extra_piles=extra,
        extra_pile_taken=(False, False),
        untouched_extra_pile=(None, None),
    )


def _check_deck(deck: Iterable[Card | str]) -> list[Card]:
    try:
        cards = [Card.parse(c) if isinstance(c, str) else c for c in deck]
    except TypeError:
        raise ValueError("deck must be an iterable of cards") from None
    for c in cards:
        if type(c) is not Card:
            raise ValueError(f"deck holds {c!r}, which is not a card")
    counts = Counter(cards)
    if counts != _DECK_COUNTS:
        problems = []
        for card in sorted(set(counts) | set(_DECK_COUNTS)):
            have, want = counts.get(card, 0), _DECK_COUNTS[card]
            if have != want:
                problems.append(f"{have} × {card.pretty} (expected {want})")
        raise ValueError(
            f"deck must be the 108 cards of two decks (R2); it has {len(cards)} cards: "
            + ", ".join(problems[:6])
            + (" …" if len(problems) > 6 else "")
        )
    return cards


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action, in the deterministic order :mod:`buraco_rules.movegen` documents.

    Computed once per state and kept with it.
    """
    cached = state._legal
    if cached is None:
        cached = generate(state)
        object.__setattr__(state, "_legal", cached)
    return cached


def is_legal(state: GameState, action: object) -> bool:
    """Whether ``apply(state, action)`` would succeed: membership in ``legal_actions(state)``."""
    try:
        return action in legal_actions(state)
    except Exception:  # an unhashable or otherwise odd object is no legal action
        return False


def apply(state: GameState, action: object, player: int | None = None) -> GameState:
    """The state after ``action``; ``state`` itself never changes.

    With ``player``, the action is also refused unless that seat is the one to act. Raises
    :class:`IllegalAction` (and nothing else) for any action the rules do not allow.
    """
    if not isinstance(state, GameState):
        raise TypeError(f"expected a GameState, not {type(state).__name__}")
    legal = legal_actions(state)
    for candidate in legal:  # the usual case: an action taken from legal_actions itself
        if candidate is action:
            break
    else:
        try:
            candidate = legal[legal.index(action)]  # == also accepts an equal copy
        except Exception:
            candidate = None
    if candidate is None:
        _explain_refusal(state, action, player)
    try:
        return _check_and_build(state, candidate, player)
    except IllegalAction:
        raise  # only the player check can still fail here
    except Exception:
        # Anything that is not a well-formed action must still end in IllegalAction.
        raise IllegalAction(
            ErrorCode.MALFORMED_ACTION, f"{_describe(action)} is not a well-formed action"
        ) from None


def _explain_refusal(state: GameState, action: object, player: object) -> NoReturn:
    """Raise the IllegalAction that says why ``action`` is not among the legal actions."""
    try:
        _check_and_build(state, action, player)
    except IllegalAction:
        raise
    except Exception:
        pass
    raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{_describe(action)} is not a legal action")


def _describe(obj: object) -> str:
    try:
        text = repr(obj)
    except Exception:
        return f"a {type(obj).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def _check_and_build(state: GameState, action: object, player: object) -> GameState:
    if state.phase is Phase.OVER:
        raise IllegalAction(ErrorCode.GAME_OVER, "the hand is over")
    seat = state.current_player
    if player is not None and (type(player) is not int or player != seat):
        raise IllegalAction(
            ErrorCode.NOT_YOUR_TURN, f"it is seat {seat}'s turn, not seat {_describe(player)}'s"
        )
    kind = type(action)
    if kind is DrawFromStock or kind is TakeDiscardPile:
        if state.phase is not Phase.DRAW:
            raise IllegalAction(
                ErrorCode.WRONG_PHASE, "you have already drawn this turn; meld or discard (R4)"
            )
        if kind is DrawFromStock:
            return _draw(state)
        assert isinstance(action, TakeDiscardPile)
        return _take(state, action)
    if kind is NewMeld or kind is AddToMeld or kind is Discard:
        if state.phase is not Phase.PLAY:
            raise IllegalAction(
                ErrorCode.WRONG_PHASE, "draw first: from the stock or the discard pile (R4)"
            )
        if kind is Discard:
            assert isinstance(action, Discard)
            return _discard(state, action)
        assert isinstance(action, NewMeld | AddToMeld)
        return _meld(state, action)
    raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{_describe(action)} is not an action")


# --- the checks of each action -------------------------------------------------------------------


def _cards_of(cards: object) -> tuple[Card, ...]:
    if type(cards) is not tuple or not cards:
        raise IllegalAction(
            ErrorCode.MALFORMED_ACTION, f"{_describe(cards)} is not a list of cards"
        )
    for c in cards:
        if type(c) is not Card:
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{_describe(c)} is not a card")
    return cards


def _take_from_hand(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...]:
    remaining = remove_cards(hand, cards)
    if remaining is None:
        missing = Counter(cards) - Counter(hand)
        card = min(missing)
        held = hand.count(card)
        detail = "" if held == 0 else f" {missing[card] + held} times (you hold {held})"
        raise IllegalAction(ErrorCode.NOT_IN_HAND, f"{card.pretty} is not in your hand{detail}")
    return remaining


def _meld_index(state: GameState, index: object) -> int:
    melds = state.melds[state.current_player % 2]
    if type(index) is not int:
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{_describe(index)} is not a meld index")
    if not 0 <= index < len(melds):
        count = f"melds 0-{len(melds) - 1}" if melds else "no melds"
        raise IllegalAction(
            ErrorCode.NO_SUCH_MELD, f"your team has no meld {index} (it has {count})"
        )
    return index


def _new_meld(
    state: GameState, cards: tuple[Card, ...], melds: tuple[Meld, ...]
) -> tuple[Meld, ...]:
    meld = classify(cards, state.rules)
    if meld is None:
        code = meld_error(cards)
        what = " ".join(c.pretty for c in cards)
        if code is ErrorCode.TOO_MANY_WILDCARDS:
            raise IllegalAction(code, f"{what}: a meld may hold only one wildcard (R7)")
        kinds = "a run or a set" if state.rules.sets_allowed else "a run"
        raise IllegalAction(code, f"{what} is not {kinds} (R5, R6)")
    if meld.kind is MeldKind.SET and any(m.rank == meld.rank for m in melds):
        assert meld.rank is not None
        raise IllegalAction(
            ErrorCode.DUPLICATE_SET,
            f"your team already has a set of {meld.rank.label}s; add to it instead (R5)",
        )
    return (*melds, meld)


def _add_to_meld(
    state: GameState, index: int, cards: tuple[Card, ...], melds: tuple[Meld, ...]
) -> tuple[Meld, ...]:
    old = melds[index]
    union = tuple(sorted(old.multiset + cards))
    meld = classify(union, state.rules)
    if meld is None or meld.kind is not old.kind or meld.suit != old.suit or meld.rank != old.rank:
        code = meld_error(union)
        what = " ".join(c.pretty for c in cards)
        if code is ErrorCode.TOO_MANY_WILDCARDS:
            raise IllegalAction(
                code, f"adding {what} would give meld {index} a second wildcard (R7)"
            )
        raise IllegalAction(code, f"{what} cannot be added to meld {index} ({old}) (R5, R6, R8)")
    return melds[:index] + (meld,) + melds[index + 1 :]


def _melds_after(
    state: GameState, action: NewMeld | AddToMeld, cards: tuple[Card, ...]
) -> tuple[Meld, ...]:
    melds = state.melds[state.current_player % 2]
    if type(action) is NewMeld:
        return _new_meld(state, cards, melds)
    assert isinstance(action, AddToMeld)
    return _add_to_meld(state, _meld_index(state, action.meld), cards, melds)


def _draw(state: GameState) -> GameState:
    seat = state.current_player
    card = state.stock[0]  # never empty here: the turn change handles an empty stock (R15)
    hand = state.hands[seat]
    i = bisect(hand, card)
    return _replace(
        state,
        phase=Phase.PLAY,
        stock=state.stock[1:],
        hands=_set(state.hands, seat, hand[:i] + (card,) + hand[i:]),
    )


def _take(state: GameState, action: TakeDiscardPile) -> GameState:
    pile = state.discard_pile
    if not pile:
        raise IllegalAction(ErrorCode.EMPTY_DISCARD_PILE, "the discard pile is empty")
    seat = state.current_player
    hand = state.hands[seat]
    top = pile[-1]
    inner = action.meld
    if not state.rules.closed_discard_pile:  # R11
        if inner is not None:
            raise IllegalAction(
                ErrorCode.MALFORMED_ACTION,
                "the discard pile is open: take it without a meld, then meld (R11)",
            )
        return _open_take(state)
    if type(inner) is not NewMeld and type(inner) is not AddToMeld:  # R10
        raise IllegalAction(
            ErrorCode.MUST_USE_TOP_CARD,
            f"to take the pile you must meld its top card {top.pretty} at once (R10)",
        )
    cards = _cards_of(inner.cards)
    from_hand = remove_cards(cards, (top,))
    if from_hand is None:
        raise IllegalAction(
            ErrorCode.MUST_USE_TOP_CARD,
            f"the meld must use the pile's top card {top.pretty} (R10)",
        )
    remaining = remove_cards(hand, from_hand)
    if remaining is None:
        if remove_cards(tuple(sorted(hand + pile[:-1])), from_hand) is not None:
            raise IllegalAction(
                ErrorCode.MUST_USE_TOP_CARD,
                "only the top card of the pile may go into that meld; the others come from "
                "your hand (R10)",
            )
        remaining = _take_from_hand(hand, from_hand)  # raises not-in-hand, naming the card
    melds = _melds_after(state, inner, cards)
    new_hand = tuple(sorted(remaining + pile[:-1]))
    team = seat % 2
    _check_leaves(state, team, new_hand, melds)
    after = _replace(
        state,
        phase=Phase.PLAY,
        discard_pile=(),
        hands=_set(state.hands, seat, new_hand),
        melds=_set(state.melds, team, melds),
    )
    return _after_meld(after) if not new_hand else after


def _open_take(state: GameState) -> GameState:
    seat = state.current_player
    pile = state.discard_pile
    single = pile[0] if len(pile) == 1 and state.rules.single_taken_card_discard_banned else None
    return _replace(
        state,
        phase=Phase.PLAY,
        discard_pile=(),
        hands=_set(state.hands, seat, tuple(sorted(state.hands[seat] + pile))),
        taken_single_card=single,
    )


def _meld(state: GameState, action: NewMeld | AddToMeld) -> GameState:
    cards = _cards_of(action.cards)
    seat = state.current_player
    team = seat % 2
    remaining = _take_from_hand(state.hands[seat], cards)
    melds = _melds_after(state, action, cards)
    banned = banned_after(state, cards)
    _check_leaves(state, team, remaining, melds, banned)
    after = _replace(
        state,
        hands=_set(state.hands, seat, remaining),
        melds=_set(state.melds, team, melds),
        taken_single_card=banned,
    )
    return _after_meld(after) if not remaining else after


def _check_leaves(
    state: GameState,
    team: int,
    remaining: tuple[Card, ...],
    melds: Sequence[Meld],
    banned: Card | None = None,
) -> None:
    if may_leave(state, team, remaining, melds, banned):
        return
    if not remaining:
        raise IllegalAction(
            ErrorCode.CANNOT_GO_OUT,
            "that would empty your hand, but your team may not go out now (R12-R14)",
        )
    raise IllegalAction(
        ErrorCode.CANNOT_GO_OUT,
        f"that would leave only {remaining[0].pretty}, which you could not discard (R13, R14)",
    )


def _after_meld(state: GameState) -> GameState:
    """The hand is empty after a meld: take the extra pile directly, or end the hand (R12, R13)."""
    seat = state.current_player
    team = seat % 2
    extra = state.extra_piles[team]
    if extra is not None:
        return _replace(
            state,
            hands=_set(state.hands, seat, tuple(sorted(extra))),
            extra_piles=_set(state.extra_piles, team, None),
            extra_pile_taken=_set(state.extra_pile_taken, team, True),
        )
    return _replace(state, phase=Phase.OVER, went_out=team)


def _discard(state: GameState, action: Discard) -> GameState:
    card = action.card
    if type(card) is not Card:
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"{_describe(card)} is not a card")
    seat = state.current_player
    team = seat % 2
    hand = state.hands[seat]
    remaining = _take_from_hand(hand, (card,))
    if card == state.taken_single_card and card not in remaining:
        raise IllegalAction(
            ErrorCode.CANNOT_DISCARD_TAKEN_CARD,
            f"{card.pretty} was the only card of the pile you took; keep it this turn (R11)",
        )
    melds = state.melds[team]
    if not remaining and not may_discard_last(state, team, card, melds, state.taken_single_card):
        needs = "a clean canasta" if state.rules.going_out_needs_clean_canasta else "a canasta"
        if has_required_canasta(state, melds):
            reason = "the last card may not be a wildcard (R13)"
        else:
            reason = f"your team needs {needs} to go out (R13)"
        raise IllegalAction(ErrorCode.CANNOT_GO_OUT, f"you cannot discard your last card: {reason}")
    hands = _set(state.hands, seat, remaining)
    discard_pile = (*state.discard_pile, card)
    extra_piles = state.extra_piles
    extra_pile_taken = state.extra_pile_taken
    untouched = state.untouched_extra_pile
    if not remaining:
        extra = extra_piles[team]
        if extra is None:  # R13: the hand ends
            return _replace(
                state, hands=hands, discard_pile=discard_pile, phase=Phase.OVER, went_out=team
            )
        # R12: indirectly; the pile is played from the next turn (and is untouched until then, R19)
        hands = _set(hands, seat, tuple(sorted(extra)))
        extra_piles = _set(extra_piles, team, None)
        extra_pile_taken = _set(extra_pile_taken, team, True)
        untouched = _set(untouched, team, seat)
    # The turn passes on (R1).
    seat = (seat + 1) % state.players
    team = seat % 2
    stock = state.stock
    if not stock:  # R15
        if state.rules.extra_pile_becomes_stock:
            for t in (team, 1 - team):
                pile = extra_piles[t]
                if pile is not None:
                    stock = pile  # in deal order: its first card is drawn first
                    extra_piles = _set(extra_piles, t, None)
                    break
        if not stock:
            return _replace(
                state,
                hands=hands,
                discard_pile=discard_pile,
                extra_piles=extra_piles,
                extra_pile_taken=extra_pile_taken,
                untouched_extra_pile=untouched,
                phase=Phase.OVER,
            )
    if untouched[team] == seat:  # R19: the taker's next turn has come
        untouched = _set(untouched, team, None)
    return _replace(
        state,
        current_player=seat,
        phase=Phase.DRAW,
        hands=hands,
        stock=stock,
        discard_pile=discard_pile,
        extra_piles=extra_piles,
        extra_pile_taken=extra_pile_taken,
        untouched_extra_pile=untouched,
        taken_single_card=None,
    )


# --- building states -----------------------------------------------------------------------------


def _set(values: tuple[Any, ...], index: int, value: Any) -> Any:
    return values[:index] + (value,) + values[index + 1 :]


_KEEP: Any = object()


def _replace(
    state: GameState,
    *,
    current_player: int = -1,
    phase: Phase | None = None,
    hands: tuple[tuple[Card, ...], ...] | None = None,
    stock: tuple[Card, ...] | None = None,
    discard_pile: tuple[Card, ...] | None = None,
    melds: tuple[tuple[Meld, ...], tuple[Meld, ...]] | None = None,
    extra_piles: tuple[tuple[Card, ...] | None, tuple[Card, ...] | None] | None = None,
    extra_pile_taken: tuple[bool, bool] | None = None,
    untouched_extra_pile: tuple[int | None, int | None] | None = None,
    taken_single_card: Card | None = _KEEP,
    went_out: int | None = _KEEP,
) -> GameState:
    # Spelled out rather than attrs.evolve: this is on every step's path.
    return GameState(
        rules=state.rules,
        players=state.players,
        current_player=state.current_player if current_player < 0 else current_player,
        phase=state.phase if phase is None else phase,
        hands=state.hands if hands is None else hands,
        stock=state.stock if stock is None else stock,
        discard_pile=state.discard_pile if discard_pile is None else discard_pile,
        melds=state.melds if melds is None else melds,
        extra_piles=state.extra_piles if extra_piles is None else extra_piles,
        extra_pile_taken=state.extra_pile_taken if extra_pile_taken is None else extra_pile_taken,
        untouched_extra_pile=state.untouched_extra_pile
        if untouched_extra_pile is None
        else untouched_extra_pile,
        taken_single_card=state.taken_single_card
        if taken_single_card is _KEEP
        else taken_single_card,
        went_out=state.went_out if went_out is _KEEP else went_out,
    )

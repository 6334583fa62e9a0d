"""The move generator: every legal action of a state, in a documented deterministic order.

Order: ``DrawFromStock``, then the ways to take the discard pile; or, in the play phase,
``RefuseFirstDraw`` where it is allowed (R32), the melds, then the discards (by card id). Melds
and takes come suit by suit (clubs, diamonds, hearts, spades): the new runs, then the additions
to that suit's runs by meld index; then rank by rank, a new set or the additions to the team's set
of that rank. Within each, by the cards' ids.

The hand is read once into what it offers each suit (:func:`buraco_rules.melds.search.suit_hands`);
a quick test on those bitmasks skips every suit and meld that cannot take part in a run, which is
most of them, and the search runs on the rest. R14 is applied afterwards, and only to options big
enough to matter. Each action is listed with its *recipe*, the meld index and cards it was built
from, from which ``apply`` lays the meld it makes.

The rulings it decides beyond a meld's shape (the stock, R11, R13, R14) are the predicates of
:mod:`buraco_rules.engine.constraints`, asked as a yes/no (the checker raises what they return); the
shape of a meld and the cards held are decided by the search itself, the documented fast filter
that the brute-force tests hold equal to the checker's predicates.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from ..core.actions import (
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from ..core.cards import Card, all_cards
from ..core.memo import memoised
from ..melds.geometry import ACE_BITS, card_at
from ..melds.meld import IS_WILD, Meld, gap_place, moves_locked, sets_by_rank
from ..melds.search import (
    NOTHING_FIXED,
    counted_set_options,
    might_extend,
    might_start,
    might_start_with_top,
    might_take_onto,
    run_facts,
    run_options,
    suit_hand,
    suit_hands,
    wild_kinds,
    with_top,
)
from .constraints import (
    empty_stock,
    first_draw_refusal,
    last_discard,
    leaves,
    leaves_after_take,
    take_naturals,
    taken_card,
)
from .going_out import banned_after, kept_after_take, remove_cards
from .recipes import corrupt_hand, melds_with, result_of
from .state import TEAM, GameState, Listed, Phase

_CARDS: Final = all_cards()
_SET_RANKS: Final = tuple(r for r in range(13) if not IS_WILD[r])
"""The ranks (0 = ace) of which sets are made: every rank but the 2s, which are wild (R7)."""
_DRAW: Final = DrawFromStock()
_REFUSE: Final = RefuseFirstDraw()
_TAKE_OPEN: Final = TakeDiscardPile()
_DISCARD: Final = tuple(Discard(c) for c in _CARDS)

Generated = tuple[tuple[Action, ...], tuple[Listed, ...]]
"""The legal actions, and for each what it was listed as
(:data:`~buraco_rules.engine.state.Listed`)."""

Option = tuple[int, tuple[Card, ...]]
"""A meld index (-1: a new meld) and the cards to put there."""
Group = tuple[int, tuple[tuple[Card, ...], ...]]
"""A meld index (-1: new melds) and the search's tuple of the cards of each option for it."""

ListedMeld = tuple[NewMeld | AddToMeld, tuple[Card, ...]]
"""A meld-making action and the very tuple of cards it was built with."""
ListedTake = tuple[TakeDiscardPile, NewMeld | AddToMeld, tuple[Card, ...]]
"""A take of a closed pile, the meld-making action it holds and that action's tuple of cards."""

# Action objects recur from state to state, and building one costs more than finding it. So they
# are kept process-wide and shared by every table; a frozen object can still be forced to change
# (object.__setattr__), so each one is checked against what it was built with before it is
# listed (below), and ``apply`` goes by the listing's own values (``Listed``), never by what a
# listed object holds: what is forced on one table's object never reaches another table.


def _build_meld(index: int, cards: tuple[Card, ...]) -> ListedMeld:
    action: NewMeld | AddToMeld = NewMeld(cards) if index < 0 else AddToMeld(index, cards)
    return action, action.cards


def _build_take(index: int, cards: tuple[Card, ...]) -> ListedTake:
    inner, own = _build_meld(index, cards)
    return TakeDiscardPile(inner), inner, own


@memoised(maxsize=1 << 15)
def _kept_meld(index: int, cards: tuple[Card, ...]) -> ListedMeld:
    return _build_meld(index, cards)


@memoised(maxsize=1 << 12)
def _kept_take(index: int, cards: tuple[Card, ...]) -> ListedTake:
    return _build_take(index, cards)


_GROUPED: Final = 4
"""From how many options of one search answer the generator looks their actions up as a group."""


@memoised(maxsize=1 << 12)  # about 2 KB an entry: the bound stays that of the earlier caches
def _kept_group(
    index: int, options: tuple[tuple[Card, ...], ...]
) -> tuple[tuple[NewMeld | AddToMeld, Option], ...]:
    """The kept action of each of a search's ``options`` for meld ``index``, with its recipe.

    Fast path: the search's answers are memoised tuples that recur from state to state, so their
    actions are looked up once per group rather than once per option (a look-up hashes the
    option's cards, and a hand of 70 cards lists thousands of long melds). Each is the action
    :func:`_meld_action` gives; the generator still checks each to be intact before it lists it
    (a test holds the listing to the one made option by option)."""
    found = []
    for cards in options:
        action, own = _meld_action(index, cards)
        found.append((action, (index, own)))
    return tuple(found)


def _intact(action: NewMeld | AddToMeld, own: tuple[Card, ...], index: int) -> bool:
    """``action`` still holds what it was built with (by identity and exact type: nothing a
    forced value does can run here)."""
    if action.cards is not own:
        return False
    if type(action) is NewMeld:
        return True
    meld = action.meld  # type: ignore[union-attr]
    return type(meld) is int and meld == index


def _meld_action(index: int, cards: tuple[Card, ...]) -> ListedMeld:
    """The listed action of the option ``(index, cards)``: the kept one, unless it was forced to
    change since it was built (then this listing gets its own)."""
    listed = _kept_meld(index, cards)
    return listed if _intact(listed[0], listed[1], index) else _build_meld(index, cards)


def _take_action(index: int, cards: tuple[Card, ...]) -> ListedTake:
    """The listed take of the option ``(index, cards)`` (see :func:`_meld_action`)."""
    listed = _kept_take(index, cards)
    take, inner, own = listed
    if take.meld is inner and _intact(inner, own, index):
        return listed
    return _build_take(index, cards)


def _discard(card: Card) -> Discard:
    """The listed discard of ``card``: the kept one, unless it was forced to change."""
    exact = _CARDS[card]
    action = _DISCARD[card]
    return action if action.card is exact else Discard(exact)


def generate(state: GameState) -> Generated:
    """Every legal action of ``state`` (none once the hand is over), with its recipe."""
    if state.phase is Phase.PLAY:
        return _play_actions(state)
    if state.phase is Phase.DRAW:
        return _draw_actions(state)
    return (), ()


def _option_groups(state: GameState, hand: tuple[Card, ...]) -> list[Group]:
    """Every new meld and addition that ``hand`` allows (ignoring R14), in the documented order,
    as groups: a meld index (-1 for new melds) and the very tuple of card tuples the search
    returned for it (memoised, so that it recurs from state to state: see :func:`_kept_group`)."""
    rules = state.rules
    melds = state.melds[TEAM[state.current_player]]
    max_aces = rules.max_natural_aces_in_run
    low_only = rules.ace_low_only
    runs: list[list[tuple[int, Meld]]] = [[], [], [], []]
    for i, meld in enumerate(melds):
        if meld.suit is not None:
            runs[meld.suit].append((i, meld))
    offers = suit_hands(hand)
    found: list[Group] = []
    for s in range(4):
        offer = offers[s]
        if might_start(offer):
            options = run_options(s, offer, NOTHING_FIXED, max_aces, low_only=low_only)
            if options:
                found.append((-1, options))
        for i, meld in runs[s]:
            facts = run_facts(meld)
            if might_extend(offer, facts):
                options = run_options(s, offer, facts.fixed, max_aces, low_only=low_only)
                if options:
                    found.append((i, options))
    if rules.sets_allowed:
        found += _set_options(state, hand, None, melds)
    return found


def _take_options(state: GameState, hand: tuple[Card, ...], top: Card) -> list[Option]:
    """The new melds and additions that take a closed pile's ``top`` card with cards of ``hand``
    (R10, ignoring R14), in the documented order, the top card among the cards."""
    rules = state.rules
    melds = state.melds[TEAM[state.current_player]]
    max_aces = rules.max_natural_aces_in_run
    low_only = rules.ace_low_only
    wild = IS_WILD[top]
    kinds = wild_kinds(hand)
    found: list[Option] = []
    for s in range(4) if wild else (top // 13,):
        offer = suit_hand(hand, s, kinds)
        if might_start_with_top(offer, s, top):
            fixed = with_top(s, NOTHING_FIXED, top)
            if fixed is not None:  # always: a natural top card is of suit s
                found += _tagged(
                    -1, run_options(s, offer, fixed, max_aces, take=True, low_only=low_only), top
                )
        for i, meld in enumerate(melds):
            if meld.suit != s:
                continue
            facts = run_facts(meld)
            fixed = with_top(s, facts.fixed, top)
            if fixed is not None and (wild or might_take_onto(offer, meld, facts, top)):
                found += _tagged(
                    i, run_options(s, offer, fixed, max_aces, take=True, low_only=low_only), top
                )
    if rules.sets_allowed:
        for index, options in _set_options(state, hand, top, melds):
            found += [(index, cards) for cards in options]
    return found


def _tagged(index: int, options: tuple[tuple[Card, ...], ...], top: Card) -> list[Option]:
    """``options`` for meld ``index`` with the ``top`` card among their cards (re-sorted)."""
    if not options:
        return []
    return [(index, cards) for cards in sorted(tuple(sorted((*c, top))) for c in options)]


def _set_options(
    state: GameState, hand: tuple[Card, ...], top: Card | None, melds: tuple[Meld, ...]
) -> list[Group]:
    """New sets and additions to sets, rank by rank (R5), as groups (see
    :func:`_option_groups`); with ``top``, those that use it."""
    rules = state.rules
    cards = hand if top is None else tuple(sorted((*hand, top)))
    wilds = wild_kinds(cards)
    # The hand is counted once by card (rather than each rank's four cards counted in the hand:
    # fifty-two scans); a set's rank counts its natural cards of every suit, 2s being wild.
    held_cards = [0] * 53
    for c in cards:
        held_cards[c] += 1
    held = sets_by_rank(melds)
    only = -1 if top is None or IS_WILD[top] else top % 13
    allowed = rules.set_rank_mask  # R27: the ranks of which sets may be made
    found: list[Group] = []
    for r in _SET_RANKS if only < 0 else (only,):
        if not allowed >> r & 1:
            continue
        index = held.get(r, -1)
        count = held_cards[r] + held_cards[r + 13] + held_cards[r + 26] + held_cards[r + 39]
        # R5: a team holds one set of a rank; more cards go onto it
        if count < 2 if index < 0 else not (count or wilds):
            continue
        by_suit = (held_cards[r], held_cards[r + 13], held_cards[r + 26], held_cards[r + 39])
        meld = melds[index] if index >= 0 else None
        options = counted_set_options(r, by_suit, wilds, meld, rules.max_set_size)
        if top is not None:
            options = tuple([option for option in options if top in option])
        if options:
            found.append((index, options))
    return found


def _play_actions(state: GameState) -> Generated:
    seat = state.current_player
    team = TEAM[seat]
    hand = state.hands[seat]
    size = len(hand)
    actions: list[Action] = []
    recipes: list[Listed] = []
    if state.first_turn and first_draw_refusal(state) is None:  # R32, a house rule
        actions.append(_REFUSE)
        recipes.append(None)
    groups = _option_groups(state, hand)
    if state.rules.locked_wildcards:
        groups = _unlocked_groups(state, groups)
    for index, options in groups:
        # Many options: look their actions up at once (see _kept_group); few: one by one, which
        # costs less than building the group's key.
        group = _kept_group(index, options) if len(options) >= _GROUPED else None
        for k, cards in enumerate(options):
            if size - len(cards) < 2:  # R14 decides the big ones
                remaining = remove_cards(hand, cards)
                if remaining is None:
                    raise corrupt_hand(state)
                melds = _melds_once_made(state, index, cards)
                if leaves(state, team, remaining, melds, banned_after(state, cards)) is not None:
                    continue
            if group is None:
                action, own = _meld_action(index, cards)
                actions.append(action)
                recipes.append((index, own))
                continue
            action, recipe = group[k]
            own = recipe[1]
            if not _intact(action, own, index):
                action, own = _build_meld(index, cards)
                recipe = (index, own)
            actions.append(action)
            recipes.append(recipe)
    banned = state.taken_single_card
    discards: Collection[Card]
    if size == 1:
        last = last_discard(state, team, hand[0], state.melds[team], banned)
        discards = (hand[0],) if last is None else ()
    elif banned is None:
        discards = dict.fromkeys(hand)
    else:
        # R11 (taken_card) has a say only over the banned card itself.
        discards = [
            c for c in dict.fromkeys(hand) if c != banned or taken_card(hand, c, banned) is None
        ]
    # Each kept Discard is checked to hold its card still (see _discard), here inline: it is the
    # most frequent action.
    actions += [d if (d := _DISCARD[c]).card is _CARDS[c] else _discard(c) for c in discards]
    recipes += discards
    return tuple(actions), tuple(recipes)


def _keeps_locked(state: GameState, index: int, cards: tuple[Card, ...]) -> bool:
    """R29: the option ``(index, cards)`` leaves meld ``index``'s locked wildcard where it stands
    (:func:`~buraco_rules.engine.constraints.locked_wildcard`); always so for a new meld."""
    if index < 0:
        return True
    old = state.melds[TEAM[state.current_player]][index]
    place = gap_place(old)
    if not place or old.suit is None:
        return True
    if not old.naturals & ACE_BITS and card_at(old.suit, place) not in cards:
        # Without an ace to turn round (R6), only the natural card of its place can move it: no
        # addition shifts the naturals of a run (a test tries every run of a suit).
        return True
    result = result_of(state, (index, cards))
    if result is None:
        raise corrupt_hand(state)
    return not moves_locked(old, result)


def _unlocked_groups(state: GameState, groups: list[Group]) -> list[Group]:
    """``groups`` without the options that move a locked wildcard (R29)."""
    kept: list[Group] = []
    for index, options in groups:
        allowed = tuple([cards for cards in options if _keeps_locked(state, index, cards)])
        if allowed:
            kept.append((index, allowed))
    return kept


def _melds_once_made(state: GameState, index: int, cards: tuple[Card, ...]) -> tuple[Meld, ...]:
    """The team's melds once the option ``(index, cards)`` of the search is laid."""
    result = result_of(state, (index, cards))
    if result is None:
        raise corrupt_hand(state)
    action = _meld_action(index, cards)[0]
    return melds_with(state.melds[TEAM[state.current_player]], action, result)


def _naturals_take(state: GameState, index: int, cards: tuple[Card, ...], top: Card) -> bool:
    """R26: the take's option ``(index, cards)`` (the top card among ``cards``) holds no wildcard
    from the hand (:func:`~buraco_rules.engine.constraints.take_naturals`)."""
    from_hand = remove_cards(cards, (top,))
    if from_hand is None:
        raise corrupt_hand(state)
    if not any(IS_WILD[c] for c in from_hand):
        return True  # the quick answer: nothing from the hand could be wild
    result = result_of(state, (index, cards))
    if result is None:
        raise corrupt_hand(state)
    return take_naturals(state, from_hand, result) is None


def _draw_actions(state: GameState) -> Generated:
    pile = state.discard_pile
    draw: Generated = (
        ((), ()) if empty_stock(state) is not None else ((_DRAW,), (None,))
    )  # the turn change ends the hand before that (R15, R21)
    if not pile:
        return draw
    if not state.rules.closed_discard_pile:
        take = _TAKE_OPEN if _TAKE_OPEN.meld is None else TakeDiscardPile()  # unless forced
        return draw[0] + (take,), draw[1] + (None,)  # R11
    # R10: the top card goes at once into a meld with cards from the hand.
    seat = state.current_player
    team = TEAM[seat]
    hand = state.hands[seat]
    top = pile[-1]
    rest = pile[:-1]
    kept = len(hand) + len(rest)  # cards held after the take, before the meld's hand cards go
    actions: list[Action] = list(draw[0])
    recipes: list[Listed] = list(draw[1])
    naturals_only = state.rules.closed_take_naturals_only
    locked = state.rules.locked_wildcards
    for index, cards in _take_options(state, hand, top):
        if naturals_only and not _naturals_take(state, index, cards, top):
            continue  # R26, a house rule
        if locked and not _keeps_locked(state, index, cards):
            continue  # R29, a house rule
        if kept - (len(cards) - 1) < 2:  # R14 decides the big ones
            remaining = kept_after_take(hand, top, cards)
            if remaining is None:
                raise corrupt_hand(state)
            melds = _melds_once_made(state, index, cards)
            if leaves_after_take(state, team, remaining, pile, melds) is not None:
                continue
        take, _, own = _take_action(index, cards)
        actions.append(take)
        recipes.append((index, own))
    return tuple(actions), tuple(recipes)

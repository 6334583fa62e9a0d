"""From a seat's view back to full states: the cards it cannot see, dealt into their places.

:func:`determinize` deals them at random (what an information-set search or a "what if" analysis
needs); :func:`canonical_state` deals them in a fixed order, and is how ``legal_actions``,
``is_legal`` and ``why_illegal`` answer for a view. That is sound because legality and refusals
depend on the view alone (the hidden-information guarantee, tested by re-dealing the hidden cards
of reachable states and comparing).

>>> import random
>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> state = br.new_game(variants.BURACO_FECHADO, 4, seed=1)
>>> guess = br.determinize(br.view(state, 2), random.Random(0))
>>> br.view(guess, 2) == br.view(state, 2)
True
"""

from __future__ import annotations

import operator
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Final

import attrs

from ..core.actions import AddToMeld, NewMeld
from ..core.cards import Card
from ..core.decks import DECK_COUNTS
from ..core.errors import InvalidState
from ..core.quoting import describe, kind_of
from ..core.rules import DECK_SIZE, RuleSet
from ..engine import transitions
from ..engine.going_out import may_discard_last
from ..engine.movegen import generate
from ..engine.opening import need_of, opening_turn, reachable
from ..engine.recipes import result_of
from ..engine.scoring import table_points
from ..engine.state import TEAM, GameState, Phase
from ..engine.validate import validate
from ..melds.meld import Meld
from .views import PUBLIC_FIELDS, PlayerView, view

__all__ = ["canonical_state", "determinize", "unseen_cards"]

_public: Final = operator.attrgetter(*PUBLIC_FIELDS)


def unseen_cards(seen: PlayerView) -> tuple[Card, ...]:
    """The multiset of cards ``seen``'s seat cannot see (other hands, the stock, untaken extra
    piles, a closed pile below its top), sorted: the 108 cards (R2) less its own hand, the
    visible discards and the melds."""
    if type(seen) is not PlayerView:
        raise TypeError(f"expected a PlayerView, not {kind_of(seen)}")
    counts = Counter(DECK_COUNTS)
    counts.subtract(seen.hand)
    counts.subtract(seen.discard_pile)
    for team in seen.melds:
        for meld in team:
            counts.subtract(meld.cards)
    if any(n < 0 for n in counts.values()):
        raise ValueError("the view shows more copies of a card than the deck holds (R2)")
    return tuple(sorted(counts.elements()))


def _places(seen: PlayerView) -> int:
    """How many cards the hidden places hold, by the view's sizes."""
    others = sum(n for s, n in enumerate(seen.hand_sizes) if s != seen.seat)
    below = seen.discard_pile_size - len(seen.discard_pile)
    extras = sum(n for n in seen.extra_pile_sizes if n is not None)
    return others + seen.stock_size + below + extras


def _deal(seen: PlayerView, cards: Sequence[Card]) -> GameState:
    """The state whose hidden places hold ``cards`` in this order: the other seats' hands by
    seat, the stock (first card drawn first), the pile below its top, the extra piles by team."""
    at = 0

    def take(n: int) -> tuple[Card, ...]:
        nonlocal at
        part = tuple(cards[at : at + n])
        at += n
        return part

    hands = tuple(
        seen.hand if s == seen.seat else tuple(sorted(take(n)))
        for s, n in enumerate(seen.hand_sizes)
    )
    stock = take(seen.stock_size)
    pile = take(seen.discard_pile_size - len(seen.discard_pile)) + seen.discard_pile
    size0, size1 = seen.extra_pile_sizes
    extra = (None if size0 is None else take(size0), None if size1 is None else take(size1))
    drawn = seen.first_draw
    if (
        drawn is None
        and seen.first_turn
        and seen.phase is Phase.PLAY
        and seen.seat != seen.current_player
    ):
        # R32: another seat drew; the card it may refuse is the first dealt into its hand (at
        # random where the cards are shuffled, so any card of that hand, as likely as another).
        start = _hand_before(seen)
        if start < len(cards) and seen.hand_sizes[seen.current_player]:
            drawn = cards[start]
    return GameState(
        hands=hands,
        stock=stock,
        discard_pile=pile,
        extra_piles=extra,
        first_draw=drawn,
        **dict(zip(PUBLIC_FIELDS, _public(seen), strict=True)),
    )


def _hand_before(seen: PlayerView) -> int:
    """Where the hand of the seat to act starts among the hidden places (see :func:`_deal`)."""
    return sum(n for s, n in enumerate(seen.hand_sizes[: seen.current_player]) if s != seen.seat)


def _hides_actor(seen: PlayerView, state: GameState) -> bool:
    """The hand of the seat to act is hidden and constrained by what the view shows: it holds the
    single card just taken (R11), it is one card that the seat may discard (R14), or its team is
    in its opening turn, short of the minimum, and the hand must still reach it (R25, R30).
    ``state`` is a deal of ``seen`` (any: only the view's fields are read)."""
    if seen.current_player == seen.seat or seen.phase is not Phase.PLAY:
        return False
    return (
        seen.taken_single_card is not None
        or seen.hand_sizes[seen.current_player] == 1
        or opening_turn(state)
    )


def _fits(state: GameState, hand: Sequence[Card]) -> bool:
    """``hand`` may be the hand of the seat to act in ``state`` (or a state that shows the same
    view): it holds the single card just taken (R11), a hand of one card may be discarded
    (R14), and in an opening turn short of the minimum it can still reach it (R25, R30:
    :func:`buraco_rules.engine.opening.reachable`), as :func:`buraco_rules.validate` checks."""
    single = state.taken_single_card
    if single is not None and single not in hand:
        return False
    seat = state.current_player
    team = TEAM[seat]
    if len(hand) == 1 and not may_discard_last(state, team, hand[0], state.melds[team], single):
        return False
    if not opening_turn(state):
        return True
    hands = state.hands[:seat] + (tuple(sorted(hand)),) + state.hands[seat + 1 :]
    return reachable(attrs.evolve(state, hands=hands))


def _unseen_checked(seen: PlayerView) -> list[Card]:
    if type(seen) is not PlayerView:
        raise TypeError(f"expected a PlayerView, not {kind_of(seen)}")
    problem = _shape_problem(seen)
    if problem is not None:
        raise InvalidState(f"no game shows this view: {problem}")
    try:
        cards = list(unseen_cards(seen))
    except ValueError as error:
        raise InvalidState(f"no game shows this view: {error}") from None
    if len(cards) != _places(seen):
        raise InvalidState(
            f"no game shows this view: it hides {_places(seen)} cards but {len(cards)} of the "
            "108 are unseen"
        )
    return cards


def _shape_problem(seen: PlayerView) -> str | None:
    """What is wrong with the types and counts of ``seen`` (checked before they are used)."""
    if type(seen.rules) is not RuleSet:
        return "rules must be a RuleSet"
    players = seen.players
    if type(players) is not int or players not in seen.rules.player_counts:
        return f"players must be one of {seen.rules.player_counts}, not {describe(players)}"
    for name in ("seat", "current_player"):
        if not _is_count(getattr(seen, name)) or getattr(seen, name) >= players:
            return f"{name} must be a seat from 0 to {players - 1}"
    sizes = seen.hand_sizes
    if type(sizes) is not tuple or len(sizes) != players or not all(map(_is_count, sizes)):
        return f"hand_sizes must be {players} counts of cards"
    if type(seen.phase) is not Phase:
        return "phase must be a Phase"
    if not _is_count(seen.stock_size) or not _is_count(seen.discard_pile_size):
        return "stock_size and discard_pile_size must be counts of cards"
    extra = seen.extra_pile_sizes
    if (
        type(extra) is not tuple
        or len(extra) != 2
        or not all(n is None or _is_count(n) for n in extra)
    ):
        return "extra_pile_sizes must be a pair of counts of cards or None"
    for name in ("hand", "discard_pile"):
        cards = getattr(seen, name)
        if type(cards) is not tuple or not all(type(c) is Card and 0 <= c <= 52 for c in cards):
            return f"{name} must be a tuple of cards"
    if len(seen.discard_pile) > seen.discard_pile_size or len(seen.hand) != sizes[seen.seat]:
        return "the view's cards do not agree with its counts"
    melds = seen.melds
    if type(melds) is not tuple or len(melds) != 2 or any(type(t) is not tuple for t in melds):
        return "melds must be a pair of tuples of Meld"
    if any(type(m) is not Meld or type(m.cards) is not tuple for team in melds for m in team):
        return "melds must be a pair of tuples of Meld"
    if seen.taken_single_card is not None and type(seen.taken_single_card) is not Card:
        return "taken_single_card must be a card or None"
    if type(seen.idle_turns) is not int:
        return "idle_turns must be an int"
    if seen.extra_pile_lost not in (None, 0, 1) or type(seen.extra_pile_lost) is bool:
        return "extra_pile_lost must be a team (0 or 1) or None"
    if type(seen.first_turn) is not bool:
        return "first_turn must be a bool"
    drawn = seen.first_draw
    if drawn is not None and (type(drawn) is not Card or seen.seat != seen.current_player):
        return "first_draw must be a card of the seat to act's own view, or None"
    return None


def _is_count(value: object) -> bool:
    return type(value) is int and 0 <= value <= DECK_SIZE


def canonical_state(seen: PlayerView) -> GameState:
    """One fixed state consistent with ``seen``: the unseen cards in id order, except that the
    hidden hand of the seat to act gets the first cards that fit it (a copy of the single card
    just taken, R11; for a hand of one, a card it may discard, R14). Kept with the view.

    A view that no valid state shows is refused with
    :class:`~buraco_rules.core.errors.InvalidState`: unless ``seen`` came from
    :func:`buraco_rules.view` (consistent by construction), the state found must pass
    :func:`buraco_rules.validate` and show exactly ``seen``.
    """
    cached = seen._state
    if cached is not None:
        return cached
    cards = _unseen_checked(seen)
    state = _deal(seen, cards)
    if _hides_actor(seen, state):
        start = _hand_before(seen)
        stop = start + seen.hand_sizes[seen.current_player]
        if not _fits(state, cards[start:stop]):
            state = _deal(seen, _fitted(state, cards, start, stop))
    if not seen._of_a_state:  # a view of a state (``view``) is consistent by construction
        try:
            validate(state)
        except InvalidState as error:
            raise InvalidState(f"no game shows this view: {error}") from None
        if view(state, seen.seat) != seen:
            raise InvalidState("no game shows this view: its counts and cards do not agree")
    object.__setattr__(seen, "_state", state)  # a cache: not part of the view's value
    return state


def _hidden_cards(seen: PlayerView, state: GameState) -> list[Card]:
    """The cards of ``state`` that ``seen``'s seat cannot see, in the order :func:`_deal` reads
    them (the unseen multiset, taken from a state that holds it)."""
    cards = [c for s, hand in enumerate(state.hands) if s != seen.seat for c in hand]
    cards += state.stock
    cards += state.discard_pile[: len(state.discard_pile) - len(seen.discard_pile)]
    for pile in state.extra_piles:
        cards += pile or ()
    return cards


def _fitted(state: GameState, cards: list[Card], start: int, stop: int) -> list[Card]:
    """``cards`` rearranged so that the hidden hand of the seat to act, ``cards[start:stop]``,
    fits it (:func:`_fits`); unchanged if no arrangement tried does (the state then fails
    validation). Tried in this order: each card moved to the start of that hand (one card
    suffices for R11 and R14; in an opening turn, only for a hand of one card, as each try is a
    search); then, in an opening turn, hands built round the melds that reach the minimum
    (:func:`_opening_hands`), then :data:`_TRIES` shuffles (by a fixed seed: the result is one
    state per view)."""
    opening = opening_turn(state)
    if not opening or stop - start == 1:  # in an opening turn, a search each: one card only
        for i, card in enumerate(cards):
            if start <= i < stop:
                continue
            rest = cards[:i] + cards[i + 1 :]
            moved = [*rest[:start], card, *rest[start:]]
            if _fits(state, moved[start:stop]):
                return moved
    if not opening:
        return cards
    rng = random.Random(0)
    for hand in _opening_hands(state, cards, stop - start, rng):
        rest = cards.copy()
        for card in hand:
            rest.remove(card)
        if _fits(state, hand):
            return [*rest[:start], *hand, *rest[start:]]
    for _ in range(_TRIES):
        tried = _shuffled(state, cards, start, stop, rng)
        if _fits(state, tried[start:stop]):
            return tried
    return cards


def _shuffled(
    state: GameState, cards: list[Card], start: int, stop: int, rng: random.Random
) -> list[Card]:
    """``cards`` shuffled by ``rng``, the card just taken (R11) swapped into the hand of the seat
    to act where the shuffle left it out."""
    tried = cards.copy()
    rng.shuffle(tried)
    single = state.taken_single_card
    if single is not None and single not in tried[start:stop]:
        at = tried.index(single)
        tried[start], tried[at] = tried[at], tried[start]
    return tried


_TRIES: Final = 8
"""How many random hands are tried for the seat to act in an opening turn: by a re-deal
(:func:`determinize`) before it keeps the hand of :func:`canonical_state`; by
:func:`canonical_state` after the hands :func:`_opening_hands` builds. Where most hands of the
pool reach the minimum a few tries find one; each try is a bounded search (``reaches``)."""


def _opening_hands(
    state: GameState, pool: Sequence[Card], size: int, rng: random.Random
) -> Iterator[list[Card]]:
    """Hands of ``size`` cards of ``pool`` for the seat to act, short of its minimum opening, built
    to reach it: the melds that a hand of the pool's cards worth 10 or more would lay, then those
    of a hand of the whole pool (slower: many more melds), each the most points per card first
    (so that few cards reach the minimum), filled with other cards of the pool in three orders
    (the pool's, reversed, and shuffled by ``rng``). Each is a candidate only: :func:`_fits`
    decides."""
    values = state.rules.value_by_id
    high = [c for c in pool if values[c] >= _HIGH]
    for cards in (high, pool):
        core = _reaching_melds(state, cards, size)
        if core is None:
            continue
        rest = list(pool)
        for card in core:
            rest.remove(card)
        shuffled = rest.copy()
        rng.shuffle(shuffled)
        for order in (rest, rest[::-1], shuffled):
            yield [*core, *order[: size - len(core)]]


_HIGH: Final = 10
"""The card value (R17) from which :func:`_opening_hands` first looks for melds: the 8s to the
kings, the aces, the 2s and the jokers, which reach a minimum in the fewest cards."""


def _reaching_melds(state: GameState, cards: Sequence[Card], size: int) -> list[Card] | None:
    """The cards of melds, laid one after another from a hand of ``cards`` by the seat to act, that
    bring its team's table to the minimum opening in fewer than ``size`` cards (one kept: a meld
    that empties the hand must reach it alone), with the card just taken (R11), chosen greedily
    (the most points per card); None if they run out first."""
    seat = state.current_player
    team = TEAM[seat]
    need = need_of(state)
    values = state.rules.value_by_id
    single = state.taken_single_card
    hands = list(state.hands)
    hands[seat] = tuple(sorted(cards))
    whole = attrs.evolve(state, hands=tuple(hands))
    core: list[Card] = []
    while table_points(whole.melds[team], state.rules)[0] < need:
        best: tuple[float, NewMeld | AddToMeld, tuple[int, tuple[Card, ...]]] | None = None
        for action, recipe in zip(*generate(whole), strict=True):
            if type(recipe) is not tuple or not isinstance(action, NewMeld | AddToMeld):
                continue
            used = recipe[1]
            keep = single is not None and single not in core and single not in used
            if len(core) + len(used) + keep >= size:
                continue
            gain = sum(values[c] for c in used) / len(used)
            if best is None or gain > best[0]:
                best = (gain, action, recipe)
        result = None if best is None else result_of(whole, best[2])
        if best is None or result is None:
            return None
        whole = transitions.meld(whole, best[1], result)
        core += best[2][1]
    if single is not None and single not in core:
        core.append(single)  # the card just taken is in the hand (R11)
    return core


def determinize(seen: PlayerView, rng: random.Random) -> GameState:
    """A full state consistent with ``seen``, its unseen cards dealt at random into their places.

    Every arrangement of the unseen cards (:func:`unseen_cards`) over the other hands, the stock,
    the pile below a closed pile's top and the untaken extra piles is equally likely (copies of a
    card told apart), among those consistent with the view: ``view(result, seen.seat) == seen``.
    ``rng`` is a :class:`random.Random`, so that the result is reproducible. Where another seat
    may refuse the card it just drew (R32), that card is one of its re-dealt hand, any one as
    likely as another. Only the view is conditioned on, not the history (cards seen going into
    a hand earlier, for instance). In another seat's opening turn short of the minimum opening
    (R25, R30) its hand must still reach it: a few random hands are tried (uniform among those
    that do), then it is the hand of :func:`canonical_state`, which does (so not uniform where
    such hands are rare), the other cards dealt at random.

    A view that no valid state shows (one built or decoded by hand) is refused with
    :class:`~buraco_rules.core.errors.InvalidState`, as :func:`canonical_state` refuses it.
    """
    if not issubclass(type(rng), random.Random):  # by type: __class__ may lie or raise
        raise TypeError(f"rng must be a random.Random, not {kind_of(rng)}")
    canonical = canonical_state(seen)  # a consistent deal exists: the loop below ends
    cards = _hidden_cards(seen, canonical)
    if not _hides_actor(seen, canonical):
        rng.shuffle(cards)
        return _deal(seen, cards)
    start = _hand_before(seen)
    stop = start + seen.hand_sizes[seen.current_player]
    if opening_turn(canonical):
        # R25, R30: a hand that can still reach the minimum, drawn at random where a few tries
        # find one (uniformly among those that do), else the canonical state's, which does.
        for _ in range(_TRIES):
            tried = _shuffled(canonical, cards, start, stop, rng)
            if _fits(canonical, tried[start:stop]):
                return _deal(seen, tried)
        hand, rest = cards[start:stop], cards[:start] + cards[stop:]
        rng.shuffle(rest)
        return _deal(seen, [*rest[:start], *hand, *rest[start:]])
    if stop - start == 1:  # one card, drawn uniformly among those that fit (R14)
        fitting = [i for i, card in enumerate(cards) if _fits(canonical, (card,))]
        card = cards.pop(fitting[rng.randrange(len(fitting))])
        rng.shuffle(cards)
        cards.insert(start, card)
        return _deal(seen, cards)
    while True:  # uniform among the deals that leave the taken card in its taker's hand (R11)
        rng.shuffle(cards)
        if _fits(canonical, cards[start:stop]):
            return _deal(seen, cards)

"""What a search bot remembers between its decisions of a hand: the cards it saw go into the
discard pile, and the cards it saw go into another hand with the pile.

A view shows the table as it is, not how it came to be, and :func:`buraco_rules.determinize`
conditions on the view alone. A player at a real table remembers more: the cards under a closed
pile's top (each was the top once, R10), and whose hand a taken pile went into (R4). Both are read
off the views the bot is shown, one decision after another, and nothing else: a card is only known
if the views prove where it is. :func:`deal` then samples deals that agree with what is known.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Final

import attrs

from ..core.actions import Action
from ..core.cards import Card
from ..engine.state import TEAM, GameState
from ..hidden.determinize import canonical_state, determinize, unseen_cards
from ..hidden.views import PlayerView, view
from ..play.face import apply
from .base import Forgetful

__all__ = ["Known", "Recall", "deal"]

_REMEMBERED: Final = 64
"""Hands a bot remembers at once (a bot may play at several tables, or several seats of one)."""
_TABLE_FIELDS: Final = tuple(
    f.name for f in attrs.fields(PlayerView) if f.init and f.name != "hand"
)


@attrs.frozen
class Known:
    """What a seat knows beyond its view."""

    pile: tuple[Card | None, ...]
    """The discard pile, bottom card first, None where the card was not seen."""
    held: tuple[tuple[Card, ...], ...]
    """By seat, cards known to be in its hand (seen going in with a pile and not seen since
    leaving it; the seat's own entry is empty)."""


def _first_known(seen: PlayerView) -> Known:
    """What ``seen`` alone tells: the visible part of the pile."""
    return Known(_pile_shown(seen, ()), tuple(() for _ in range(seen.players)))


def _pile_shown(seen: PlayerView, remembered: Sequence[Card | None]) -> tuple[Card | None, ...]:
    """The pile as remembered (if it has the view's size), with what the view shows on top."""
    size = seen.discard_pile_size
    shown = seen.discard_pile
    if len(remembered) != size:
        remembered = (None,) * size
    return tuple(remembered[: size - len(shown)]) + shown


def _after_own(before: PlayerView, after: PlayerView, known: Known) -> Known:
    """What is known after the seat's own action took ``before`` to ``after``: it took the pile
    into its hand, or discarded on top of it (its own hand is in its view)."""
    size = after.discard_pile_size
    if size == 0:
        pile: tuple[Card | None, ...] = ()
    elif size == before.discard_pile_size + 1:
        pile = (*known.pile, None)
    else:
        pile = known.pile
    return attrs.evolve(known, pile=_pile_shown(after, pile))


def _after_others(before: PlayerView, now: PlayerView, known: Known) -> Known:
    """What is known at the seat's next turn (``now``), from the view after its last action
    (``before``): each other seat played one turn, drawing from the stock or taking the whole
    pile (R4), laying cards and discarding one. Which seats took the pile is read from the sizes
    of the pile, the stock and the hands and the cards laid by each team; when they allow more
    than one story (or an extra pile moved, R12, R15), no new card is placed in a hand."""
    n = now.players
    order = [(now.seat + k) % n for k in range(1, n)]
    laid = [_cards_laid(before, now, team) for team in (0, 1)]
    takes = _the_takes(before, now, order, laid) if _comparable(before, now) else None
    pile = list(known.pile)
    # Without a story, which cards left which hand is not known either: nothing is kept.
    held = [Counter(cards if takes is not None else ()) for cards in known.held]
    final = _pile_shown(now, ())
    last_take = max((k for k, took in enumerate(takes or ()) if took), default=-1)
    for k, took in enumerate(takes or ()):
        seat = order[k]
        if took:
            held[seat].update(c for c in pile if c is not None)
            pile = []
        # The discard that ended the turn, if the view still shows it (after the last take).
        if last_take < 0:
            discard = final[len(known.pile) + k]
        else:
            discard = final[k - last_take] if k >= last_take else None
        pile.append(discard)
        if discard is None:
            held[seat].clear()  # an unseen card left the hand: it may have been any of them
        else:
            held[seat][discard] -= 1
    for seat in range(n):
        if seat != now.seat:
            held[seat] -= laid[TEAM[seat]]  # a card its team laid may have come from this hand
    if takes is None or len(pile) != now.discard_pile_size:
        pile = list(final)
    unseen = Counter(unseen_cards(now))
    kept = []
    for seat in range(n):
        cards = +held[seat] & unseen if seat != now.seat else Counter()
        unseen -= cards
        kept.append(tuple(sorted(cards.elements())))
    return Known(_pile_shown(now, pile), tuple(kept))


def _comparable(before: PlayerView, now: PlayerView) -> bool:
    return (
        before.rules == now.rules
        and before.players == now.players
        and before.seat == now.seat
        and before.extra_pile_sizes == now.extra_pile_sizes
        and before.extra_pile_taken == now.extra_pile_taken
        and now.stock_size <= before.stock_size
    )


def _cards_laid(before: PlayerView, now: PlayerView, team: int) -> Counter[Card]:
    """The cards ``team``'s melds gained between the two views."""
    gained = Counter(c for meld in now.melds[team] for c in meld.cards)
    gained.subtract(c for meld in before.melds[team] for c in meld.cards)
    return +gained


def _the_takes(
    before: PlayerView, now: PlayerView, order: list[int], laid: list[Counter[Card]]
) -> tuple[bool, ...] | None:
    """Which seats of ``order`` took the pile, if exactly one story fits the counts."""
    fitting = []
    for takes in itertools.product((False, True), repeat=len(order)):
        size = before.discard_pile_size
        gained = {seat: 0 for seat in order}
        for seat, took in zip(order, takes, strict=True):
            if took and size == 0:
                break
            gained[seat] = size if took else 1
            size = 0 if took else size
            size += 1  # the discard that ends the turn
        else:
            if (
                size == now.discard_pile_size
                and before.stock_size - now.stock_size == takes.count(False)
                and _lays_fit(before, now, gained, laid)
            ):
                fitting.append(takes)
    return fitting[0] if len(fitting) == 1 else None


def _lays_fit(
    before: PlayerView, now: PlayerView, gained: dict[int, int], laid: list[Counter[Card]]
) -> bool:
    """Each seat laid what it gained less its discard and its hand's growth, and each team's
    seats together laid what its melds gained."""
    by_team = [0, 0]
    for seat, cards in gained.items():
        lay = cards - 1 - (now.hand_sizes[seat] - before.hand_sizes[seat])
        if lay < 0:
            return False
        by_team[TEAM[seat]] += lay
    return all(by_team[team] == laid[team].total() for team in (0, 1))


def deal(seen: PlayerView, known: Known | None, rng: random.Random) -> GameState:
    """A deal consistent with ``seen`` (:func:`buraco_rules.determinize`) in which the hidden
    cards of the pile that ``known`` holds are in their places and each hand holds the cards
    ``known`` places in it: each known card not yet there is swapped with a card at random from
    the place it should be in."""
    world = determinize(seen, rng)
    hidden_pile = seen.discard_pile_size - len(seen.discard_pile)
    if known is None or not (
        any(known.held) or any(c is not None for c in known.pile[:hidden_pile])
    ):
        return world
    places = [list(hand) if s != seen.seat else [] for s, hand in enumerate(world.hands)]
    stock_at, pile_at = len(places), len(places) + 1
    places.append(list(world.stock))
    places.append(list(world.discard_pile[:hidden_pile]))
    extras = [len(places) + t for t in (0, 1)]
    places.extend(list(p or ()) for p in world.extra_piles)
    pinned: set[tuple[int, int]] = set()

    def find(card: Card, avoid: int) -> tuple[int, int] | None:
        for where, cards in enumerate(places):
            if where == avoid:
                continue
            for i, c in enumerate(cards):
                if c == card and (where, i) not in pinned:
                    return where, i
        return None

    def bring(card: Card, to: tuple[int, int]) -> None:
        source = find(card, -1 if to[0] == pile_at else to[0])
        if source is not None:
            (a, i), (b, j) = source, to
            places[a][i], places[b][j] = places[b][j], places[a][i]
            pinned.add(to)

    for i, card in enumerate(known.pile[:hidden_pile]):
        if card is not None:
            if places[pile_at][i] == card:
                pinned.add((pile_at, i))
            else:
                bring(card, (pile_at, i))
    for seat, cards in enumerate(known.held):
        for card in cards:
            free = [i for i in range(len(places[seat])) if (seat, i) not in pinned]
            mine = [i for i in free if places[seat][i] == card]
            if mine:
                pinned.add((seat, mine[0]))
            elif free:
                bring(card, (seat, rng.choice(free)))
    hands = tuple(
        world.hands[s] if s == seen.seat else tuple(sorted(places[s])) for s in range(seen.players)
    )
    ours, theirs = (
        None if pile is None else tuple(places[at])
        for pile, at in zip(world.extra_piles, extras, strict=True)
    )
    return attrs.evolve(
        world,
        hands=hands,
        stock=tuple(places[stock_at]),
        discard_pile=tuple(places[pile_at]) + seen.discard_pile,
        extra_piles=(ours, theirs),
    )


class Recall(Forgetful):
    """A bot's memory of the hands it is playing: after each of its decisions, what it knows,
    filed under what it will see next (the same table after an action that kept its turn; its
    own hand, which nobody else touches, after one that passed it). A decision that continues
    none of them starts from the view alone. It holds the last few hands only; a copy or a pickle
    of the bot starts with an empty memory."""

    __slots__ = ("_entries", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()  # a bot may be shared between threads
        self._entries: OrderedDict[object, tuple[PlayerView, Known]] = OrderedDict()

    def known(self, seen: PlayerView) -> Known:
        """What is known at the decision in ``seen``."""
        with self._lock:
            in_turn = self._entries.pop(_table(seen), None)
            next_turn = self._entries.pop(_hand(seen), None)
        if in_turn is not None:  # filed under this very table: its pile is already this view's
            return in_turn[1]
        if next_turn is not None:
            return _after_others(next_turn[0], seen, next_turn[1])
        return _first_known(seen)

    def note(self, seen: PlayerView, action: Action, known: Known) -> None:
        """Remember what is known after playing ``action`` in ``seen``."""
        state = apply(canonical_state(seen), action)  # the view after it is all that is used
        if state.is_over:
            return
        after = view(state, seen.seat)
        known = _after_own(seen, after, known)
        key = _table(after) if state.current_player == seen.seat else _hand(after)
        with self._lock:
            self._entries[key] = (after, known)
            while len(self._entries) > _REMEMBERED:
                self._entries.popitem(last=False)


def _table(seen: PlayerView) -> tuple[object, ...]:
    """Everything ``seen`` shows but the hand (what a drawn card leaves the same)."""
    return ("table", *(getattr(seen, name) for name in _TABLE_FIELDS))


def _hand(seen: PlayerView) -> tuple[object, ...]:
    return ("hand", seen.rules, seen.players, seen.seat, seen.hand)

"""What a card, a meld or the discard pile is worth to a team, judged from a player's view.

These are the heuristics :class:`~buraco_rules.bots.GreedyBot` plays by and that
:class:`~buraco_rules.bots.MonteCarloBot` uses to pick its candidates and to play its rollouts.
Every difference between variants is read from the :class:`~buraco_rules.RuleSet` (sets allowed,
a closed or open pile, the canasta going out needs, card values, canasta bonuses), never from its
name. The weights are points, on the scale of the score (R16-R18), so they can be weighed
against card values and bonuses.
"""

from __future__ import annotations

from bisect import bisect
from collections import Counter
from collections.abc import Sequence
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
from ..core.rules import CANASTA_SIZE, RuleSet
from ..engine.going_out import has_required_canasta
from ..engine.scoring import canasta_bonus
from ..engine.state import team_seats
from ..hidden.views import PlayerView
from ..melds.geometry import ACE_HIGH, ACE_LOW, TWO_PLACE, card_at, places_of
from ..melds.meld import IS_WILD, Meld, classify_kept

__all__ = ["Assessment", "rank_actions"]

_JOKER: Final = 52
_CARDS: Final = all_cards()


def _neighbours(card: int) -> tuple[tuple[int, float], ...]:
    """The natural cards of the same suit one and two places away in a run (by the run geometry:
    the ace both below the 3 and above the king, R6), with how much holding each makes ``card``
    worth keeping. 2s are left out: they are held as wildcards."""
    if card == _JOKER:
        return ()
    suit = card // 13
    found = []
    for step, weight in ((1, 6.0), (2, 3.0)):
        for place in places_of(card % 13):
            for other in (place - step, place + step):
                if ACE_LOW <= other <= ACE_HIGH and other != TWO_PLACE:
                    found.append((card_at(suit, other), weight))
    return tuple(found)


_NEIGHBOURS: Final = tuple(_neighbours(c) for c in range(53))
WILD_KEPT: Final = 30.0
"""What keeping a wildcard in hand is worth: it may finish a canasta later."""
WILD_SPENT: Final = 35.0
"""What laying a wildcard costs when it does not finish a canasta: the meld is dirty for good."""
PROGRESS: Final = 12.0
"""Per card, towards a canasta, for a clean meld (half that for a dirty one)."""
DRAW_VALUE: Final = 6.0
"""What drawing an unknown card from the stock is worth."""
PILE_CARD: Final = 7.0
"""What each unseen card below the top of a closed pile is worth when taken (R10)."""
FEEDS_OPPONENT: Final = 40.0
"""The cost of discarding a card that fits one of the next opponents' melds."""
EXTRA_PILE: Final = 60.0
"""What taking the extra pile is worth (R12): eleven fresh cards and no penalty (R16)."""
MELD_FIRST: Final = 10_000.0
"""Added to a gainful meld's worth in a ranking so that it comes before any discard."""
GOING_OUT: Final = 1000.0
"""Ending the hand when the rules allow it and the team leads comes first (R13)."""
LATE_STOCK: Final = 20
"""Below this many cards in the stock, going out is taken even when trailing: building on no
longer pays."""
HAND_CARD: Final = 8
"""The points an unseen card in another hand is guessed to count against its team."""


def is_wild(card: int) -> bool:
    """Jokers and 2s (R7)."""
    return IS_WILD[card]


class Assessment:
    """Everything a decision needs about one view, worked out once."""

    def __init__(self, view: PlayerView) -> None:
        rules = view.rules
        self.view = view
        self.rules = rules
        self.values = rules.value_by_id
        self.team = view.team
        self.mine = view.melds[self.team]
        self.theirs = view.melds[1 - self.team]
        self.hand = view.hand
        self.counts = Counter(view.hand)
        need_clean = rules.going_out_needs_clean_canasta
        self.need_clean = need_clean
        self.has_going_out_canasta = has_required_canasta(rules, self.mine)
        # The longest clean meld is the team's way to a clean canasta: keep it clean (R13).
        self.clean_hope = max(
            (i for i, m in enumerate(self.mine) if m.is_clean),
            key=lambda i: len(self.mine[i].cards),
            default=-1,
        )
        self.extra_pile_waiting = view.extra_pile_sizes[self.team] is not None
        opponents = 1 - self.team
        self.opponents_may_go_out = view.extra_pile_sizes[opponents] is None and (
            has_required_canasta(rules, self.theirs)
        )
        self.fewest_opponent_cards = min(
            view.hand_sizes[s] for s in team_seats(opponents, view.players)
        )
        self._ahead: bool | None = None
        self._discard_costs: dict[Card, float] = {}

    @property
    def ahead_if_out(self) -> bool:
        """Whether to go out now: the team would lead after it (the tables and canastas are
        public, the other hands are guessed at ``HAND_CARD`` points a card, R16), or the stock is
        too short for building on to pay."""
        if self._ahead is None:
            self._ahead = self._lead_if_out() > 0 or self.view.stock_size < LATE_STOCK
        return self._ahead

    def _lead_if_out(self) -> int:
        view, rules = self.view, self.rules
        points = view.public_points
        totals = []
        for team in (0, 1):
            total = points[team]
            others = sum(
                view.hand_sizes[s] for s in team_seats(team, view.players) if s != view.seat
            )
            total -= HAND_CARD * others
            if not view.extra_pile_taken[team]:
                total -= rules.extra_pile_penalty
            totals.append(total)
        return totals[self.team] + rules.going_out_bonus - totals[1 - self.team]

    def going_out_worth(self) -> float:
        """Ending the hand: first if the team leads after it, else only when nothing else is
        left to do."""
        return GOING_OUT if self.ahead_if_out else -GOING_OUT

    # ----------------------------------------------------------------- melds
    def meld_gain(self, action: NewMeld | AddToMeld, from_hand: int | None = None) -> float:
        """What laying ``action`` gains: the cards' points, the canasta bonus it completes and the
        progress towards one, less the cost of spending a wildcard (R16-R18)."""
        rules = self.rules
        if type(action) is AddToMeld:
            old = self.mine[action.meld]
            new = _after(old.multiset, action.cards, rules)
            old_size, old_clean, old_bonus = len(old.cards), old.is_clean, canasta_bonus(old, rules)
        else:
            new = _after((), action.cards, rules)
            old_size, old_clean, old_bonus = 0, True, 0
        if new is None:  # cannot happen for a listed action; judge it worthless
            return -1e9
        values = self.values
        # Points on the table count at the end only (R16), and a wildcard's are its cost below.
        gain = 0.5 * sum(values[c] for c in action.cards if not is_wild(c))
        gain += canasta_bonus(new, rules) - old_bonus
        size = len(new.cards)
        if size < CANASTA_SIZE:
            weight = PROGRESS if new.is_clean else PROGRESS / 2
            gain += weight * (size - old_size) * (0.5 + size / CANASTA_SIZE)
        wilds = sum(1 for c in action.cards if is_wild(c))
        if old_clean and not new.is_clean:
            cost = WILD_SPENT if size < CANASTA_SIZE else WILD_SPENT / 3
            if self.need_clean and not self.has_going_out_canasta:
                # Going out needs a clean canasta (R13): dirtying the best hope of one is worse.
                is_hope = type(action) is AddToMeld and action.meld == self.clean_hope
                if is_hope or size >= 5:
                    cost *= 2
            gain -= cost
        elif wilds:  # a 2 of the suit laid in its own place stays natural (R7)
            gain -= WILD_KEPT * wilds / 2
        left = len(self.hand) - (len(action.cards) if from_hand is None else from_hand)
        if left == 0:
            if self.extra_pile_waiting:
                gain += EXTRA_PILE  # straight into the extra pile (R12)
            else:
                gain += self.going_out_worth()  # listed, so the hand may end by melding (R13)
        elif left == 1 and not self.extra_pile_waiting and not self.ahead_if_out:
            gain -= GOING_OUT / 2  # the discard would end the hand while the team trails
        return gain

    # ----------------------------------------------------------------- cards in hand
    def keep_value(self, card: Card, counts: Counter[Card] | None = None) -> float:
        """How much the team loses by giving up one copy of ``card`` from a hand of ``counts``
        (by default, the player's)."""
        if is_wild(card):
            return WILD_KEPT
        if counts is None:
            counts = self.counts
        worth = -4.0 if counts[card] >= 2 else 0.0  # a second copy rarely helps a run
        for neighbour, weight in _NEIGHBOURS[card]:
            if counts[_CARDS[neighbour]]:
                worth += weight
        rank = card % 13
        if self.rules.set_rank_mask >> rank & 1:  # sets of this rank may be made (R5, R27)
            same = sum(counts[_CARDS[s * 13 + rank]] for s in range(4)) - 1
            worth += 5.0 * same
            if any(m.rank is not None and m.rank == rank + 1 for m in self.mine):
                worth += 15.0
        for m in self.mine:
            if m.suit is not None and m.suit == card // 13 and _fits(m, card, self.rules):
                worth += 15.0
                break
        return worth

    def refusal_gain(self) -> float:
        """R32: what refusing the card just drawn is worth. A card the hand has no use for is
        swapped for an unknown one, before anything else (so ranked with the melds first); a card
        worth keeping, or one that would feed the next seat from the pile's top, is kept."""
        drawn = self.view.first_draw
        if drawn is None:
            return -1e9
        if self.keep_value(drawn) > 0 or self.feeds_opponents(drawn) > 0:
            return -1e9
        return 2 * MELD_FIRST  # before any meld: the refusal comes first or never (R32)

    def feeds_opponents(self, card: Card) -> float:
        """How much discarding ``card`` helps the next opponents: a card that fits one of their
        melds lets them take a closed pile (R10) or simply use it."""
        if is_wild(card):
            return WILD_KEPT
        for m in self.theirs:
            if _fits(m, card, self.rules):
                near = len(m.cards) >= CANASTA_SIZE - 2
                return FEEDS_OPPONENT * (1.5 if near else 1.0)
        return 0.0

    def discard_cost(self, card: Card) -> float:
        """What discarding ``card`` costs; the lowest is discarded. Ending the hand or taking the
        extra pile by discarding comes first (R12, R13)."""
        known = self._discard_costs.get(card)
        if known is not None:
            return known
        if len(self.hand) == 1:
            return -EXTRA_PILE if self.extra_pile_waiting else -self.going_out_worth()
        cost = self.keep_value(card) + self.feeds_opponents(card)
        # Points left in hand count against the team (R16): more so when the other side is near
        # going out.
        urgency = 0.3 if self.opponents_may_go_out and self.fewest_opponent_cards <= 4 else 0.1
        cost -= urgency * self.values[card]
        self._discard_costs[card] = cost
        return cost

    # ----------------------------------------------------------------- the discard pile
    def take_gain(self, action: TakeDiscardPile) -> float:
        """What taking the discard pile gains, compared with drawing (``DRAW_VALUE``)."""
        view = self.view
        risk = 0.4 if self.opponents_may_go_out else 1.0
        if action.meld is not None:  # closed pile (R10): the top card goes into a meld at once
            below = view.discard_pile_size - 1
            return self.meld_gain(action.meld, len(action.meld.cards) - 1) + risk * (
                PILE_CARD * below
            )
        gain = 0.0
        pile = view.discard_pile  # open pile (R11): everything in it is visible
        together = self.counts + Counter(pile)
        for card in pile:
            if is_wild(card):
                gain += WILD_KEPT
            else:
                useful = self.keep_value(card, together)
                gain += useful + 3.0 if useful > 0 else 2.0 * risk - 0.2 * self.values[card]
        if len(view.discard_pile) == 1 and self.rules.single_taken_card_discard_banned:
            gain -= 2.0  # it may not be discarded again this turn (R11)
        return gain


def _fits(meld: Meld, card: Card, rules: RuleSet) -> bool:
    """Whether ``card`` alone could be added to ``meld``."""
    cards = meld.multiset
    i = bisect(cards, card)
    return classify_kept(cards[:i] + (card,) + cards[i:], rules) is not None


def _after(cards: tuple[Card, ...], added: tuple[Card, ...], rules: RuleSet) -> Meld | None:
    """The meld the sorted ``cards`` become with ``added``, or None (the engine's own
    classification, memoised there)."""
    return classify_kept(tuple(sorted(cards + added)), rules)


def rank_actions(assessment: Assessment, actions: Sequence[Action]) -> list[tuple[float, int]]:
    """Each action's worth with its index, best first: a meld that gains anything comes before
    any discard (the discard ends the turn, R4); ties keep the listed order, so the ranking is
    deterministic."""
    scored = []
    for i, action in enumerate(actions):
        if type(action) is Discard:
            worth = -assessment.discard_cost(action.card)
        elif type(action) is DrawFromStock:
            worth = DRAW_VALUE
        elif type(action) is TakeDiscardPile:
            worth = assessment.take_gain(action)
        elif type(action) is RefuseFirstDraw:
            worth = assessment.refusal_gain()
        elif type(action) is NewMeld or type(action) is AddToMeld:
            worth = assessment.meld_gain(action)
            if worth > 0:
                worth += MELD_FIRST
        else:
            worth = -1e9
        scored.append((worth, i))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return scored

"""When a hand may be emptied: the extra pile, ending the hand, and the dead-end rule (R12-R14,
R31).

Shared by the checker (:mod:`buraco_rules.engine.checks`), the move generator
(:mod:`buraco_rules.engine.movegen`) and the builders, so that all decide these questions the same
way.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.cards import Card
from ..core.rules import RuleSet
from ..melds.meld import Meld
from .state import GameState


def stock_exhausted(rules: RuleSet, stock: tuple[Card, ...]) -> bool:
    """No card may be drawn from ``stock``: it is empty, or down to the cards the rules never
    draw (R15, R21)."""
    return len(stock) <= rules.stock_reserve


def remove_cards(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """``hand`` without ``cards`` (both in id order), or None if the hand lacks one of them."""
    if len(cards) == 1:
        try:
            i = hand.index(cards[0])
        except ValueError:
            return None
        return hand[:i] + hand[i + 1 :]
    kept = []
    j = 0
    n = len(cards)
    for c in hand:
        if j < n and c == cards[j]:
            j += 1
        else:
            kept.append(c)
    return tuple(kept) if j == n else None


def kept_after_take(
    hand: tuple[Card, ...], top: Card, cards: tuple[Card, ...]
) -> tuple[Card, ...] | None:
    """The cards of ``hand`` that stay in it when a closed pile is taken with a meld of ``cards``
    (the pile's ``top`` card and cards of the hand, R10), before the rest of the pile joins them;
    None when the meld does not hold the top card or the hand lacks its part."""
    from_hand = remove_cards(cards, (top,))
    return None if from_hand is None else remove_cards(hand, from_hand)


def hand_after_take(kept: tuple[Card, ...], pile: tuple[Card, ...]) -> tuple[Card, ...]:
    """The hand after a closed-pile take: the ``kept`` cards (:func:`kept_after_take`) and the
    ``pile`` below its top card, in id order (R10)."""
    return tuple(sorted(kept + pile[:-1]))


def may_discard(hand: tuple[Card, ...], card: Card, banned: Card | None) -> bool:
    """R11: the single card just taken from an open pile (``banned``) stays in the hand this turn,
    unless the hand holds another copy of it (copies are interchangeable, R2)."""
    return card != banned or hand.count(card) > 1


def has_required_canasta(rules: RuleSet, melds: Sequence[Meld]) -> bool:
    """The team holds the canasta it needs to end the hand (R13). The one definition: the
    generator, the checker, ``validate`` and the bots all ask it."""
    clean_needed = rules.going_out_needs_clean_canasta
    return any(m.is_canasta and (m.wildcard is None or not clean_needed) for m in melds)


def pile_to_take(state: GameState, team: int) -> int | None:
    """The team whose extra pile ``team`` takes when one of its players empties the hand (R12):
    its own while it is set aside; under R31 (``take_both_extra_piles``), once its own is
    taken, the other team's while that one is still set aside. None: no pile is taken, and the
    hand ends if the team may end it (R13, :func:`may_end_hand`). The one home of R31's take:
    the generator, the checker, the transitions and ``validate`` all ask it."""
    if state.extra_piles[team] is not None:
        return team
    other = 1 - team
    if (
        state.rules.take_both_extra_piles
        and state.extra_pile_taken[team]
        and state.extra_piles[other] is not None
    ):
        return other
    return None


def may_end_hand(state: GameState, team: int, melds: Sequence[Meld]) -> bool:
    """``team``, with no extra pile to take, may end the hand by emptying a hand (R13): it holds
    the canasta it needs, and the other team did not take its extra pile (R31)."""
    return state.extra_pile_lost != team and has_required_canasta(state.rules, melds)


def banned_after(state: GameState, melded: tuple[Card, ...]) -> Card | None:
    """The card that may not be discarded after melding ``melded`` (R11): melding a copy of the
    single card taken from the pile lifts the ban, as copies are interchangeable (R2)."""
    banned = state.taken_single_card
    return None if banned is not None and banned in melded else banned


def may_discard_last(
    state: GameState, team: int, card: Card, melds: Sequence[Meld], banned: Card | None
) -> bool:
    """Discarding ``card`` as the player's last card is allowed: it is not the card just taken
    (R11), and the team takes its extra pile (R12, indirectly) or ends the hand (R13, where Italian
    Buraco bans a wildcard)."""
    if not may_discard((card,), card, banned):
        return False
    if pile_to_take(state, team) is not None:
        return True
    if not may_end_hand(state, team, melds):
        return False
    return state.rules.may_go_out_discarding_wildcard or not card.is_wild


def may_leave(
    state: GameState,
    team: int,
    remaining: tuple[Card, ...],
    melds: Sequence[Meld],
    banned: Card | None = None,
) -> bool:
    """R14: a meld may leave ``remaining`` in the hand: two cards or more, or none when the team
    takes its extra pile directly (R12) or may end the hand by melding (R13), or one card that the
    player could then legally discard."""
    if len(remaining) >= 2:
        return True
    if not remaining:
        if pile_to_take(state, team) is not None:
            return True
        return state.rules.may_go_out_by_melding and may_end_hand(state, team, melds)
    return may_discard_last(state, team, remaining[0], melds, banned)


def may_keep_after_take(
    state: GameState,
    team: int,
    remaining: tuple[Card, ...],
    rest: tuple[Card, ...],
    melds: Sequence[Meld],
) -> bool:
    """R14 for a closed-pile take (R10): the hand after it holds ``remaining`` (the hand cards the
    meld did not use) and ``rest`` (the pile below its top).

    The taker sees only the pile's top, so the decision may not depend on ``rest``'s cards, only
    on how many there are. Where the hand would hold just one card and that card comes from below
    the top, the take is allowed only if any card could be discarded last (so that no unseen
    card, a wildcard under a house rule, say, can leave the player stuck)."""
    if len(remaining) + len(rest) >= 2:
        return True
    if not rest:
        return may_leave(state, team, remaining, melds)
    return pile_to_take(state, team) is not None or (
        may_end_hand(state, team, melds) and state.rules.may_go_out_discarding_wildcard
    )


def hides_last_card(remaining: tuple[Card, ...], rest: tuple[Card, ...]) -> bool:
    """The one card left after a closed-pile take would come from below the pile's top."""
    return not remaining and len(rest) == 1

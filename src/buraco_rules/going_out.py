"""When a hand may be emptied: the extra pile, ending the hand, and the dead-end rule (R12-R14).

Shared by the checker (:mod:`buraco_rules.checks`), the move generator
(:mod:`buraco_rules.movegen`) and the builders, so that all decide these questions the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card
from .melds import Meld
from .state import GameState


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


def without(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """``hand`` without ``cards``, which it is known to hold (the generator and the state builders,
    after the checks). A miss is a bug in the engine, so it fails loudly, never silently."""
    remaining = remove_cards(hand, cards)
    if remaining is None:
        raise RuntimeError(f"engine bug: {cards} is not part of {hand}")
    return remaining


def hand_after_take(
    hand: tuple[Card, ...], pile: tuple[Card, ...], cards: tuple[Card, ...]
) -> tuple[Card, ...] | None:
    """The hand after taking the closed ``pile`` with a meld of ``cards`` (the pile's top card and
    cards of ``hand``): the hand less its part of the meld, plus the rest of the pile (R10); None
    when the hand does not hold its part."""
    from_hand = remove_cards(cards, pile[-1:])
    remaining = None if from_hand is None else remove_cards(hand, from_hand)
    return None if remaining is None else tuple(sorted(remaining + pile[:-1]))


def may_discard(hand: tuple[Card, ...], card: Card, banned: Card | None) -> bool:
    """R11: the single card just taken from an open pile (``banned``) stays in the hand this turn,
    unless the hand holds another copy of it (copies are interchangeable, R2)."""
    return card != banned or hand.count(card) > 1


def has_required_canasta(state: GameState, melds: Sequence[Meld]) -> bool:
    """The team holds the canasta it needs to end the hand (R13)."""
    clean_needed = state.rules.going_out_needs_clean_canasta
    return any(m.is_canasta and (m.wildcard is None or not clean_needed) for m in melds)


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
    if state.extra_piles[team] is not None:
        return True
    if not has_required_canasta(state, melds):
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
        if state.extra_piles[team] is not None:
            return True
        return state.rules.may_go_out_by_melding and has_required_canasta(state, melds)
    return may_discard_last(state, team, remaining[0], melds, banned)

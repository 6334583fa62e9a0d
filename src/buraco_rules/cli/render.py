"""Plain-text pictures of a player's view and of a hand's score, for the terminal.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> seen = br.view(br.new_game(variants.CANASTA_STBL, 2, seed=4), 0)
>>> print(render_hand(seen.hand, ascii_only=True))
S  2S 7S 9S 10S
H  AH 8H 9H JH
D  9D
C  8C KC
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ..actions import Action
from ..cards import Card
from ..melds import Meld
from ..scoring import TeamScore
from ..views import PlayerView

__all__ = ["can_show", "card_text", "render_actions", "render_hand", "render_score", "render_view"]

_SUITS_SHOWN = (3, 2, 1, 0)  # spades, hearts, diamonds, clubs
_SYMBOLS = "♣♦♥♠"
_LETTERS = "CDHS"


def can_show(stream: TextIO, text: str) -> bool:
    """Whether ``stream`` can print ``text`` (the suit symbols) in its encoding."""
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def card_text(card: Card, ascii_only: bool = False) -> str:
    """``5♠`` (or ``5S`` with ``ascii_only``); the joker is ``Joker`` (or ``JK``)."""
    return str(card) if ascii_only else card.pretty


def render_cards(cards: Sequence[Card], ascii_only: bool = False) -> str:
    """Cards in the order given, separated by spaces."""
    return " ".join(card_text(c, ascii_only) for c in cards)


def render_hand(hand: Sequence[Card], ascii_only: bool = False) -> str:
    """A hand sorted and grouped by suit (♠ ♥ ♦ ♣), jokers on a line of their own."""
    lines = []
    for suit in _SUITS_SHOWN:
        cards = sorted((c for c in hand if not c.is_joker and c // 13 == suit), key=_run_order)
        if cards:
            mark = _LETTERS[suit] if ascii_only else _SYMBOLS[suit]
            lines.append(f"{mark}  " + render_cards(cards, ascii_only))
    jokers = [c for c in hand if c.is_joker]
    if jokers:
        lines.append(("JK " if ascii_only else "★  ") + render_cards(jokers, ascii_only))
    return "\n".join(lines)


def _run_order(card: Card) -> int:
    return card % 13 + 1  # ace low, as a hand is usually read


def render_melds(melds: Sequence[Meld], ascii_only: bool = False) -> list[str]:
    """One line per meld, numbered as :class:`~buraco_rules.AddToMeld` counts them (``add N``)."""
    if not melds:
        return ["  (none)"]
    lines = []
    for i, meld in enumerate(melds):
        kind = meld.canasta_kind
        note = f"  [{kind.value} canasta]" if kind is not None else ""
        lines.append(f"  {i}: {render_cards(meld.cards, ascii_only)}{note}")
    return lines


def render_view(seen: PlayerView, ascii_only: bool = False) -> str:
    """Everything a seat may see: the piles, the other hands' sizes, both teams' melds and its
    own hand."""
    team = seen.seat % 2
    top = seen.top_of_discard_pile
    size = seen.discard_pile_size
    cards = "1 card" if size == 1 else f"{size} cards"
    pile = f"{cards}, top {card_text(top, ascii_only)}" if top is not None else "empty"
    lines = [f"Stock: {seen.stock_size} cards   Discard pile: {pile}"]
    if not seen.rules.closed_discard_pile and len(seen.discard_pile) > 1:
        lines.append("  the pile: " + render_cards(seen.discard_pile, ascii_only))
    extra = []
    for t in (0, 1):
        extra_size = seen.extra_pile_sizes[t]
        if extra_size is not None:
            extra.append(f"team {t}: {extra_size} cards")
        else:
            became_stock = seen.extra_pile_became_stock[t]
            extra.append(f"team {t}: " + ("became the stock" if became_stock else "taken"))
    lines.append("Extra piles: " + ", ".join(extra))
    others = [f"seat {s}: {n}" for s, n in enumerate(seen.hand_sizes) if s != seen.seat]
    lines.append("Cards in other hands: " + ", ".join(others))
    points = seen.public_points
    for t in (team, 1 - team):
        who = "your team" if t == team else "opponents"
        lines.append(f"Melds of team {t} ({who}, {points[t]} points on the table):")
        lines += render_melds(seen.melds[t], ascii_only)
    lines.append(f"Your hand ({len(seen.hand)} cards):")
    lines += ["  " + line for line in render_hand(seen.hand, ascii_only).splitlines()]
    return "\n".join(lines)


def action_text(action: Action, ascii_only: bool = False) -> str:
    """An action in its notation (``str(action)``), with suit symbols unless ``ascii_only``."""
    text = str(action)
    if ascii_only:
        return text
    words = []
    for word in text.split(" "):
        try:
            words.append(Card.parse(word).pretty)
        except ValueError:  # a word of the notation, not a card
            words.append(word)
    return " ".join(words)


def render_actions(actions: Sequence[Action], ascii_only: bool = False) -> str:
    """The legal actions, numbered from 1."""
    width = len(str(len(actions)))
    return "\n".join(
        f"  {i:>{width}}. {action_text(a, ascii_only)}" for i, a in enumerate(actions, 1)
    )


def render_score(scores: Sequence[TeamScore]) -> str:
    """Each team's score, item by item (R16)."""
    rows = [
        ("cards on the table", [s.table for s in scores]),
        ("canasta bonuses", [s.canastas for s in scores]),
        ("going out", [s.going_out for s in scores]),
        ("cards left in hand", [-s.hands for s in scores]),
        ("extra pile not taken", [-s.extra_pile for s in scores]),
    ]
    lines = [f"{'':<22}{'team 0':>8}{'team 1':>8}"]
    for name, values in rows:
        lines.append(f"{name:<22}" + "".join(f"{v:>8}" for v in values))
    lines.append(f"{'total':<22}" + "".join(f"{s.total:>8}" for s in scores))
    return "\n".join(lines)

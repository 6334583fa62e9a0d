"""The table as text, from one seat's view: :func:`render` (``br.render``), the picture that
``buraco-rules play`` and ``replay`` print, and the pieces it is made of.

:func:`render` takes a :class:`~buraco_rules.PlayerView` and nothing else, so it can show only
what that seat may see; a state is refused (pass ``br.view(state, seat)``). Text that comes from
outside the engine (a custom rule set's title, the names in a record) goes through
:func:`escape`, so that no control character reaches a terminal.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> seen = br.view(br.new_game(variants.CANASTA_STBL, 2, seed=4), 0)
>>> print(render_hand(seen.hand, ascii_only=True))
S  2S 7S 9S 10S
H  AH 8H 9H JH
D  9D
C  8C KC
>>> escape("\\x1b]0;owned\\x07 Ana \\u202eanA")
'\\\\x1b]0;owned\\\\x07 Ana \\\\u202eanA'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..core.actions import Action
from ..core.cards import Card
from ..core.outcome import Outcome, Termination
from ..engine.scoring import TeamScore
from ..engine.state import Phase
from ..hidden.views import PlayerView
from ..melds.meld import Meld

__all__ = [
    "TITLE_CHARS",
    "action_text",
    "card_text",
    "ending_text",
    "escape",
    "render",
    "render_actions",
    "render_hand",
    "render_melds",
    "render_score",
]

TITLE_CHARS: Final = 80
"""At most this many characters of a rule set's title are drawn (a custom title is any text)."""

_SUITS_SHOWN: Final = (3, 2, 1, 0)  # spades, hearts, diamonds, clubs
_SYMBOLS: Final = "♣♦♥♠"
_LETTERS: Final = "CDHS"


def escape(text: str, limit: int | None = None) -> str:
    """``text`` safe to print on a terminal: every character that is not printable (C0 and C1
    controls, ESC, BEL, DEL, bidirectional overrides and isolates such as U+202E and U+2066,
    other format characters, line and paragraph separators, unassigned code points) is written
    as its escape (``\\x1b``, ``\\u202e``), as ``repr`` writes it; a backslash stays as it is.
    With ``limit``, at most that many characters of ``text`` are kept (a cut is marked ``…``)."""
    if type(text) is not str:
        text = str(text)
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _escaped(c) for c in text)
    return text + "…" if cut else text


_SHORT: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _count(n: int, noun: str) -> str:
    """``1 card``, ``2 cards``, ``0 cards``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def card_text(card: Card, ascii_only: bool = False) -> str:
    """``5♠`` (or ``5S`` with ``ascii_only``); the joker is ``Joker`` (or ``JK``)."""
    return str(card) if ascii_only else card.pretty


def _cards(cards: Sequence[Card], ascii_only: bool) -> str:
    return " ".join(card_text(c, ascii_only) for c in cards)


def render_hand(hand: Sequence[Card], ascii_only: bool = False) -> str:
    """A hand sorted and grouped by suit (♠ ♥ ♦ ♣), jokers on a line of their own."""
    lines = []
    for suit in _SUITS_SHOWN:
        cards = sorted((c for c in hand if not c.is_joker and c // 13 == suit), key=_run_order)
        if cards:
            mark = _LETTERS[suit] if ascii_only else _SYMBOLS[suit]
            lines.append(f"{mark}  " + _cards(cards, ascii_only))
    jokers = [c for c in hand if c.is_joker]
    if jokers:
        lines.append(("JK " if ascii_only else "★  ") + _cards(jokers, ascii_only))
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
        lines.append(f"  {i}: {_cards(meld.cards, ascii_only)}{note}")
    return lines


def render(seen: PlayerView, *, ascii_only: bool = False) -> str:
    """The table as one seat sees it: whose turn it is, the stock and discard pile, the extra
    piles, the sizes of the other hands, both teams' melds (numbered as ``add N`` counts them)
    and the seat's own hand sorted by suit. Cards are drawn with suit symbols, or as letters
    (their notation) with ``ascii_only``. Only ``seen`` is read: the picture is the same for
    every deal of the cards the view hides. Anything but a view is a ``TypeError``.

    >>> import buraco_rules as br
    >>> from buraco_rules import variants
    >>> print(render(br.view(br.new_game(variants.CANASTA_STBL, 2, seed=4), 1), ascii_only=True))
    Canasta STBL, 2 players. Seat 1 (team 1) sees the table; seat 0 to draw.
    Stock: 64 cards   Discard pile: empty
    Extra piles: team 0: 11 cards, team 1: 11 cards
    Cards in other hands: seat 0: 11
    Melds of team 1 (your team, 0 points on the table):
      (none)
    Melds of team 0 (opponents, 0 points on the table):
      (none)
    Your hand (11 cards):
      S  AS 4S 7S 10S KS KS
      H  3H 6H 6H
      C  AC QC
    """
    if not isinstance(seen, PlayerView):
        raise TypeError(
            f"render draws one seat's view (br.view(state, seat)), not a {type(seen).__name__}"
        )
    team = seen.team
    lines = [f"{escape(seen.rules.title, TITLE_CHARS)}, {seen.players} players. {_turn(seen)}"]
    top = seen.top_of_discard_pile
    size = seen.discard_pile_size
    pile = (
        f"{_count(size, 'card')}, top {card_text(top, ascii_only)}" if top is not None else "empty"
    )
    lines.append(f"Stock: {_count(seen.stock_size, 'card')}   Discard pile: {pile}")
    if not seen.rules.closed_discard_pile and len(seen.discard_pile) > 1:
        lines.append("  the pile: " + _cards(seen.discard_pile, ascii_only))
    if seen.taken_single_card is not None:
        single = card_text(seen.taken_single_card, ascii_only)
        lines.append(f"  {single} was taken alone: it may not be discarded this turn (R11)")
    if seen.first_draw is not None:
        drawn = card_text(seen.first_draw, ascii_only)
        lines.append(f"  You drew {drawn}: you may refuse it once, 'refuse' (R32, a house rule)")
    extra = []
    for t in (0, 1):
        extra_size = seen.extra_pile_sizes[t]
        if extra_size is not None:
            extra.append(f"team {t}: {_count(extra_size, 'card')}")
        else:
            became_stock = seen.extra_pile_became_stock[t]
            extra.append(f"team {t}: " + ("became the stock" if became_stock else "taken"))
    lines.append("Extra piles: " + ", ".join(extra))
    others = [f"seat {s}: {n}" for s, n in enumerate(seen.hand_sizes) if s != seen.seat]
    lines.append("Cards in other hands: " + ", ".join(others))
    points = seen.public_points
    for t in (team, 1 - team):
        who = "your team" if t == team else "opponents"
        lines.append(f"Melds of team {t} ({who}, {_count(points[t], 'point')} on the table):")
        lines += render_melds(seen.melds[t], ascii_only)
    lines.append(f"Your hand ({_count(len(seen.hand), 'card')}):")
    lines += ["  " + line for line in render_hand(seen.hand, ascii_only).splitlines()]
    return "\n".join(lines)


def ending_text(outcome: Outcome) -> str:
    """How a hand ended, in words: "team 1 went out", "the stock ran out" or "stalemate: ..."."""
    if outcome.termination is Termination.WENT_OUT:
        return f"team {outcome.went_out} went out"
    if outcome.termination is Termination.STALEMATE:
        return "stalemate: nobody drew or laid a card for too many turns in a row (R24)"
    return "the stock ran out"


def _turn(seen: PlayerView) -> str:
    who = f"Seat {seen.seat} (team {seen.team}) sees the table; "
    if seen.phase is Phase.OVER:
        ending = ending_text(seen.outcome) if seen.outcome else "the stock ran out"
        return who + f"the hand is over: {ending}."
    actor = "your turn" if seen.current_player == seen.seat else f"seat {seen.current_player}"
    step = "to draw" if seen.phase is Phase.DRAW else "to play"
    return who + f"{actor} {step}."


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
    """The legal actions, numbered from 1 (as ``play`` reads a move's number)."""
    width = len(str(len(actions)))
    return "\n".join(
        f"  {i:>{width}}. {action_text(a, ascii_only)}" for i, a in enumerate(actions, 1)
    )


def render_score(scores: Sequence[TeamScore]) -> str:
    """Each team's score, item by item (R16). Every item is shown as :class:`TeamScore` holds
    it, a number of points of 0 or more; the two penalties are the rows marked ``less`` and are
    subtracted in the total."""
    rows = [
        ("cards on the table", [s.table for s in scores]),
        ("canasta bonuses", [s.canastas for s in scores]),
        ("going out", [s.going_out for s in scores]),
        ("less cards in hand", [s.hands for s in scores]),
        ("less extra pile", [s.extra_pile for s in scores]),
    ]
    lines = [f"{'':<22}{'team 0':>8}{'team 1':>8}"]
    for name, values in rows:
        lines.append(f"{name:<22}" + "".join(f"{v:>8}" for v in values))
    lines.append(f"{'total':<22}" + "".join(f"{s.total:>8}" for s in scores))
    return "\n".join(lines)

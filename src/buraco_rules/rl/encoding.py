"""Actions as short sequences of tokens from a fixed vocabulary of :data:`NUM_TOKENS` = 96.

A hand of 57 cards can have thousands of legal actions and there are about a million possible
ones, so no fixed numbering of whole actions fits a policy's output layer. Instead an action is
spelt a token at a time, and a policy picks one of 96 tokens per step, masked by
:func:`legal_tokens`:

| ids   | tokens                                                                      |
|-------|-----------------------------------------------------------------------------|
| 0-6   | the kinds DRAW, TAKE, TAKE_MELD, TAKE_ADD, MELD, ADD, and END               |
| 7-42  | meld slots 0-35 (``AddToMeld.meld``; a team never has more than 36 melds)   |
| 43-95 | the 53 card faces, in the engine's card order (``FIRST_CARD + card.id``)    |

| action                                      | tokens                             |
|---------------------------------------------|------------------------------------|
| ``DrawFromStock()``                         | ``(DRAW,)``                        |
| ``RefuseFirstDraw()`` (R32, a house rule)   | ``(END,)``                         |
| ``TakeDiscardPile()`` (an open pile)        | ``(TAKE,)``                        |
| ``Discard(card)``                           | ``(card,)``                        |
| ``NewMeld(cards)``                          | ``(MELD, cards..., END)``          |
| ``AddToMeld(slot, cards)``                  | ``(ADD, slot, cards..., END)``     |
| ``TakeDiscardPile(NewMeld(cards))``         | ``(TAKE_MELD, cards..., END)``     |
| ``TakeDiscardPile(AddToMeld(slot, cards))`` | ``(TAKE_ADD, slot, cards..., END)``|

Cards come in ascending id order (as the actions hold them). ``END`` alone, which ends nothing,
is the refusal of the first card drawn (R32): the vocabulary stays that of every rule set. The
code is prefix-free, so a
sequence is complete exactly when :func:`is_complete` says so, without the state.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> action = br.AddToMeld(2, "JK 7S")
>>> tokens = action_to_tokens(action)
>>> [token_to_string(t) for t in tokens]
['add', '#2', '7S', 'JK', 'end']
>>> tokens_to_action(tokens) == action
True
>>> state = br.new_game(variants.ITALIAN, 2, seed=0)
>>> [token_to_string(t) for t in legal_tokens(state)]
['draw', 'take']
>>> state = br.apply(state, br.DrawFromStock())
>>> [token_to_string(t) for t in legal_tokens(state, (MELD,))]
['2C', 'QC', 'KC', '2D', '2H', '2S']
"""

from __future__ import annotations

import operator
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from functools import lru_cache
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
from ..core.cards import DECK, all_cards
from ..core.decks import DECK_COUNTS
from ..core.quoting import describe
from ..engine.state import GameState
from ..hidden.determinize import canonical_state
from ..hidden.views import PlayerView
from ..play.face import legal_actions

__all__ = [
    "ADD",
    "DRAW",
    "END",
    "FIRST_CARD",
    "FIRST_SLOT",
    "KIND_NAMES",
    "MAX_SEQUENCE_LENGTH",
    "MELD",
    "NUM_CARD_TOKENS",
    "NUM_SLOTS",
    "NUM_TOKENS",
    "TAKE",
    "TAKE_ADD",
    "TAKE_MELD",
    "TokenError",
    "action_to_tokens",
    "card_token",
    "is_complete",
    "legal_tokens",
    "slot_token",
    "token_to_string",
    "tokens_to_action",
]

DRAW: Final = 0
"""Token of ``DrawFromStock()``, an action by itself."""
TAKE: Final = 1
"""Token of ``TakeDiscardPile()`` from an open pile (R11), an action by itself."""
TAKE_MELD: Final = 2
"""Starts a closed-pile take into a new meld: ``(TAKE_MELD, cards..., END)`` (R10)."""
TAKE_ADD: Final = 3
"""Starts a closed-pile take into an addition: ``(TAKE_ADD, slot, cards..., END)`` (R10)."""
MELD: Final = 4
"""Starts a new meld: ``(MELD, cards..., END)``."""
ADD: Final = 5
"""Starts an addition to a meld of the team: ``(ADD, slot, cards..., END)``."""
END: Final = 6
"""Ends the cards of a meld, an addition or a take; alone, ``RefuseFirstDraw()`` (R32)."""
KIND_NAMES: Final = ("draw", "take", "take-meld", "take-add", "meld", "add", "end")
"""The names of tokens 0-6, as :func:`token_to_string` writes them."""
FIRST_SLOT: Final = 7
"""The token of meld slot 0; slot ``i`` is ``FIRST_SLOT + i``."""
NUM_SLOTS: Final = 36
"""Meld slots a token can name: a team never holds more than 108 ÷ 3 = 36 melds."""
FIRST_CARD: Final = FIRST_SLOT + NUM_SLOTS
"""The token of card id 0 (the ace of clubs); card ``c`` is ``FIRST_CARD + c.id``."""
NUM_CARD_TOKENS: Final = 53
"""One token per distinct card face (the joker is one face)."""
NUM_TOKENS: Final = FIRST_CARD + NUM_CARD_TOKENS
"""The size of the vocabulary: 96."""
MAX_SEQUENCE_LENGTH: Final = 3 + len(DECK)
"""No sequence is longer than a kind, a slot, the 108 cards of the deck and ``END``;
:func:`tokens_to_action` refuses longer ones before reading them."""

_CARDS: Final = all_cards()
_COPIES: Final = DECK_COUNTS
_STARTS: Final = frozenset((TAKE_MELD, TAKE_ADD, MELD, ADD))
_WITH_SLOT: Final = frozenset((TAKE_ADD, ADD))
_DRAW_TOKENS: Final = (DRAW,)
_TAKE_TOKENS: Final = (TAKE,)
_REFUSE_TOKENS: Final = (END,)
_DRAW_ACTION: Final = DrawFromStock()
_TAKE_ACTION: Final = TakeDiscardPile()
_REFUSE_ACTION: Final = RefuseFirstDraw()


class TokenError(ValueError):
    """A token or a token sequence that encodes no action (or an action no token sequence
    encodes, such as a meld slot past 35); the message says why and quotes the value boundedly."""


def slot_token(slot: int) -> int:
    """The token of meld slot ``slot`` (0-35)."""
    if type(slot) is not int or not 0 <= slot < NUM_SLOTS:
        raise TokenError(f"a meld slot is an int from 0 to {NUM_SLOTS - 1}, not {describe(slot)}")
    return FIRST_SLOT + slot


def card_token(card: int) -> int:
    """The token of ``card`` (a :class:`~buraco_rules.Card`, or a card id 0-52)."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARD_TOKENS:
        raise TokenError(f"a card is a Card or a card id from 0 to 52, not {describe(card)}")
    return FIRST_CARD + int(card)


def _cards(cards: Sequence[int]) -> tuple[int, ...]:
    return tuple([FIRST_CARD + c for c in cards])


def action_to_tokens(action: Action) -> tuple[int, ...]:
    """The token sequence of ``action`` (see the module's table).

    An :class:`~buraco_rules.AddToMeld` to a slot past 35 (which no legal action names) and an
    object that is no action are a :class:`TokenError`.
    """
    if type(action) is DrawFromStock:
        return _DRAW_TOKENS
    if type(action) is RefuseFirstDraw:
        return _REFUSE_TOKENS
    if type(action) is Discard:
        return (FIRST_CARD + action.card,)
    if type(action) is NewMeld:
        return (MELD, *_cards(action.cards), END)
    if type(action) is AddToMeld:
        return (ADD, _slot(action.meld), *_cards(action.cards), END)
    if type(action) is TakeDiscardPile:
        inner = action.meld
        if inner is None:
            return _TAKE_TOKENS
        if type(inner) is NewMeld:
            return (TAKE_MELD, *_cards(inner.cards), END)
        if type(inner) is AddToMeld:
            return (TAKE_ADD, _slot(inner.meld), *_cards(inner.cards), END)
    raise TokenError(f"expected an action, not {describe(action)}")


def _slot(meld: int) -> int:
    if not 0 <= meld < NUM_SLOTS:
        raise TokenError(
            f"meld index {meld} has no token: slots run from 0 to {NUM_SLOTS - 1} (a team never "
            "holds more melds)"
        )
    return FIRST_SLOT + meld


def _as_tokens(tokens: object, what: str) -> tuple[int, ...]:
    """``tokens`` as a tuple of ints 0-95 (numpy integers welcome, bools refused), bounded."""
    if isinstance(tokens, str | bytes) or not hasattr(tokens, "__len__"):
        raise TokenError(f"{what} must be a sequence of tokens, not {describe(tokens)}")
    try:
        size = len(tokens)
    except Exception:
        raise TokenError(f"{what} must be a sequence of tokens, not {describe(tokens)}") from None
    if size > MAX_SEQUENCE_LENGTH:
        raise TokenError(
            f"{what} holds {size:,} tokens; no action takes more than {MAX_SEQUENCE_LENGTH}"
        )
    out: list[int] = []
    for token in tokens:  # type: ignore[attr-defined]
        if len(out) >= size:  # an object whose iteration outruns its length is cut short
            raise TokenError(f"{what} yields more tokens than its length of {size}")
        try:
            value = -1 if isinstance(token, bool) else operator.index(token)
        except TypeError:
            value = -1
        if not 0 <= value < NUM_TOKENS:
            raise TokenError(
                f"{what} holds {describe(token)}, which is no token (an int from 0 to "
                f"{NUM_TOKENS - 1})"
            )
        out.append(value)
    return tuple(out)


def is_complete(tokens: Sequence[int]) -> bool:
    """Whether ``tokens``, if it spells an action at all, spells a whole one: a single draw, take,
    refusal (:data:`END` alone) or card token, or a sequence that ends with :data:`END`. (The code
    is prefix-free, so no complete sequence extends another.)"""
    if not tokens:
        return False
    first = tokens[0]
    if first not in _STARTS:
        return len(tokens) == 1
    return len(tokens) > 1 and tokens[-1] == END


def tokens_to_action(tokens: Sequence[int]) -> Action:
    """The action that ``tokens`` spells (no state needed): the inverse of
    :func:`action_to_tokens`.

    Anything else is a :class:`TokenError`: no sequence, a value that is no token, an empty or
    unfinished sequence, tokens after the end, a slot or a kind where a card belongs, cards out
    of ascending order, or more copies of a card than the deck holds (R2).
    """
    seq = _as_tokens(tokens, "an action's tokens")
    if not seq:
        raise TokenError("an empty token sequence spells no action")
    first = seq[0]
    if first not in _STARTS:
        if len(seq) != 1:
            raise TokenError(f"{token_to_string(first)!r} is a whole action: nothing may follow it")
        if first == DRAW:
            return _DRAW_ACTION
        if first == TAKE:
            return _TAKE_ACTION
        if first == END:
            return _REFUSE_ACTION
        if first >= FIRST_CARD:
            return Discard(_CARDS[first - FIRST_CARD])
        raise TokenError(f"no action starts with {token_to_string(first)!r}")
    at = 1
    slot = -1
    if first in _WITH_SLOT:
        if len(seq) < 2 or not FIRST_SLOT <= seq[1] < FIRST_CARD:
            raise TokenError(f"{token_to_string(first)!r} must be followed by a meld slot")
        slot = seq[1] - FIRST_SLOT
        at = 2
    if seq[-1] != END:
        raise TokenError(f"a {token_to_string(first)!r} sequence must end with 'end'")
    body = seq[at:-1]
    if not body:
        raise TokenError(f"a {token_to_string(first)!r} sequence needs at least one card")
    for i, token in enumerate(body):
        if token < FIRST_CARD:
            raise TokenError(
                f"{token_to_string(token)!r} stands where a card belongs (at position {at + i})"
            )
        if i and token < body[i - 1]:
            raise TokenError("the cards of a sequence must come in ascending id order")
    cards = [_CARDS[t - FIRST_CARD] for t in body]
    for card, count in Counter(cards).items():
        if count > _COPIES[card]:
            raise TokenError(
                f"{count} copies of {card} are more than the deck's {_COPIES[card]} (R2)"
            )
    if first == MELD:
        return NewMeld(cards)
    if first == ADD:
        return AddToMeld(slot, cards)
    if first == TAKE_MELD:
        return TakeDiscardPile(NewMeld(cards))
    return TakeDiscardPile(AddToMeld(slot, cards))


def token_to_string(token: int) -> str:
    """A token for people: a kind's name (``"meld"``), a slot (``"#3"``) or a card (``"5S"``)."""
    if isinstance(token, bool):
        value = -1
    else:
        try:
            value = operator.index(token)
        except TypeError:
            value = -1
    if not 0 <= value < NUM_TOKENS:
        raise TokenError(f"{describe(token)} is no token (an int from 0 to {NUM_TOKENS - 1})")
    if value < FIRST_SLOT:
        return KIND_NAMES[value]
    if value < FIRST_CARD:
        return f"#{value - FIRST_SLOT}"
    return str(_CARDS[value - FIRST_CARD])


class _Tree:
    """The token sequences of one state's legal actions, and the tokens that follow each prefix
    asked about (worked out on demand: a policy walks one path, not the whole tree)."""

    __slots__ = ("actions", "following", "sequences")

    def __init__(self, state: GameState) -> None:
        self.actions = legal_actions(state)
        """The legal actions, the very objects the engine listed."""
        self.sequences: tuple[tuple[int, ...], ...] = tuple([_tokens_of(a) for a in self.actions])
        """Every legal action's tokens, in ``legal_actions`` order."""
        self.following: dict[tuple[int, ...], tuple[tuple[int, ...], list[tuple[int, ...]]]] = {}
        """By prefix: the sorted tokens that extend it, and the sequences that start with it."""

    def after(self, prefix: tuple[int, ...]) -> tuple[int, ...] | None:
        """The sorted tokens that extend ``prefix``; None when no legal sequence starts with it
        (``()`` when one ends there)."""
        entry = self.following.get(prefix)
        if entry is not None:
            return entry[0]
        if prefix:
            if self.after(prefix[:-1]) is None:
                return None
            k = len(prefix) - 1
            token = prefix[k]
            candidates = [s for s in self.following[prefix[:-1]][1] if len(s) > k and s[k] == token]
            if not candidates:
                return None
        else:
            candidates = list(self.sequences)
        k = len(prefix)
        nexts = tuple(sorted({s[k] for s in candidates if len(s) > k}))
        self.following[prefix] = (nexts, candidates)
        return nexts

    def action(self, tokens: tuple[int, ...]) -> Action:
        """The listed action that the legal sequence ``tokens`` spells: the engine's own object,
        which ``apply`` finds by identity (an equal new one it would look for by value). The
        search compares tuples in C, and only those of the same length."""
        return self.actions[self.sequences.index(tokens)]


@lru_cache(maxsize=1 << 15)
def _tokens_of(action: Action) -> tuple[int, ...]:
    # Legal action objects recur from state to state (the move generator memoises them).
    return action_to_tokens(action)


_TREE_CACHE_SIZE: Final = 64
_trees: OrderedDict[int, tuple[GameState, _Tree]] = OrderedDict()
_lock = threading.Lock()


def _tree(state: GameState) -> _Tree:
    """The token tree of ``state``'s legal actions (internal to the adapters), cached for the
    last states asked about: keyed by identity, and holding the state so that its id is not
    reused while the entry lives."""
    key = id(state)
    with _lock:
        entry = _trees.get(key)
        if entry is not None and entry[0] is state:
            _trees.move_to_end(key)
            return entry[1]
    built = _Tree(state)
    with _lock:
        _trees[key] = (state, built)
        if len(_trees) > _TREE_CACHE_SIZE:
            _trees.popitem(last=False)
    return built


def legal_tokens(
    state_or_view: GameState | PlayerView, prefix: Sequence[int] = ()
) -> tuple[int, ...]:
    """The tokens, sorted, that extend ``prefix`` toward at least one legal action.

    From ``()`` and following these tokens one reaches exactly the token sequences of
    ``legal_actions(state)``, and no complete sequence has a legal extension. A prefix that no
    legal action starts with (a complete one included) has none: ``()``. Given a
    :class:`~buraco_rules.PlayerView`, what the state gives for the seat to act, and ``()`` for
    the other seats. A prefix that is no token sequence is a :class:`TokenError`.
    """
    if type(state_or_view) is PlayerView:
        if not state_or_view.is_my_turn:
            _as_tokens(prefix, "prefix")
            return ()
        state = canonical_state(state_or_view)
    elif type(state_or_view) is GameState:
        state = state_or_view
    else:
        raise TypeError(f"expected a GameState or a PlayerView, not {describe(state_or_view)}")
    if type(prefix) is tuple and all(type(t) is int for t in prefix):
        key: tuple[int, ...] = prefix
    else:  # a float equal to a token would find its entry: only ints are tokens
        key = _as_tokens(prefix, "prefix")
    found = _tree(state).after(key)
    if found is not None:
        return found
    _as_tokens(key, "prefix")  # ints that are no tokens are refused, not answered with ()
    return ()

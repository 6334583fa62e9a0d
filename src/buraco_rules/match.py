"""Match play (R20): a series of hands until a team reaches the rules' target.

A :class:`Match` is a frozen record like a hand's state, and the one reducer advances it:
``br.apply(match, action)`` plays the action in the hand in play and, when that ends the hand,
records its scores and deals the next hand at once, unless the match is decided.

>>> import buraco_rules as br
>>> from buraco_rules import variants
>>> match = br.new_match(variants.ITALIAN, 2, seed=7)
>>> match.hand.current_player, match.totals, match.winner
(0, (0, 0), None)
>>> match = br.apply(match, br.legal_actions(match)[0])
>>> match.hand.phase
<Phase.PLAY: 'play'>

Determinism: hand ``k`` (0 for the first) of a match with seed ``s`` is ``br.new_game(rules,
players, seed=Match.hand_seed(s, k), first_player=(first_player + k) % players)``, where
:meth:`Match.hand_seed` is the first 8 bytes, big-endian, of the SHA-256 digest of the text
``"buraco-rules match <s> hand <k>"``. So a match is its seed and its actions, on any machine and
any Python version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import attrs

from . import engine
from .cards import Card
from .limits import MAX_MATCH_HANDS
from .quoting import describe
from .rules import RuleSet
from .scoring import TeamScore, score
from .state import GameState

__all__ = ["Match", "new_match"]


@attrs.frozen(kw_only=True)
class Match:
    """A match in progress or decided (R20). Start one with :func:`new_match`."""

    rules: RuleSet
    players: int
    first_player: int
    """The seat that starts the first hand; hand ``k`` starts with ``(first_player + k) %
    players`` (R20)."""
    seed: int | None
    """The seed every hand's deck is derived from (:meth:`hand_seed`), or None with ``decks``."""
    decks: tuple[tuple[Card, ...], ...] | None
    """Explicit decks in deal order, hand ``k`` dealt from ``decks[k % len(decks)]``; or None."""
    hand: GameState
    """The hand in play; once the match is over, its last hand (which is over too)."""
    finished_hands: tuple[GameState, ...] = ()
    """The last state of every finished hand, in order."""
    scores: tuple[tuple[TeamScore, TeamScore], ...] = ()
    """Each finished hand's scores (:func:`buraco_rules.score` of its last state), in order."""

    def __attrs_post_init__(self) -> None:
        # Cheap consistency checks: a Match built by hand must not break apply later.
        if not isinstance(self.rules, RuleSet) or not isinstance(self.hand, GameState):
            raise ValueError("a match needs a RuleSet and a GameState; start one with new_match")
        hand = self.hand
        if (hand.rules is not self.rules and hand.rules != self.rules) or (
            hand.players != self.players
        ):
            raise ValueError("the hand in play must be dealt under the match's rules and players")
        if (self.seed is None) == (not self.decks):
            raise ValueError("a match has either a seed or a non-empty tuple of decks")
        if len(self.scores) != len(self.finished_hands):
            raise ValueError("a match needs one pair of scores per finished hand")
        if len(self.scores) > MAX_MATCH_HANDS:
            raise ValueError(f"a match has at most {MAX_MATCH_HANDS} hands (R20)")

    @staticmethod
    def hand_seed(seed: int, k: int) -> int:
        """The seed of hand ``k`` (from 0) of a match with ``seed``: derived from the two alone.

        >>> Match.hand_seed(7, 0) == Match.hand_seed(7, 0) != Match.hand_seed(7, 1)
        True
        """
        digest = hashlib.sha256(f"buraco-rules match {seed} hand {k}".encode()).digest()
        return int.from_bytes(digest[:8], "big")

    @property
    def totals(self) -> tuple[int, int]:
        """Each team's total: the sum of its scores over the finished hands (R16, R20)."""
        return (
            sum(pair[0].total for pair in self.scores),
            sum(pair[1].total for pair in self.scores),
        )

    @property
    def winner(self) -> int | None:
        """The team that won the match, or None while it goes on (R20): once a team's total has
        reached the target after a hand, the higher total wins; equal totals play another hand.
        After the last hand a match may have (:data:`~buraco_rules.limits.MAX_MATCH_HANDS`) the
        higher total wins whatever the target, and equal totals leave the match drawn (None)."""
        first, second = self.totals
        if first == second:
            return None
        if max(first, second) < self.rules.match_target and len(self.scores) < MAX_MATCH_HANDS:
            return None
        return 0 if first > second else 1

    @property
    def is_over(self) -> bool:
        """True once the match has a winner, or has played its last hand (R20)."""
        return len(self.scores) >= MAX_MATCH_HANDS or self.winner is not None


def new_match(
    rules: RuleSet,
    players: int | None = None,
    *,
    seed: int | None = None,
    decks: Sequence[Iterable[Card | str]] | None = None,
    first_player: int = 0,
) -> Match:
    """Start a match (R20) and deal its first hand.

    Give either ``seed``, an ``int`` from which each hand's deck is derived (see
    :meth:`Match.hand_seed`), or ``decks``, a non-empty sequence of explicit 108-card decks in the
    deal order of :func:`buraco_rules.new_game`, used in turn (the first for hand 0, and so on,
    starting again from the first when they run out). Bad arguments are a ``ValueError``, as for
    :func:`buraco_rules.new_game`.
    """
    if (seed is None) == (decks is None):
        raise ValueError("give exactly one of seed= (derived decks) or decks= (explicit decks)")
    if seed is not None and type(seed) is not int:
        raise ValueError(f"seed must be an int, not {describe(seed)}")
    explicit: tuple[tuple[Card, ...], ...] | None = None
    if decks is not None:
        if isinstance(decks, str | bytes) or not isinstance(decks, Sequence) or not decks:
            raise ValueError("decks must be a non-empty sequence of decks")
        if len(decks) > MAX_MATCH_HANDS:
            raise ValueError(
                f"decks holds {len(decks):,} decks, more than the {MAX_MATCH_HANDS} hands a match "
                "may have (R20)"
            )
        explicit = tuple(tuple(engine._check_deck(deck)) for deck in decks)
    first = engine.new_game(
        rules,
        players,
        seed=None if seed is None else Match.hand_seed(seed, 0),
        deck=None if explicit is None else explicit[0],
        first_player=first_player,
    )
    return Match(
        rules=rules,
        players=first.players,
        first_player=first_player,
        seed=seed,
        decks=explicit,
        hand=first,
    )


def _deal(match: Match, k: int) -> GameState:
    """Hand ``k`` of ``match`` (R20: the first player moves one seat each hand)."""
    first_player = (match.first_player + k) % match.players
    if match.seed is not None:
        seed = Match.hand_seed(match.seed, k)
        return engine.new_game(match.rules, match.players, seed=seed, first_player=first_player)
    decks = match.decks or ()  # never empty: checked when the match was made
    deck = decks[k % len(decks)]
    return engine.new_game(match.rules, match.players, deck=deck, first_player=first_player)


def apply_to_match(match: Match, action: object, player: object = None) -> Match:
    """``br.apply`` on a match: play ``action`` in the hand in play; when that ends the hand,
    record its scores and deal the next hand unless the match is decided. Raises only
    :class:`~buraco_rules.IllegalAction` (a decided match's last hand is over: ``game-over``)."""
    hand = engine.apply(match.hand, action, player)
    if not hand.is_over:
        return attrs.evolve(match, hand=hand)
    played = attrs.evolve(
        match,
        hand=hand,
        finished_hands=(*match.finished_hands, hand),
        scores=(*match.scores, score(hand)),
    )
    if played.is_over:
        return played
    return attrs.evolve(played, hand=_deal(played, len(played.finished_hands)))

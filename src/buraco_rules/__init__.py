"""buraco-rules: a pure-Python rules engine for Buraco Fechado STBL, Canasta STBL and Italian
Buraco.

Immutable states advanced by one pure reducer::

    import buraco_rules as br
    from buraco_rules import variants

    state = br.new_game(variants.ITALIAN, players=4, seed=7)
    state = br.apply(state, br.legal_actions(state)[0])
"""

from . import variants
from .actions import Action, AddToMeld, Discard, DrawFromStock, NewMeld, TakeDiscardPile
from .cards import DECK, JOKER, Card, Rank, Suit, parse_cards
from .decks import arrange_deck
from .engine import apply, is_legal, legal_actions, new_game, why_illegal
from .errors import ErrorCode, IllegalAction
from .melds import CanastaKind, Meld, MeldKind
from .memo import clear_caches
from .rules import CanastaBonuses, CardValues, RuleSet
from .scoring import TeamScore, canasta_bonus, score
from .state import GameState, Phase
from .views import PlayerView, view

__all__ = [
    "DECK",
    "JOKER",
    "Action",
    "AddToMeld",
    "CanastaBonuses",
    "CanastaKind",
    "Card",
    "CardValues",
    "Discard",
    "DrawFromStock",
    "ErrorCode",
    "GameState",
    "IllegalAction",
    "Meld",
    "MeldKind",
    "NewMeld",
    "Phase",
    "PlayerView",
    "Rank",
    "RuleSet",
    "Suit",
    "TakeDiscardPile",
    "TeamScore",
    "apply",
    "arrange_deck",
    "canasta_bonus",
    "clear_caches",
    "is_legal",
    "legal_actions",
    "new_game",
    "parse_cards",
    "score",
    "variants",
    "view",
    "why_illegal",
]

__version__ = "0.1.0"

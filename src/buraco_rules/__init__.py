"""buraco-rules: a pure-Python rules engine for Buraco Fechado STBL, Canasta STBL and Italian
Buraco.

Immutable states advanced by one pure reducer::

    import buraco_rules as br
    from buraco_rules import variants

    state = br.new_game(variants.ITALIAN, players=4, seed=7)
    state = br.apply(state, br.legal_actions(state)[0])
"""

from . import variants
from .actions import (
    MAX_ACTION_CARDS,
    MAX_MELD_INDEX,
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    TakeDiscardPile,
)
from .cards import DECK, JOKER, Card, Rank, Suit, parse_cards
from .decks import arrange_deck
from .determinize import determinize, unseen_cards
from .engine import apply, is_legal, legal_actions, new_game, why_illegal
from .errors import ErrorCode, IllegalAction, InvalidRules, InvalidState, MalformedAction
from .formats import (
    DecodeError,
    GameRecord,
    InvalidRecord,
    MatchRecord,
    NotationError,
    ReplayError,
    format_action,
    from_data,
    from_json,
    parse_action,
    replay,
    to_data,
    to_json,
)
from .limits import longest_hand
from .match import History, Match, new_match
from .melds import CanastaKind, Meld, MeldKind
from .memo import clear_caches
from .outcome import Outcome, Termination
from .rendering import render
from .rules import CanastaBonuses, CardValues, RuleSet
from .scoring import TeamScore, canasta_bonus, score
from .state import GameState, Phase
from .validate import validate
from .views import PlayerView, view

__all__ = [
    "DECK",
    "JOKER",
    "MAX_ACTION_CARDS",
    "MAX_MELD_INDEX",
    "Action",
    "AddToMeld",
    "CanastaBonuses",
    "CanastaKind",
    "Card",
    "CardValues",
    "DecodeError",
    "Discard",
    "DrawFromStock",
    "ErrorCode",
    "GameRecord",
    "GameState",
    "History",
    "IllegalAction",
    "InvalidRecord",
    "InvalidRules",
    "InvalidState",
    "MalformedAction",
    "Match",
    "MatchRecord",
    "Meld",
    "MeldKind",
    "NewMeld",
    "NotationError",
    "Outcome",
    "Phase",
    "PlayerView",
    "Rank",
    "ReplayError",
    "RuleSet",
    "Suit",
    "TakeDiscardPile",
    "TeamScore",
    "Termination",
    "apply",
    "arrange_deck",
    "canasta_bonus",
    "clear_caches",
    "determinize",
    "format_action",
    "from_data",
    "from_json",
    "is_legal",
    "legal_actions",
    "longest_hand",
    "new_game",
    "new_match",
    "parse_action",
    "parse_cards",
    "render",
    "replay",
    "score",
    "to_data",
    "to_json",
    "unseen_cards",
    "validate",
    "variants",
    "view",
    "why_illegal",
]

__version__ = "0.1.0"

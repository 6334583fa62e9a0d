"""buraco-rules: a pure-Python rules engine for Buraco Fechado STBL, Canasta STBL and Italian
Buraco.

Immutable states advanced by one pure reducer::

    import buraco_rules as br
    from buraco_rules import variants

    state = br.new_game(variants.ITALIAN, players=4, seed=7)
    state = br.apply(state, br.legal_actions(state)[0])
"""

from . import variants
from .core.actions import (
    MAX_ACTION_CARDS,
    MAX_MELD_INDEX,
    Action,
    AddToMeld,
    Discard,
    DrawFromStock,
    NewMeld,
    RefuseFirstDraw,
    TakeDiscardPile,
)
from .core.cards import DECK, JOKER, Card, Rank, Suit, parse_cards
from .core.decks import arrange_deck
from .core.errors import ErrorCode, IllegalAction, InvalidRules, InvalidState, MalformedAction
from .core.limits import longest_hand
from .core.memo import clear_caches
from .core.outcome import Outcome, Termination
from .core.rules import CanastaBonuses, CardValues, RuleSet
from .engine.scoring import TeamScore, canasta_bonus, score
from .engine.state import GameState, Phase
from .engine.validate import validate
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
from .hidden.determinize import determinize, unseen_cards
from .hidden.views import PlayerView, view
from .melds.meld import CanastaKind, Meld, MeldKind
from .play.face import apply, is_legal, legal_actions, new_game, why_illegal
from .play.match import History, Match, new_match
from .play.rendering import render

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
    "RefuseFirstDraw",
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

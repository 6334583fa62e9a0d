"""Text and JSON at the boundary: the action notation, the versioned JSON codec, and game
records with replay (``docs/formats.md``). The core of the engine never imports this package."""

from .codec import FORMAT, KINDS, MAX_DEPTH, MAX_JSON_CHARS, from_data, from_json, to_data, to_json
from .errors import DecodeError, InvalidRecord, NotationError, ReplayError
from .notation import MAX_NOTATION_CHARS, format_action, parse_action
from .records import GameRecord, MatchRecord, replay

__all__ = [
    "FORMAT",
    "KINDS",
    "MAX_DEPTH",
    "MAX_JSON_CHARS",
    "MAX_NOTATION_CHARS",
    "DecodeError",
    "GameRecord",
    "InvalidRecord",
    "MatchRecord",
    "NotationError",
    "ReplayError",
    "format_action",
    "from_data",
    "from_json",
    "parse_action",
    "replay",
    "to_data",
    "to_json",
]

"""A table's rules named as a preset plus house-rule options (R25 on; docs/rules/house-rules.md).

>>> from buraco_rules import variants
>>> rules = variants.with_options("buraco-fechado", closed_take_naturals_only=True, set_ranks="AK")
>>> rules.closed_take_naturals_only, rules.sets_allowed, rules.set_ranks, rules.is_preset
(True, True, 'AK', False)
>>> variants.with_options("italian", closed_take_naturals_only=True)
Traceback (most recent call last):
...
buraco_rules.core.errors.InvalidRules: option closed_take_naturals_only needs a closed discard ...
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import attrs

from ..core.errors import InvalidRules
from ..core.quoting import describe, quote_text
from ..core.rules import _PRESETS, MAX_THRESHOLDS, RuleSet

__all__ = [
    "OPTIONS",
    "changes_beyond_options",
    "for_single_hand",
    "option_text",
    "options_for",
    "options_of",
    "parse_option",
    "with_options",
]

OPTIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ace_low_only": "the ace is low only: A-2-3, but no Q-K-A (true/false)",
        "minimum_opening": "R25: a team's first melds, laid in one turn, are worth at least this "
        "many points (0 off, or 15-150)",
        "closed_take_naturals_only": "R26: a closed pile is taken with its top card and natural "
        "cards of the hand only, no wildcard (true/false)",
        "set_ranks": "R27: sets of these ranks only, such as AK (aces and kings)",
        "locked_wildcards": "R29: a wildcard between two natural cards of a run stays there "
        "(true/false)",
        "take_both_extra_piles": "R31: a team that took its extra pile and empties a hand "
        "again takes the other team's too, while it is still set aside (true/false)",
        "first_draw_refusal": "R32: the first player may refuse the hand's first card drawn "
        "from the stock, once: it starts the discard pile and the next card is drawn (true/false)",
        "opening_thresholds": "R30: the minimum opening rises with the team's match total, as "
        "TOTAL:MINIMUM pairs such as 1000:50,2000:90 (a list of pairs in JSON), in a match",
        "long_meld_size": "R28: a meld of at least this many cards (8-14) earns long_meld_bonus",
        "long_meld_bonus": "R28: the points a long meld earns on top of its canasta bonus",
    }
)
"""The house-rule options by name (each a ``RuleSet`` field, off in every preset), with a line
saying what each changes: the names :func:`with_options`, the server and ``--option`` accept."""

_TURNS_SETS_ON: Final = "; turns sets on, which this variant otherwise has not"


def options_for(preset: str | RuleSet) -> dict[str, str]:
    """The options of :data:`OPTIONS` that ``preset`` (a preset or its name) may take, each with
    its line as it reads for that preset: no ``closed_take_naturals_only`` where the pile is open
    (R11), and ``set_ranks`` saying it turns sets on where the preset has none."""
    rules = _preset(preset)
    found = dict(OPTIONS)
    if not rules.closed_discard_pile:
        del found["closed_take_naturals_only"]  # R26 needs a closed pile
    if not rules.sets_allowed:
        found["set_ranks"] += _TURNS_SETS_ON
    return found


_KINDS: Final[Mapping[str, type]] = MappingProxyType(
    {
        "ace_low_only": bool,
        "minimum_opening": int,
        "closed_take_naturals_only": bool,
        "set_ranks": str,
        "locked_wildcards": bool,
        "take_both_extra_piles": bool,
        "first_draw_refusal": bool,
        "opening_thresholds": tuple,
        "long_meld_size": int,
        "long_meld_bonus": int,
    }
)


def _preset(preset: object) -> RuleSet:
    if isinstance(preset, RuleSet):
        if not preset.is_preset:
            raise InvalidRules(f"{preset.name} with options is not a preset; start from a preset")
        return preset
    if type(preset) is not str:
        raise InvalidRules(f"the preset must be a preset's name or RuleSet, not {describe(preset)}")
    found = _PRESETS.get(preset)  # the presets by name, as variants.get reads them
    if found is None:
        raise InvalidRules(
            f"unknown variant {quote_text(preset)}; choose one of {', '.join(_PRESETS)}"
        )
    return found


def with_options(preset: str | RuleSet, /, **options: object) -> RuleSet:
    """The rule set of ``preset`` (a preset's name or the preset itself) with the house-rule
    ``options`` (:data:`OPTIONS`) in force. Each option is checked as its ``RuleSet`` field is, and
    against the preset: an unknown option, a value of the wrong kind or an option the preset
    contradicts (no closed pile to take with naturals only, say) is an
    :class:`~buraco_rules.InvalidRules` that names it. ``set_ranks`` turns sets on
    (``sets_allowed``) in a preset without them, and may write the 10 as T (``"TJQK"``), as card
    notation does. The result is no longer a preset
    (``RuleSet.is_preset``): store it whole, as the JSON codec does."""
    rules = _preset(preset)
    changes: dict[str, Any] = {}
    for name, value in options.items():
        if name not in OPTIONS:
            raise InvalidRules(
                f"unknown option {quote_text(name)}; the options are {', '.join(OPTIONS)}"
            )
        if name == "opening_thresholds":
            value = _pairs(value)
        elif name == "set_ranks":
            value = _ten_spelled(value)
        changes[name] = value
    if not changes:
        return rules
    if changes.get("set_ranks") is not None:
        changes["sets_allowed"] = True  # R27 chooses the ranks of sets, so it turns them on
    try:
        return attrs.evolve(rules, **changes)
    except InvalidRules as error:
        raise InvalidRules(_in_option_words(str(error), changes, options, rules)) from None
    except (TypeError, ValueError) as error:  # attrs' own refusal of an argument
        raise InvalidRules(f"bad options for {rules.title}: {error}") from None


_TAKES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ace_low_only": "true or false",
        "minimum_opening": "0 (off) or a whole number of points from 15 to 150",
        "closed_take_naturals_only": "true or false",
        "set_ranks": "the ranks of its sets written together in rank order, such as AK or 10JQK "
        "(A, 3-10 or T, J, Q, K; no 2s)",
        "locked_wildcards": "true or false",
        "take_both_extra_piles": "true or false",
        "first_draw_refusal": "true or false",
        "opening_thresholds": "a list of [total, minimum] pairs, such as [[1000, 50], [2000, 90]]: "
        "totals rising, each minimum from 15 to 150",
        "long_meld_size": "0 (off) or a whole number of cards from 8 to 14",
        "long_meld_bonus": "0 (off) or a whole number of points",
    }
)
"""What each option takes, in the words its refusal uses."""


def _in_option_words(
    text: str, changes: Mapping[str, object], given: Mapping[str, object], rules: RuleSet
) -> str:
    """The refusal ``text`` of the rule set's own checks, said in the options' words (a player
    chose them, at a table or on the command line, as ``given``) rather than in the names of
    ``RuleSet``'s fields."""
    for name, value in changes.items():
        if text.startswith(f"RuleSet.{name} must be "):
            return f"option {name} takes {_TAKES[name]}, not {_shown(given.get(name, value))}"
    if text.startswith("RuleSet.closed_take_naturals_only needs"):
        return (
            f"option closed_take_naturals_only needs a closed discard pile, which {rules.title} "
            "has not: its pile is taken without a meld (R11, R26)"
        )
    if text.startswith("RuleSet.long_meld_size and RuleSet.long_meld_bonus"):
        return (
            "options long_meld_size and long_meld_bonus go together: both 0 (off) or both set, "
            f"not {describe(changes.get('long_meld_size', rules.long_meld_size))} and "
            f"{describe(changes.get('long_meld_bonus', rules.long_meld_bonus))} (R28)"
        )
    return text.replace("RuleSet.", "")


def _shown(value: object) -> str:
    """A value as a player wrote it, in JSON's words where it has them (``true``, ``null``)."""
    if value is None:
        return "null"
    if type(value) is bool:
        return str(value).lower()
    return describe(value)


def _pairs(value: object) -> object:
    """A JSON list of ``[total, minimum]`` lists as the tuple of pairs ``RuleSet`` holds; anything
    else as it is, for the field's own check to refuse."""
    if type(value) not in (list, tuple) or len(value) > MAX_THRESHOLDS:  # type: ignore[arg-type]
        return value
    return tuple(
        tuple(pair) if type(pair) in (list, tuple) else pair
        for pair in value  # type: ignore[attr-defined]
    )


def _ten_spelled(value: object) -> object:
    """``set_ranks`` with the 10 written T, as card notation allows (``"ATK"``), as the ``RuleSet``
    field writes it (``"A10K"``); anything else as it is, for the field's own check."""
    return value.replace("T", "10") if type(value) is str else value


def parse_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` as the command line writes an option, as its name and its value: ``true``
    or ``false`` for a yes/no option, a whole number, or text (``set_ranks=AK``). A bad one is
    an :class:`~buraco_rules.InvalidRules` naming it."""
    name, equals, raw = text.partition("=")
    name = name.strip()
    raw = raw.strip()
    if not equals or name not in _KINDS:
        raise InvalidRules(
            f"{quote_text(text)} is not NAME=VALUE of an option: {', '.join(OPTIONS)}"
        )
    kind = _KINDS[name]
    if kind is bool:
        if raw.lower() not in ("true", "false"):
            raise InvalidRules(f"option {name} takes true or false, not {quote_text(raw)}")
        return name, raw.lower() == "true"
    if kind is tuple:  # TOTAL:MINIMUM,...
        pairs = []
        for item in raw.split(",")[: MAX_THRESHOLDS + 1]:
            total, colon, minimum = item.strip().partition(":")
            if not colon or not _digits(total) or not _digits(minimum):
                raise InvalidRules(
                    f"option {name} takes TOTAL:MINIMUM pairs such as 1000:50,2000:90, "
                    f"not {quote_text(raw)}"
                )
            pairs.append((int(total), int(minimum)))
        return name, tuple(pairs)
    if kind is int:
        if not _digits(raw):
            raise InvalidRules(f"option {name} takes a whole number, not {quote_text(raw)}")
        return name, int(raw)
    return name, _ten_spelled(raw)


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 10


def options_of(rules: RuleSet) -> dict[str, object]:
    """The house-rule options (:data:`OPTIONS`) in force in ``rules``, by name, in the order of
    :data:`OPTIONS`: each field whose value differs from the preset of the same name (every
    option of a rule set not named for a preset). The values are JSON's: ``true``, a number, text,
    or a list of ``[total, minimum]`` pairs; a preset has none (``{}``)."""
    preset = _PRESETS.get(rules.name)
    found: dict[str, object] = {}
    for name in OPTIONS:
        value = getattr(rules, name)
        if preset is not None and value == getattr(preset, name):
            continue
        if preset is None and value in (False, 0, None, ()):
            continue
        found[name] = [list(pair) for pair in value] if name == "opening_thresholds" else value
    return found


def changes_beyond_options(rules: RuleSet) -> tuple[str, ...]:
    """The ``RuleSet`` fields, in field order, in which ``rules`` differs from the preset of the
    same name though no option (:data:`OPTIONS`) sets them: ``card_values`` for the 2 worth 20
    (R28, built with ``attrs.evolve``), say. :func:`options_of` names options only, so a rule
    set with such a change and no option has none (``{}``) though it is no preset. Empty for a
    preset, for a preset plus options, and for a rule set not named for a preset. The fields an
    option sets with it are not counted: ``sets_allowed`` under ``set_ranks`` (R27), each team's
    minimum under ``opening_thresholds`` (R30, set by the match)."""
    preset = _PRESETS.get(rules.name)
    if preset is None:
        return ()
    implied = set(OPTIONS)
    if rules.set_ranks is not None:
        implied.add("sets_allowed")
    if rules.opening_thresholds:
        implied.add("team_minimum_openings")
    return tuple(
        field.name
        for field in attrs.fields(RuleSet)
        if field.init
        and field.name not in implied
        and getattr(rules, field.name) != getattr(preset, field.name)
    )


def option_text(name: str, value: object) -> str:
    """An option as ``--option`` writes it, ``NAME=VALUE`` (``locked_wildcards=true``,
    ``opening_thresholds=1000:50,2000:90``), which :func:`parse_option` reads back."""
    if type(value) is bool:
        return f"{name}={str(value).lower()}"
    if type(value) in (list, tuple):
        pairs = ",".join(f"{total}:{minimum}" for total, minimum in value)  # type: ignore[attr-defined]
        return f"{name}={pairs}"
    return f"{name}={value}"


def for_single_hand(rules: RuleSet) -> RuleSet:
    """``rules`` for a single hand, not a match: the options that only a match can put in force
    are refused with an :class:`~buraco_rules.InvalidRules` that names them (R30's
    ``opening_thresholds`` rise with the match total, which a single hand has not)."""
    if rules.opening_thresholds:
        raise InvalidRules(
            "opening_thresholds raises the minimum opening with the team's match total, and a "
            "single hand has none: play a match, or ask a fixed minimum_opening (R30)"
        )
    return rules

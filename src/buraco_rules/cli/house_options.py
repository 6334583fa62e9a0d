"""``--option NAME=VALUE`` (repeatable) of ``simulate``, ``play`` and ``match``: the house rules
(``buraco_rules.variants.OPTIONS``) a table plays on top of its ``--variant``."""

from __future__ import annotations

import argparse

from ..core.errors import InvalidRules
from ..core.rules import RuleSet
from ..play.rendering import escape
from ..variants import (
    OPTIONS,
    changes_beyond_options,
    for_single_hand,
    option_text,
    options_of,
    parse_option,
    with_options,
)

__all__ = ["add_house_options", "house_rules_line", "option_pair", "rules_of"]


def option_pair(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` of a house-rule option, as its name and value."""
    try:
        return parse_option(text)
    except InvalidRules as error:
        raise argparse.ArgumentTypeError(escape(str(error))) from None


def add_house_options(parser: argparse.ArgumentParser) -> None:
    """``--option NAME=VALUE``, repeatable."""
    parser.add_argument(
        "--option",
        type=option_pair,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a house rule on top of the variant, repeatable: "
        + "; ".join(f"{name}: {line}" for name, line in OPTIONS.items()),
    )


def rules_of(
    parser: argparse.ArgumentParser, args: argparse.Namespace, *, single_hand: bool = False
) -> RuleSet:
    """``--variant`` with the ``--option`` house rules in force; a contradiction exits 2, and so
    does an option only a match puts in force where the command plays ``single_hand``s."""
    rules: RuleSet = args.variant
    if not args.option:
        return rules
    names = [name for name, _ in args.option]
    for name in names:
        if names.count(name) > 1:
            parser.error(f"--option {name} is given {names.count(name)} times; give it once")
    try:
        rules = with_options(rules, **dict(args.option))
        return for_single_hand(rules) if single_hand else rules
    except InvalidRules as error:
        parser.error(escape(str(error)))


def house_rules_line(rules: RuleSet) -> str:
    """The house rules in force in ``rules`` as a header's line (``house rules:
    locked_wildcards=true, set_ranks=AK``), naming any field changed that is no option
    (``house rules: card_values changed``, R28's 2 worth 20), or ``""`` for a preset."""
    found = [option_text(n, v) for n, v in options_of(rules).items()]
    found += [f"{name} changed" for name in changes_beyond_options(rules)]
    if not found:
        return ""
    return "house rules: " + ", ".join(found)

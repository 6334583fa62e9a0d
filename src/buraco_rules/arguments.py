"""The checks of command-line numbers, shared by the applications that read them (the
``buraco-rules`` command and the benchmark): each refuses bad input with a clear message.

One home below both, so that neither application imports the other for them: the command runs
the benchmark (``buraco-rules bench``), and the benchmark's own arguments are checked here."""

from __future__ import annotations

import argparse
from typing import Final

from .play.rendering import escape

__all__ = [
    "NUMBER_CHARS",
    "non_negative_float",
    "positive_float",
    "positive_int",
    "shown",
    "whole_number",
]

NUMBER_CHARS: Final = 40
"""Longer text is no number a command takes (and ``int()`` of it may be slow): it is refused
unread, and a message quotes at most this many of its characters."""


def shown(text: str) -> str:
    """``text`` quoted for a message: bounded, with control characters escaped."""
    if len(text) > NUMBER_CHARS:
        return escape(repr(text[:NUMBER_CHARS])) + f"… ({len(text):,} characters)"
    return escape(repr(text))


def whole_number(text: str) -> int:
    """Any whole number."""
    try:
        if len(text) > NUMBER_CHARS:
            raise ValueError(text)
        return int(text)
    except ValueError:
        # A longer number is refused unread (int() of a long text is slow): the message says so.
        within = f" of at most {NUMBER_CHARS} characters" if len(text) > NUMBER_CHARS else ""
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number{within}") from None


def positive_int(text: str) -> int:
    """A whole number of 1 or more."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{shown(text)} must be 1 or more")
    return value


def _float(text: str) -> float:
    """A number of at most ``NUMBER_CHARS`` characters, read as a float."""
    try:
        if len(text) > NUMBER_CHARS:
            raise ValueError(text)
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a number") from None


def positive_float(text: str) -> float:
    """A finite number above 0 (of seconds)."""
    value = _float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{shown(text)} must be a number above 0")
    return value


def non_negative_float(text: str) -> float:
    """A finite number of 0 or more (of seconds)."""
    value = _float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{shown(text)} must be 0 or more")
    return value

"""What only a terminal needs: whether it can show the suit symbols. The drawing itself is
public, in :mod:`buraco_rules.play.rendering` (``br.render``)."""

from __future__ import annotations

from typing import TextIO

__all__ = ["can_show"]


def can_show(stream: TextIO, text: str) -> bool:
    """Whether ``stream`` can print ``text`` (the suit symbols) in its encoding."""
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True

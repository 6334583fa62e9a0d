"""A Griffe extension for the documentation site: shows the package's reST-flavoured docstrings
as Markdown (doctests as code blocks, roles as code, reST links as links)."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc|obj):`~?([^`]+)`")
_LINK = re.compile(r"`([^`<]+?)\s*<([^>]+)>`_")


def _fence_doctests(text: str) -> str:
    lines, out, inside = text.splitlines(), [], False
    for line in lines:
        if line.startswith(">>>") and not inside:
            out.append("```pycon")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


def markdown_docstring(text: str) -> str:
    """``text`` with doctests fenced, reST roles as code spans and reST links as links."""
    text = _ROLE.sub(lambda m: f"`{m.group(1)}`", text)
    text = _LINK.sub(lambda m: f"[{m.group(1)}]({m.group(2)})", text)
    return _fence_doctests(text)


class MarkdownDocstrings(griffe.Extension):
    """Rewrite every docstring with :func:`markdown_docstring` once the tree is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)

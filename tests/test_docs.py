"""Every ```python block of the README and docs/ runs (blocks of one file share a namespace), and
every doctest in the package passes."""

from __future__ import annotations

import doctest
import importlib
import importlib.machinery
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import buraco_rules

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _has_server_extra() -> bool:
    return all(importlib.util.find_spec(m) for m in ("starlette", "uvicorn", "httpx"))


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_examples_run(path: Path) -> None:
    if path.name == "server.md" and not _has_server_extra():
        pytest.skip("the server's examples need the 'server' extra")
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    for block in BLOCK.findall(path.read_text(encoding="utf-8")):
        exec(compile(block, str(path), "exec"), namespace)


def test_readme_has_examples() -> None:
    assert BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


MODULES = sorted(
    m.name for m in pkgutil.walk_packages(buraco_rules.__path__, buraco_rules.__name__ + ".")
)


def is_compiled(module: object) -> bool:
    """A module of the compiled build is an extension module, whose functions have no docstring
    examples to find (mypyc keeps no ``__doc__`` on them)."""
    path = getattr(module, "__file__", None) or ""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


EXTRAS = {"numpy", "pyspiel", "open_spiel", "pettingzoo", "gymnasium"}
"""The optional dependencies of ``buraco_rules.rl``: a module that needs a missing one is
skipped (CI installs them all)."""


@pytest.mark.parametrize("name", ["buraco_rules", *MODULES])
def test_doctests(name: str) -> None:
    if name.startswith("buraco_rules.server") and not _has_server_extra():
        pytest.skip("the server needs the 'server' extra")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if not name.startswith("buraco_rules.rl.") or error.name not in EXTRAS:
            raise
        pytest.skip(f"{name} needs the extra providing {error.name}")
    if is_compiled(module):
        pytest.skip(f"{name} is compiled: its doctests run against the pure build")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_name_has_an_entry_in_the_api_page() -> None:
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    missing = [n for n in buraco_rules.__all__ if not re.search(rf"\b{re.escape(n)}\b", page)]
    assert missing == []

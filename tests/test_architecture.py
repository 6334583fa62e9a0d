"""The module graph, read from the source with ``ast``: no import cycle, and the layering that
docs/internals.md describes (the reducer takes states, the generator builds no state, the bots and
the core import modules rather than the package face)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "buraco_rules"


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in (SRC / PACKAGE).rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str) -> set[str]:
    """The package's modules that module ``name`` imports, anywhere in it (function bodies and
    ``TYPE_CHECKING`` blocks included). ``from . import x`` counts as importing the submodule
    ``x`` when there is one, else the package itself."""
    known = modules()
    path = known[name]
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(
                    here[: len(here) - node.level + 1] + ([node.module] if node.module else [])
                )
            else:
                base = node.module or ""
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    found.add(full)
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    return {name: imported(name) for name in modules()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_the_imports() -> None:
    edges = graph()
    assert "buraco_rules.reducer" in edges["buraco_rules.engine"]
    assert "buraco_rules.rules" in edges["buraco_rules.variants"]


def test_no_module_imports_itself_back_through_others() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        # The reducer takes states: the face (engine) dispatches views and matches.
        (
            "buraco_rules.reducer",
            {"buraco_rules.match", "buraco_rules.views", "buraco_rules.engine"},
        ),
        ("buraco_rules.match", {"buraco_rules.engine"}),
        # The generator lists actions and builds no state.
        ("buraco_rules.movegen", {"buraco_rules.transitions", "buraco_rules.reducer"}),
        # The rules know no preset.
        ("buraco_rules.rules", {"buraco_rules.variants"}),
    ],
)
def test_layering(module: str, forbidden: set[str]) -> None:
    assert imported(module) & forbidden == set()


def test_only_the_outer_modules_import_the_package_face() -> None:
    """The package face imports everything (``formats`` included): a module that imports it
    instead of the modules it uses drags all of it in, and invites a cycle. The applications
    built on the library (the command, and the server and RL subpackages) are its users, and may
    import it as users do."""
    outer = ("cli", "server", "rl", "__main__")
    users = sorted(
        name
        for name in modules()
        if name != PACKAGE and name.split(".")[1] not in outer and PACKAGE in imported(name)
    )
    assert users == []

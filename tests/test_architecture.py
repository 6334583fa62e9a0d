"""The module graph, read from the source with ``ast``: no import cycle, and the layering that
docs/internals.md describes (the reducer takes states, the generator builds no state, the bots and
the core import modules rather than the package face)."""

from __future__ import annotations

import ast
import re
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
    assert "buraco_rules.engine.reducer" in edges["buraco_rules.play.face"]
    assert "buraco_rules.core.rules" in edges["buraco_rules.variants"]


def test_no_module_imports_itself_back_through_others() -> None:
    assert cycles(graph()) == []


def folders(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph of the folders (and top-level modules) the modules sit in: ``bench`` imports
    ``cli`` when one of its modules imports one of ``cli``'s."""
    folded: dict[str, set[str]] = {}
    for name, targets in edges.items():
        top = name.split(".")[1] if "." in name else ""
        folded.setdefault(top, set()).update(t.split(".")[1] if "." in t else "" for t in targets)
    for top, targets in folded.items():
        targets.discard(top)
    return folded


def test_no_two_folders_import_each_other() -> None:
    """Folders that import each other are one module in two places: the applications on one
    floor (the command, the benchmark, the server) share what they both need from below, as the
    command and the benchmark share the number checks (``buraco_rules.arguments``)."""
    assert cycles(folders(graph())) == []


def test_the_folder_graph_sees_two_folders_that_import_each_other() -> None:
    edges = {
        "buraco_rules.bench.command": {"buraco_rules.cli.options"},
        "buraco_rules.cli.bench_command": {"buraco_rules.bench"},
        "buraco_rules.cli.options": set(),
        "buraco_rules.bench": {"buraco_rules.bench.command"},
    }
    assert cycles(folders(edges)) == [["bench", "cli"]]


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        # The reducer takes states: the face (play.face) dispatches views and matches.
        (
            "buraco_rules.engine.reducer",
            {"buraco_rules.play.match", "buraco_rules.hidden.views", "buraco_rules.play.face"},
        ),
        ("buraco_rules.play.match", {"buraco_rules.play.face"}),
        # The generator lists actions and builds no state.
        (
            "buraco_rules.engine.movegen",
            {"buraco_rules.engine.transitions", "buraco_rules.engine.reducer"},
        ),
        # The rules know no preset.
        ("buraco_rules.core.rules", {"buraco_rules.variants"}),
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


# --- the floors (written by the relayout) ---

FLOORS: list[tuple[str, ...]] = [
    ("core",),  # the vocabulary
    ("variants",),  # the presets
    ("melds",),  # what cards form
    ("engine",),  # one hand's rules on full states
    ("hidden",),  # what a seat may see
    ("play",),  # the face, matches, the table as text
    ("bots",),  # bots and simulation
    ("formats",),  # notation, JSON and records
    ("testing",),  # the testing kit
    ("arguments",),  # the command lines' number checks, shared by the applications
    ("",),  # the package face
    ("__main__", "bench", "cli", "rl", "server"),  # the applications built on the library
]
"""The floors, from the ground up, each by the first names after ``buraco_rules.`` of its
modules ("" is the package face, ``buraco_rules/__init__.py``)."""


def floor(name: str) -> int:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else ""
    for index, members in enumerate(FLOORS):
        if top in members:
            return index
    raise AssertionError(f"{name} sits on no floor: add it to FLOORS (and to docs/internals.md)")


def test_every_module_sits_on_a_floor() -> None:
    assert all(floor(name) >= 0 for name in modules())


def upward(edges: dict[str, set[str]]) -> list[str]:
    """The imports that run from a floor up to a higher one."""
    return sorted(
        f"{name} -> {target}"
        for name, targets in edges.items()
        for target in targets
        if floor(target) > floor(name)
    )


def test_the_floor_check_sees_an_arrow_up() -> None:
    edges = {
        "buraco_rules.core.cards": {"buraco_rules.engine.state"},
        "buraco_rules.engine.state": {"buraco_rules.core.cards"},
        "buraco_rules.cli.options": {"buraco_rules"},
    }
    assert upward(edges) == ["buraco_rules.core.cards -> buraco_rules.engine.state"]


def test_no_import_runs_back_up_a_floor() -> None:
    """A module imports from its own floor or a lower one: the applications (cli, server, rl,
    bench) on top, the core at the bottom."""
    assert upward(graph()) == []


MAP = Path(__file__).resolve().parent.parent / "docs" / "internals.md"
MAP_START = "<!-- the map, from the docstrings (tests/test_architecture.py checks it) -->"
MAP_END = "<!-- end of the map -->"
MAP_LINE = re.compile(r"^( *)- (?:\*\*)?`([\w.]+/?)`")


def mapped_modules() -> list[str]:
    """The modules docs/internals.md's map lists, as paths under src/buraco_rules/ (a folder
    stands for its ``__init__.py``), in the order listed."""
    text = MAP.read_text(encoding="utf-8")
    block = text[text.index(MAP_START) : text.index(MAP_END)]
    found: list[str] = []
    stack: list[str] = []
    for line in block.splitlines():
        match = MAP_LINE.match(line)
        if not match:
            continue
        depth = len(match.group(1)) // 4
        del stack[depth:]
        name = match.group(2)
        if name.endswith("/"):
            stack.append(name[:-1])
            found.append("/".join([*stack, "__init__.py"]))
        else:
            found.append("/".join([*stack, name]))
    return found


def test_the_map_lists_exactly_the_modules_in_src() -> None:
    """docs/internals.md's map is the folder tree: a module added, moved or removed without its
    line there fails here."""
    root = SRC / PACKAGE
    actual = sorted(str(p.relative_to(root).as_posix()) for p in root.rglob("*.py"))
    listed = mapped_modules()
    assert sorted(listed) == actual
    assert len(set(listed)) == len(listed)


def test_the_map_lists_the_floors_in_order() -> None:
    tops = [path.split("/")[0] for path in mapped_modules() if path.count("/") <= 1]
    names = [t[:-3] if t.endswith(".py") else t for t in dict.fromkeys(tops)]
    floors = [floor(f"{PACKAGE}.{n}" if n != "__init__" else PACKAGE) for n in names]
    assert floors == sorted(floors)

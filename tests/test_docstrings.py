"""Every public name has a docstring: each module, each name in a module's ``__all__`` (a constant
by the string literal after it, as the API reference shows it), and each public method, property
and nested class of the classes exported.

Read from the source with ``ast``, so that attribute docstrings count and nothing is imported."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "buraco_rules"
MODULES = sorted(SRC.rglob("*.py"))


def exported(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return []


def documented_names(body: list[ast.stmt]) -> Iterator[tuple[str, ast.AST, bool]]:
    """Each name defined in ``body``, its node, and whether it has a docstring."""
    for i, node in enumerate(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node, ast.get_docstring(node) is not None
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        following = body[i + 1] if i + 1 < len(body) else None
        has_doc = (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        )
        for target in targets:
            if isinstance(target, ast.Name):
                yield target.id, node, has_doc


def missing_docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = [] if ast.get_docstring(tree) else ["the module"]
    defined = {name: (node, doc) for name, node, doc in documented_names(tree.body)}
    for name in exported(tree):
        if name not in defined:
            continue  # re-exported: documented where it is defined
        node, doc = defined[name]
        if not doc:
            problems.append(name)
        if isinstance(node, ast.ClassDef):
            for member, member_node, member_doc in documented_names(node.body):
                if isinstance(member_node, ast.Assign | ast.AnnAssign):
                    continue  # fields and enum members: the class docstring speaks for them
                if not member.startswith("_") and not member_doc:
                    problems.append(f"{name}.{member}")
    return problems


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC.parent)))
def test_every_public_name_has_a_docstring(path: Path) -> None:
    assert missing_docstrings(path) == []

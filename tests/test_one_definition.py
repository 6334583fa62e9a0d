"""Each meaning has one definition: read from the source with ``ast``, so that a second copy of
the deck's multiset, of a seat's team, of the going-out canasta or of the table's points (or of a
check the codec shares with the core) fails here rather than drifting apart from the first."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "buraco_rules"


def trees() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield str(path.relative_to(SRC)), ast.parse(path.read_text(encoding="utf-8"))


def where(test: object) -> list[str]:
    """The modules holding a node for which ``test(node)`` holds."""
    return sorted(
        {name for name, tree in trees() for node in ast.walk(tree) if test(node)}  # type: ignore[operator]
    )


def calls(node: ast.AST, name: str) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == name) or (
        isinstance(func, ast.Attribute) and func.attr == name
    )


def function(module: str, name: str) -> ast.FunctionDef:
    tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_the_decks_multiset_is_counted_once() -> None:
    def counts_the_deck(node: ast.AST) -> bool:
        return calls(node, "Counter") and any(
            isinstance(a, ast.Name) and a.id == "DECK"
            for a in node.args  # type: ignore[attr-defined]
        )

    def names_deck_counts(node: ast.AST) -> bool:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        return any(isinstance(t, ast.Name) and "DECK_COUNTS" in t.id for t in targets)

    assert where(counts_the_deck) == ["decks.py"]
    assert where(names_deck_counts) == ["decks.py"]


def test_a_seats_team_is_the_TEAM_table() -> None:
    """No ``seat % 2``, nor ``range(team, players, 2)``: the team of a seat is ``state.TEAM``
    (or ``team_seats``, ``PlayerView.team``)."""

    def halves(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 2
        )

    def steps_by_two(node: ast.AST) -> bool:
        return (
            calls(node, "range")
            and len(node.args) == 3  # type: ignore[attr-defined]
            and isinstance(node.args[2], ast.Constant)  # type: ignore[attr-defined]
            and node.args[2].value == 2  # type: ignore[attr-defined]
        )

    assert where(halves) == []
    assert where(steps_by_two) == []


def test_the_going_out_canasta_and_the_table_points_are_asked_not_rederived() -> None:
    def reads_the_clean_rule(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "going_out_needs_clean_canasta"

    def sums_bonuses(node: ast.AST) -> bool:
        return calls(node, "sum") and any(
            calls(n, "canasta_bonus")
            for n in ast.walk(node)  # type: ignore[arg-type]
        )

    # checks.py names the canasta in its message; the bots weigh keeping a meld clean; the kit's
    # machine recomputes the scores as an oracle, independently.
    assert where(reads_the_clean_rule) == ["bots/heuristics.py", "checks.py", "going_out.py"]
    assert where(sums_bonuses) == ["scoring.py", "testing/machine.py"]
    heuristics = (SRC / "bots" / "heuristics.py").read_text(encoding="utf-8")
    assert "has_required_canasta(" in heuristics and "public_points" in heuristics


def test_the_codec_checks_a_view_and_a_match_by_the_cores_checks() -> None:
    """A decoded view is checked by ``canonical_state`` alone (which validates the state it deals
    and compares its view), not again; a match's cheap checks are the class's own."""
    view_check = function("formats/codec.py", "_check_view")
    called = {
        n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
        for n in ast.walk(view_check)
        if isinstance(n, ast.Call)
    }
    assert "canonical_state" in called
    assert called.isdisjoint({"validate", "view", "_check_state"})
    match_check = ast.unparse(function("formats/codec.py", "_check_match"))
    assert "len(match.scores)" not in match_check and "check_deck" in match_check
    assert "len(self.scores) != len(self.finished_hands)" in ast.unparse(
        function("match.py", "__attrs_post_init__")
    )


def test_the_codec_declares_no_field_list_of_its_own() -> None:
    codec = (SRC / "formats" / "codec.py").read_text(encoding="utf-8")
    assert "_declared_types" not in codec

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

    assert where(counts_the_deck) == ["core/decks.py"]
    assert where(names_deck_counts) == ["core/decks.py"]


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

    # constraints.py names the canasta in its message; the bots weigh keeping a meld clean; the
    # kit's machine recomputes the scores as an oracle, independently.
    assert where(reads_the_clean_rule) == [
        "bots/heuristics.py",
        "engine/constraints.py",
        "engine/going_out.py",
    ]
    assert where(sums_bonuses) == ["engine/scoring.py", "testing/machine.py"]
    heuristics = (SRC / "bots" / "heuristics.py").read_text(encoding="utf-8")
    assert "has_required_canasta(" in heuristics and "public_points" in heuristics


def calls_in(function_node: ast.FunctionDef) -> set[str]:
    """The names of the functions ``function_node`` calls."""
    return {
        n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
        for n in ast.walk(function_node)
        if isinstance(n, ast.Call)
    }


def test_the_codec_checks_a_view_and_a_match_by_the_cores_checks() -> None:
    """A decoded view is checked by ``canonical_state`` alone (which checks the view's shape,
    validates the state it deals and compares its view), not again; a decoded match by
    ``match.check_match``, which sits beside the class's own cheap checks, not by a copy."""
    view_check = function("formats/consistency.py", "_check_view")
    assert calls_in(view_check) == {"canonical_state", "DecodeError", "str"}
    match_check = function("formats/consistency.py", "_check_match")
    assert calls_in(match_check) == {"check_match", "DecodeError", "str"}
    core = calls_in(function("play/match.py", "check_match"))
    assert {"check_deck", "score", "winner_of"} <= core
    assert "len(self.scores) != len(self.finished_hands)" in ast.unparse(
        function("play/match.py", "__attrs_post_init__")
    )
    assert where(lambda node: calls(node, "winner_of")) == ["play/match.py"]


def test_the_codec_declares_no_field_list_of_its_own() -> None:
    """The formats read each class's fields from the class (``formats.schema``): none of their
    modules spells out three or more of the state's field names in one literal."""
    names = set(state_fields())

    def lists_fields(node: ast.AST) -> bool:
        items = (
            node.elts
            if isinstance(node, ast.Tuple | ast.List | ast.Set)
            else [k for k in node.keys if k is not None]
            if isinstance(node, ast.Dict)
            else []
        )
        spelled = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
        return len(spelled) >= 3

    assert [m for m in where(lists_fields) if m.startswith("formats/")] == []

    def reads_field_types(node: ast.AST) -> bool:
        return (
            calls(node, "eval")
            or calls(node, "get_type_hints")
            or (isinstance(node, ast.Attribute) and node.attr == "__annotations__")
        )

    # The one schema of each class's fields: the codec's only reader of field types.
    assert [m for m in where(reads_field_types) if m.startswith("formats/")] == [
        "formats/schema.py"
    ]
    codec = "".join(p.read_text(encoding="utf-8") for p in (SRC / "formats").glob("*.py"))
    assert "_declared_types" not in codec


# --- a state field is declared once: every list of GameState's fields is the class's --------------


def state_fields() -> list[str]:
    import attrs

    from buraco_rules.engine.state import GameState

    return [f.name for f in attrs.fields(GameState) if f.init]


def test_every_field_of_the_state_is_public_in_the_view_or_hidden_by_name() -> None:
    import attrs

    from buraco_rules.engine.state import GameState
    from buraco_rules.hidden.views import HIDDEN_FIELDS, PUBLIC_FIELDS, PlayerView

    assert set(HIDDEN_FIELDS) <= set(state_fields())
    assert sorted((*PUBLIC_FIELDS, *HIDDEN_FIELDS)) == sorted(state_fields())
    state_types = attrs.fields_dict(GameState)
    view_types = attrs.fields_dict(PlayerView)
    for name in PUBLIC_FIELDS:
        assert name in view_types, name  # view() and canonical_state() copy it by this name
        assert view_types[name].type == state_types[name].type, name


def test_each_state_built_field_by_field_names_every_field() -> None:
    """A ``GameState(...)`` call that spells its fields out (``replace``, ``new_game``) names each
    one, defaults included: a new field cannot be silently left at its default."""
    spelled = []
    for name, tree in trees():
        for node in ast.walk(tree):
            if calls(node, "GameState") and node.keywords:  # type: ignore[attr-defined]
                keywords = [k.arg for k in node.keywords]  # type: ignore[attr-defined]
                if None in keywords:  # ** of a field list derived from the class
                    continue
                spelled.append(name)
                assert sorted(keywords) == sorted(state_fields()), name
    assert sorted(spelled) == ["engine/reducer.py", "engine/transitions.py"]


def test_replace_takes_every_field_but_the_hands_constants() -> None:
    # Read from the source: the compiled build's function has no signature to inspect.
    replace = function("engine/transitions.py", "replace").args
    parameters = [a.arg for a in (*replace.posonlyargs, *replace.args, *replace.kwonlyargs)]
    assert parameters == ["state", *(n for n in state_fields() if n not in ("rules", "players"))]


def test_validate_checks_the_type_of_every_field() -> None:
    checks = function("engine/validate.py", "_type_problems")
    read = {n.attr for n in ast.walk(checks) if isinstance(n, ast.Attribute)}
    named = {n.value for n in ast.walk(checks) if isinstance(n, ast.Constant)}
    assert [n for n in state_fields() if n not in read | named] == []


# --- one run geometry ----------------------------------------------------------------------------


def test_the_run_geometry_is_read_from_one_module() -> None:
    """Where an ace stands, when a wildcard floats and how short a run may be are
    ``positions``' (the classifier, the search, the bots and the testing kit read them): none of
    them compares with a position of its own, such as ``span < 14``."""
    from buraco_rules.core import rules
    from buraco_rules.melds import geometry as positions

    assert positions.MIN_RUN == rules.MIN_MELD_SIZE
    assert positions.FULL_SPAN == positions.ACE_HIGH - positions.ACE_LOW + 1

    def compares_with_a_position(node: ast.AST) -> bool:
        return isinstance(node, ast.Compare) and any(
            isinstance(c, ast.Constant) and c.value in (13, 14)
            for c in (node.left, *node.comparators)
        )

    users = ["melds/meld.py", "melds/search.py", "bots/heuristics.py", "testing/melds.py"]
    assert [m for m in where(compares_with_a_position) if m in users] == []
    melds = (SRC / "melds/meld.py").read_text(encoding="utf-8")
    assert "ace_layouts(" in melds and "lays_out(" in melds
    assert "wildcard_floats(" in (SRC / "melds/search.py").read_text(encoding="utf-8")


def test_the_geometry_says_what_the_classifier_accepts() -> None:
    """``lays_out`` on every layout of natural positions and 0 or 1 wildcard against
    ``classify`` of the cards of one suit (no 2s: a 2 may be natural or wild)."""
    from itertools import combinations

    from buraco_rules import variants
    from buraco_rules.core.cards import JOKER, all_cards
    from buraco_rules.melds.geometry import card_at, lays_out
    from buraco_rules.melds.meld import classify

    cards = all_cards()
    places = [p for p in range(1, 15) if p != 2]
    for size in range(1, 6):
        for chosen in combinations(places, size):
            if 1 in chosen and 14 in chosen and size < 2:
                continue
            naturals = sum(1 << p for p in chosen)
            natural_cards = tuple(sorted(cards[card_at(0, p)] for p in chosen))
            for wilds in (0, 1):
                hand = tuple(sorted(natural_cards + (JOKER,) * wilds))
                meld = classify(hand, variants.ITALIAN)
                laid = meld is not None and meld.naturals == naturals
                assert lays_out(naturals, wilds) == laid, (chosen, wilds)


# --- one quoting helper --------------------------------------------------------------------------

QUOTERS = frozenset({"describe", "describe_json", "kind_of", "quote_text"})
"""quoting.py's functions: every bounded quote in a message is one of them."""


def test_a_refused_value_is_quoted_by_the_quoting_module_alone() -> None:
    """No module but ``core/quoting.py`` defines a function that quotes a value (the codec's
    ``_show``, ``actions._quote`` and ``formats.errors.quote`` were a copy and two wrappers), nor
    wraps one of quoting's functions in a function of its own, nor cuts a ``repr`` itself."""

    def defines_a_quoter(node: ast.AST) -> bool:
        return isinstance(node, ast.FunctionDef) and node.name in {
            "quote",
            "_quote",
            "_show",
            *QUOTERS,
        }

    def wraps_a_quoter(node: ast.AST) -> bool:
        if not isinstance(node, ast.FunctionDef):
            return False
        body = [
            s
            for s in node.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        ]
        return (
            len(body) == 1
            and isinstance(body[0], ast.Return)
            and body[0].value is not None
            and any(calls(body[0].value, name) for name in QUOTERS)
        )

    def cuts_a_repr(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Slice)
            and calls(node.value, "repr")
        )

    assert where(defines_a_quoter) == ["core/quoting.py"]
    assert [m for m in where(wraps_a_quoter) if m != "core/quoting.py"] == []
    assert [m for m in where(cuts_a_repr) if m != "core/quoting.py"] == []

    from buraco_rules.core import quoting
    from buraco_rules.formats import errors

    assert errors.quote is quoting.quote_text  # the old import path, not a second definition


# --- the notation, written and read in one module ------------------------------------------------

VERBS = frozenset({"draw", "refuse", "take", "meld", "add", "discard"})


def test_the_notation_is_written_and_read_in_one_module() -> None:
    """The notation's words are ``action_notation``'s: each action's ``__str__`` is its writer,
    the reader is beside them, and neither ``core/actions.py`` nor the formats spell a verb."""

    def spells_a_verb(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.split(" ", 1)[0] in VERBS
        )

    speakers = ["core/actions.py", *(m for m, _ in trees() if m.startswith("formats/"))]
    assert [m for m in where(spells_a_verb) if m in speakers] == []
    assert "core/action_notation.py" in where(spells_a_verb)
    tree = ast.parse((SRC / "core/actions.py").read_text(encoding="utf-8"))
    writers = {
        node.name: ast.unparse(item.value)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.Assign) and [ast.unparse(t) for t in item.targets] == ["__str__"]
    }
    assert writers == {
        "DrawFromStock": "write_draw",
        "NewMeld": "write_meld",
        "AddToMeld": "write_add",
        "TakeDiscardPile": "write_take",
        "Discard": "write_discard",
        "RefuseFirstDraw": "write_refuse",
    }
    assert "def __str__" not in (SRC / "core/actions.py").read_text(encoding="utf-8")


def test_the_notation_reads_back_what_it_writes() -> None:
    """Every action's text, written by ``action_notation`` through ``str``, reads back through
    ``action_notation.read`` to the same action (checked on the first states of random hands)."""
    import buraco_rules as br
    from buraco_rules import variants
    from buraco_rules.core.action_notation import read

    for seed in range(3):
        state = br.new_game(variants.BURACO_FECHADO, 2, seed=seed)
        for _ in range(30):
            if state.is_over:
                break
            for action in br.legal_actions(state):
                assert br.parse_action(str(action)) == action
                assert read(str(action)).verb == str(action).split()[0]
            state = br.apply(state, br.legal_actions(state)[seed % len(br.legal_actions(state))])

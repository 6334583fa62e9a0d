"""One schema of each type's fields, as the JSON codec reads and writes them: derived from the
attrs class itself, so that a field added to a class is carried at once and no list of fields is
kept here.

A class's schema is its init fields in declared order: each field's name (the document's key),
alias (the constructor's keyword), type (read from the class's annotations) and whether a
document must hold it (a field without a default).

>>> from buraco_rules.engine.scoring import TeamScore
>>> [(f.name, f.type, f.required) for f in schema_of(TeamScore)][:2]
[('table', <class 'int'>, True), ('canastas', <class 'int'>, True)]

The types come from the annotations. mypyc's compiled classes keep the field names but erase
each type to its bare class (``tuple[Card, ...]`` is read back as ``tuple``, ``Card | None`` as
``type``): for such a class the types are read from its module's source, which the compiled
wheel ships beside the extension (the class's annotations as written, the one declaration
still). Without that source a compiled class is refused by name rather than encoded wrongly.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path
from typing import Any, Final

import attrs

__all__ = ["FieldSchema", "schema_of"]

_ERASED: Final = (tuple, type, dict, list)
"""What mypyc leaves of a generic or union annotation: never a field's type in a pure class,
whose annotations are strings (``from __future__ import annotations``) or full types."""


@attrs.frozen
class FieldSchema:
    """One field of a class, as a document holds it."""

    name: str
    """The field's name: the document's key, and the attribute the encoder reads."""
    alias: str
    """The keyword the class's constructor takes the field by (``_state`` is ``state``)."""
    type: Any
    """The field's type, as annotated (``tuple[Card, ...]``, ``int | None``)."""
    required: bool
    """Whether a document must hold the field: it has no default."""


@cache
def schema_of(cls: type) -> tuple[FieldSchema, ...]:
    """The init fields of the attrs class ``cls`` in declared order, with their types; a class
    whose types were erased (compiled by mypyc) and whose source is not at hand is a
    ``TypeError``."""
    namespace = vars(sys.modules[cls.__module__])
    written: dict[str, str] | None = None
    schema = []
    for field in attrs.fields(cls):
        if not field.init:
            continue
        annotated: Any = field.type
        if annotated in _ERASED:
            if written is None:
                written = _written_annotations(cls)
            if field.name not in written:
                raise TypeError(
                    f"{cls.__name__}.{field.name} is annotated {annotated.__name__}: its module "
                    "is compiled, which erases the field types the JSON codec reads, and its "
                    "source is not beside it"
                )
            annotated = written[field.name]
        tp = eval(annotated, namespace) if isinstance(annotated, str) else annotated
        required = field.default is attrs.NOTHING
        schema.append(FieldSchema(field.name, field.alias, tp, required))
    return tuple(schema)


def _written_annotations(cls: type) -> dict[str, str]:
    """The annotations of the class ``cls`` as its module's source writes them (the ``.py`` file
    beside a compiled extension), or nothing when that source cannot be read."""
    spec = getattr(sys.modules[cls.__module__], "__spec__", None)
    origin = getattr(spec, "origin", None)
    if not isinstance(origin, str):
        return {}
    path = Path(origin)
    source = path if path.suffix == ".py" else path.with_name(path.name.split(".")[0] + ".py")
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return {
                item.target.id: ast.unparse(item.annotation)
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
    return {}

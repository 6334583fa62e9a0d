"""One schema of each type's fields, as the JSON codec reads and writes them: derived from the
attrs class itself, so that a field added to a class is carried at once and no list of fields is
kept here.

A class's schema is its init fields in declared order: each field's name (the document's key),
alias (the constructor's keyword), type (read from the class's annotations) and whether a
document must hold it (a field without a default).

>>> from buraco_rules.scoring import TeamScore
>>> [(f.name, f.type, f.required) for f in schema_of(TeamScore)][:2]
[('table', <class 'int'>, True), ('canastas', <class 'int'>, True)]

The types come from the annotations, which only pure classes keep: mypyc's compiled classes keep
the field names but erase each type to its bare class (``tuple[Card, ...]`` is read back as
``tuple``, ``Card | None`` as ``type``), so the modules of the classes the codec writes stay off
the compiled build's list (pyproject.toml, which tests/test_codec.py checks). A compiled class is
refused here by name rather than encoded wrongly.
"""

from __future__ import annotations

import sys
from functools import cache
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
    whose types were erased (compiled by mypyc) is a ``TypeError``."""
    namespace = vars(sys.modules[cls.__module__])
    schema = []
    for field in attrs.fields(cls):
        if not field.init:
            continue
        annotated = field.type
        if annotated in _ERASED:
            raise TypeError(
                f"{cls.__name__}.{field.name} is annotated {annotated.__name__}: its module is "
                "compiled, which erases the field types the JSON codec reads (keep it pure)"
            )
        tp = eval(annotated, namespace) if isinstance(annotated, str) else annotated
        required = field.default is attrs.NOTHING
        schema.append(FieldSchema(field.name, field.alias, tp, required))
    return tuple(schema)

"""Moving a server up from SQLite to PostgreSQL: every table of a SQLite store, its seats' token
digests and its moves, copied into a PostgreSQL store in one transaction (all or nothing), so that
a server started on the PostgreSQL database goes on with every unfinished table.

The SQLite file is read, never written (opened read-only, in one read transaction: a consistent
copy even of a file a server is writing, though the moves it commits afterwards are not in it;
stop the server first). The target's schema is created or upgraded first; a table id already in
it stops the copy with nothing written.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path

import attrs
import psycopg

from .pgstore import PostgresStore
from .store import GOING

__all__ = ["Copied", "CopyError", "copy_to_postgres"]

_KNOWN_VERSION = 1  # the SQLite schema this copy reads (no schema_version table means 1)


# The tables' columns copied, and the value of each that a SQLite file older than it lacks (as
# the SQLite store itself gives it to its old tables when it opens the file).
_TABLE_COLUMNS = {
    "id": None,
    "created": None,
    "start": None,
    "seats": None,
    "finished": None,
    "client": "''",
    "touched": "NULL",
    "turn_seconds": "NULL",
    "deadline": "NULL",
    "away": "'[]'",
}


def _columns(source: sqlite3.Connection) -> str:
    """The select list of the source's tables in :data:`_TABLE_COLUMNS`' order."""
    present = {row[1] for row in source.execute("PRAGMA table_info(tables)")}
    return ", ".join(
        name if name in present or default is None else f"{default} AS {name}"
        for name, default in _TABLE_COLUMNS.items()
    )


class CopyError(Exception):
    """The copy cannot be made (a source that is not a server's SQLite file, a table already in
    the target); nothing was written."""


@attrs.frozen
class Copied:
    """What a copy wrote: tables (of which ``unfinished`` go on), token digests and moves."""

    tables: int
    unfinished: int
    tokens: int
    moves: int


def _open_source(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise CopyError(f"{path}: no such file")
    uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro"
    try:
        source = sqlite3.connect(uri, uri=True, isolation_level=None)
        source.execute("BEGIN")  # one snapshot for every read below
        names = {r[0] for r in source.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as error:
        raise CopyError(f"{path}: not a SQLite database ({error})") from None
    if not {"tables", "tokens", "moves"} <= names:
        raise CopyError(f"{path}: not a buraco-rules server database")
    if "schema_version" in names:
        row = source.execute("SELECT max(version) FROM schema_version").fetchone()
        if row is not None and row[0] is not None and int(row[0]) > _KNOWN_VERSION:
            raise CopyError(f"{path}: schema version {row[0]} is newer than this copy knows")
    return source


def copy_to_postgres(source: str | Path, target: str) -> Copied:
    """Copy every table of the SQLite store at ``source`` into the PostgreSQL database at
    ``target`` (a ``postgresql://`` URL); what was copied. A :class:`CopyError` says why
    nothing was; a ``psycopg.OperationalError``, that the target cannot be reached."""
    reader = _open_source(Path(source))
    try:
        PostgresStore(target).close()  # creates or upgrades the target's schema
        with psycopg.connect(target, application_name="buraco-copy") as db:
            try:
                with db.cursor() as cursor:
                    tables = unfinished = tokens = moves = 0
                    names = ", ".join(_TABLE_COLUMNS)
                    with cursor.copy(f"COPY tables ({names}) FROM STDIN") as copy:
                        for row in reader.execute(f"SELECT {_columns(reader)} FROM tables"):
                            copy.write_row(row)
                            tables += 1
                            unfinished += row[4] == GOING
                    with cursor.copy("COPY tokens (digest, table_id, seat) FROM STDIN") as copy:
                        for row in reader.execute("SELECT digest, table_id, seat FROM tokens"):
                            copy.write_row(row)
                            tokens += 1
                    with cursor.copy(
                        "COPY moves (table_id, number, seat, seq, action) FROM STDIN"
                    ) as copy:
                        for row in reader.execute(
                            "SELECT table_id, number, seat, seq, action FROM moves"
                        ):
                            copy.write_row(row)
                            moves += 1
                db.commit()
            except psycopg.errors.UniqueViolation as clash:
                db.rollback()
                detail = clash.diag.message_detail or "a table already there"
                raise CopyError(f"the target already holds some of it: {detail}") from None
    finally:
        reader.close()
    return Copied(tables, unfinished, tokens, moves)

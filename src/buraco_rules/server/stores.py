"""Which store a server keeps its tables in, chosen by what ``--db`` names: a
``postgresql://`` URL opens the PostgreSQL store (the ``postgres`` extra), anything else is the
path of a SQLite file (the default, which needs no set-up). Both have the interface
:class:`Store` describes."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..formats import GameRecord, MatchRecord
from .store import SeatRow, StoredTable, StoreError, TableMeta, TableStore

__all__ = [
    "Closable",
    "SharedStore",
    "Store",
    "TableLeases",
    "is_conflict",
    "is_full",
    "is_postgres_url",
    "open_store",
]

_SCHEMES = ("postgresql://", "postgres://")


class Store(Protocol):
    """What the server needs of a store: :class:`~buraco_rules.server.store.TableStore`
    (SQLite) and :class:`~buraco_rules.server.pgstore.PostgresStore` both have it."""

    errors: tuple[type[Exception], ...]
    """What a failed write or read raises (the database refused it or cannot be reached)."""

    @property
    def label(self) -> str:
        """The database named for a log line (never a URL, which may carry a password)."""

    async def create(
        self,
        table_id: str,
        start: GameRecord | MatchRecord,
        seats: Sequence[SeatRow],
        tokens: dict[int, str],
        *,
        client: str = "",
        turn_seconds: int | None = None,
        meta: TableMeta | None = None,
    ) -> None:
        """Store a new table and its seats' token digests, all or nothing."""

    async def append(
        self,
        table_id: str,
        number: int,
        seat: int,
        seq: int,
        action: str,
        finished: bool,
        meta: TableMeta | None = None,
    ) -> None:
        """Append a move; returns once it is committed."""

    async def update(self, table_id: str, meta: TableMeta, *, moves: int | None = None) -> None:
        """Replace a table's :class:`~buraco_rules.server.store.TableMeta` (with ``moves``:
        only if the table has exactly that many moves stored)."""

    async def expire(self, table_id: str) -> None:
        """Close a table whose game goes on."""

    def seat_of(self, token: str) -> tuple[str, int] | None:
        """The table and seat a token opens, or None."""

    def unfinished(self) -> list[str]:
        """The ids of the tables whose game goes on, oldest first."""

    def count_unfinished(self) -> int:
        """How many tables' games go on."""

    def summary(self) -> list[tuple[str, int, float, int]]:
        """Every table as ``(id, finished, created, moves)``, oldest first."""

    def load(self, table_id: str) -> StoredTable | None:
        """A table with all its moves, or None."""

    def close(self) -> None:
        """Finish the writes under way and close."""


@runtime_checkable
class SharedStore(Store, Protocol):
    """A store that several server processes share (PostgreSQL): what the hub needs beside
    :class:`Store` to follow the other processes' moves and to share the tables' driving."""

    async def create(
        self,
        table_id: str,
        start: GameRecord | MatchRecord,
        seats: Sequence[SeatRow],
        tokens: dict[int, str],
        *,
        client: str = "",
        turn_seconds: int | None = None,
        meta: TableMeta | None = None,
        limits: tuple[int, int] | None = None,
    ) -> None:
        """Store a new table, refused (:func:`is_full`) past ``limits``: the most unfinished
        tables in the database, and the most of them one ``client`` created."""

    async def expire_idle(self, before: float) -> list[str]:
        """Close every unfinished table whose stored last move time is before ``before``,
        whichever process holds it; the ids closed."""

    def since(
        self, table_id: str, number: int
    ) -> tuple[int, TableMeta, tuple[tuple[int, int, str], ...]] | None:
        """A table's ``finished``, meta and moves from ``number`` on, or None."""

    def move_counts(self, table_ids: Sequence[str]) -> dict[str, int]:
        """How many moves each of these tables has stored."""

    async def listen(
        self,
        on_move: Callable[[str, int], None],
        on_gap: Callable[[], None] | None = None,
        on_down: Callable[[], None] | None = None,
    ) -> Closable:
        """Hear every process's committed changes (see :meth:`PostgresStore.listen`)."""

    async def leases(
        self,
        on_lost: Callable[[frozenset[str]], None] | None = None,
        check_every: float = 2.0,
        buckets: int | None = None,
        lease_seconds: float = 10.0,
    ) -> TableLeases:
        """A connection for this process's table leases, expiring after ``lease_seconds``
        without a heartbeat (a frozen process's tables are taken over)."""


class Closable(Protocol):
    """Something the hub closes when it stops (a listener)."""

    async def close(self) -> None:
        """Stop and close."""


class TableLeases(Closable, Protocol):
    """The leases of the tables one process drives (see
    :class:`~buraco_rules.server.pgstore.Leases`)."""

    @property
    def held(self) -> frozenset[str]:
        """The ids of the tables whose lease this process holds."""

    async def try_take(self, table_id: str) -> bool:
        """Take the table's lease if no process holds it; whether this process holds it."""

    async def take_free(self, most: int) -> list[str]:
        """Take the leases of up to ``most`` tables that need a driver and have none; their
        ids."""

    async def release(self, table_id: str) -> None:
        """Give the table's lease up."""


if TYPE_CHECKING:  # mypy checks that both stores have the interface (nothing runs here)
    from .pgstore import PostgresStore

    def _both_are_stores(sqlite: TableStore, postgres: PostgresStore) -> tuple[Store, Store]:
        return sqlite, postgres

    def _postgres_is_shared(postgres: PostgresStore) -> SharedStore:
        return postgres


def is_postgres_url(db: str | Path) -> bool:
    """Whether ``db`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(db, str) and db.startswith(_SCHEMES)


def open_store(db: str | Path, *, exclusive: bool = False, read_only: bool = False) -> Store:
    """The store ``db`` names: a ``postgresql://`` URL or a SQLite file's path. A database that
    cannot be used is a :class:`~buraco_rules.server.store.StoreError` (one line, never the
    URL), and so is a URL without the driver installed (saying which extra to install).
    ``exclusive`` takes a SQLite file's lock (one server per file); any number of servers share
    a PostgreSQL database. ``read_only`` opens a SQLite file without writing to it (for the
    operator's reading: a full disk or a read-only mount does not stop it); a PostgreSQL
    database is read through the same store as always."""
    if not is_postgres_url(db):
        return TableStore(db, exclusive=exclusive, read_only=read_only)
    try:
        from .pgstore import PostgresStore
    except ImportError:
        raise StoreError(
            "a postgresql:// database needs the 'postgres' extra:"
            " pip install 'buraco-rules[server,postgres]'"
        ) from None
    return PostgresStore(str(db))


def is_full(error: BaseException) -> str | None:
    """Which cap refused a creation in a shared store (``"server"``: the database holds its
    most unfinished tables; ``"client"``: the creator's address does), or None for any other
    failure."""
    pgstore = sys.modules.get("buraco_rules.server.pgstore")
    if pgstore is None or not isinstance(error, pgstore.TablesFull):
        return None
    return "client" if error.per_client else "server"


def is_conflict(error: BaseException) -> bool:
    """Whether a failed append was refused because its move number, or its seat's sequence
    number, is already stored (by another process or an earlier try): the table is behind its
    rows and is reloaded. Any other failure leaves the move's fate unknown."""
    if isinstance(error, sqlite3.IntegrityError):  # a key, not a table that does not exist
        return error.sqlite_errorname in (
            "SQLITE_CONSTRAINT_PRIMARYKEY",
            "SQLITE_CONSTRAINT_UNIQUE",
        )
    pgstore = sys.modules.get("buraco_rules.server.pgstore")
    return pgstore is not None and isinstance(error, pgstore.MoveConflict)

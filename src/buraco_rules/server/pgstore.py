"""The server's store on PostgreSQL (the ``postgres`` extra): the SQLite store's tables and
interface, shared by any number of server processes, with the fan-out and the leases they need.

A move is one transaction: its row, the table's ``finished`` flag when it ends the game, and a
notification on :data:`CHANNEL` (``"<table id> <move number>"``) that PostgreSQL delivers to every
listening process when, and only if, the row is committed. The moves' primary key, the table and
the move's number, is the single-writer guard: of two processes appending the same move number
one commits and the other gets :class:`MoveConflict` with nothing written, and reloads the table
from its rows. Appends run on a writer thread, as in the SQLite store, and the appends waiting for
it go in one statement (a group commit: one round trip and one WAL flush for all of them, each move
all or nothing). The schema carries its version (``schema_version``), upgraded at start under a
lock, so that servers starting together upgrade it once.

:class:`Listener` hears the notifications on a connection of its own and says when it had to
reconnect (notifications may have been missed: the caller catches up from the rows).
:class:`Leases` holds session-level advisory locks, one per table a process drives (its bots and
its turn clock), on a connection of its own: PostgreSQL frees them when the process or its
connection dies, so that another process takes the table over. A process that is alive but
frozen (stopped, or its machine suspended) keeps its connection, so the leases also expire: each
process heartbeats on its lease connection (a row of ``lease_holders``, the time on the database's
clock), and any process that sees a heartbeat older than the bound (:data:`LEASE_SECONDS`) ends
that connection (``pg_terminate_backend``), which frees its locks for the others to take.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import select
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import psycopg
import psycopg.conninfo

from ..formats import GameRecord, MatchRecord, from_json, to_json
from .store import (
    EXPIRED,
    FINISHED,
    GOING,
    SeatRow,
    StoredTable,
    StoreError,
    TableMeta,
    now,
    numbered,
    token_digest,
)
from .writer import Writer

log = logging.getLogger(__name__)

__all__ = [
    "CHANNEL",
    "LEASE_SECONDS",
    "META",
    "SCHEMA_VERSION",
    "CreationsBusy",
    "Leases",
    "Listener",
    "MoveConflict",
    "PostgresStore",
    "SchemaError",
    "TablesFull",
    "lease_key",
]

CHANNEL = "buraco_moves"
"""The notification channel of committed moves; each payload is ``"<table id> <move number>"``,
or ``"<table id> meta"`` for a change of the table's row alone (its clock, away seats, expiry)."""

META = "meta"
"""The payload's second word for a change of a table's row alone; the listener passes it on as
the move number -1."""

Move = tuple[int, int, str]

_MIGRATIONS: tuple[str, ...] = (
    # 1: the SQLite store's tables, and an index of the unfinished tables (what a server loads
    # at start and counts at each creation).
    """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        created DOUBLE PRECISION NOT NULL,
        start TEXT NOT NULL,
        seats TEXT NOT NULL,
        finished BOOLEAN NOT NULL DEFAULT false
    );
    CREATE INDEX tables_unfinished ON tables (created, id) WHERE NOT finished;
    CREATE TABLE tokens (
        digest TEXT PRIMARY KEY,
        table_id TEXT NOT NULL REFERENCES tables(id),
        seat INTEGER NOT NULL
    );
    CREATE TABLE moves (
        table_id TEXT NOT NULL REFERENCES tables(id),
        number INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        action TEXT NOT NULL,
        PRIMARY KEY (table_id, number),
        UNIQUE (table_id, seat, seq)
    );
    """,
    # 2: the SQLite store's later columns (the creator's address, the last move's time, the
    # turn clock, its deadline and the away seats), and ``finished`` as the SQLite store's
    # number (0 going, 1 finished, 2 expired) instead of a flag.
    """
    DROP INDEX tables_unfinished;
    ALTER TABLE tables
        ALTER COLUMN finished DROP DEFAULT,
        ALTER COLUMN finished TYPE INTEGER USING (CASE WHEN finished THEN 1 ELSE 0 END),
        ALTER COLUMN finished SET DEFAULT 0,
        ADD COLUMN client TEXT NOT NULL DEFAULT '',
        ADD COLUMN touched DOUBLE PRECISION,
        ADD COLUMN turn_seconds INTEGER,
        ADD COLUMN deadline DOUBLE PRECISION,
        ADD COLUMN away TEXT NOT NULL DEFAULT '[]';
    CREATE INDEX tables_unfinished ON tables (created, id) WHERE finished = 0;
    """,
    # 3: the heartbeats of the processes' lease connections (Leases), a row per connection
    # (its backend's pid and start, which name one session even when a pid is reused; the
    # server's own pid and host, for the operator). Unlogged: a heartbeat needs no durability
    # (after a crash every session is gone, and so are the leases), and writes no WAL.
    """
    CREATE UNLOGGED TABLE lease_holders (
        pid INTEGER NOT NULL,
        started TIMESTAMPTZ NOT NULL,
        beat TIMESTAMPTZ NOT NULL,
        process INTEGER NOT NULL,
        host TEXT NOT NULL,
        PRIMARY KEY (pid, started)
    );
    """,
)

SCHEMA_VERSION = len(_MIGRATIONS)
"""The schema version this code writes: a database at an older one is upgraded at start, one at
a newer one refused (:class:`SchemaError`)."""

LEASE_SECONDS = 10.0
"""The default bound on a lease holder's silence, in seconds: a process whose lease connection
has not heartbeaten for longer (on the database's clock) is taken for frozen, and its connection
is ended by the first other process that sees it, so that its tables are taken over; the process
itself stops driving them after half as long without a heartbeat."""

_IDLE_IN_TRANSACTION = int(LEASE_SECONDS * 1000)  # milliseconds

# The first key of every advisory lock this store takes (the two-int form), so that they do not
# meet another application's locks; the second key is 0 for the schema upgrade, a table's hash
# for its lease.
_LOCKS = 0x42524331
_SCHEMA_LOCKS = 0x42524330

# One statement appends a batch: the rows that do not collide with a stored one are inserted,
# each table they move gets its last inserted move's meta (and is marked finished when that move
# ends its game), and each inserted row is notified; the rows it returns are the moves committed
# (ON CONFLICT DO NOTHING: a collision writes nothing and aborts nothing).
_APPEND = f"""
WITH batch AS (
    SELECT * FROM unnest(
        %s::text[], %s::int[], %s::int[], %s::int[], %s::text[], %s::bool[],
        %s::float8[], %s::float8[], %s::text[]
    ) AS b(table_id, number, seat, seq, action, finished, touched, deadline, away)
), ins AS (
    INSERT INTO moves (table_id, number, seat, seq, action)
    SELECT table_id, number, seat, seq, action FROM batch
    ON CONFLICT DO NOTHING
    RETURNING table_id, number, seat, seq, action
), latest AS (
    SELECT DISTINCT ON (b.table_id) b.*
    FROM batch b JOIN ins USING (table_id, number)
    ORDER BY b.table_id, b.number DESC
), meta AS (
    UPDATE tables t SET
        finished = CASE WHEN l.finished THEN {FINISHED} ELSE t.finished END,
        -- a move without meta (away NULL) keeps the row's: only what changed is written
        touched = COALESCE(l.touched, t.touched),
        deadline = CASE WHEN l.away IS NULL THEN t.deadline ELSE l.deadline END,
        away = COALESCE(l.away, t.away)
    FROM latest l WHERE t.id = l.table_id
)
SELECT table_id, number, seat, seq, action, pg_notify('{CHANNEL}', table_id || ' ' || number)
FROM ins
"""


class SchemaError(StoreError):
    """The database's schema is newer than this code knows (a newer server upgraded it): a
    :class:`~buraco_rules.server.store.StoreError`, so that the commands refuse it in one line
    (an outside probe got an 18-line traceback from ``serve`` and ``db copy``)."""


class TablesFull(psycopg.Error):
    """A creation refused by the cluster's caps (:meth:`PostgresStore.create`'s ``limits``):
    ``per_client`` says whether the creator's address holds its most unfinished tables, rather
    than the database its most; nothing was written."""

    def __init__(self, message: str, *, per_client: bool) -> None:
        super().__init__(message)
        self.per_client = per_client


class CreationsBusy(psycopg.Error):
    """A creation that could not take the creations' lock within a second (another process
    froze inside its own): refused as a storage failure, "try again"; the batch goes on."""


class MoveConflict(psycopg.IntegrityError):
    """The move's number, or its seat's sequence number, is already stored for its table:
    another process (or an earlier try) wrote it; nothing was written."""


def lease_key(table_id: str, buckets: int | None = None) -> tuple[int, int]:
    """The advisory lock of a table's lease: this store's namespace and 32 bits of the SHA-256
    of the table id (two tables sharing one only share a driver, which is harmless), or with
    ``buckets``, the table's bucket of that many (so that the locks held stay few however many
    tables there are: PostgreSQL keeps them all in one shared table of fixed size)."""
    digest = hashlib.sha256(table_id.encode("utf-8", "replace")).digest()
    if buckets is not None:
        return _LOCKS, int.from_bytes(digest[:4], "big") % buckets
    return _LOCKS, int.from_bytes(digest[:4], "big", signed=True)


def _connect(url: str, role: str, **options: Any) -> psycopg.Connection[Any]:
    options.setdefault("connect_timeout", 5)
    db = psycopg.connect(url, autocommit=True, application_name=f"buraco-{role}", **options)
    if role != "health":
        # A process frozen inside one of its transactions (between two statements: they hold
        # a table's row, or the creations' lock) would hold its locks, and stop every other
        # process's writes to that table, for as long as it is frozen: PostgreSQL ends such a
        # session after the bound of the leases. No transaction here waits on anything else.
        try:
            db.execute(b"SET idle_in_transaction_session_timeout = %d" % _IDLE_IN_TRANSACTION)
        except BaseException:
            db.close()
            raise
    return db


def _upgrade(db: psycopg.Connection[Any]) -> None:
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_SCHEMA_LOCKS,))
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM schema_version").fetchone()
        version = 0 if row is None else int(row[0])
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"the database's schema is at version {version}, this server knows up to"
                f" {SCHEMA_VERSION}: run a newer buraco-rules"
            )
        for step in _MIGRATIONS[version:]:
            db.execute(step.encode())
        if row is None:
            db.execute("INSERT INTO schema_version (version) VALUES (%s)", (SCHEMA_VERSION,))
        else:
            db.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))


class PostgresStore:
    """A server's store in a PostgreSQL database at ``url`` (``postgresql://...``), with the
    interface of :class:`~buraco_rules.server.store.TableStore`. Use it from one event loop:
    reads run on the caller's thread (one connection, reopened after a failure); creations,
    appends and updates on the store's writer thread (a second one). While the database is
    unreachable every call raises a ``psycopg.OperationalError``, and the next one tries again.
    Opening it creates or upgrades the schema (a :class:`StoreError` if the database cannot be
    reached, a :class:`SchemaError` if it is newer than this code)."""

    errors: tuple[type[Exception], ...] = (psycopg.Error,)
    """What a failed write or read raises (the database refused it or cannot be reached)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.label = f"the PostgreSQL database {_database_name(url)}"
        """The database named for a log line: never its URL, which may carry a password."""
        if not _plainly_spelled(url):
            # A password holding '/', '@' or ':' unencoded spills into the host, port or
            # database name, which an error line would then quote: refuse it unread.
            raise StoreError(
                "cannot read the postgresql:// URL: its port is not a number, or its host or"
                " database name holds '/', '@' or ':' (a password holding them must be"
                " percent-encoded, or given in PGPASSWORD or a .pgpass file)"
            )
        try:
            self._db = _connect(url, "store")
        except psycopg.Error as error:
            raise StoreError(f"cannot use {self.label}: {_one_line(error)}") from None
        try:
            _upgrade(self._db)
        except psycopg.Error as error:
            self._db.close()
            raise StoreError(f"cannot use {self.label}: {_one_line(error)}") from None
        except SchemaError:
            self._db.close()
            raise
        self._write_db: psycopg.Connection[Any] | None = None  # the writer thread's own
        self._writer: Writer[_Append | _Job] = Writer(
            "buraco-pgstore",
            self._write,
            lambda: psycopg.OperationalError("the store is closed"),
            finish=self._finish,
        )

    def close(self) -> None:
        """Finish the writes under way, stop the writer and close the connections."""
        self._writer.close()
        self._db.close()

    def schema_version(self) -> int:
        """The database's schema version (:data:`SCHEMA_VERSION` once the store is open)."""
        row = self._reader().execute("SELECT version FROM schema_version").fetchone()
        return 0 if row is None else int(row[0])

    def failure(self) -> str | None:
        """Why the store cannot write now (the database does not answer), or None when it
        answers: checked on a connection of its own (so that a monitor's check never waits
        behind the store's reads), given two seconds. Blocking: call it off the event loop."""
        try:
            with _connect(self.url, "health", connect_timeout=2) as db:
                db.execute("SELECT 1")
        except psycopg.Error as error:
            return f"the PostgreSQL database does not answer ({type(error).__name__})"
        return None

    def _reader(self) -> psycopg.Connection[Any]:
        if not _usable(self._db):  # a PostgreSQL restarted since: a new connection first
            self._db.close()
            self._db = _connect(self.url, "store")
        return self._db

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
        """Store a new table, with the digests of its human seats' ``tokens`` (seat: token),
        its creator's address ``client`` and its turn clock, in one transaction committed on
        the writer thread when this returns. With ``limits`` (the most unfinished tables in the
        database, and the most of them one ``client`` created), a creation that would pass
        either is refused with :class:`TablesFull`: counted in the same transaction, under a
        lock that creations in every process take, so that no two of them pass the caps
        together."""
        meta = meta or TableMeta(now())
        table_row = (
            table_id,
            meta.touched,
            to_json(start),
            json.dumps([attrs.asdict(s) for s in seats]),
            client,
            meta.touched,
            turn_seconds,
            meta.deadline,
            json.dumps(list(meta.away)),
        )
        token_rows = [(token_digest(t), table_id, seat) for seat, t in tokens.items()]

        def write(db: psycopg.Connection[Any]) -> None:
            with db.transaction(), db.cursor() as cursor:
                if limits is not None:
                    _check_limits(cursor, client, limits)
                cursor.execute(
                    "INSERT INTO tables (id, created, start, seats, client, touched,"
                    " turn_seconds, deadline, away) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    table_row,
                )
                cursor.executemany(
                    "INSERT INTO tokens (digest, table_id, seat) VALUES (%s, %s, %s)", token_rows
                )

        # Not made twice on a lost connection: its fate would be unknown, and a second try of
        # a creation committed would be refused by its own row.
        await self._submit(write, again=False)

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
        """Append move ``number`` of a table and notify it; returns once it is committed.
        ``finished`` marks the table's game as over with it; ``meta`` replaces the table's
        :class:`~buraco_rules.server.store.TableMeta` in the same transaction (None: the row's
        is kept). A number or a
        seat's sequence number already stored is a :class:`MoveConflict` and writes nothing.
        Any other error (the database unreachable) leaves it unknown whether the move was
        committed: the caller reloads the table's rows before it answers."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        extra: tuple[bool, float | None, float | None, str | None] = (
            (finished, None, None, None)  # the table's row keeps its meta (the SQLite store's way)
            if meta is None
            else (finished, meta.touched, meta.deadline, json.dumps(list(meta.away)))
        )
        await self._writer.submit(_Append(loop, done, (table_id, number, seat, seq, action), extra))

    async def update(self, table_id: str, meta: TableMeta, *, moves: int | None = None) -> None:
        """Replace a table's :class:`~buraco_rules.server.store.TableMeta`, and notify it
        (``"<table id> meta"``); with ``moves``, only if the table has exactly that many moves
        stored (else nothing is written: another process moved it on since the change was
        decided, as a process that froze and lost its lease would find)."""
        statement = "UPDATE tables SET touched = %s, deadline = %s, away = %s WHERE id = %s"
        values: tuple[object, ...] = (meta.touched, meta.deadline, json.dumps(list(meta.away)))
        values += (table_id,)
        if moves is not None:  # no move numbered from ``moves`` on (they have no gap)
            statement += (
                " AND NOT EXISTS (SELECT 1 FROM moves WHERE table_id = %s AND number >= %s)"
            )
            values += (table_id, moves)
        await self._submit(_notifying(table_id, statement, values))

    async def expire(self, table_id: str) -> None:
        """Close a table whose game goes on (:data:`~buraco_rules.server.store.EXPIRED`), and
        notify it (``"<table id> meta"``)."""
        await self._submit(
            _notifying(
                table_id,
                "UPDATE tables SET finished = %s WHERE id = %s AND finished = %s",
                (EXPIRED, table_id, GOING),
            )
        )

    async def expire_idle(self, before: float) -> list[str]:
        """Close every unfinished table whose stored last move time is before ``before``
        (wall-clock seconds), whichever process holds it or none, and notify each one
        (``"<table id> meta"``): the ids closed. Any process may run it; a table closed twice
        is closed once."""
        closed: list[str] = []

        def write(db: psycopg.Connection[Any]) -> None:
            with db.transaction():
                rows = db.execute(
                    "UPDATE tables SET finished = %s"
                    " WHERE finished = %s AND COALESCE(touched, created) < %s RETURNING id",
                    (EXPIRED, GOING, before),
                ).fetchall()
                for (table_id,) in rows:
                    db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {META}"))
            closed[:] = [str(table_id) for (table_id,) in rows]

        await self._submit(write)
        return closed

    def since(self, table_id: str, number: int) -> tuple[int, TableMeta, tuple[Move, ...]] | None:
        """What a process holding a table's first ``number`` moves catches up with, in one
        snapshot: the table's ``finished``, its :class:`~buraco_rules.server.store.TableMeta`
        and its moves from ``number`` on as ``(seat, seq, action)``; None for no such table."""
        db = self._reader()
        with db.transaction():
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            row = db.execute(
                "SELECT finished, touched, created, deadline, away FROM tables WHERE id = %s",
                (table_id,),
            ).fetchone()
            if row is None:
                return None
            moves = tuple(
                (int(seat), int(seq), str(action))
                for seat, seq, action in db.execute(
                    "SELECT seat, seq, action FROM moves WHERE table_id = %s AND number >= %s"
                    " ORDER BY number",
                    (table_id, number),
                )
            )
        touched = float(row[1] if row[1] is not None else row[2])
        away = tuple(int(s) for s in json.loads(row[4]))
        meta = TableMeta(touched, None if row[3] is None else float(row[3]), away)
        return int(row[0]), meta, moves

    async def _submit(
        self, write: Callable[[psycopg.Connection[Any]], object], *, again: bool = True
    ) -> None:
        loop = asyncio.get_running_loop()
        await self._writer.submit(_Job(loop, loop.create_future(), write, again))

    def _write(self, batch: list[_Append | _Job]) -> list[BaseException | None]:
        """Commit a batch, on the writer thread: the appends in one statement, then each other
        write alone (a lost connection fails what was under way when it was lost, and the next
        write reconnects); each item's outcome, in the batch's order."""
        appends = [item for item in batch if isinstance(item, _Append)]
        groups: list[list[_Append] | list[_Job]] = [appends] if appends else []
        groups += [[item] for item in batch if isinstance(item, _Job)]
        outcomes: dict[int, BaseException | None] = {}
        for group in groups:
            self._write_db, written = self._write_group(self._write_db, group)
            for item, outcome in zip(group, written, strict=True):
                outcomes[id(item)] = outcome
        return [outcomes[id(item)] for item in batch]

    def _finish(self) -> None:
        if self._write_db is not None:
            self._write_db.close()

    def _write_group(
        self, db: psycopg.Connection[Any] | None, group: list[_Append] | list[_Job]
    ) -> tuple[psycopg.Connection[Any] | None, list[BaseException | None]]:
        """Write one group (the appends' statement, or one other write) on ``db``, or on a new
        connection if ``db`` is gone (a PostgreSQL restarted since it was last used, found
        without a round trip by :func:`_usable`); the connection to use next and each item's
        outcome. A connection lost during the write leaves its fate unknown: appends are tried
        once more on a new connection, since the moves' key makes a second try of a committed
        move a :class:`MoveConflict` (answered from the rows), never a second row; so are the
        writes that may be made twice (``_Job.again``)."""
        db, outcomes, lost = self._try_group(db, group)
        if lost and all(isinstance(item, _Append) or item.again for item in group):
            log.info("the connection was lost during a write: trying it once more")
            db, outcomes, lost = self._try_group(db, group)
        return db, outcomes

    def _try_group(
        self, db: psycopg.Connection[Any] | None, group: list[_Append] | list[_Job]
    ) -> tuple[psycopg.Connection[Any] | None, list[BaseException | None], bool]:
        """:meth:`_write_group`'s one try; with whether a connection that was open was lost
        during it (not a new one refused: the database is down, and a second try at once
        would be refused too)."""
        fresh = False
        try:
            if db is None or not _usable(db):
                if db is not None:
                    db.close()
                db = None
                db = _connect(self.url, "writer")
                fresh = True
            if isinstance(group[0], _Job):
                return db, [_run_job(db, group[0])], False
            return db, _commit(db, [item for item in group if isinstance(item, _Append)]), False
        except psycopg.OperationalError as lost:
            return db, [lost] * len(group), db is not None and not fresh
        except Exception as failed:  # a bug: not the writer thread's end
            if not isinstance(failed, psycopg.Error):
                log.exception("writing %d changes failed", len(group))
            return db, [failed] * len(group), False

    def seat_of(self, token: str) -> tuple[str, int] | None:
        """The table and seat a token opens, or None."""
        row = (
            self._reader()
            .execute("SELECT table_id, seat FROM tokens WHERE digest = %s", (token_digest(token),))
            .fetchone()
        )
        return None if row is None else (str(row[0]), int(row[1]))

    def unfinished(self) -> list[str]:
        """The ids of the tables whose game goes on, oldest first."""
        rows = self._reader().execute(
            "SELECT id FROM tables WHERE finished = %s ORDER BY created, id", (GOING,)
        )
        return [str(r[0]) for r in rows]

    def count_unfinished(self) -> int:
        """How many tables' games go on."""
        query = "SELECT count(*) FROM tables WHERE finished = %s"
        row = self._reader().execute(query, (GOING,)).fetchone()
        return 0 if row is None else int(row[0])

    def load(self, table_id: str) -> StoredTable | None:
        """A table with all its moves, or None if there is none by that id (one snapshot: the
        table and its moves read in one transaction)."""
        db = self._reader()
        with db.transaction():
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            row = db.execute(
                "SELECT start, seats, finished, turn_seconds, touched, created, deadline, away,"
                " client FROM tables WHERE id = %s",
                (table_id,),
            ).fetchone()
            if row is None:
                return None
            rows = db.execute(
                "SELECT number, seat, seq, action FROM moves WHERE table_id = %s ORDER BY number",
                (table_id,),
            ).fetchall()
        # Checked as the SQLite store checks them: numbered without a gap, each seat's seq rising.
        moves = numbered(table_id, [(int(n), int(s), int(q), str(a)) for n, s, q, a in rows])
        start = from_json(row[0])
        if not isinstance(start, GameRecord | MatchRecord):
            raise ValueError(f"table {table_id} has no record")  # only a hand-edited database
        seats = tuple(SeatRow(**s) for s in json.loads(row[1]))
        away = tuple(int(s) for s in json.loads(row[7]))
        touched = float(row[4] if row[4] is not None else row[5])
        meta = TableMeta(touched, None if row[6] is None else float(row[6]), away)
        turn = None if row[3] is None else int(row[3])
        return StoredTable(table_id, start, seats, moves, int(row[2]), turn, meta, str(row[8]))

    def summary(self) -> list[tuple[str, int, float, int]]:
        """Every table as ``(id, finished, created, moves)``, oldest first (for the operator)."""
        rows = self._reader().execute(
            "SELECT id, finished, created, (SELECT count(*) FROM moves WHERE table_id = id)"
            " FROM tables ORDER BY created, id"
        )
        return [(str(i), int(f), float(c), int(n)) for i, f, c, n in rows]

    def moves_after(self, table_id: str, number: int) -> tuple[tuple[int, int, str], ...]:
        """The table's moves from move ``number`` on, as ``(seat, seq, action)`` in order: what
        a process that holds the table's first ``number`` moves catches up with."""
        rows = self._reader().execute(
            "SELECT seat, seq, action FROM moves WHERE table_id = %s AND number >= %s"
            " ORDER BY number",
            (table_id, number),
        )
        return tuple((int(seat), int(seq), str(action)) for seat, seq, action in rows)

    def move_counts(self, table_ids: Sequence[str]) -> dict[str, int]:
        """How many moves each of these tables has stored (0 for one without moves or unknown):
        what a process that may have missed notifications compares with the tables it holds."""
        rows = self._reader().execute(
            "SELECT t.id, count(m.number) FROM unnest(%s::text[]) AS t(id)"
            " LEFT JOIN moves m ON m.table_id = t.id GROUP BY t.id",
            (list(table_ids),),
        )
        return {str(table_id): int(count) for table_id, count in rows}

    async def listen(
        self,
        on_move: Callable[[str, int], None],
        on_gap: Callable[[], None] | None = None,
        on_down: Callable[[], None] | None = None,
    ) -> Listener:
        """Start hearing committed moves (every process's, this one's included): ``on_move``
        gets each one's table id and number on the event loop (the number -1 for a change of
        the table's row alone: :meth:`update`, :meth:`expire`), ``on_gap`` is called after a
        lost connection is reopened (moves committed meanwhile were not heard: catch up from
        the rows), and ``on_down`` once when the connection is lost and cannot be opened again
        at once (the database is down, or out of reach: no process can store a move). Returns
        once listening, so that every move committed afterwards is heard."""
        listener = Listener(self.url, on_move, on_gap, on_down)
        await listener.start()
        return listener

    async def leases(
        self,
        on_lost: Callable[[frozenset[str]], None] | None = None,
        check_every: float = 2.0,
        buckets: int | None = None,
        lease_seconds: float = LEASE_SECONDS,
    ) -> Leases:
        """A connection for this process's table leases (:class:`Leases`), expiring after
        ``lease_seconds`` without a heartbeat."""
        leases = Leases(self.url, on_lost, check_every, buckets, lease_seconds)
        await leases.open()
        return leases


@attrs.frozen
class _Append:
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]
    row: tuple[str, int, int, int, str]
    extra: tuple[bool, float | None, float | None, str | None]  # finished, touched, deadline, away


@attrs.frozen
class _Job:
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]
    write: Callable[[psycopg.Connection[Any]], object]
    again: bool = True
    """Whether the write may be made twice (tried once more on a lost connection)."""


def _usable(db: psycopg.Connection[Any]) -> bool:
    """Whether an idle connection can take a statement, known without a round trip: it is
    not closed nor broken, and its socket holds nothing unread but what its server says in
    passing. A restarted (or crashed) PostgreSQL has closed its end, which reads as ready:
    reading it finds the end, and the connection is replaced before a write is lost on it."""
    if db.closed or db.broken:
        return False
    pgconn = db.pgconn
    try:
        for _ in range(4):  # a farewell message, then the end of the stream
            if not select.select([pgconn.socket], [], [], 0)[0]:
                break
            pgconn.consume_input()
    except (OSError, psycopg.Error):
        return False
    return pgconn.status == psycopg.pq.ConnStatus.OK


def _take_free_query(buckets: int | None) -> bytes:
    """The statement of :meth:`Leases.take_free`: :func:`lease_key` computed by PostgreSQL, the
    locks tried only on the chosen keys (materialised first), each key once (a key locked twice
    by one session would need two unlocks)."""
    # The first 4 bytes of the id's SHA-256, big-endian: signed, or unsigned modulo buckets.
    bits = "('x' || left(encode(sha256(convert_to(id, 'UTF8')), 'hex'), 8))::bit(32)"
    key = f"{bits}::int4" if buckets is None else f"({bits}::int8 %% {int(buckets)})::int4"
    return f"""
    WITH free AS MATERIALIZED (
        SELECT id, {key} AS k FROM tables
        WHERE finished = {GOING} AND NOT id = ANY(%(held)s::text[])
            AND (turn_seconds IS NOT NULL OR seats::jsonb @> '[{{"kind": "bot"}}]')
    ), chosen AS MATERIALIZED (
        SELECT k FROM (SELECT DISTINCT k FROM free WHERE NOT k = ANY(%(keys)s::int4[])) d
        ORDER BY random() LIMIT %(most)s
    ), taken AS MATERIALIZED (
        SELECT k FROM chosen WHERE pg_try_advisory_lock(%(namespace)s, k)
    )
    SELECT id, k FROM free WHERE k IN (SELECT k FROM taken) OR k = ANY(%(keys)s::int4[])
    """.encode()


def _check_limits(cursor: psycopg.Cursor[Any], client: str, limits: tuple[int, int]) -> None:
    """Refuse a creation past the caps (in the creation's transaction): the lock serialises the
    creations of every process, and the count after it sees every one committed before."""
    # A process frozen inside its own creation holds this lock until its session is ended
    # (idle_in_transaction_session_timeout): wait a second at most, and answer "try again"
    # rather than hold every creation, and the writes queued behind this one, meanwhile.
    cursor.execute("SET LOCAL lock_timeout = '1s'")
    try:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, 1)", (_SCHEMA_LOCKS,))
    except psycopg.errors.LockNotAvailable:
        raise CreationsBusy("another process's creation holds the lock") from None
    cursor.execute(
        "SELECT count(*), count(*) FILTER (WHERE client = %s) FROM tables WHERE finished = %s",
        (client, GOING),
    )
    row = cursor.fetchone()
    total, mine = (0, 0) if row is None else (int(row[0]), int(row[1]))
    most, most_each = limits
    if total >= most:
        raise TablesFull(f"{total} unfinished tables", per_client=False)
    if mine >= most_each:
        raise TablesFull(f"{mine} unfinished tables of one address", per_client=True)


def _run_job(db: psycopg.Connection[Any], job: _Job) -> BaseException | None:
    """Run one write (a transaction of its own); its outcome. A refusal (a key already there)
    is the job's; a lost connection is raised, and fails the batch."""
    try:
        job.write(db)
    except psycopg.OperationalError:
        raise
    except psycopg.Error as refused:
        return refused
    return None


def _notifying(
    table_id: str, statement: str, values: tuple[object, ...]
) -> Callable[[psycopg.Connection[Any]], object]:
    """A write of a table's row, notified in its transaction (heard once committed)."""

    def write(db: psycopg.Connection[Any]) -> None:
        with db.transaction():
            db.execute(statement.encode(), values)
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {META}"))

    return write


def _database_name(url: str) -> str:
    if not _plainly_spelled(url):
        return "(unreadable URL)"
    return str(psycopg.conninfo.conninfo_to_dict(url).get("dbname") or "(default)")


def _plainly_spelled(url: str) -> bool:
    """Whether the URL reads as it was meant: a port of digits, a database name without '@',
    '/' or ':' (what an unencoded password's characters turn into when they spill over)."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return False
    ports = str(parts.get("port") or "").split(",")
    name = str(parts.get("dbname") or "")
    return all(p == "" or p.isdigit() for p in ports) and not any(c in name for c in "@/:")


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300]


def _commit(db: psycopg.Connection[Any], batch: list[_Append]) -> list[BaseException | None]:
    """Append a batch in one statement (autocommit: its own transaction); each item's outcome.
    A batch that fails for one row (a table that does not exist) is appended item by item, so
    that the others go in."""
    columns = list(zip(*((*item.row, *item.extra) for item in batch), strict=True))
    try:
        stored = [tuple(r[:5]) for r in db.execute(_APPEND, [list(c) for c in columns]).fetchall()]
    except (psycopg.IntegrityError, psycopg.DataError) as refused:
        if len(batch) == 1:
            return [refused]
        return [outcome for item in batch for outcome in _commit(db, [item])]
    outcomes: list[BaseException | None] = []
    for item in batch:
        if item.row in stored:
            stored.remove(item.row)  # an identical item later in the batch was not stored
            outcomes.append(None)
        else:
            outcomes.append(
                MoveConflict(f"table {item.row[0]}: move {item.row[1]} or its seq is stored")
            )
    return outcomes


def _call(callback: Callable[..., None], *args: object) -> None:
    """Call a caller's callback; its failure is logged, and never stops what called it."""
    try:
        callback(*args)
    except Exception:
        log.exception("a store callback failed")


async def _connect_async(url: str, role: str) -> psycopg.AsyncConnection[Any]:
    return await psycopg.AsyncConnection.connect(
        url,
        autocommit=True,
        connect_timeout=5,
        application_name=f"buraco-{role}",
        # A machine that vanishes without closing its connections is noticed in seconds.
        keepalives=1,
        keepalives_idle=5,
        keepalives_interval=2,
        keepalives_count=3,
    )


class Listener:
    """The notifications of committed moves, heard on a connection of its own (see
    :meth:`PostgresStore.listen`); a lost connection is reopened with a bounded backoff (up to
    5 s between tries), then ``on_gap`` is called; ``on_down`` is called once an outage, when the
    first try to reopen it fails (the database does not answer, rather than this connection
    alone ended)."""

    def __init__(
        self,
        url: str,
        on_move: Callable[[str, int], None],
        on_gap: Callable[[], None] | None = None,
        on_down: Callable[[], None] | None = None,
    ) -> None:
        self.url = url
        self.on_move = on_move
        self.on_gap = on_gap
        self.on_down = on_down
        self.reconnections = 0
        """How many times the connection was lost and reopened."""
        self._db: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Connect, listen, and hear in the background."""
        self._db = await self._listening()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _listening(self) -> psycopg.AsyncConnection[Any]:
        db = await _connect_async(self.url, "listen")
        await db.execute(f"LISTEN {CHANNEL}")
        return db

    async def _run(self) -> None:
        delay = 0.05
        down = False  # on_down was called this outage
        while True:
            try:
                if self._db is None:
                    self._db = await self._listening()
                    delay = 0.05
                    down = False
                    self.reconnections += 1
                    if self.on_gap is not None:
                        _call(self.on_gap)
                async for note in self._db.notifies():
                    table_id, _, number = note.payload.partition(" ")
                    if number.isdigit():  # anything else on the channel is not ours
                        _call(self.on_move, table_id, int(number))
                    elif number == META:
                        _call(self.on_move, table_id, -1)
            except psycopg.OperationalError:
                if self._db is not None:
                    await self._db.close()
                elif not down:  # a try to reopen it failed: the database does not answer
                    down = True
                    if self.on_down is not None:
                        _call(self.on_down)
                self._db = None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def close(self) -> None:
        """Stop hearing and close the connection."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._db is not None:
            await self._db.close()
            self._db = None


class Leases:
    """The tables this process drives (their bots and turn clocks): a session-level advisory
    lock each (:func:`lease_key`; with ``buckets``, one per bucket of tables, shared by the
    tables of the bucket this process holds), on a connection of its own (see
    :meth:`PostgresStore.leases`). A lock is held until released, or until the connection ends,
    which frees every lock of a process that died (at once for a killed process; within about
    11 s, by TCP keepalives, for a machine that vanished).

    Leases expire: a process that is alive but frozen (SIGSTOP, a suspended machine or virtual
    machine, a stalled event loop) keeps its connection, and so its locks. So the connection
    heartbeats every ``check_every`` seconds (at most a fifth of ``lease_seconds``): its row of
    ``lease_holders`` gets the database's time (never a server's clock, so that the machines'
    clocks may disagree). Each heartbeat also looks for rows whose heartbeat is older than
    ``lease_seconds`` on the database's clock: their connections are ended
    (``pg_terminate_backend``: allowed on sessions of the same role; another role's are seen
    and ended only with ``pg_read_all_stats`` and ``pg_signal_backend``, and left alone, logged
    once, without), which frees their locks for :meth:`take_free`. The holder itself
    counts from when it sent its last heartbeat that succeeded, on its monotonic clock: once
    half of ``lease_seconds`` has passed, :attr:`held` is empty (so the frozen process, waking,
    drives nothing even before it has seen its connection gone), and the next use of the
    leases drops them all, telling ``on_lost``, and starts again on a new connection. A lost
    connection loses every lease in the same way. A lease only spares work: two processes
    driving one table still cannot both store a move (:class:`MoveConflict`)."""

    def __init__(
        self,
        url: str,
        on_lost: Callable[[frozenset[str]], None] | None = None,
        check_every: float = 2.0,
        buckets: int | None = None,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        if buckets is not None and not 1 <= buckets <= 2**31:
            raise ValueError(f"buckets must be 1 to 2**31, not {buckets}")
        if not 0.1 <= lease_seconds <= 3600:
            raise ValueError(f"lease_seconds must be 0.1 to 3600, not {lease_seconds}")
        self.url = url
        self.on_lost = on_lost
        self.check_every = min(check_every, lease_seconds / 5)
        self.buckets = buckets
        self.lease_seconds = lease_seconds
        self.expired = 0
        """How many other processes' lease connections this one ended (heartbeats too old)."""
        self._held: dict[str, tuple[int, int]] = {}  # table: its lock
        self._tables_of: dict[tuple[int, int], int] = {}  # lock: how many tables it covers
        self._db: psycopg.AsyncConnection[Any] | None = None
        self._session: tuple[int, Any] | None = None  # the connection's backend: pid, start
        self._beaten = -float("inf")  # when the last heartbeat that succeeded was sent
        self._lock = asyncio.Lock()
        self._watch: asyncio.Task[None] | None = None
        self._refused = False  # a termination refused (the role's rights): said once

    @property
    def held(self) -> frozenset[str]:
        """The ids of the tables whose lease this process holds: none once its last heartbeat
        is older than half of ``lease_seconds`` (others may have taken them over)."""
        return frozenset(self._held) if self.live else frozenset()

    @property
    def live(self) -> bool:
        """Whether the last heartbeat that succeeded was sent within half of
        ``lease_seconds``: the leases are this process's for sure."""
        return time.monotonic() - self._beaten < self.lease_seconds / 2

    @property
    def locks(self) -> int:
        """How many advisory locks this process holds."""
        return len(self._tables_of)

    async def open(self) -> None:
        """Connect, and start heartbeating."""
        async with self._lock:
            await self._connection()
        self._watch = asyncio.get_running_loop().create_task(self._check())

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        if self._db is not None and not self.live:  # maybe ended by another process
            await self._drop("its heartbeat is late")
        if self._db is None or self._db.closed or self._db.broken:
            self._db = await _connect_async(self.url, "leases")
            # PostgreSQL's side of the keepalives: it ends the session of a vanished machine,
            # freeing its locks, within idle + interval * count = 11 s.
            for name, value in (("idle", 5), ("interval", 2), ("count", 3)):
                await self._db.execute(f"SET tcp_keepalives_{name} = {value}".encode())
            # A heartbeat lost in a crash of PostgreSQL is of no matter: no flush waited for.
            await self._db.execute(b"SET synchronous_commit = off")
            cursor = await self._db.execute(
                b"SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
            )
            row = await cursor.fetchone()
            if row is None:  # only a session PostgreSQL does not list
                raise psycopg.OperationalError("this session is not in pg_stat_activity")
            self._session = (int(row[0]), row[1])
            await self._beat(self._db)
        return self._db

    async def _beat(self, db: psycopg.AsyncConnection[Any]) -> None:
        """Heartbeat (the database's time in this connection's row); :attr:`live` again."""
        if self._session is None:
            return
        sent = time.monotonic()
        await db.execute(
            b"INSERT INTO lease_holders (pid, started, beat, process, host)"
            b" VALUES (%s, %s, clock_timestamp(), %s, %s)"
            b" ON CONFLICT (pid, started) DO UPDATE SET beat = excluded.beat",
            (*self._session, os.getpid(), socket.gethostname()[:200]),
        )
        self._beaten = sent

    async def _expire_others(self, db: psycopg.AsyncConnection[Any]) -> None:
        """End the lease connections whose heartbeat is older than ``lease_seconds`` (by the
        database's clock), and forget their rows (those of sessions already gone too)."""
        try:
            cursor = await db.execute(_EXPIRE, {"seconds": self.lease_seconds})
            ended = await cursor.fetchall()
        except psycopg.OperationalError:
            raise
        except psycopg.Error as refused:  # the role may not end another role's sessions
            if not self._refused:
                log.warning("a frozen process's leases not ended: %s", _one_line(refused))
            self._refused = True
            return
        unseen = any(process is None for process, _, _ in ended)
        if unseen and not self._refused:
            log.warning(
                "a frozen process's leases not ended: its session is another role's, which this"
                " one may not see (grant it pg_read_all_stats and pg_signal_backend)"
            )
        self._refused = unseen
        for process, host, terminated in ended:
            if terminated:
                self.expired += 1
                log.warning(
                    "the leases of process %s on %s ended: no heartbeat for over %g s",
                    process,
                    " ".join(str(host).split())[:100] or "(unnamed)",
                    self.lease_seconds,
                )

    async def try_take(self, table_id: str) -> bool:
        """Take the table's lease if no process holds it; whether this process holds it now."""
        key = lease_key(table_id, self.buckets)
        async with self._lock:
            db = await self._connection()
            if table_id in self._held:
                return True
            if key not in self._tables_of:
                try:
                    cursor = await db.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
                    row = await cursor.fetchone()
                except psycopg.OperationalError:
                    await self._drop()
                    raise
                if row is None or not row[0]:
                    return False
            self._held[table_id] = key
            self._tables_of[key] = self._tables_of.get(key, 0) + 1
            return True

    async def take_free(self, most: int) -> list[str]:
        """Take the leases of unfinished tables that need a driver (bots or a turn clock) and
        that no process holds (their process died or froze, or none took them), at most
        ``most`` locks at once, chosen at random (so that the processes looking share a dead
        one's tables); with it, the tables of the buckets this process holds already. The ids
        of the tables whose lease this process took, in one round trip whatever the number of
        tables."""
        async with self._lock:
            db = await self._connection()
            held = list(self._held)
            keys = sorted({key[1] for key in self._tables_of})
            try:
                cursor = await db.execute(
                    _take_free_query(self.buckets),
                    {"namespace": _LOCKS, "held": held, "keys": keys, "most": most},
                )
                rows = await cursor.fetchall()
            except psycopg.OperationalError:
                await self._drop()
                raise
            taken = []
            for table_id, number in rows:
                key = (_LOCKS, int(number))
                self._held[str(table_id)] = key
                self._tables_of[key] = self._tables_of.get(key, 0) + 1
                taken.append(str(table_id))
            return taken

    async def release(self, table_id: str) -> None:
        """Give the table's lease up (another process may take it, once this one holds no other
        table of its bucket)."""
        async with self._lock:
            key = self._held.pop(table_id, None)
            if key is None:
                return
            self._tables_of[key] -= 1
            if self._tables_of[key]:
                return
            del self._tables_of[key]
            if self._db is not None and not self._db.broken:
                with contextlib.suppress(psycopg.OperationalError):
                    await self._db.execute("SELECT pg_advisory_unlock(%s, %s)", key)

    async def _drop(self, why: str = "its connection was lost") -> None:
        # Called under the lock, with the connection lost or the leases expired: every lease
        # goes (the connection is closed, freeing any lock it still holds).
        lost = frozenset(self._held)
        self._held.clear()
        self._tables_of.clear()
        self._session = None
        self._beaten = -float("inf")
        if self._db is not None:
            await self._db.close()
            self._db = None  # reopened by the next take
        if lost:
            log.warning(
                "the lease%s of %d table%s dropped: %s",
                *("s", len(lost), "s") if len(lost) != 1 else ("", 1, ""),
                why,
            )
            if self.on_lost is not None:
                _call(self.on_lost, lost)

    async def _check(self) -> None:
        while True:
            await asyncio.sleep(self.check_every)
            async with self._lock:
                if self._db is None:
                    continue
                if not self.live:  # frozen (or the loop stalled) too long: maybe taken over
                    await self._drop("its heartbeat is late")
                    continue
                try:
                    await self._beat(self._db)
                    await self._expire_others(self._db)
                except psycopg.OperationalError:
                    await self._drop()

    async def close(self) -> None:
        """Release every lease and close the connection (its heartbeat row goes with it)."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        self._held.clear()
        self._tables_of.clear()
        if self._db is not None:
            if self._session is not None and not self._db.broken:
                with contextlib.suppress(psycopg.Error):
                    await self._db.execute(
                        b"DELETE FROM lease_holders WHERE pid = %s AND started = %s",
                        self._session,
                    )
            await self._db.close()
            self._db = None


# The lease connections whose heartbeat is older than the bound (by the database's clock), but
# this one: their rows deleted, and those whose session is still there (the same backend pid
# and start: a pid reused by another session is not it) ended. A session this role may not see
# (another role's, without pg_read_all_stats) keeps its row and comes back as a row of NULLs:
# nothing is ended on a guess. The delete checks the heartbeat again, so that a heartbeat
# written meanwhile keeps its row (the row lock orders them, and the delete sees the new time).
_EXPIRE = b"""
WITH stale AS (
    SELECT h.pid, h.started, a.pid IS NOT NULL AS running, a.backend_start
    FROM lease_holders h LEFT JOIN pg_stat_activity a ON a.pid = h.pid
    WHERE h.beat < clock_timestamp() - %(seconds)s * interval '1 second'
        AND h.pid <> pg_backend_pid()
), gone AS (
    DELETE FROM lease_holders h USING stale s
    WHERE h.pid = s.pid AND h.started = s.started
        AND h.beat < clock_timestamp() - %(seconds)s * interval '1 second'
        AND NOT (s.running AND s.backend_start IS NULL)
    RETURNING h.pid, h.process, h.host, s.running AND s.backend_start = h.started AS same
)
SELECT process, host, CASE WHEN same THEN pg_terminate_backend(pid) ELSE false END FROM gone
UNION ALL
SELECT NULL, NULL, NULL FROM stale WHERE running AND backend_start IS NULL
"""

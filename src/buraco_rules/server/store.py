"""The server's durable store: one SQLite file holding every table's deal, seats and moves.

Every accepted move is appended (one row: the action in notation, the seat and its sequence
number) and committed with ``synchronous=FULL`` in WAL mode before any seat hears of it. The
commits run on a writer thread, so the event loop serves other tables during a commit, and
moves that arrive while a commit is under way are committed together in the next transaction
(a group commit: one disk flush for all of them, each move all or nothing). A table is its start
record plus its moves, so loading one is a replay of its record. This module is the seam between
the server and the records: it keeps the start record and the list of actions itself, and builds
the record to replay with ``attrs.evolve``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import attrs

from ..engine.state import GameState
from ..formats import GameRecord, MatchRecord, from_json, to_json
from ..formats import replay as replay_record
from ..play.match import Match
from .writer import Writer

_N = TypeVar("_N", int, float)

__all__ = [
    "EXPIRED",
    "FINISHED",
    "GOING",
    "SeatRow",
    "StoreError",
    "StoredTable",
    "TableMeta",
    "TableStore",
    "now",
    "numbered",
    "token_digest",
]

log = logging.getLogger("buraco_rules.server")

GOING: Final = 0
"""A table's ``finished`` column: its game goes on."""
FINISHED: Final = 1
"""Its game is over (the last move ended it)."""
EXPIRED: Final = 2
"""Closed unfinished: nobody moved for the server's expiry time (nothing of it is scored)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    start TEXT NOT NULL,
    seats TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tokens (
    digest TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables(id),
    number INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (table_id, number),
    UNIQUE (table_id, seat, seq)
);
CREATE TABLE IF NOT EXISTS opened (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at REAL NOT NULL
);
"""

# Columns added after the first release: a database written before them gets them on opening
# (each with the value that describes its old tables: created by nobody known, no turn clock).
_ADDED = (
    ("client", "TEXT NOT NULL DEFAULT ''"),
    ("touched", "REAL"),
    ("turn_seconds", "INTEGER"),
    ("deadline", "REAL"),
    ("away", "TEXT NOT NULL DEFAULT '[]'"),
)


class StoreError(Exception):
    """The database cannot be used as the server needs it (unwritable, or held by another
    server); the message is one line for the operator."""


def token_digest(token: str) -> str:
    """The SHA-256 of a seat token, in hex: the database keeps this, never the token itself, so
    a copy of the database lets nobody join a table."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@attrs.frozen
class SeatRow:
    """A seat as the store keeps it: ``kind`` is ``"human"`` or ``"bot"``, ``bot`` the bot's
    name for a bot seat."""

    kind: str
    bot: str | None = None


@attrs.frozen
class TableMeta:
    """What the store keeps of a table beside its moves, rewritten with each move: when it was
    last ``touched`` (a move, or its creation; seconds since the epoch), the ``deadline`` of the
    turn clock (None when no clock runs) and the human seats played by a bot while their person
    is ``away``."""

    touched: float
    deadline: float | None = None
    away: tuple[int, ...] = ()


@attrs.frozen
class StoredTable:
    """A table as loaded from the store: its id, its start record, its seats, its moves as
    ``(seat, seq, action notation)`` in the order they were played, whether it is over
    (``finished``, one of :data:`GOING`, :data:`FINISHED`, :data:`EXPIRED`), its turn clock
    (``turn_seconds``, None for none), its :class:`TableMeta` and its creator's address."""

    id: str
    start: GameRecord | MatchRecord
    seats: tuple[SeatRow, ...]
    moves: tuple[tuple[int, int, str], ...]
    finished: int
    turn_seconds: int | None = None
    meta: TableMeta = TableMeta(0.0)
    client: str = ""

    def record(self) -> GameRecord | MatchRecord:
        """The start record with every stored move (and no scores: the replay computes them;
        the start record of a match keeps an empty tuple of them, which a match with a hand
        finished would contradict)."""
        actions = tuple(action for _, _, action in self.moves)
        return attrs.evolve(self.start, actions=actions, scores=None)  # type: ignore[arg-type]

    def replay(self) -> GameState | Match:
        """The table's state now: its record replayed (a :class:`~buraco_rules.ReplayError`
        if the store holds an illegal move, which no server writes)."""
        return self.replay_all()[-1]

    def replay_all(self) -> Sequence[GameState | Match]:
        """Every state of the table, its deal first: :meth:`replay` with the states between."""
        played: Sequence[GameState | Match] = replay_record(self.record())
        return played


class TableStore:
    """The SQLite file of a server (created on first use). Use it from one event loop: reads
    run on the caller's thread, creations and appends on the store's writer thread, each a
    transaction of its own.

    ``read_only=True`` opens it for the operator's reading only (``buraco-rules tables``): no
    write, so that a full disk, a read-only mount or a running server do not stop it, and every
    write refused. Otherwise opening it writes to the file (a :class:`StoreError` if it
    cannot); ``exclusive=True`` also
    takes a lock on the file itself (whatever link or path names it, held until :meth:`close`),
    which another exclusive store refuses with a :class:`StoreError`: one server per database,
    by whatever name it is given.

    A file deleted, moved or replaced under the store (a folder removed while serving) would
    take every later write with it: before each batch of writes the store checks that the file
    at its path is still the one it opened (its device and inode), and once it is not, it refuses
    every write (:meth:`failure` says why; logged once).
    """

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    """What a failed write or read raises (the file refused it)."""

    def __init__(
        self, path: str | Path, *, exclusive: bool = False, read_only: bool = False
    ) -> None:
        if exclusive and read_only:
            raise ValueError("a read-only store takes no lock")
        self.path = str(path)
        self.label = Path(self.path).name
        """The file named for a log line."""
        self._lock = _lock(os.path.realpath(self.path), self.path) if exclusive else None
        try:
            if read_only:
                self._db = _connect_read_only(self.path)
            else:
                self._db = _connect(self.path)
                self._db.executescript(_SCHEMA)
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(tables)")}
                with _transaction(self._db):
                    for name, kind in _ADDED:
                        if name not in columns:
                            self._db.execute(f"ALTER TABLE tables ADD COLUMN {name} {kind}")
                    self._db.execute(
                        "INSERT OR REPLACE INTO opened (id, at) VALUES (1, ?)", (now(),)
                    )
            self._identity = _identity(self.path)
        except (sqlite3.Error, OSError) as error:
            if self._lock is not None:
                self._lock.close()
            doing = "read" if read_only else "write"
            raise StoreError(f"cannot {doing} the database {self.path}: {error}") from None
        self._lost: str | None = None  # why every write is refused (the file is gone), or None
        self._losing = threading.Lock()  # _lost is set once
        self._write_db: sqlite3.Connection | None = None  # the writer thread's own
        self._writer: Writer[_Job] = Writer(
            "buraco-store",
            self._write,
            lambda: sqlite3.OperationalError("the store is closed"),
            None if read_only else self._open_writer,  # read-only: every write refused
            self._finish,
        )

    def close(self) -> None:
        """Finish the writes under way, stop the writer, close the file and free its lock."""
        self._writer.close()
        self._db.close()
        if self._lock is not None:
            self._lock.close()

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
        """Store a new table, with the digests of its human seats' ``tokens`` (seat: token),
        its creator's address ``client`` and its turn clock: all of it or nothing (one
        transaction), committed on the writer thread when this returns (a ``sqlite3.Error``
        if it cannot be)."""
        seat_data = json.dumps([attrs.asdict(s) for s in seats])
        meta = meta or TableMeta(now())
        table_row = (
            table_id,
            meta.touched,
            to_json(start),
            seat_data,
            client,
            meta.touched,
            turn_seconds,
            meta.deadline,
            json.dumps(list(meta.away)),
        )
        token_rows = [(token_digest(t), table_id, seat) for seat, t in tokens.items()]

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO tables (id, created, start, seats, client, touched, turn_seconds,"
                " deadline, away) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                table_row,
            )
            db.executemany(
                "INSERT INTO tokens (digest, table_id, seat) VALUES (?, ?, ?)", token_rows
            )

        await self._submit(write)

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
        """Append move ``number`` of a table; returns once it is committed. ``finished`` marks
        the table's game as over with it; ``meta``, if given, replaces the table's
        :class:`TableMeta` in the same transaction (the hub gives it when the clock or the away
        seats change, and now and then for ``touched``: a move alone writes one row). A number
        or a seat's sequence number used twice is a
        ``sqlite3.IntegrityError`` and writes nothing."""
        row = (table_id, number, seat, seq, action)
        update: tuple[object, ...] | None = None
        query = ""
        if meta is not None:
            away = json.dumps(list(meta.away))
            update = (int(finished), meta.touched, meta.deadline, away, table_id)
            query = (
                "UPDATE tables SET finished = ?, touched = ?, deadline = ?, away = ? WHERE id = ?"
            )
        elif finished:
            update, query = (FINISHED, table_id), "UPDATE tables SET finished = ? WHERE id = ?"

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO moves (table_id, number, seat, seq, action) VALUES (?, ?, ?, ?, ?)",
                row,
            )
            if update is not None:
                db.execute(query, update)

        await self._submit(write)

    async def update(self, table_id: str, meta: TableMeta, *, moves: int | None = None) -> None:
        """Replace a table's :class:`TableMeta` (its clock ran out, or its person came back);
        with ``moves``, only if the table has exactly that many moves stored (else nothing is
        written: the table moved on since the change was decided)."""
        statement = "UPDATE tables SET touched = ?, deadline = ?, away = ? WHERE id = ?"
        values: tuple[object, ...] = (meta.touched, meta.deadline, json.dumps(list(meta.away)))
        values += (table_id,)
        if moves is not None:  # no move numbered from ``moves`` on (they have no gap)
            statement += " AND NOT EXISTS (SELECT 1 FROM moves WHERE table_id = ? AND number >= ?)"
            values += (table_id, moves)
        await self._submit(lambda db: db.execute(statement, values))

    async def expire(self, table_id: str) -> None:
        """Close a table whose game goes on (:data:`EXPIRED`): it is loaded no more."""
        await self._submit(
            lambda db: db.execute(
                "UPDATE tables SET finished = ? WHERE id = ? AND finished = ?",
                (EXPIRED, table_id, GOING),
            )
        )

    def failure(self) -> str | None:
        """Why the store refuses every write (its file is no longer the one at its path), or
        None when it writes: checked now (one ``stat``)."""
        self._still_there()
        return self._lost

    def _still_there(self) -> bool:
        """Whether the file at the store's path is the one it opened; the first time it is not,
        every later write is refused, with one log line."""
        if self._lost is not None:
            return False
        try:
            same = _identity(self.path) == self._identity
        except OSError:
            same = False
        if same:
            return True
        with self._losing:
            if self._lost is None:
                self._lost = f"the database {self.path} is no longer the file the server opened"
                log.error("%s (deleted, moved or replaced): nothing more is stored", self._lost)
        return False

    async def _submit(self, write: Callable[[sqlite3.Connection], object]) -> None:
        loop = asyncio.get_running_loop()
        await self._writer.submit(_Job(loop, loop.create_future(), write))

    def _write(self, batch: list[_Job]) -> list[BaseException | None]:
        """Commit a batch, on the writer thread (on its own connection)."""
        if self._write_db is None:  # not opened: the writer fails every write (logged)
            return [sqlite3.OperationalError("the store's writer is not open")] * len(batch)
        if not self._still_there():  # a commit now would land in a file nobody will open again
            return [sqlite3.OperationalError(self._lost)] * len(batch)
        return self._commit(self._write_db, batch)

    def _open_writer(self) -> None:
        self._write_db = _connect(self.path)

    def _finish(self) -> None:
        if self._write_db is not None:
            self._write_db.close()

    @staticmethod
    def _commit(db: sqlite3.Connection, batch: list[_Job]) -> list[BaseException | None]:
        errors: list[BaseException | None] = []
        try:
            with _transaction(db):
                for item in batch:
                    # A savepoint each: a write refused by the database leaves the others in.
                    db.execute("SAVEPOINT job")
                    try:
                        item.write(db)
                    except sqlite3.Error as refused:
                        db.execute("ROLLBACK TO job")
                        errors.append(refused)
                    else:
                        errors.append(None)
                    db.execute("RELEASE job")
        except sqlite3.Error as failed:  # the commit itself failed: nothing of the batch is in
            errors = [failed] * len(batch)
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")  # a failed COMMIT leaves the transaction open
        return errors

    def seat_of(self, token: str) -> tuple[str, int] | None:
        """The table and seat a token opens, or None."""
        row = self._db.execute(
            "SELECT table_id, seat FROM tokens WHERE digest = ?", (token_digest(token),)
        ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def unfinished(self) -> list[str]:
        """The ids of the tables whose game goes on, oldest first."""
        rows = self._db.execute(
            "SELECT id FROM tables WHERE finished = ? ORDER BY created, id", (GOING,)
        )
        return [str(r[0]) for r in rows]

    def count_unfinished(self) -> int:
        """How many tables' games go on."""
        query = "SELECT count(*) FROM tables WHERE finished = ?"
        return int(self._db.execute(query, (GOING,)).fetchone()[0])

    def summary(self) -> list[tuple[str, int, float, int]]:
        """Every table as ``(id, finished, created, moves)``, oldest first (for the operator). A
        hand-edited row's unreadable ``finished`` is -1 and ``created`` NaN, listed as they are
        rather than failing the whole list."""
        rows = self._db.execute(
            "SELECT id, finished, created, (SELECT count(*) FROM moves WHERE table_id = id)"
            " FROM tables ORDER BY created, id"
        )
        return [
            (str(i), _number(f, int, -1), _number(c, float, math.nan), n) for i, f, c, n in rows
        ]

    def load(self, table_id: str) -> StoredTable | None:
        """A table with all its moves, or None if there is none by that id (a ``ValueError``
        if its row cannot be read, which only a hand-edited database gives)."""
        row = self._db.execute(
            "SELECT start, seats, finished, turn_seconds, touched, created, deadline, away,"
            " client FROM tables WHERE id = ?",
            (table_id,),
        ).fetchone()
        if row is None:
            return None
        start = from_json(row[0])
        if not isinstance(start, GameRecord | MatchRecord):
            raise ValueError(f"table {table_id} has no record")
        seats = tuple(SeatRow(**s) for s in json.loads(row[1]))
        rows = self._db.execute(
            "SELECT number, seat, seq, action FROM moves WHERE table_id = ? ORDER BY number",
            (table_id,),
        ).fetchall()
        moves = numbered(table_id, [(int(n), int(s), int(q), str(a)) for n, s, q, a in rows])
        away = tuple(int(s) for s in json.loads(row[7]))
        touched = float(row[4] if row[4] is not None else row[5])
        meta = TableMeta(touched, None if row[6] is None else float(row[6]), away)
        turn = None if row[3] is None else int(row[3])
        return StoredTable(table_id, start, seats, moves, int(row[2]), turn, meta, str(row[8]))


def numbered(
    table_id: str, rows: Sequence[tuple[int, int, int, str]]
) -> tuple[tuple[int, int, str], ...]:
    """A table's moves ``(seat, seq, action)`` from its rows ``(number, seat, seq, action)`` in
    the order of their numbers, once checked as a server writes them: numbered 0, 1, 2... without
    a gap, and each seat's sequence numbers rising (a ``ValueError`` otherwise: a hand-edited or
    damaged database, whose table would replay into a position nobody played, and whose next
    move would take a number already stored)."""
    last: dict[int, int] = {}
    for expected, (number, seat, seq, _) in enumerate(rows):
        if number != expected:
            raise ValueError(f"table {table_id} has no move {expected} (its next is {number})")
        if seq <= last.get(seat, 0):
            raise ValueError(
                f"table {table_id}: move {number} of seat {seat} has sequence number {seq}, "
                f"not above its previous {last.get(seat, 0)}"
            )
        last[seat] = seq
    return tuple((seat, seq, action) for _, seat, seq, action in rows)


def now() -> float:
    """The wall clock the store writes (seconds since the epoch): a turn clock's deadline must
    mean the same after a restart, which a monotonic clock does not."""
    return time.time()


@attrs.frozen
class _Job:
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]
    write: Callable[[sqlite3.Connection], object]


def _identity(path: str) -> tuple[int, int]:
    """The file at ``path`` (its device and inode): a new file at that path is another."""
    found = os.stat(path)
    return found.st_dev, found.st_ino


class _lock:
    """An exclusive, non-blocking lock on the database file itself (flock: freed by the system
    when the process dies, so a killed server leaves no stale lock), ``real`` the path of the
    file, symlinks resolved, and ``path`` the name the operator gave, for the messages. The file
    is created empty if it is new (an empty file is an empty SQLite database).

    Why the file itself and not a lock file beside it: a lock file can be deleted while the server
    runs (a temporary-file cleaner, an operator tidying up), after which a second server would
    take a new one and start on the same database (an outside probe did exactly that); the
    database cannot be deleted without losing the tables anyway. A flock is not one of SQLite's
    own (POSIX) locks, which it leaves alone, but closing any descriptor of the file drops those:
    so the descriptor stays open until the store has closed its connections (:meth:`close` is
    called last). Where the system has no flock, no lock is taken."""

    def __init__(self, real: str, path: str) -> None:
        try:
            self.file = open(real, "a+b")  # noqa: SIM115 (held open until close)
        except OSError as error:
            raise StoreError(f"cannot write the database {path}: {error.strerror}") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover (Windows)
            return
        try:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.file.close()
            raise StoreError(
                f"another server is using the database {path} (the file is locked)"
            ) from None

    def close(self) -> None:
        self.file.close()


def _number(value: object, kind: Callable[[Any], _N], otherwise: _N) -> _N:
    """``value`` read as ``kind`` (int or float), or ``otherwise`` for what does not read."""
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        return otherwise


def _connect_read_only(path: str) -> sqlite3.Connection:
    """A connection that never writes: ``mode=ro``, or, where SQLite cannot open the shared
    memory file a WAL database reads through (a read-only folder after a clean stop), the file
    read as it stands (``immutable``: right then, as nothing can write there either)."""
    if not os.path.isfile(path):
        raise OSError(f"no such file: {path}")
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro"
    try:
        return _opened(uri)
    except sqlite3.Error:
        return _opened(uri + "&immutable=1")


def _opened(uri: str) -> sqlite3.Connection:
    db = sqlite3.connect(uri, uri=True, isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout=10000")
        db.execute("SELECT count(*) FROM tables").fetchone()
    except sqlite3.Error:
        db.close()
        raise
    return db


def _connect(path: str) -> sqlite3.Connection:
    # isolation_level=None: transactions are begun and committed explicitly.
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=True)
    db.execute("PRAGMA busy_timeout=10000")  # the writer and the creations share the file
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


class _transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")

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
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from ..engine.state import GameState
from ..formats import GameRecord, MatchRecord, from_json, to_json
from ..formats import replay as replay_record
from ..play.match import Match

__all__ = ["SeatRow", "StoredTable", "TableStore", "token_digest"]

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
"""


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
class StoredTable:
    """A table as loaded from the store: its id, its start record, its seats and its moves as
    ``(seat, seq, action notation)`` in the order they were played."""

    id: str
    start: GameRecord | MatchRecord
    seats: tuple[SeatRow, ...]
    moves: tuple[tuple[int, int, str], ...]
    finished: bool

    def replay(self) -> GameState | Match:
        """The table's state now: its record replayed (a :class:`~buraco_rules.ReplayError`
        if the store holds an illegal move, which no server writes)."""
        actions = tuple(action for _, _, action in self.moves)
        record = attrs.evolve(self.start, actions=actions)  # type: ignore[arg-type]
        played: Sequence[GameState | Match] = replay_record(record)
        return played[-1]


class TableStore:
    """The SQLite file of a server (created on first use). Use it from one event loop: reads
    and table creations run on the caller's thread, appends on the store's writer thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db = _connect(self.path)
        self._db.executescript(_SCHEMA)
        # The appends waiting for the writer, and its wake-up: signalled only when the list
        # stops being empty, so that a busy writer takes many appends for one wake-up.
        self._pending: list[_Append] = []
        self._closing = False
        self._wake = threading.Condition()
        self._writer = threading.Thread(target=self._write, name="buraco-store", daemon=True)
        self._writer.start()

    def close(self) -> None:
        """Finish the appends under way, stop the writer and close the file."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._writer.join()
        self._db.close()

    def create(
        self,
        table_id: str,
        start: GameRecord | MatchRecord,
        seats: Sequence[SeatRow],
        tokens: dict[int, str],
    ) -> None:
        """Store a new table, with the digests of its human seats' ``tokens`` (seat: token)."""
        seat_data = json.dumps([attrs.asdict(s) for s in seats])
        with _transaction(self._db):
            self._db.execute(
                "INSERT INTO tables (id, created, start, seats) VALUES (?, ?, ?, ?)",
                (table_id, time.time(), to_json(start), seat_data),
            )
            self._db.executemany(
                "INSERT INTO tokens (digest, table_id, seat) VALUES (?, ?, ?)",
                [(token_digest(t), table_id, seat) for seat, t in tokens.items()],
            )

    async def append(
        self, table_id: str, number: int, seat: int, seq: int, action: str, finished: bool
    ) -> None:
        """Append move ``number`` of a table; returns once it is committed. ``finished`` marks
        the table's game as over with it. A number or a seat's sequence number used twice is a
        ``sqlite3.IntegrityError`` and writes nothing."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        item = _Append(loop, done, (table_id, number, seat, seq, action), finished)
        with self._wake:
            self._pending.append(item)
            if len(self._pending) == 1:
                self._wake.notify()
        await done

    def _write(self) -> None:
        db = _connect(self.path)
        try:
            while True:
                with self._wake:
                    while not self._pending and not self._closing:
                        self._wake.wait()
                    batch, self._pending = self._pending, []
                if not batch:
                    return  # closing, and nothing left to write
                self._commit(db, batch)
        finally:
            db.close()

    @staticmethod
    def _commit(db: sqlite3.Connection, batch: list[_Append]) -> None:
        errors: list[BaseException | None] = []
        try:
            with _transaction(db):
                for item in batch:
                    # A savepoint each: a move refused by the database leaves the others in.
                    db.execute("SAVEPOINT move")
                    try:
                        db.execute(
                            "INSERT INTO moves (table_id, number, seat, seq, action)"
                            " VALUES (?, ?, ?, ?, ?)",
                            item.row,
                        )
                        if item.finished:
                            db.execute("UPDATE tables SET finished = 1 WHERE id = ?", item.row[:1])
                    except sqlite3.Error as refused:
                        db.execute("ROLLBACK TO move")
                        errors.append(refused)
                    else:
                        errors.append(None)
                    db.execute("RELEASE move")
        except sqlite3.Error as failed:  # the commit itself failed: nothing of the batch is in
            errors = [failed] * len(batch)
        for item, outcome in zip(batch, errors, strict=True):
            item.loop.call_soon_threadsafe(_settle, item.done, outcome)

    def seat_of(self, token: str) -> tuple[str, int] | None:
        """The table and seat a token opens, or None."""
        row = self._db.execute(
            "SELECT table_id, seat FROM tokens WHERE digest = ?", (token_digest(token),)
        ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def unfinished(self) -> list[str]:
        """The ids of the tables whose game goes on, oldest first."""
        rows = self._db.execute("SELECT id FROM tables WHERE finished = 0 ORDER BY created, id")
        return [str(r[0]) for r in rows]

    def count_unfinished(self) -> int:
        """How many tables' games go on."""
        return int(self._db.execute("SELECT count(*) FROM tables WHERE finished = 0").fetchone()[0])

    def load(self, table_id: str) -> StoredTable | None:
        """A table with all its moves, or None if there is none by that id."""
        row = self._db.execute(
            "SELECT start, seats, finished FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        if row is None:
            return None
        start = from_json(row[0])
        if not isinstance(start, GameRecord | MatchRecord):
            raise ValueError(f"table {table_id} has no record")  # only a hand-edited database
        seats = tuple(SeatRow(**s) for s in json.loads(row[1]))
        moves = tuple(
            (int(seat), int(seq), str(action))
            for seat, seq, action in self._db.execute(
                "SELECT seat, seq, action FROM moves WHERE table_id = ? ORDER BY number",
                (table_id,),
            )
        )
        return StoredTable(table_id, start, seats, moves, bool(row[2]))


@attrs.frozen
class _Append:
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]
    row: tuple[str, int, int, int, str]
    finished: bool


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.cancelled():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


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

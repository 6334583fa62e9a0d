"""The tables of a server: each one's state, seats, connections and bots, and the one path a
move takes: checked by the engine for the seat that sent it, committed to the store, and only
then told to the seats, each of which receives its own view and nothing else.

The hub runs on one asyncio event loop. Each table has a lock, so its moves are applied one at
a time; tables are independent. Nothing here knows about HTTP or WebSockets: a connection is
anything with a non-blocking ``send(message)``.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import logging
import math
import random
import secrets
from collections import Counter, OrderedDict
from collections.abc import Coroutine, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, Protocol

import attrs

from .. import variants
from ..bots import (
    BOT_NAMES,
    SEARCH_BOTS,
    Bot,
    GreedyBot,
    ISMCTSBot,
    MonteCarloBot,
    bot_from_name,
)
from ..core.actions import Action
from ..core.errors import IllegalAction
from ..core.quoting import describe
from ..engine.scoring import TeamScore, score
from ..engine.state import GameState, Phase
from ..formats import (
    DecodeError,
    GameRecord,
    MatchRecord,
    NotationError,
    format_action,
    from_data,
    parse_action,
    to_data,
    to_json,
)
from ..hidden.views import PlayerView, view
from ..play.face import apply, legal_actions, new_game
from ..play.match import Match, new_match
from .clock import (
    AWAY_PAUSE,
    DEFAULT_TURN_SECONDS,
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    RESTART_GRACE,
)
from .store import EXPIRED, FINISHED, SeatRow, StoredTable, TableMeta, now
from .stores import SharedStore, Store, TableLeases, is_conflict, is_full
from .thinking import Backoff, ThinkingPool, one_line

__all__ = [
    "FINISHED_KEPT",
    "TOUCH_EVERY",
    "Connection",
    "CreateError",
    "RecordError",
    "StorageFailed",
    "Table",
    "TableHub",
    "load_table",
]

log = logging.getLogger("buraco_rules.server")

Message = dict[str, Any]

_COMPACT: Final = (",", ":")
_LOOKUP_LOG_EVERY: Final = 10.0  # seconds between two log lines of seats not looked up

TOUCH_EVERY: Final = 600.0
"""The most seconds a table's last move time (for its expiry) may lag behind in the store: a
move writes it with its own row only if the stored one is older (or the clock changed)."""

_PRESENCE_EVERY: Final = 0.25
"""Seconds a table's seats' presence changes are gathered before the views that show them are
sent (at most one such round a table in that time, however many connections come and go)."""

FINISHED_KEPT: Final = 256
"""How many finished tables nobody watches stay in memory (the others are replayed from the
store, in a thread, when a seat comes back)."""


class Connection(Protocol):
    """A seat's connection as the hub sees it."""

    def send(self, message: Message | str) -> None:
        """Queue ``message`` for the client (a dict, or its JSON text already encoded); never
        blocks."""
        ...


class CreateError(ValueError):
    """A request for a new table that the hub refuses (the message says why; ``status`` and
    ``code`` are the HTTP answer's)."""

    def __init__(self, message: str, *, status: int = 400, code: str = "bad-table") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class StorageFailed(Exception):
    """A table the store could not write (a full disk, an unwritable file): nothing of it was
    kept."""


class RecordError(ValueError):
    """A record the hub will not give: ``code`` is ``bad-token`` (the token opens no seat of
    that table) or ``not-over`` (its hands are still hidden)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@attrs.define(eq=False)
class _Seat:
    kind: str
    bot: Bot | None
    bot_name: str | None
    last_seq: int = 0
    history: dict[int, str] = attrs.Factory(dict)
    connections: set[Connection] = attrs.Factory(set)


@attrs.define(eq=False)
class Table:
    """One table: its start record, its state now and the moves that led there."""

    id: str
    start: GameRecord | MatchRecord
    state: GameState | Match
    seats: list[_Seat]
    moves: list[tuple[int, str]] = attrs.Factory(list)
    """Every move so far as ``(seat, notation)``."""
    lock: asyncio.Lock = attrs.Factory(asyncio.Lock)
    rng: random.Random = attrs.Factory(lambda: random.Random(secrets.randbits(64)))
    bot_task: asyncio.Task[None] | None = None
    turn_seconds: int | None = None
    """The turn clock: the seconds a human seat has for a turn (None: no clock)."""
    deadline: float | None = None
    """When the clock of the seat to move runs out (wall-clock seconds); None if none runs."""
    away: set[int] = attrs.Factory(set)
    """The human seats a bot plays because their clock ran out, until their person moves."""
    coming_back: set[int] = attrs.Factory(set)
    """The away seats whose person said they are back during the seat's own turn: theirs again
    once the bot has finished that turn."""
    returning: set[int] = attrs.Factory(set)
    """The away seats whose page was opened again since they went away: at the start of their
    next turn the bot waits :data:`~buraco_rules.server.clock.AWAY_PAUSE` for the person."""
    touched: float = attrs.Factory(now)
    """When the table last moved (or was created): its expiry counts from here."""
    client: str = ""
    """The address of the table's creator."""
    notice: Message | None = None
    """A table-wide problem its people are told of (a move not stored, a bot retrying)."""
    hand_starts: list[int] = attrs.Factory(lambda: [0])
    """The number of the first move of each hand (a match has several)."""
    closed: bool = False
    """Expired: the table's game was closed unfinished and it takes no move any more."""
    stale: bool = False
    """Changes were committed elsewhere that this process has not taken in: nobody here watches
    the table and this process does not drive it, so it catches up only when that changes."""
    storing: int = -1
    """The number of the move this process is committing (-1: none), whose notification is no
    news to it."""
    timer: asyncio.TimerHandle | None = None
    presence_timer: asyncio.TimerHandle | None = None
    """The round of views that shows a seat connected or gone, while one is due."""
    shown: dict[Connection, tuple[bool, ...]] = attrs.Factory(dict)
    """Which seats each connection was last shown connected: a presence round skips those that
    have seen the table's presence as it is."""
    stored: TableMeta | None = None
    """The :class:`TableMeta` the store holds (None: not known), so that a move that changes
    none of it but the time writes only its own row."""

    @property
    def hand(self) -> GameState:
        """The hand in play (a match's current hand)."""
        return self.state.hand if isinstance(self.state, Match) else self.state

    @property
    def is_over(self) -> bool:
        """Whether the table's game (its hand, or its match) has ended."""
        return self.state.is_over

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.seats)

    def meta(self) -> TableMeta:
        """What the store keeps of the table beside its moves."""
        return TableMeta(self.touched, self.deadline, tuple(sorted(self.away)))

    def move_data(self, number: int) -> Message:
        """Move ``number`` as the protocol shows it: its seat, notation and 1-based hand."""
        seat, action = self.moves[number]
        hand = bisect.bisect_right(self.hand_starts, number)
        return {"number": number, "seat": seat, "action": action, "hand": hand}

    def welcome(self, seat: int) -> Message:
        """What a connection that joins ``seat`` is sent first (its view follows): the table,
        the seat's next sequence number, the turn clock and every move of the hand in play."""
        return {
            "type": "welcome",
            "table": self.id,
            "seat": seat,
            "players": self.players,
            "variant": self.hand.rules.name,
            "title": self.hand.rules.title,
            "match": isinstance(self.state, Match),
            "next_seq": self.seats[seat].last_seq + 1,
            "turn_seconds": self.turn_seconds,
            "log": [self.move_data(n) for n in range(self.hand_starts[-1], len(self.moves))],
        }

    def scores(self) -> list[tuple[TeamScore, TeamScore]]:
        """The scores of the hands finished so far."""
        if isinstance(self.state, Match):
            return list(self.state.scores)
        return [score(self.state)] if self.state.is_over else []

    def view_message(self, seat: int) -> Message:
        """What ``seat`` is sent after every change: its view, its legal moves in notation,
        and public facts (the last move, the finished hands' scores, the match's totals)."""
        seen = view(self.hand, seat)
        message = self._public()
        message.update(self._private(seat, seen))
        message["points"] = list(seen.public_points)
        return message

    def view_text(self, seat: int, public: str | None = None) -> str:
        """:meth:`view_message` of ``seat`` as the JSON text sent (the same object, its keys
        in another order). ``public`` is :meth:`public_text`, which is the same for every seat
        of one change, so :meth:`broadcast` encodes it once for them all."""
        if public is None:
            public = self.public_text()
        private = json.dumps(self._private(seat, view(self.hand, seat)), separators=_COMPACT)
        return f"{private[:-1]},{public[1:]}"

    def public_text(self) -> str:
        """The part of every seat's view message that all seats share, as JSON text: nothing
        in it depends on a hand, the stock or a closed pile."""
        message = self._public()
        # A team's points come from its melds, on the table for everyone (R17, R18): any
        # seat's view has the same.
        message["points"] = list(view(self.hand, 0).public_points)
        return json.dumps(message, separators=_COMPACT)

    def _private(self, seat: int, seen: PlayerView) -> Message:
        # The seat to act's legal moves are the same from its view and from the state (a view
        # holds all they depend on); the state's are cached, so they cost nothing to list again.
        legal = [format_action(a) for a in legal_actions(self.hand)] if seen.is_my_turn else []
        return {
            "seat": seat,
            "next_seq": self.seats[seat].last_seq + 1,
            "view": to_data(seen),
            "legal": legal,
        }

    def _public(self) -> Message:
        last = self.move_data(len(self.moves) - 1) if self.moves else None
        clock = None
        if self.deadline is not None and self.turn_seconds is not None and not self.is_over:
            clock = {
                "seat": self.hand.current_player,
                "turn_seconds": self.turn_seconds,
                "remaining": round(max(0.0, self.deadline - now()), 1),
            }
        match = None
        if isinstance(self.state, Match):
            match = {
                "target": self.state.rules.match_target,
                "totals": list(self.state.totals),
                "winner": self.state.winner,
                "hand": len(self.state.finished_hands) + (0 if self.state.is_over else 1),
            }
        return {
            "type": "view",
            "table": self.id,
            "number": len(self.moves),
            "over": self.is_over,
            "last": last,
            "scores": [[_score_data(s) for s in pair] for pair in self.scores()],
            "match": match,
            "seats": [_seat_data(s, n in self.away) for n, s in enumerate(self.seats)],
            "clock": clock,
            "notice": self.notice,
        }

    def broadcast(self) -> None:
        """Send every connected seat its own view message (a seat nobody watches costs
        nothing: its view is not even built)."""
        public: str | None = None
        present = self.presence()
        for seat, place in enumerate(self.seats):
            if place.connections:
                if public is None:
                    public = self.public_text()
                message = self.view_text(seat, public)
                for connection in tuple(place.connections):
                    connection.send(message)
                    self.shown[connection] = present

    def presence(self) -> tuple[bool, ...]:
        """Which seats have a connection: what a view's ``seats[].connected`` says."""
        return tuple(bool(place.connections) for place in self.seats)

    def show_presence(self) -> None:
        """Send the view again to every connection that was last shown another presence than
        the table's now (a seat connected or gone since): the others see it live."""
        self.presence_timer = None
        now_present = self.presence()
        public: str | None = None
        for seat, place in enumerate(self.seats):
            stale = [c for c in place.connections if self.shown.get(c) != now_present]
            if stale:
                if public is None:
                    public = self.public_text()
                message = self.view_text(seat, public)
                for connection in stale:
                    connection.send(message)
                    self.shown[connection] = now_present


def _score_data(team: TeamScore) -> Message:
    data: Message = to_data(team)
    data["total"] = team.total
    return data


def _seat_data(seat: _Seat, away: bool) -> Message:
    return {
        "kind": seat.kind,
        "bot": seat.bot_name,
        "connected": bool(seat.connections),
        "away": away,
    }


class TableHub:
    """Every table of a server, backed by a :class:`~buraco_rules.server.stores.Store` (the
    SQLite file, or a PostgreSQL database shared with other processes).

    ``bot_delay`` is the pause, in seconds, before each bot move (so a person can follow the
    game); ``max_tables`` caps the unfinished tables, so that a flood of creations cannot fill
    the disk, and ``max_tables_per_client`` those one address created (with a shared store,
    those of the whole database, counted there, for every process). ``search_budget`` is the
    thinking budget of every search bot seated (MonteCarloBot, ISMCTSBot), as a bot's name
    carries it: ``"0.25s"`` (CPU seconds a decision) or ``"200"`` (sampled deals a decision);
    None leaves them at their defaults. It is the server's to set, not a player's (a player
    names the bot only), and a bad one is a ``ValueError`` here; ``search_processes`` search
    decisions run at once, each in a process of the pool, whatever the number of tables (the
    others wait their turn), and none takes more than ``decision_seconds`` of CPU (None: no cap
    beyond the budget).

    ``turn_seconds`` is the turn clock of a table with two human seats or more whose request
    names none (None: no clock); a table with one human seat has none unless asked.
    ``expire_after`` is the seconds an unfinished table may go without a move before it is
    closed (None: never), and ``expire_unplayed`` the seconds a table held here may stay with
    no move at all and nobody connected (None: only ``expire_after``): a table nobody sat down
    at is closed soon, so that strangers' tables that nobody plays free the server's cap in an
    hour, not a day. ``lease_seconds`` (a shared store) bounds how long a frozen process
    keeps the tables it drives (see :class:`~buraco_rules.server.pgstore.Leases`).
    """

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.5,
        max_tables: int = 1000,
        max_tables_per_client: int = 20,
        search_budget: object = None,
        search_processes: int = 1,
        decision_seconds: float | None = 1.0,
        turn_seconds: int | None = DEFAULT_TURN_SECONDS,
        expire_after: float | None = 24 * 3600.0,
        expire_unplayed: float | None = 3600.0,
        lease_seconds: float = 10.0,
    ) -> None:
        if search_budget is not None:
            if not isinstance(search_budget, str):
                raise ValueError(f"bad budget {describe(search_budget)}: give it as text")
            bot_from_name(f"{SEARCH_BOTS[-1]}:{search_budget}")  # refused now, not at a table
        self.store = store
        self.bot_delay = bot_delay
        self.max_tables = max_tables
        self.max_tables_per_client = max_tables_per_client
        self.search_budget: str | None = search_budget
        self.decision_seconds = decision_seconds
        self.turn_seconds = turn_seconds
        self.expire_after = expire_after
        self.expire_unplayed = expire_unplayed
        self._lookup_logged = -math.inf  # when a failed seat lookup was last logged
        self._lookups_failed = 0  # since then
        self.tables: dict[str, Table] = {}
        self.going: dict[str, str] = {}
        """The unfinished tables held here, each with its creator's address (with SQLite, all of
        them: the caps are counted here; with a shared store, those this process serves now:
        the caps are counted in the database)."""
        self.per_client: Counter[str] = Counter()
        self.finished: OrderedDict[str, Table] = OrderedDict()
        """The finished tables nobody watches, the most recently left last (at most
        :data:`FINISHED_KEPT`): a seat that comes back is served without a replay."""
        self.set_aside: dict[str, str] = {}
        """The tables that could not be loaded, each with the reason (see the log)."""
        self.pool = ThinkingPool(search_processes)
        self._away_bot = GreedyBot()
        self._tasks: set[asyncio.Task[None]] = set()
        self._expiry: asyncio.Task[None] | None = None
        # A store shared with other processes: their moves are heard, each table's bots and
        # clock driven by the process holding its lease (with SQLite: this one, always).
        self.shared: SharedStore | None = store if isinstance(store, SharedStore) else None
        self.leases: TableLeases | None = None
        self.lease_every = 1.0
        """Seconds between two looks for tables whose driver died (shared stores)."""
        self.lease_seconds = lease_seconds
        """Seconds without a heartbeat after which a process's leases expire, so that the
        tables a frozen process drove are taken over (shared stores)."""
        self._listener: Any = None
        self._leasing: asyncio.Task[None] | None = None
        self._behind: set[str] = set()  # tables whose catch-up is scheduled
        self._leases_failing = False  # said once an outage

    # -- tables ---------------------------------------------------------------------------

    async def create(self, request: object, *, client: str = "") -> Message:
        """Create a table from a request (see the docs' ``POST /api/tables``) sent from the
        address ``client``; the answer holds each human seat's token, which is shown this once
        and never stored. A :class:`CreateError` for a bad request or a full server, a
        :class:`StorageFailed` if the store cannot keep it."""
        rules, players, kinds, is_match, turn = _read_spec(request)
        # A shared store counts the caps in the database, for every process (see _store_new).
        if self.shared is None and len(self.going) >= self.max_tables:
            raise self._full("server")
        if self.shared is None and self.per_client[client] >= self.max_tables_per_client:
            raise self._full("client")
        if turn is _UNSET:  # tables of friends (one person, with bots) have no clock
            turn = self.turn_seconds if kinds.count("human") >= 2 else None
        seed = secrets.randbits(128)
        start: GameRecord | MatchRecord
        state: GameState | Match
        if is_match:
            state = new_match(rules, players, seed=seed)
            start = MatchRecord.from_match(state, ())
        else:
            state = new_game(rules, players, seed=seed)
            start = GameRecord.from_game(state, ())
        table_id = secrets.token_hex(8)
        rows = [SeatRow("human") if k == "human" else SeatRow("bot", k) for k in kinds]
        tokens = {s: secrets.token_urlsafe(32) for s, k in enumerate(kinds) if k == "human"}
        table = Table(
            table_id,
            start,
            state,
            [_new_seat(r, self.search_budget, self.decision_seconds) for r in rows],
        )
        table.turn_seconds = turn if isinstance(turn, int) else None
        table.client = client
        table.deadline = None  # the clock starts when the first person sits down (join)
        table.stored = table.meta()
        # Counted before the commit, which yields: creations under way count toward the caps.
        self._count(table_id, client)
        stored: dict[str, Any] = {
            "client": client,
            "turn_seconds": table.turn_seconds,
            "meta": table.meta(),
        }
        try:
            if self.shared is not None:  # the cluster's caps, counted in its transaction
                limits = (self.max_tables, self.max_tables_per_client)
                await self.shared.create(table_id, start, rows, tokens, **stored, limits=limits)
            else:
                await self.store.create(table_id, start, rows, tokens, **stored)
        except self.store.errors as error:
            self._uncount(table_id)
            cap = is_full(error)
            if cap is not None:
                raise self._full(cap) from None
            log.warning("a table was not stored: %s", one_line(error))
            raise StorageFailed("the table could not be saved; try again later") from None
        self.tables[table_id] = table
        if self.leases is not None and _needs_driver(table):
            try:  # its creator drives it from the start (else the lease loop's next look)
                await self.leases.try_take(table_id)
            except self.store.errors as error:
                log.warning("table %s: lease not taken now: %s", table_id, one_line(error))
        log.info("table %s created: %s, %d players, seats %s", table_id, rules.name, players, kinds)
        self._arm(table)
        self.wake_bots(table)
        seats: list[Message] = []
        for s, row in enumerate(rows):
            entry: Message = {"seat": s, "kind": row.kind}
            entry.update({"token": tokens[s]} if row.kind == "human" else {"bot": row.bot})
            seats.append(entry)
        return {
            "table": table_id,
            "variant": rules.name,
            "players": players,
            "match": is_match,
            "turn_seconds": table.turn_seconds,
            "seats": seats,
        }

    def _full(self, cap: str) -> CreateError:
        """The refusal of a creation past a cap: ``"server"``'s or ``"client"``'s."""
        if cap == "server":  # no fault of the client's: the server's, answered as such
            where = "the server" if self.shared is None else "the database"
            return CreateError(
                f"{where} already holds {self.max_tables} unfinished tables: try again later",
                status=503,
                code="server-full",
            )
        return CreateError(
            f"one address may hold {self.max_tables_per_client} unfinished tables: "
            "finish one first",
            status=429,
            code="too-many-tables",
        )

    def _count(self, table_id: str, client: str) -> None:
        self.going[table_id] = client
        self.per_client[client] += 1

    def _uncount(self, table_id: str) -> None:
        client = self.going.pop(table_id, None)
        if client is not None:
            self.per_client[client] -= 1
            if self.per_client[client] <= 0:
                del self.per_client[client]

    def load_unfinished(self) -> int:
        """Load every unfinished table from the store by replaying its record; how many. A
        table that cannot be loaded is logged once (its id and why) and set aside
        (:attr:`set_aside`): the others are served all the same. With a store shared by several
        processes, none: a process holds only the tables it serves (loaded when one of their
        seats joins here, or when it takes over their driving), so that its memory and its
        start-up do not grow with the whole database."""
        if self.shared is not None:
            return 0
        count = 0
        for table_id in self.store.unfinished():
            table = self._load_now(table_id)
            if table is not None and not table.is_over:
                self._count(table_id, table.client)
                count += 1
        return count

    def _load_now(self, table_id: str) -> Table | None:
        try:
            stored = self.store.load(table_id)
            table = (
                None
                if stored is None
                else load_table(stored, self.search_budget, self.decision_seconds)
            )
        except self.store.errors as error:  # the database, not the table: tried again later
            log.warning("table %s not loaded now: %s", table_id, one_line(error))
            return None
        except Exception as error:  # any table the store cannot give back: set aside, go on
            self._set_aside(table_id, error)
            return None
        if table is not None:
            self.tables[table_id] = table
        return table

    def _set_aside(self, table_id: str, error: BaseException) -> None:
        reason = one_line(error)
        self.set_aside[table_id] = reason
        log.error("table %s set aside, it cannot be loaded: %s", table_id, reason)

    async def find(self, token: str, table_id: str | None = None) -> tuple[Table, int] | None:
        """The table and seat a token opens (and, if ``table_id`` is given, only on that
        table), or None. A finished table not in memory is replayed off the event loop. A
        :class:`StorageFailed` if the store cannot be read now."""
        try:
            found = self.store.seat_of(token)
        except self.store.errors as error:
            # Once in a while, not once a join: during an outage every page retries its join
            # (an outside probe counted 463 lines in 12 s of a PostgreSQL stop).
            self._lookups_failed += 1
            if (moment := now()) - self._lookup_logged >= _LOOKUP_LOG_EVERY:
                log.warning("%d seats not looked up: %s", self._lookups_failed, one_line(error))
                self._lookup_logged, self._lookups_failed = moment, 0
            raise StorageFailed("the server cannot reach its database; try again") from None
        if found is None or (table_id is not None and found[0] != table_id):
            return None
        table = self.tables.get(found[0])
        if table is None and found[0] in self.finished:
            table = self.tables[found[0]] = self.finished.pop(found[0])
        if table is not None and self.shared is not None:
            # Up to the rows before the welcome: a seat coming from a process that died must
            # not be told a next_seq behind what that process acknowledged to it.
            await self._catch_up(table)
        if table is None and found[0] not in self.set_aside:
            table = await self._load_later(found[0])
        return None if table is None or table.closed else (table, found[1])

    async def _load_later(self, table_id: str) -> Table | None:
        try:
            stored = self.store.load(table_id)
            if stored is None or stored.finished == EXPIRED:
                return None
            table = await asyncio.to_thread(
                load_table, stored, self.search_budget, self.decision_seconds
            )
        except self.store.errors as error:  # the database, not the table: tried again later
            log.warning("table %s not loaded now: %s", table_id, one_line(error))
            raise StorageFailed("the table cannot be loaded now; try again") from None
        except Exception as error:
            self._set_aside(table_id, error)
            return None
        loaded = self.tables.setdefault(table_id, table)  # another join may have loaded it
        if loaded is table and not table.is_over and table_id not in self.going:
            self._count(table_id, table.client)
        if self.shared is not None and loaded is table:
            self._heard(table_id, -1)  # what was committed while it loaded
        return loaded

    async def record(self, table_id: str, token: str) -> str:
        """The record of a table whose game is over, as ``to_json`` writes it, for a token of
        one of its seats (a :class:`RecordError` otherwise)."""
        stored = self._finished(table_id, token)
        return await asyncio.to_thread(_final_record, stored)

    async def hands(self, table_id: str, token: str) -> str:
        """Each hand of a table whose game is over, as the record of that hand (its deal, its
        actions and its scores; ``MatchRecord.hands``), in a JSON list of what ``to_json``
        writes, for a token of one of its seats (a :class:`RecordError` otherwise): what a page
        needs to deal a match's hands again, where the match's record keeps only a seed."""
        stored = self._finished(table_id, token)
        return await asyncio.to_thread(_final_hands, stored)

    def _finished(self, table_id: str, token: str) -> StoredTable:
        try:
            found = self.store.seat_of(token)
            if found is None or found[0] != table_id:
                raise RecordError("bad-token", "no seat of this table has that token")
            stored = self.store.load(table_id)
        except self.store.errors as error:
            log.warning("table %s: record not read: %s", table_id, one_line(error))
            raise StorageFailed("the server cannot reach its database; try again") from None
        if stored is None or stored.finished != FINISHED:
            raise RecordError("not-over", "the record is given once the game is over")
        return stored

    async def open(self) -> None:
        """With a store shared by several processes: hear their changes and take the leases of
        the tables to drive (call on the loop before :meth:`start`; nothing to do with SQLite)."""
        if self.shared is None:
            return
        self._listener = await self.shared.listen(self._heard, self._missed, self._down)
        self.leases = await self.shared.leases(
            self._lost, check_every=self.lease_every, lease_seconds=self.lease_seconds
        )
        for table_id in list(self.tables):  # what was committed between loading and listening
            self._heard(table_id, -1)
        self._leasing = asyncio.get_running_loop().create_task(self._lease_loop())

    def drives(self, table: Table) -> bool:
        """Whether this process drives the table's bots and clock (it holds its lease)."""
        return self.leases is None or table.id in self.leases.held

    def start(self) -> None:
        """Start the bots, turn clocks and expiry of every loaded table (call on the loop). A
        clock that ran out while the server was down (or nearly) gives its seat
        :data:`RESTART_GRACE` seconds more (at most a turn): nobody is played by a bot for the
        server's downtime."""
        for table in self.tables.values():
            _grace(table)
            self._arm(table)
            self.wake_bots(table)
        if self.expire_after is not None or self.expire_unplayed is not None:
            self._expiry = asyncio.get_running_loop().create_task(self._expire_loop())

    async def stop(self) -> None:
        """Stop every bot task, turn clock and the expiry."""
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task is not None]
        tasks += list(self._tasks)
        if self._expiry is not None:
            tasks.append(self._expiry)
        if self._leasing is not None:
            tasks.append(self._leasing)
        for table in self.tables.values():
            if table.timer is not None:
                table.timer.cancel()
            if table.presence_timer is not None:
                table.presence_timer.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for part in (self._listener, self.leases):
            if part is not None:
                await part.close()

    # -- seats ----------------------------------------------------------------------------

    def join(self, table: Table, seat: int, connection: Connection) -> None:
        """Add a connection to a seat and send it the seat's view; if the seat had none, the
        other seats are sent theirs again, which show it connected (:meth:`_presence_changed`)."""
        place = table.seats[seat]
        if self.shared is not None and table.id not in self.tables and not table.closed:
            self.tables[table.id] = table  # held again: it was let go since it was found
            if not table.is_over:
                self._count(table.id, table.client)
            self._heard(table.id, -1)
        first = not place.connections
        place.connections.add(connection)
        if seat in table.away:
            table.returning.add(seat)
        if table.turn_seconds is not None and table.deadline is None and not table.moves:
            self._start_clock(table)
        connection.send(table.view_text(seat))
        table.shown[connection] = table.presence()
        if first:
            self._presence_changed(table)

    def _start_clock(self, table: Table) -> None:
        """A person sits down at a table that has no move yet: its clock starts, for whoever is
        to move, so that nobody's time runs out before anyone could come. Stored (and so heard
        by the other processes) right after; kept in memory if the store fails, and stored
        with the next move."""
        if table.closed or table.is_over:
            return
        table.deadline = self._deadline(table, table.state, turn_changed=True)
        if table.deadline is not None:  # else a bot's turn: the clock starts with a person's
            self._arm(table)
            self._spawn_task(self._store_meta_locked(table, "the clock's start"))

    async def _store_meta_locked(self, table: Table, what: str) -> None:
        async with table.lock:
            await self._store_meta(table, what)

    async def _store_meta(self, table: Table, what: str, *, fenced: bool = False) -> None:
        """Store the table's clock and away seats as they are, under the table's lock (a
        failure is logged and kept in memory: the next move stores them); ``fenced``: only if
        the table has not moved on in the store (a driver's write, which must not land after
        another process took the table over and moved it, should this one freeze meanwhile)."""
        try:
            moves = len(table.moves) if fenced else None
            await self.store.update(table.id, table.meta(), moves=moves)
            table.stored = table.meta()
        except self.store.errors as error:
            log.warning("table %s: %s not stored: %s", table.id, what, one_line(error))

    async def back(self, table: Table, seat: int) -> None:
        """The person of ``seat`` says they are back (the ``back`` message): a seat the clock
        gave to a bot is theirs again, at once, or, during the seat's own turn (the one that ran
        out), once the bot has finished it: a turn whose time ran out is played, so that coming
        back without a move cannot hold a table up (a fresh clock at each return would). Nothing
        happens at a seat that is not away."""
        async with table.lock:
            if seat not in table.away or table.closed or table.is_over:
                return
            if table.hand.current_player == seat:
                table.coming_back.add(seat)
            else:
                await self._come_back(table, seat)

    def _presence_changed(self, table: Table) -> None:
        """A seat of ``table`` was connected or gone: the views that show it go out in
        :data:`_PRESENCE_EVERY` seconds, one round for every change meanwhile, so that a storm of
        connections costs the table's seats at most one view each that often."""
        if table.presence_timer is None:
            loop = asyncio.get_running_loop()
            table.presence_timer = loop.call_later(_PRESENCE_EVERY, table.show_presence)

    def leave(self, table: Table, seat: int, connection: Connection) -> None:
        """Remove a connection from its seat (the other seats are shown it gone if it was the
        seat's last); a finished table that nobody watches any more leaves the memory (it is
        loaded again from the store if a seat comes back)."""
        place = table.seats[seat]
        was_connected = bool(place.connections)
        place.connections.discard(connection)
        table.shown.pop(connection, None)
        if was_connected and not place.connections:
            self._presence_changed(table)
        nobody = not any(s.connections for s in table.seats)
        if table.is_over and nobody and self.tables.get(table.id) is table:
            del self.tables[table.id]
            self.finished[table.id] = table
            while len(self.finished) > FINISHED_KEPT:
                self.finished.popitem(last=False)
        elif nobody:
            self._let_go(table)

    def _let_go(self, table: Table) -> bool:
        """With a shared store, forget an unfinished table nobody here needs any more (no seat
        connected here, this process not driving it, no move of it under way): its changes are
        no longer followed, and a seat that joins here loads it again from the rows. Whether it
        was let go."""
        if self.shared is None or self.tables.get(table.id) is not table:
            return False
        if any(s.connections for s in table.seats) or table.lock.locked():
            return False
        if self.leases is not None and table.id in self.leases.held:
            return False
        if table.bot_task is not None and not table.bot_task.done():
            return False
        for timer in (table.timer, table.presence_timer):
            if timer is not None:
                timer.cancel()
        table.timer = table.presence_timer = None
        del self.tables[table.id]
        self._uncount(table.id)
        if table.is_over:
            self.finished[table.id] = table
            while len(self.finished) > FINISHED_KEPT:
                self.finished.popitem(last=False)
        return True

    async def move(
        self, table: Table, seat: int, seq: int, action: object, connection: Connection
    ) -> None:
        """Play one move sent by ``seat`` with sequence number ``seq``: answer ``accepted``
        (then every seat gets its view) or ``refused`` with the engine's code and message, to
        that connection alone. A sequence number already accepted is answered again, unplayed.
        A seat that was away is back (a bot stops playing it) with a move of its that is played
        (a refused one or a resent one changes nothing)."""
        async with table.lock:
            if table.closed:
                connection.send(
                    {"type": "error", "code": "expired", "message": "this table was closed"}
                )
                return
            place = table.seats[seat]
            for _ in range(_TRIES):
                if seq <= place.last_seq:
                    answer = _resent(place, seq, action)
                    connection.send(answer)
                    if answer["type"] == "accepted":  # the view it may have missed
                        connection.send(table.view_text(seat))
                    return
                if seq != place.last_seq + 1:
                    connection.send(
                        {
                            "type": "error",
                            "code": "bad-seq",
                            "message": f"the next move's seq is {place.last_seq + 1}, not {seq}",
                            "next_seq": place.last_seq + 1,
                        }
                    )
                    return
                try:
                    chosen = _read_action(action, table, seat)
                    after = apply(table.state, chosen, player=seat)
                except (NotationError, DecodeError) as error:
                    connection.send(_refused(seq, "not-an-action", str(error)))
                    return
                except IllegalAction as error:
                    connection.send(_refused(seq, str(error.code), str(error)))
                    return
                outcome = await self._commit(table, seat, seq, chosen, after)
                if outcome is _STORED:
                    break
                # Another process moved first, or the commit's fate is unknown (a connection
                # lost during it): the rows say, and the move is answered from them (played,
                # refused, or tried again on the table as it is now).
                if self.shared is None or not await self._sync(table):
                    outcome = _FAILED
                if outcome is _FAILED and place.last_seq < seq:
                    connection.send(
                        {
                            "type": "error",
                            "code": "storage-failed",
                            "message": "the move was not saved",
                        }
                    )
                    return
            else:
                connection.send(
                    {"type": "error", "code": "storage-failed", "message": "the move was not saved"}
                )
                return
            connection.send({"type": "accepted", "seq": seq, "number": len(table.moves)})
            if seat in table.away:  # a move played: its person is back
                await self._come_back(table, seat)
            else:
                table.broadcast()
        self.wake_bots(table)

    async def _come_back(self, table: Table, seat: int) -> None:
        """The person of an away seat is back: the bot leaves it, and its clock starts again
        if it is its turn (stored now; kept in memory if the store fails). Another seat's turn
        keeps the time it has left (an outside probe saw a return give it a fresh clock)."""
        table.away.discard(seat)
        table.returning.discard(seat)
        table.coming_back.discard(seat)
        own_turn = table.hand.current_player == seat
        table.deadline = self._deadline(table, table.state, turn_changed=own_turn)
        self._arm(table)
        await self._store_meta(table, "the seat back")
        table.broadcast()

    async def _commit(
        self, table: Table, seat: int, seq: int, action: Action, after: GameState | Match
    ) -> object:
        """Store the move, then take it into the table (in that order: nobody hears of a move
        the store does not hold). Called under the table's lock, so the table's next move waits
        for this commit, while other tables play on. A move that cannot be stored sets the
        table's notice (the people are told); the next stored move clears it. The outcome:
        :data:`_STORED`, :data:`_FAILED`, or :data:`_CONFLICT` (a shared store only: another
        process stored that move number first, nothing of this one was)."""
        notation = format_action(action)
        changed = _turn_of(after) != _turn_of(table.state)
        deadline = self._deadline(table, after, turn_changed=changed)
        touched = now()
        meta = TableMeta(touched, deadline, tuple(sorted(table.away)))
        last = table.stored
        fresh = (
            last is None
            or after.is_over
            or (last.deadline, last.away) != (meta.deadline, meta.away)
            or touched - last.touched > TOUCH_EVERY
        )
        number = len(table.moves)
        table.storing = number
        try:
            await self.store.append(
                table.id, number, seat, seq, notation, after.is_over, meta if fresh else None
            )
        except self.store.errors as error:
            if self.shared is not None and is_conflict(error):
                return _CONFLICT  # another process stored move ``number``: catch up, not a fault
            log.warning("table %s: move %d not stored: %s", table.id, number, one_line(error))
            if table.notice is None or table.notice["code"] != "storage-failed":
                table.notice = dict(_STORAGE_FAILED)
                table.broadcast()
            return _FAILED
        finally:
            table.storing = -1
        if _hands(after) > _hands(table.state) and not after.is_over:
            table.hand_starts.append(number + 1)
        table.state = after
        table.moves.append((seat, notation))
        table.touched, table.deadline = touched, deadline
        if fresh:
            table.stored = meta
        table.notice = None
        place = table.seats[seat]
        place.last_seq = seq
        place.history[seq] = notation
        self._arm(table)
        if after.is_over:
            self._uncount(table.id)
            log.info("table %s: game over after %d moves", table.id, len(table.moves))
        return _STORED

    # -- other processes (a shared store) -------------------------------------------------

    def _heard(self, table_id: str, number: int) -> None:
        """A change committed by some process (this one's included): a table held here that
        lacks it catches up (``number`` -1: a change of the table's row alone)."""
        table = self.tables.get(table_id)
        if table is None or table_id in self._behind:
            return
        if 0 <= number < len(table.moves) or 0 <= number == table.storing:  # no news
            return  # (a change of the row alone, -1, is news: storing is -1 when idle)
        if not self.drives(table) and not any(s.connections for s in table.seats):
            table.stale = True  # nobody here to tell: caught up when a seat joins or it is driven
            return
        self._behind.add(table_id)
        self._later(self._catch_up(table))

    def _down(self) -> None:
        """The database does not answer (the listener could not reconnect): no process can
        store a move, so every seat here is told, not only those of a table whose own write
        failed in this process (the processes share nothing but the database)."""
        for table in list(self.tables.values()):
            if table.notice is None and not (table.is_over or table.closed):
                table.notice = dict(_STORAGE_FAILED)
                table.broadcast()

    def _missed(self) -> None:
        """The listener reconnected (the database answers again): changes may have gone
        unheard, every table catches up, and a storage-failed notice goes (the next failed
        write says it again)."""
        log.warning("notifications may have been missed: catching up %d tables", len(self.tables))
        for table in list(self.tables.values()):
            if table.notice is not None and table.notice["code"] == "storage-failed":
                table.notice = None
                table.broadcast()
            if table.id not in self._behind:
                self._behind.add(table.id)
                self._later(self._catch_up(table))

    def _later(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _catch_up(self, table: Table) -> None:
        async with table.lock:
            self._behind.discard(table.id)
            if await self._sync(table):
                table.stale = False
        self.wake_bots(table)

    async def _sync(self, table: Table) -> bool:
        """Take into the table what other processes committed (its moves, clock, away seats,
        expiry) and send its seats here their views if anything changed; whether the store
        could be read. Called under the table's lock."""
        if self.shared is None:
            return False
        try:
            found = self.shared.since(table.id, len(table.moves))
        except self.store.errors as error:
            log.warning("table %s: not caught up: %s", table.id, one_line(error))
            return False
        if found is None:
            return False
        finished, meta, rows = found
        was_over = table.is_over
        for seat, seq, notation in rows:
            try:
                chosen = parse_action(notation, table.state, player=seat)
                after = apply(table.state, chosen, player=seat)
            except ValueError as error:  # only a hand-edited database
                log.error("table %s: a stored move cannot be played: %s", table.id, error)
                return False
            if _hands(after) > _hands(table.state) and not after.is_over:
                table.hand_starts.append(len(table.moves) + 1)
            table.state = after
            table.moves.append((seat, notation))
            place = table.seats[seat]
            place.last_seq = max(place.last_seq, seq)
            place.history[seq] = notation
        changed = bool(rows) or (table.deadline, table.away) != (meta.deadline, set(meta.away))
        table.touched, table.deadline, table.away = meta.touched, meta.deadline, set(meta.away)
        if rows and table.notice is not None and table.notice["code"] == "storage-failed":
            table.notice = None
        if table.is_over and not was_over:
            self._uncount(table.id)
        if finished == EXPIRED and not table.closed:
            self._close(table)
            return True
        self._arm(table)
        if changed:
            table.broadcast()
            # A bot may be to move now, and whoever called may return without waking it (a move
            # answered from the rows after this process lost the race for it: the outside probe
            # saw the driver's bots stop for good there, its lease keeping every other process
            # from taking over). The task waits for the lock the caller holds.
            self.wake_bots(table)
        return True

    async def _adopt(self, leases: TableLeases) -> None:
        """Take over (load and drive) the unfinished tables that need a driver and have none
        (their process died, or stopped), :data:`_ADOPT_AT_ONCE` at most a round, so that
        their bots and clocks go on. A clock that ran out meanwhile gives its seat
        :data:`RESTART_GRACE` seconds more (at most a turn), as at a restart."""
        try:
            for table_id in await leases.take_free(_ADOPT_AT_ONCE):
                table = self.tables.get(table_id)
                if table is None and table_id not in self.set_aside:
                    try:
                        table = await self._load_later(table_id)
                    except StorageFailed:
                        table = None
                if table is None or table.is_over or table.closed:
                    await leases.release(table_id)
                    continue
                log.info("table %s taken over", table_id)
                await self._catch_up(table)  # the last driver's moves first
                async with table.lock:
                    _grace(table)
                    self._arm(table)
                self.wake_bots(table)
        except self.store.errors as error:
            if not self._leases_failing:
                log.warning("tables not adopted now: %s", one_line(error))

    def _lost(self, tables: frozenset[str]) -> None:
        """This process lost its leases (its lease connection): it stops driving those tables
        until it takes their leases again (the leases say why, in the log)."""
        for table_id in tables:
            table = self.tables.get(table_id)
            if table is not None:
                self._arm(table)  # cancels its timer: not driven here any more
                if table.bot_task is not None:
                    table.bot_task.cancel()

    async def _lease_loop(self) -> None:
        """Take the lease of every table held here that needs a driver and has none (its
        process died, or never was), and give up those of tables over: a dead process's
        tables are driven again within about :attr:`lease_every` seconds."""
        leases = self.leases
        if leases is None:
            return
        rounds = 0
        while True:
            if rounds % _ORPHAN_EVERY == 0:
                await self._adopt(leases)
            rounds += 1
            failed = False
            for table in list(self.tables.values()):
                try:
                    if table.is_over or table.closed:
                        if table.id in leases.held:
                            await leases.release(table.id)
                    elif (
                        _needs_driver(table)
                        and table.id not in leases.held
                        and await leases.try_take(table.id)
                    ):
                        await self._catch_up(table)  # the last driver's moves first
                        async with table.lock:
                            self._arm(table)
                except self.store.errors as error:
                    if not self._leases_failing:  # one line an outage, not one a second
                        log.warning("leases not taken now: %s", one_line(error))
                    failed = True
                    break
            if not failed:
                await self._let_go_idle(leases)
            if self._leases_failing and not failed:
                log.info("leases taken again")
            self._leases_failing = failed
            await asyncio.sleep(self.lease_every)

    async def _let_go_idle(self, leases: TableLeases) -> None:
        """Give up the leases of tables over, expired or no longer held here, and let go the
        tables nobody here needs (:meth:`_let_go`): what a process holds stays what it
        serves."""
        for table_id in leases.held:
            table = self.tables.get(table_id)
            if table is None or table.is_over or table.closed:
                await leases.release(table_id)
        for table in list(self.tables.values()):
            self._let_go(table)

    # -- turn clock -----------------------------------------------------------------------

    def _deadline(
        self, table: Table, state: GameState | Match, *, turn_changed: bool
    ) -> float | None:
        """The clock's deadline once the table is at ``state``: a fresh one for a human seat
        whose turn begins, the running one for a turn that goes on, none for a bot's turn."""
        if table.turn_seconds is None or state.is_over:
            return None
        seat = (state.hand if isinstance(state, Match) else state).current_player
        if table.seats[seat].kind != "human" or seat in table.away:
            return None
        if turn_changed or table.deadline is None:
            return now() + table.turn_seconds
        return table.deadline

    def _arm(self, table: Table) -> None:
        """Set the table's timer for its deadline (and cancel the last one)."""
        if table.timer is not None:
            table.timer.cancel()
            table.timer = None
        if table.deadline is None or table.closed or not self.drives(table):
            return
        loop = asyncio.get_running_loop()
        table.timer = loop.call_later(max(0.0, table.deadline - now()), self._spawn, table)

    def _spawn(self, table: Table) -> None:
        self._spawn_task(self._time_out(table))

    def _spawn_task(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on the loop, kept until done (and cancelled by :meth:`stop`)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _time_out(self, table: Table) -> None:
        """The seat to move ran out of time: a bot plays it until its person moves again."""
        async with table.lock:
            deadline = table.deadline
            if deadline is None or table.closed or table.is_over or not self.drives(table):
                return
            if now() < deadline:  # moved on meanwhile: the timer is set again
                self._arm(table)
                return
            seat = table.hand.current_player
            table.away.add(seat)
            table.deadline = None
            log.info("table %s: seat %d ran out of time, a bot plays it", table.id, seat)
            await self._store_meta(table, "the away seat", fenced=True)
            table.broadcast()
        self.wake_bots(table)

    # -- expiry ---------------------------------------------------------------------------

    async def _expire_loop(self) -> None:
        limits = [x for x in (self.expire_after, self.expire_unplayed) if x is not None]
        every = min(60.0, min(limits) / 4)
        while True:
            await asyncio.sleep(every)
            idle, unplayed = self.expire_after, self.expire_unplayed
            await self.expire(
                -math.inf if idle is None else now() - idle,
                None if unplayed is None else now() - unplayed,
            )

    async def expire(self, before: float, unplayed_before: float | None = None) -> int:
        """Close every unfinished table that has not moved since ``before`` (wall-clock
        seconds), and, with ``unplayed_before``, every table held here with no move at all,
        created before then and with nobody connected: its game is not scored, its slot is
        freed, its seats are told (notice ``expired``) and their links open it no more. How
        many were closed."""
        closed = 0
        if self.shared is not None and before > -math.inf:
            # The tables no process here holds: closed in the database, by the stored time of
            # their last move, which lags the real one by up to TOUCH_EVERY (so never early).
            # The processes that hold one hear it closed.
            try:
                closed += len(await self.shared.expire_idle(before - TOUCH_EVERY))
            except self.store.errors as error:
                log.warning("idle tables not expired now: %s", one_line(error))
        for table_id in list(self.going):
            table = self.tables.get(table_id)
            if table is None or not _expires(table, before, unplayed_before):
                continue
            async with table.lock:
                if not _expires(table, before, unplayed_before) or table.is_over or table.closed:
                    continue
                try:
                    await self.store.expire(table_id)
                except self.store.errors as error:
                    log.warning("table %s: not expired: %s", table_id, one_line(error))
                    continue
                self._close(table)
                closed += 1
        return closed

    def _close(self, table: Table) -> None:
        """The table expired (here or in another process): its seats are told, its slot freed."""
        table.closed = True
        table.deadline = None
        self._arm(table)
        if table.bot_task is not None:
            table.bot_task.cancel()
        self._uncount(table.id)
        self.tables.pop(table.id, None)
        table.notice = {"code": "expired", "message": "this table was closed: no move"}
        table.broadcast()
        log.info("table %s expired after %d moves", table.id, len(table.moves))

    # -- bots -----------------------------------------------------------------------------

    def _bot_of(self, table: Table, seat: int) -> Bot | None:
        """The bot that plays ``seat`` now: its own, the away seat's, or None (a person)."""
        place = table.seats[seat]
        if place.bot is not None:
            return place.bot
        return self._away_bot if seat in table.away else None

    def wake_bots(self, table: Table) -> None:
        """Start the table's bot task if a bot is to move and none runs."""
        if table.is_over or table.closed or self._bot_of(table, table.hand.current_player) is None:
            return
        if not self.drives(table):
            return
        if table.bot_task is None or table.bot_task.done():
            table.bot_task = asyncio.get_running_loop().create_task(self._play_bots(table))

    async def _play_bots(self, table: Table) -> None:
        """Play the table's bots while one is to move. A bot that fails, or a move the store
        refuses, is tried again after a growing pause (bounded), the people told meanwhile:
        nothing but the end of the game (or of the server) stops a table's bots."""
        backoff = Backoff()
        while True:
            pause = self.bot_delay
            hand = table.hand
            seat = hand.current_player
            if seat in table.returning and hand.phase is Phase.DRAW:
                # A turn begins and its person opened the page again: they may be back for it
                # (a table's turn at most). A page left open asks nothing: its "back" button is
                # there, and a table whose people left plays on at the bot delay.
                table.returning.discard(seat)
                pause = max(pause, min(AWAY_PAUSE, table.turn_seconds or AWAY_PAUSE))
            await asyncio.sleep(backoff.pause(pause))
            async with table.lock:
                seat = table.hand.current_player
                bot = self._bot_of(table, seat)
                if table.is_over or table.closed or bot is None or not self.drives(table):
                    return
                try:
                    chosen = await self._think(table, seat, bot)
                    after = apply(table.state, chosen, player=seat)
                except Exception as error:  # a bot's failure, not the server's: retried
                    if backoff.failures == 0 and not isinstance(error, BrokenProcessPool):
                        log.exception("table %s: a bot failed", table.id)
                    else:
                        log.warning("table %s: a bot failed again: %s", table.id, one_line(error))
                    backoff.failed()
                    if table.notice is None:
                        table.notice = {
                            "code": "bot-retrying",
                            "message": "a bot could not move; retrying",
                        }
                        table.broadcast()
                    continue
                place = table.seats[seat]
                outcome = await self._commit(table, seat, place.last_seq + 1, chosen, after)
                if outcome is _CONFLICT and await self._sync(table):
                    continue  # another process moved first: think again from its move
                if outcome is not _STORED:
                    backoff.failed()
                    continue
                backoff.reset()
                if seat in table.coming_back and table.hand.current_player != seat:
                    await self._come_back(table, seat)  # the turn that ran out is played
                else:
                    table.broadcast()

    async def _think(self, table: Table, seat: int, bot: Bot) -> Action:
        seen = view(table.hand, seat)
        name = table.seats[seat].bot_name
        if name not in SEARCH_BOTS:
            return bot.choose(seen, table.rng)
        # Slow: in the pool's few processes, so that the loop serves other tables and no
        # number of search bots takes more than the pool's share of the machine.
        return await self.pool.decide(bot, seen, table.rng, owner=table.client)


def _grace(table: Table) -> None:
    """A table driven afresh (at a restart, or taken over): a clock that ran out, or nearly,
    gives its seat :data:`RESTART_GRACE` seconds more (at most a turn)."""
    if table.deadline is not None and table.turn_seconds is not None:
        grace = now() + min(RESTART_GRACE, table.turn_seconds)
        table.deadline = max(table.deadline, grace)


def _needs_driver(table: Table) -> bool:
    """Whether some process must drive the table: it has bots, or a turn clock."""
    return table.turn_seconds is not None or any(s.kind == "bot" for s in table.seats)


def _turn_of(state: GameState | Match) -> tuple[int, int]:
    """Whose turn, and in which hand: a change of either starts a turn clock afresh."""
    hand = state.hand if isinstance(state, Match) else state
    return (_hands(state), hand.current_player)


def _final_record(stored: StoredTable) -> str:
    """The record of a finished table with its scores, as ``to_json`` writes it."""
    final = stored.replay()
    record: GameRecord | MatchRecord = stored.record()
    if isinstance(final, Match):
        record = attrs.evolve(record, scores=tuple(final.scores))  # type: ignore[arg-type]
    else:
        record = attrs.evolve(record, scores=score(final))  # type: ignore[arg-type]
    return to_json(record)


def _final_hands(stored: StoredTable) -> str:
    """Each hand of a finished table as its own record, with its scores, in a JSON list of what
    ``to_json`` writes (one hand for a table of one hand)."""
    record = stored.record()
    if isinstance(record, MatchRecord):
        return "[" + ",".join(to_json(hand) for hand in record.hands()) + "]"
    return "[" + _final_record(stored) + "]"


def _new_seat(
    row: SeatRow, search_budget: str | None = None, decision_seconds: float | None = None
) -> _Seat:
    if row.kind == "bot" and row.bot is not None:
        name = row.bot
        if search_budget is not None and name in SEARCH_BOTS:
            name = f"{name}:{search_budget}"
        bot = bot_from_name(name)
        return _Seat("bot", _capped(bot, decision_seconds), row.bot)
    return _Seat("human", None, None)


def _capped(bot: Bot, seconds: float | None) -> Bot:
    """A search bot with the server's cap of CPU seconds a decision: it stops at its budget of
    deals or at the cap, whichever comes first."""
    if seconds is None or not isinstance(bot, ISMCTSBot | MonteCarloBot):
        return bot
    if bot.seconds is not None and bot.seconds <= seconds:
        return bot
    return attrs.evolve(bot, seconds=seconds)


def load_table(
    stored: StoredTable, search_budget: str | None = None, decision_seconds: float | None = None
) -> Table:
    """A stored table made live: its record replayed (slow for a long match: call it off the
    event loop once the server serves). What the server does with each table it loads, and
    what ``buraco-rules tables`` does to tell which ones it would set aside: any exception means
    the table cannot be served as stored (a ``ValueError`` for a record that does not replay, a
    bot the server does not know, or a move stored under a seat that was not to act: a
    hand-edited file, which would otherwise answer a seat ``duplicate`` for a move it never
    made)."""
    seats = [_new_seat(r, search_budget, decision_seconds) for r in stored.seats]
    states = stored.replay_all()
    table = Table(stored.id, stored.start, states[-1], seats)
    table.turn_seconds = stored.turn_seconds
    table.deadline = stored.meta.deadline
    table.away = set(stored.meta.away)
    table.touched = stored.meta.touched
    table.client = stored.client
    table.closed = stored.finished == EXPIRED
    table.stored = stored.meta
    for number in range(1, len(states)):
        if _hands(states[number]) > _hands(states[number - 1]) and not states[number].is_over:
            table.hand_starts.append(number)
    for number, (seat, seq, action) in enumerate(stored.moves):
        to_act = _turn_of(states[number])[1]
        if seat != to_act:
            raise ValueError(f"move {number} is stored under seat {seat}, not seat {to_act}")
        table.moves.append((seat, action))
        place = table.seats[seat]
        place.last_seq = seq
        place.history[seq] = action
    return table


def _expires(table: Table, before: float, unplayed_before: float | None) -> bool:
    """Whether ``table`` has gone without a move since ``before``, or has none at all, was
    created (touched last) before ``unplayed_before`` and has nobody connected."""
    if table.touched < before:
        return True
    return (
        unplayed_before is not None
        and not table.moves
        and table.touched < unplayed_before
        and not any(s.connections for s in table.seats)
    )


def _hands(state: GameState | Match) -> int:
    """How many hands of a match are over (0 for a single hand)."""
    return len(state.finished_hands) if isinstance(state, Match) else 0


def _read_action(action: object, table: Table, seat: int) -> Action:
    """The action a move carries, checked for ``seat`` as ``parse_action`` checks notation."""
    if isinstance(action, str):
        return parse_action(action, table.state, player=seat)
    decoded = from_data(action)
    if not isinstance(decoded, Action):
        raise DecodeError("a move's action must be an action document")
    return parse_action(format_action(decoded), table.state, player=seat)


def _refused(seq: int, code: str, message: str) -> Message:
    return {"type": "refused", "seq": seq, "code": code, "message": message}


def _resent(place: _Seat, seq: int, action: object) -> Message:
    """The answer to a move whose seq was accepted already: ``accepted`` again if it is the
    same move (a client resending after a reconnect), else an error."""
    played = place.history.get(seq)
    try:
        if isinstance(action, str):
            same = format_action(parse_action(action)) == played
        else:
            decoded = from_data(action)
            same = isinstance(decoded, Action) and format_action(decoded) == played
    except (NotationError, DecodeError):
        same = False
    if same:
        return {"type": "accepted", "seq": seq, "duplicate": True}
    return {
        "type": "error",
        "code": "seq-reused",
        "message": f"seq {seq} was already used by another move",
        "next_seq": place.last_seq + 1,
    }


_UNSET: Final = object()

_STORAGE_FAILED: Final = {
    "code": "storage-failed",
    "message": "moves cannot be saved right now; retrying",
}
"""A table's notice while the database cannot store its moves."""

_STORED: Final = object()
"""A commit's outcome: the move is stored and taken into the table."""
_FAILED: Final = object()
"""...the store failed (the table's notice says so)."""
_CONFLICT: Final = object()
"""...another process stored that move number first (a shared store)."""
_ORPHAN_EVERY: Final = 2  # lease rounds between two looks for tables no process holds
_ADOPT_AT_ONCE: Final = 64  # tables' leases taken over at most in one look
_TRIES: Final = 3  # a move tried again after conflicts, at most (each one catches up first)


def _read_spec(request: object) -> tuple[Any, int, list[str], bool, object]:
    if not isinstance(request, dict):
        raise CreateError("a table request is a JSON object")
    unknown = set(request) - {"variant", "players", "seats", "match", "options", "turn_seconds"}
    if unknown:
        raise CreateError(f"unknown fields {sorted(unknown)[:5]}")
    name = request.get("variant", "canasta-stbl")
    if not isinstance(name, str) or name not in variants.NAMES:
        raise CreateError(f"variant must be one of {', '.join(variants.NAMES)}")
    rules = variants.get(name)
    options = request.get("options", {})  # house rules (variants.OPTIONS), validated as such
    if not isinstance(options, dict) or len(options) > len(variants.OPTIONS):
        raise CreateError(f"options is an object of house rules: {', '.join(variants.OPTIONS)}")
    if options:
        try:
            rules = variants.with_options(rules, **options)
        except ValueError as error:  # InvalidRules, naming the option
            raise CreateError(f"options: {error}") from None
    players = request.get("players", rules.default_players)
    if type(players) is not int or players not in rules.player_counts:
        counts = " or ".join(map(str, rules.player_counts))
        raise CreateError(f"{rules.title} is played by {counts} players")
    kinds = request.get("seats", ["human"] + ["greedy"] * (players - 1))
    if not isinstance(kinds, Sequence) or isinstance(kinds, str) or len(kinds) != players:
        raise CreateError(f"seats must list {players} seats, each 'human' or a bot's name")
    for kind in kinds:
        if kind != "human" and kind not in BOT_NAMES:
            raise CreateError(f"each seat is 'human' or one of the bots {', '.join(BOT_NAMES)}")
    if "human" not in kinds:
        raise CreateError("a table needs at least one human seat")
    is_match = request.get("match", False)
    if type(is_match) is not bool:
        raise CreateError("match must be true (a match, R20) or false (a single hand)")
    if not is_match:
        try:
            variants.for_single_hand(rules)
        except ValueError as error:  # InvalidRules, naming the option
            raise CreateError(f"options: {error}") from None
    turn = request.get("turn_seconds", _UNSET)
    if (
        turn is not _UNSET
        and turn is not None
        and (type(turn) is not int or not MIN_TURN_SECONDS <= turn <= MAX_TURN_SECONDS)
    ):
        raise CreateError(
            f"turn_seconds must be null (no turn clock) or {MIN_TURN_SECONDS} to "
            f"{MAX_TURN_SECONDS} seconds"
        )
    return rules, players, list(kinds), is_match, turn

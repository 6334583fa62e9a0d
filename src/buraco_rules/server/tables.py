"""The tables of a server: each one's state, seats, connections and bots, and the one path a
move takes: checked by the engine for the seat that sent it, committed to the store, and only
then told to the seats, each of which receives its own view and nothing else.

The hub runs on one asyncio event loop. Each table has a lock, so its moves are applied one at
a time; tables are independent. Nothing here knows about HTTP or WebSockets: a connection is
anything with a non-blocking ``send(message)``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import sqlite3
from collections.abc import Sequence
from typing import Any, Final, Protocol

import attrs

from .. import variants
from ..bots import BOT_NAMES, SEARCH_BOTS, Bot, bot_from_name
from ..core.actions import Action
from ..core.errors import IllegalAction
from ..core.quoting import describe
from ..engine.scoring import TeamScore, score
from ..engine.state import GameState
from ..formats import (
    DecodeError,
    GameRecord,
    MatchRecord,
    NotationError,
    format_action,
    from_data,
    parse_action,
    to_data,
)
from ..hidden.views import PlayerView, view
from ..play.face import apply, legal_actions, new_game
from ..play.match import Match, new_match
from .store import SeatRow, StoredTable, TableStore

__all__ = ["Connection", "CreateError", "Table", "TableHub"]

log = logging.getLogger("buraco_rules.server")

Message = dict[str, Any]

_COMPACT: Final = (",", ":")


class Connection(Protocol):
    """A seat's connection as the hub sees it."""

    def send(self, message: Message | str) -> None:
        """Queue ``message`` for the client (a dict, or its JSON text already encoded); never
        blocks."""
        ...


class CreateError(ValueError):
    """A request for a new table that the hub refuses (the message says why)."""


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
        last = None
        if self.moves:
            last_seat, last_action = self.moves[-1]
            last = {"seat": last_seat, "action": last_action}
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
            "seats": [_seat_data(s) for s in self.seats],
        }

    def broadcast(self) -> None:
        """Send every connected seat its own view message (a seat nobody watches costs
        nothing: its view is not even built)."""
        public: str | None = None
        for seat, place in enumerate(self.seats):
            if place.connections:
                if public is None:
                    public = self.public_text()
                message = self.view_text(seat, public)
                for connection in tuple(place.connections):
                    connection.send(message)


def _score_data(team: TeamScore) -> Message:
    data: Message = to_data(team)
    data["total"] = team.total
    return data


def _seat_data(seat: _Seat) -> Message:
    return {"kind": seat.kind, "bot": seat.bot_name, "connected": bool(seat.connections)}


class TableHub:
    """Every table of a server, backed by a :class:`~buraco_rules.server.store.TableStore`.

    ``bot_delay`` is the pause, in seconds, before each bot move (so a person can follow the
    game); ``max_tables`` caps the unfinished tables, so that a flood of creations cannot fill
    the disk. ``search_budget`` is the thinking budget of every search bot seated (MonteCarloBot,
    ISMCTSBot), as a bot's name carries it: ``"0.25s"`` (CPU seconds a decision) or ``"200"``
    (sampled deals a decision); None leaves them at their defaults. It is the server's to set,
    not a player's (a player names the bot only), and a bad one is a ``ValueError`` here.
    """

    def __init__(
        self,
        store: TableStore,
        *,
        bot_delay: float = 0.5,
        max_tables: int = 1000,
        search_budget: object = None,
    ) -> None:
        if search_budget is not None:
            if not isinstance(search_budget, str):
                raise ValueError(f"bad budget {describe(search_budget)}: give it as text")
            bot_from_name(f"{SEARCH_BOTS[-1]}:{search_budget}")  # refused now, not at a table
        self.store = store
        self.bot_delay = bot_delay
        self.max_tables = max_tables
        self.search_budget: str | None = search_budget
        self.tables: dict[str, Table] = {}

    # -- tables ---------------------------------------------------------------------------

    def create(self, request: object) -> Message:
        """Create a table from a request (see the docs' ``POST /api/tables``); the answer
        holds each human seat's token, which is shown this once and never stored."""
        spec = _read_spec(request)
        if self.store.count_unfinished() >= self.max_tables:
            raise CreateError(f"the server already holds {self.max_tables} unfinished tables")
        rules, players, kinds, is_match = spec
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
        self.store.create(table_id, start, rows, tokens)
        table = Table(table_id, start, state, [_new_seat(r, self.search_budget) for r in rows])
        self.tables[table_id] = table
        log.info("table %s created: %s, %d players, seats %s", table_id, rules.name, players, kinds)
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
            "seats": seats,
        }

    def load_unfinished(self) -> int:
        """Load every unfinished table from the store by replaying its record; how many."""
        count = 0
        for table_id in self.store.unfinished():
            if self._load(table_id) is not None:
                count += 1
        return count

    def _load(self, table_id: str) -> Table | None:
        table = self.tables.get(table_id)
        if table is not None:
            return table
        stored = self.store.load(table_id)
        if stored is None:
            return None
        table = _table_of(stored, self.search_budget)
        self.tables[table_id] = table
        return table

    def find(self, token: str, table_id: str | None = None) -> tuple[Table, int] | None:
        """The table and seat a token opens (and, if ``table_id`` is given, only on that
        table), or None."""
        found = self.store.seat_of(token)
        if found is None or (table_id is not None and found[0] != table_id):
            return None
        table = self._load(found[0])
        return None if table is None else (table, found[1])

    def start(self) -> None:
        """Start the bots of every loaded table whose turn is a bot's (call on the loop)."""
        for table in self.tables.values():
            self.wake_bots(table)

    async def stop(self) -> None:
        """Stop every bot task."""
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- seats ----------------------------------------------------------------------------

    def join(self, table: Table, seat: int, connection: Connection) -> None:
        """Add a connection to a seat and send it the seat's view."""
        table.seats[seat].connections.add(connection)
        connection.send(table.view_text(seat))

    def leave(self, table: Table, seat: int, connection: Connection) -> None:
        """Remove a connection from its seat; a finished table that nobody watches any more
        leaves the memory (it is loaded again from the store if a seat comes back)."""
        table.seats[seat].connections.discard(connection)
        if table.is_over and not any(s.connections for s in table.seats):
            self.tables.pop(table.id, None)

    async def move(
        self, table: Table, seat: int, seq: int, action: object, connection: Connection
    ) -> None:
        """Play one move sent by ``seat`` with sequence number ``seq``: answer ``accepted``
        (then every seat gets its view) or ``refused`` with the engine's code and message, to
        that connection alone. A sequence number already accepted is answered again, unplayed."""
        async with table.lock:
            place = table.seats[seat]
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
            if not await self._commit(table, seat, seq, chosen, after):
                connection.send(
                    {"type": "error", "code": "storage-failed", "message": "the move was not saved"}
                )
                return
            connection.send({"type": "accepted", "seq": seq, "number": len(table.moves)})
            table.broadcast()
        self.wake_bots(table)

    async def _commit(
        self, table: Table, seat: int, seq: int, action: Action, after: GameState | Match
    ) -> bool:
        """Store the move, then take it into the table (in that order: nobody hears of a move
        the store does not hold). Called under the table's lock, so the table's next move waits
        for this commit, while other tables play on."""
        notation = format_action(action)
        try:
            await self.store.append(table.id, len(table.moves), seat, seq, notation, after.is_over)
        except sqlite3.Error:
            log.exception("table %s: move %d not stored", table.id, len(table.moves))
            return False
        table.state = after
        table.moves.append((seat, notation))
        place = table.seats[seat]
        place.last_seq = seq
        place.history[seq] = notation
        if after.is_over:
            log.info("table %s: game over after %d moves", table.id, len(table.moves))
        return True

    # -- bots -----------------------------------------------------------------------------

    def wake_bots(self, table: Table) -> None:
        """Start the table's bot task if a bot is to move and none runs."""
        if table.is_over or table.seats[table.hand.current_player].kind != "bot":
            return
        if table.bot_task is None or table.bot_task.done():
            table.bot_task = asyncio.get_running_loop().create_task(self._bots(table))

    async def _bots(self, table: Table) -> None:
        try:
            await self._play_bots(table)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bot that fails stops its table's bots, not the server
            log.exception("table %s: a bot failed", table.id)

    async def _play_bots(self, table: Table) -> None:
        while True:
            await asyncio.sleep(self.bot_delay)
            async with table.lock:
                seat = table.hand.current_player
                place = table.seats[seat]
                if table.is_over or place.bot is None:
                    return
                seen = view(table.hand, seat)
                if place.bot_name in SEARCH_BOTS:  # slow: keep the loop serving other tables
                    chosen = await asyncio.to_thread(place.bot.choose, seen, table.rng)
                else:
                    chosen = place.bot.choose(seen, table.rng)
                after = apply(table.state, chosen, player=seat)
                if not await self._commit(table, seat, place.last_seq + 1, chosen, after):
                    return
                table.broadcast()


def _new_seat(row: SeatRow, search_budget: str | None = None) -> _Seat:
    if row.kind == "bot" and row.bot is not None:
        name = row.bot
        if search_budget is not None and name in SEARCH_BOTS:
            name = f"{name}:{search_budget}"
        return _Seat("bot", bot_from_name(name), row.bot)
    return _Seat("human", None, None)


def _table_of(stored: StoredTable, search_budget: str | None) -> Table:
    seats = [_new_seat(r, search_budget) for r in stored.seats]
    table = Table(stored.id, stored.start, stored.replay(), seats)
    for seat, seq, action in stored.moves:
        table.moves.append((seat, action))
        place = table.seats[seat]
        place.last_seq = seq
        place.history[seq] = action
    return table


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


def _read_spec(request: object) -> tuple[Any, int, list[str], bool]:
    if not isinstance(request, dict):
        raise CreateError("a table request is a JSON object")
    unknown = set(request) - {"variant", "players", "seats", "match", "options"}
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
    return rules, players, list(kinds), is_match

"""The store's contract, the same tests for both backends: the SQLite file and a real PostgreSQL
(tests/pg_support.py starts a cluster; skipped without one, failing in CI). Each test opens its
stores through ``open_store``, as the server does, on a database of its own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.server.store import SeatRow
from buraco_rules.server.stores import Store, is_conflict, is_postgres_url, open_store

if TYPE_CHECKING:
    from pg_support import Cluster

pytest_plugins = ("pg_support",)  # its fixtures: pg_cluster, pg_url

START = br.GameRecord.from_game(br.new_game(variants.ITALIAN, 2, seed=1), ())
SEATS = (SeatRow("human"), SeatRow("bot", "greedy"))

Opener = Callable[[], Store]


@pytest.fixture(params=["sqlite", "postgresql"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens a new store on this test's database (several may be open at once); closes them."""
    if request.param == "sqlite":
        db: str | Path = tmp_path / "t.sqlite"
    else:
        cluster: Cluster = request.getfixturevalue("pg_cluster")
        db = cluster.new_database()
    opened: list[Store] = []

    def open_one() -> Store:
        opened.append(open_store(db))
        return opened[-1]

    yield open_one
    for store in opened:
        store.close()


def create(store: Store, *args: Any) -> None:
    """Store a new table (outside an event loop: the tests are synchronous)."""
    asyncio.run(store.create(*args))


def play(store: Store, *moves: tuple[Any, ...]) -> list[BaseException | None]:
    """Append the moves concurrently (one group commit where the store has one); each outcome."""

    async def run() -> list[BaseException | None]:
        results = await asyncio.gather(*(store.append(*m) for m in moves), return_exceptions=True)
        return [r if isinstance(r, BaseException) else None for r in results]

    return asyncio.run(run())


def test_create_then_load_round_trip(opener: Opener) -> None:
    store = opener()
    create(store, "t1", START, SEATS, {0: "token-a"})
    stored = store.load("t1")
    assert stored is not None
    assert (stored.id, stored.start, stored.seats, stored.moves, stored.finished) == (
        "t1",
        START,
        SEATS,
        (),
        False,
    )
    assert store.load("nope") is None


def test_seat_of_finds_the_token_never_its_digest(opener: Opener) -> None:
    store = opener()
    create(store, "t1", START, SEATS, {0: "token-a"})
    assert store.seat_of("token-a") == ("t1", 0)
    assert store.seat_of("token-b") is None
    from buraco_rules.server.store import token_digest

    assert store.seat_of(token_digest("token-a")) is None


def test_a_creation_is_all_or_nothing(opener: Opener) -> None:
    store = opener()
    create(store, "t1", START, SEATS, {0: "token-a"})
    with pytest.raises(Exception):  # noqa: B017  the drivers' own IntegrityError
        create(store, "t2", START, SEATS, {0: "token-a"})  # the same token: refused
    assert store.load("t2") is None
    assert store.unfinished() == ["t1"]


def test_appends_load_in_order_and_finish_the_table(opener: Opener) -> None:
    store = opener()
    create(store, "t1", START, SEATS, {0: "a"})
    for n, action in enumerate(["draw", "discard 5h", "draw"]):
        assert play(store, ("t1", n, n % 2, n // 2 + 1, action, n == 2)) == [None]
    stored = store.load("t1")
    assert stored is not None
    assert stored.moves == ((0, 1, "draw"), (1, 1, "discard 5h"), (0, 2, "draw"))
    assert stored.finished


def test_a_duplicate_number_or_seq_is_refused_and_writes_nothing(opener: Opener) -> None:
    store = opener()
    create(store, "t1", START, SEATS, {0: "a"})
    assert play(store, ("t1", 0, 0, 1, "draw", False)) == [None]
    for move in (("t1", 0, 1, 1, "other", True), ("t1", 1, 0, 1, "again", True)):
        (outcome,) = play(store, move)
        assert outcome is not None and is_conflict(outcome), outcome
    stored = store.load("t1")
    assert stored is not None
    assert (stored.moves, stored.finished) == (((0, 1, "draw"),), False)


def test_a_group_of_appends_has_one_outcome_each(opener: Opener) -> None:
    store = opener()
    for t in range(5):
        create(store, f"t{t}", START, SEATS, {})
    moves = [(f"t{t}", 0, 0, 1, f"m{t}", t == 3) for t in range(5)]
    moves.insert(2, ("t1", 0, 1, 1, "late", False))  # t1's move 0 twice in one group
    outcomes = play(store, *moves)
    assert [o is None for o in outcomes] == [True, True, False, True, True, True]
    assert is_conflict(outcomes[2])  # type: ignore[arg-type]
    assert store.unfinished() == ["t0", "t1", "t2", "t4"]
    assert store.count_unfinished() == 4
    for t in range(5):
        stored = store.load(f"t{t}")
        assert stored is not None and stored.moves == ((0, 1, f"m{t}"),)


def test_a_move_of_an_unknown_table_fails_alone(opener: Opener) -> None:
    store = opener()
    create(store, "t1", START, SEATS, {})
    outcomes = play(store, ("t1", 0, 0, 1, "draw", False), ("ghost", 0, 0, 1, "draw", False))
    assert outcomes[0] is None and outcomes[1] is not None
    assert not is_conflict(outcomes[1])  # not a move already stored: the table is unknown
    assert store.load("ghost") is None


def test_unfinished_oldest_first(opener: Opener) -> None:
    store = opener()
    for t in ("b", "a", "c"):
        create(store, t, START, SEATS, {})
    assert store.unfinished() == ["b", "a", "c"]
    play(store, ("a", 0, 0, 1, "draw", True))
    assert store.unfinished() == ["b", "c"]
    assert store.count_unfinished() == 2


def test_two_stores_racing_for_one_move_number_one_commits(opener: Opener) -> None:
    """Two server processes' stores on one database append the same move number at once: one
    commits, the other gets the conflict and nothing of its move is written."""
    first, second = opener(), opener()
    create(first, "t1", START, SEATS, {})
    for round_ in range(10):  # ten races, each started together

        async def race(n: int = round_) -> list[BaseException | None]:
            results = await asyncio.gather(
                first.append("t1", n, 0, 2 * n + 1, f"first {n}", False),
                second.append("t1", n, 0, 2 * n + 2, f"second {n}", False),
                return_exceptions=True,
            )
            return [r if isinstance(r, BaseException) else None for r in results]

        outcomes = asyncio.run(race())
        assert sorted(o is None for o in outcomes) == [False, True], outcomes
        loser = next(o for o in outcomes if o is not None)
        assert is_conflict(loser), loser
    for store in (first, second):
        stored = store.load("t1")
        assert stored is not None and len(stored.moves) == 10
        assert [a.split()[1] for _, _, a in stored.moves] == [str(n) for n in range(10)]


def test_the_url_chooses_the_store() -> None:
    assert is_postgres_url("postgresql://u@127.0.0.1/db")
    assert is_postgres_url("postgres://u@127.0.0.1/db")
    assert not is_postgres_url("buraco.sqlite")
    assert not is_postgres_url(Path("postgresql://x"))  # a path is always a file


def test_a_tables_clock_away_seats_creator_and_expiry_round_trip(opener: Opener) -> None:
    """What the server keeps beside the moves: the creator's address, the turn clock, its
    deadline and the away seats, rewritten with a move or alone, and an expiry."""
    from buraco_rules.server.store import EXPIRED, FINISHED, TableMeta

    store = opener()
    meta = TableMeta(1000.5, 1120.5, ())
    created = store.create("t1", START, SEATS, {}, client="10.0.0.7", turn_seconds=120, meta=meta)
    asyncio.run(created)
    create(store, "t2", START, SEATS, {})
    stored = store.load("t1")
    assert stored is not None
    assert (stored.client, stored.turn_seconds, stored.meta) == ("10.0.0.7", 120, meta)
    moved = TableMeta(1010.0, None, (0,))
    play(store, ("t1", 0, 0, 1, "draw", False, moved))
    stored = store.load("t1")
    assert stored is not None and stored.meta == moved
    asyncio.run(store.update("t1", TableMeta(1020.0, 1140.0, ())))
    stored = store.load("t1")
    assert stored is not None and stored.meta == TableMeta(1020.0, 1140.0, ())
    # Fenced by the number of moves: written only if the table has not moved on since.
    asyncio.run(store.update("t1", TableMeta(1030.0, None, (1,)), moves=0))  # it has 1 move
    stored = store.load("t1")
    assert stored is not None and stored.meta == TableMeta(1020.0, 1140.0, ())
    asyncio.run(store.update("t1", TableMeta(1030.0, None, (1,)), moves=1))
    stored = store.load("t1")
    assert stored is not None and stored.meta == TableMeta(1030.0, None, (1,))
    asyncio.run(store.expire("t2"))
    asyncio.run(store.expire("t1"))
    assert store.unfinished() == [] and store.count_unfinished() == 0
    summary = {table_id: (finished, moves) for table_id, finished, _, moves in store.summary()}
    assert summary == {"t1": (EXPIRED, 1), "t2": (EXPIRED, 0)}
    assert FINISHED not in {finished for finished, _ in summary.values()}

"""What only the PostgreSQL store has, against a real PostgreSQL (tests/pg_support.py): the schema
version, the notifications of committed moves, the table leases of the processes that drive a
table's bots and clock, and a database restarted under a store."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import psycopg
import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.server.pgstore import (
    LEASE_SECONDS,
    SCHEMA_VERSION,
    CreationsBusy,
    Leases,
    MoveConflict,
    PostgresStore,
    SchemaError,
    TablesFull,
    lease_key,
)
from buraco_rules.server.store import EXPIRED, SeatRow, TableMeta

if TYPE_CHECKING:
    from pg_support import Cluster

pytest_plugins = ("pg_support",)  # its fixtures: pg_cluster, pg_url

START = br.GameRecord.from_game(br.new_game(variants.ITALIAN, 2, seed=1), ())
SEATS = (SeatRow("human"), SeatRow("human"))
T = TypeVar("T")


async def eventually(check: Callable[[], T], seconds: float = 10.0) -> T:
    """``check()`` once it is truthy, polled for at most ``seconds`` (a bound, not a timing)."""
    deadline = time.monotonic() + seconds
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError("never happened")
        await asyncio.sleep(0.02)
    return result


def terminate(url: str, application: str) -> int:
    """End the sessions of one of the store's connections, as a dropped connection would."""
    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (application,),
        ).fetchall()
    return len(rows)


def run(coroutine: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(coroutine())  # type: ignore[arg-type]


def test_a_new_database_gets_the_schema_and_its_version(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        assert store.schema_version() == SCHEMA_VERSION
    finally:
        store.close()
    reopened = PostgresStore(pg_url)  # already at the version: nothing to do
    reopened.close()
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def test_servers_starting_together_upgrade_the_schema_once(pg_url: str) -> None:
    opened: list[PostgresStore] = []
    failed: list[BaseException] = []

    def start() -> None:
        try:
            opened.append(PostgresStore(pg_url))
        except BaseException as error:  # reported below
            failed.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in opened:
        store.close()
    assert (failed, len(opened)) == ([], 4)


def test_a_schema_newer_than_the_code_is_refused(pg_url: str) -> None:
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaError, match="run a newer buraco-rules"):
        PostgresStore(pg_url)
    # The commands say it in one line, exit 2 (the outside probe got a traceback).
    for command in (["serve", "--db", pg_url, "--port", "0"], ["tables", "--db", pg_url]):
        done = subprocess.run(
            [sys.executable, "-m", "buraco_rules", *command],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "this server knows up to" in done.stderr and "Traceback" not in done.stderr


def test_every_committed_move_is_heard_by_every_listener_and_nothing_else(pg_url: str) -> None:
    async def scenario() -> None:
        writer, other = PostgresStore(pg_url), PostgresStore(pg_url)
        heard: list[tuple[str, int]] = []
        heard_too: list[tuple[str, int]] = []

        flaky_heard: list[int] = []

        def flaky(table_id: str, number: int) -> None:
            flaky_heard.append(number)
            if number == 0:
                raise RuntimeError("a caller's bug")  # logged; the listener goes on

        broken = await other.listen(flaky)
        listener = await other.listen(lambda t, n: heard.append((t, n)))
        own = await writer.listen(lambda t, n: heard_too.append((t, n)))
        try:
            await writer.create("t1", START, SEATS, {})
            await writer.append("t1", 0, 0, 1, "draw", False)
            with pytest.raises(MoveConflict):
                await writer.append("t1", 0, 1, 1, "draw", False)  # not committed: not heard
            await writer.append("t1", 1, 1, 1, "draw", False)
            await eventually(lambda: len(heard) >= 2 and len(heard_too) >= 2)
            await eventually(lambda: len(flaky_heard) >= 2)
            await asyncio.sleep(0.1)  # a third notification would be here by now
            assert heard == heard_too == [("t1", 0), ("t1", 1)]
            assert flaky_heard == [0, 1]
            assert other.moves_after("t1", 1) == ((1, 1, "draw"),)
        finally:
            await listener.close()
            await own.close()
            await broken.close()
            writer.close()
            other.close()

    run(scenario)


def test_a_listener_that_lost_its_connection_reconnects_and_says_so(pg_url: str) -> None:
    async def scenario() -> None:
        store = PostgresStore(pg_url)
        heard: list[tuple[str, int]] = []
        gaps: list[int] = []
        listener = await store.listen(lambda t, n: heard.append((t, n)), lambda: gaps.append(1))
        try:
            await store.create("t1", START, SEATS, {})
            assert terminate(pg_url, "buraco-listen") == 1
            await store.append("t1", 0, 0, 1, "draw", False)  # may fall in the gap
            await eventually(lambda: gaps)
            await store.append("t1", 1, 1, 1, "draw", False)
            await eventually(lambda: ("t1", 1) in heard)
            assert listener.reconnections == 1
            assert store.move_counts(["t1", "nope"]) == {"t1": 2, "nope": 0}
        finally:
            await listener.close()
            store.close()

    run(scenario)


def test_one_process_holds_a_tables_lease_until_it_lets_go(pg_url: str) -> None:
    async def scenario() -> None:
        store = PostgresStore(pg_url)
        first, second = await store.leases(), await store.leases()
        try:
            assert await first.try_take("t1")
            assert await first.try_take("t1")  # already held
            assert not await second.try_take("t1")
            assert await second.try_take("t2")
            assert (first.held, second.held) == ({"t1"}, {"t2"})
            await first.release("t1")
            assert await second.try_take("t1")
            assert not await first.try_take("t1")
        finally:
            await first.close()
            await second.close()
            store.close()

    run(scenario)


HOLDER = """
import asyncio, sys
from buraco_rules.server.pgstore import Leases, PostgresStore

PostgresStore(sys.argv[1]).close()  # the schema (its lease_holders)

async def main():
    leases = Leases(sys.argv[1])
    await leases.open()
    print(await leases.try_take("t1"), flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def test_a_killed_process_lease_is_taken_over(pg_url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, pg_url], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"

        async def scenario() -> float:
            leases = Leases(pg_url)
            await leases.open()
            try:
                assert not await leases.try_take("t1")
                os.kill(holder.pid, signal.SIGKILL)
                killed = time.monotonic()
                while not await leases.try_take("t1"):
                    assert time.monotonic() - killed < 10, "the lease was not freed"
                    await asyncio.sleep(0.05)
                return time.monotonic() - killed
            finally:
                await leases.close()

        run(scenario)
    finally:
        holder.kill()
        holder.wait()


FROZEN = """
import asyncio, sys
from buraco_rules.server.pgstore import Leases, PostgresStore

PostgresStore(sys.argv[1]).close()

def lost(tables):
    print("lost", *sorted(tables), flush=True)

async def main():
    leases = Leases(sys.argv[1], lost, check_every=0.2, lease_seconds=1.0)
    await leases.open()
    print(await leases.try_take("t1"), flush=True)
    while True:  # what it would drive, as its bots and clocks ask (TableHub.drives)
        await asyncio.sleep(0.05)
        print("held", *sorted(leases.held), flush=True)

asyncio.run(main())
"""


def test_a_frozen_processes_lease_expires_is_taken_over_and_it_drives_nothing_on_waking(
    pg_url: str,
) -> None:
    """A process stopped (SIGSTOP: alive, its connection open, its locks held) heartbeats no
    more: another process ends its lease connection once the heartbeat is older than the bound
    (by the database's clock) and takes the lease; the frozen one, continued, holds nothing
    from its first look on (its heartbeat is late), and is told it lost its leases."""
    import queue

    holder = subprocess.Popen(
        [sys.executable, "-c", FROZEN, pg_url], stdout=subprocess.PIPE, text=True
    )
    heard: queue.Queue[tuple[float, str]] = queue.Queue()

    def read() -> None:
        assert holder.stdout is not None
        for line in holder.stdout:
            heard.put((time.monotonic(), " ".join(line.split())))

    threading.Thread(target=read, daemon=True).start()
    try:
        assert heard.get(timeout=30)[1] == "True"

        async def scenario() -> tuple[float, float]:
            other = Leases(pg_url, check_every=0.2, lease_seconds=1.0)
            await other.open()
            try:
                assert not await other.try_take("t1")
                os.kill(holder.pid, signal.SIGSTOP)
                stopped = time.monotonic()
                while not await other.try_take("t1"):
                    assert time.monotonic() - stopped < 15, "the frozen lease never expired"
                    await asyncio.sleep(0.05)
                taken = time.monotonic() - stopped
                assert other.expired == 1
                await asyncio.sleep(0.5)  # frozen a while longer, the lease taken
                os.kill(holder.pid, signal.SIGCONT)
                woken = time.monotonic()
                after: list[str] = []
                while "lost t1" not in after:
                    when, line = heard.get(timeout=15)
                    if when >= woken:
                        after.append(line)
                assert "held t1" not in after  # not once after waking
                assert other.held == {"t1"}
                await asyncio.sleep(0.5)
                while not heard.empty():
                    assert heard.get()[1] == "held"
                return taken, time.monotonic() - woken
            finally:
                await other.close()

        taken, _ = run(scenario)
        print(f"a frozen holder's lease taken over {taken:.2f} s after SIGSTOP (bound 1 s)")
    finally:
        holder.kill()
        holder.wait()


def test_a_frozen_lease_is_ended_by_its_own_role_or_a_role_granted_the_rights_to_see_and_end_it(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The rights ending a frozen holder's connection needs, with roles that are not
    superusers: another process of the same role ends it; a process of another role cannot
    see the session (its row stays, the lease is not taken, the log says what to grant) until
    that role is granted pg_read_all_stats and pg_signal_backend."""
    import uuid

    PostgresStore(pg_url).close()
    suffix = uuid.uuid4().hex[:8]
    first, second = f"lease_a_{suffix}", f"lease_b_{suffix}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        for role in (first, second):
            admin.execute(f"CREATE ROLE {role} LOGIN".encode())
            admin.execute(f"GRANT ALL ON lease_holders TO {role}".encode())

    def as_role(role: str) -> str:
        return pg_url.replace("buraco@", f"{role}@", 1)

    def frozen_holder() -> subprocess.Popen[str]:
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                FROZEN.replace("PostgresStore(sys.argv[1]).close()", ""),
                as_role(first),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
        os.kill(holder.pid, signal.SIGSTOP)
        return holder

    async def takes_over(role: str, seconds: float) -> bool:
        other = Leases(as_role(role), check_every=0.2, lease_seconds=1.0)
        await other.open()
        try:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if await other.try_take("t1"):
                    return True
                await asyncio.sleep(0.1)
            return False
        finally:
            await other.close()

    holder = frozen_holder()
    try:
        assert run(lambda: takes_over(first, 15))  # the same role, no superuser
    finally:
        holder.kill()
        holder.wait()
    holder = frozen_holder()
    try:
        assert not run(lambda: takes_over(second, 3))  # three times the bound: not seen
        assert "grant it pg_read_all_stats and pg_signal_backend" in caplog.text
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f"GRANT pg_read_all_stats, pg_signal_backend TO {second}".encode())
        assert run(lambda: takes_over(second, 15))
    finally:
        holder.kill()
        holder.wait()


def test_a_session_frozen_inside_a_transaction_is_ended_by_postgresql_after_the_bound(
    pg_url: str,
) -> None:
    """A process frozen between two statements of a transaction would hold the rows it wrote
    (and stop every other process's moves of that table): its store's connections ask
    PostgreSQL to end such a session after the leases' bound."""
    store = PostgresStore(pg_url)
    try:
        row = store._reader().execute("SHOW idle_in_transaction_session_timeout").fetchone()
        assert row is not None and row[0] == f"{LEASE_SECONDS:g}s"
    finally:
        store.close()


def test_a_lost_lease_connection_loses_every_lease_and_says_which(pg_url: str) -> None:
    async def scenario() -> None:
        PostgresStore(pg_url).close()  # the schema (its lease_holders)
        lost: list[frozenset[str]] = []
        leases = Leases(pg_url, lost.append, check_every=0.05)
        await leases.open()
        try:
            assert await leases.try_take("t1") and await leases.try_take("t2")
            assert terminate(pg_url, "buraco-leases") == 1
            await eventually(lambda: lost)
            assert (lost, leases.held) == ([{"t1", "t2"}], set())
            assert await leases.try_take("t1")  # a new connection
        finally:
            await leases.close()

    run(scenario)


def test_lease_keys_are_stable_and_namespaced() -> None:
    assert lease_key("t1") == lease_key("t1") != lease_key("t2")
    assert lease_key("t1")[0] == lease_key("t2")[0]
    assert all(-(2**31) <= k < 2**31 for k in lease_key("t1"))


def test_a_restarted_database_refuses_then_serves_without_losing_a_move(
    pg_cluster: Cluster,
) -> None:
    url = pg_cluster.new_database()

    async def scenario() -> None:
        store = PostgresStore(url)
        try:
            await store.create("t1", START, SEATS, {0: "a"})
            await store.append("t1", 0, 0, 1, "draw", False)
            pg_cluster.stop("immediate")  # a crash: what it acknowledged must be there after
            try:
                with pytest.raises(psycopg.OperationalError):
                    await store.append("t1", 1, 1, 1, "draw", False)
                with pytest.raises(psycopg.OperationalError):
                    store.seat_of("a")
            finally:
                pg_cluster.start()
            await store.append("t1", 1, 1, 1, "draw", False)  # the same store, reconnected
            assert store.seat_of("a") == ("t1", 0)
            stored = store.load("t1")
            assert stored is not None and stored.moves == ((0, 1, "draw"), (1, 1, "draw"))
        finally:
            store.close()

    run(scenario)


def test_bucketed_leases_hold_one_lock_per_bucket(pg_url: str) -> None:
    """With buckets, a process holding many tables holds few locks, and a bucket's tables go
    to one process together, freed when its last one is released."""

    async def scenario() -> None:
        PostgresStore(pg_url).close()  # the schema (its lease_holders)
        first, second = Leases(pg_url, buckets=4), Leases(pg_url, buckets=4)
        await first.open()
        await second.open()
        try:
            tables = [f"t{n}" for n in range(40)]
            assert all([await first.try_take(t) for t in tables])
            assert first.locks == 4 and len(first.held) == 40
            assert not any([await second.try_take(t) for t in tables])
            bucket = [t for t in tables if lease_key(t, 4) == lease_key("t0", 4)]
            for table in bucket[1:]:
                await first.release(table)
            assert not await second.try_take(bucket[1])  # t0 still holds the bucket
            await first.release("t0")
            assert await second.try_take(bucket[1]) and first.locks == 3
        finally:
            await first.close()
            await second.close()

    run(scenario)


def test_free_tables_leases_are_taken_in_one_look_with_the_keys_try_take_uses(
    pg_url: str,
) -> None:
    """take_free takes the leases of the unfinished tables that need a driver (bots or a clock)
    and have none, by the same keys as try_take (PostgreSQL computes lease_key), each lock once;
    with buckets, the tables of a bucket already held come with it."""

    async def scenario() -> None:
        store = PostgresStore(pg_url)
        bots = (SeatRow("human"), SeatRow("bot", "greedy"))
        for n in range(12):
            await store.create(f"b{n}", START, bots, {0: f"b{n}"})
        await store.create("clock", START, SEATS, {0: "c"}, turn_seconds=30)
        await store.create("people", START, SEATS, {0: "p"})  # nobody to drive
        await store.create("over", START, bots, {0: "o"})
        await store.append("over", 0, 0, 1, "draw", True)
        driven = {f"b{n}" for n in range(12)} | {"clock"}
        first, second, third = Leases(pg_url), Leases(pg_url), Leases(pg_url, buckets=3)
        for leases in (first, second, third):
            await leases.open()
        try:
            assert await second.try_take("b0")
            taken = await first.take_free(5)  # five locks tried (b0's may be one: not taken)
            assert 4 <= len(taken) <= 5 and set(taken) <= driven - {"b0"}
            assert set(await first.take_free(100)) == driven - {"b0"} - set(taken)
            assert await first.take_free(100) == [] and first.locks == 12
            for table in driven - {"b0"}:  # the same locks as try_take's
                assert not await second.try_take(table)
            await first.release("b1")
            assert await second.try_take("b1")
            await first.close()
            await second.close()
            some = await third.take_free(1)  # one bucket's lock, and its tables
            assert third.locks == 1 and len(some) >= 1
            assert {lease_key(t, 3) for t in some} == {lease_key(some[0], 3)}
            assert set(some) | set(await third.take_free(5)) == driven
            assert third.locks == 3
        finally:
            for leases in (first, second, third):
                await leases.close()
            store.close()

    run(scenario)


def test_creations_past_the_caps_are_refused_by_the_database(pg_url: str) -> None:
    """The most unfinished tables, and the most one address created, counted in the database
    in the creation's transaction: a finished or expired table counts no more."""

    async def scenario() -> None:
        store = PostgresStore(pg_url)
        try:
            await store.create("a1", START, SEATS, {0: "a1"}, client="a", limits=(3, 2))
            await store.create("a2", START, SEATS, {0: "a2"}, client="a", limits=(3, 2))
            with pytest.raises(TablesFull) as refused:
                await store.create("a3", START, SEATS, {0: "a3"}, client="a", limits=(3, 2))
            assert refused.value.per_client
            await store.create("b1", START, SEATS, {0: "b1"}, client="b", limits=(3, 2))
            with pytest.raises(TablesFull) as refused:
                await store.create("b2", START, SEATS, {0: "b2"}, client="b", limits=(3, 2))
            assert not refused.value.per_client
            assert store.load("a3") is None and store.load("b2") is None
            await store.append("a1", 0, 0, 1, "draw", True)  # over
            await store.expire("a2")
            await store.create("a3", START, SEATS, {0: "a3"}, client="a", limits=(3, 2))
            assert store.count_unfinished() == 2
        finally:
            store.close()

    run(scenario)


def test_a_creation_waits_a_second_at_most_for_another_processes_creation(pg_url: str) -> None:
    """A process frozen inside a creation's transaction holds the creations' lock (until its
    session is ended): another's creation is refused after a second ("try again"), and the
    moves committed in the same batches go on (the outside probe saw every creation, and the
    moves behind them, wait 10 s)."""
    from buraco_rules.server import pgstore

    async def scenario() -> None:
        store = PostgresStore(pg_url)
        frozen = psycopg.connect(pg_url, autocommit=True)
        try:
            await store.create("t1", START, SEATS, {0: "t1"})
            with frozen.transaction():
                frozen.execute("SELECT pg_advisory_xact_lock(%s, 1)", (pgstore._SCHEMA_LOCKS,))
                creation = store.create("t2", START, SEATS, {0: "t2"}, limits=(10, 10))
                move = store.append("t1", 0, 0, 1, "draw", False)
                outcome = await asyncio.gather(creation, move, return_exceptions=True)
            assert isinstance(outcome[0], CreationsBusy) and outcome[1] is None
            stored = store.load("t1")
            assert store.load("t2") is None and stored is not None and len(stored.moves) == 1
            await store.create("t2", START, SEATS, {0: "t2"}, limits=(10, 10))  # free again
        finally:
            frozen.close()
            store.close()

    run(scenario)


def test_idle_tables_are_expired_in_the_database_and_heard(pg_url: str) -> None:
    async def scenario() -> None:
        store = PostgresStore(pg_url)
        heard: list[tuple[str, int]] = []
        listener = await store.listen(lambda t, n: heard.append((t, n)))
        try:
            await store.create("old", START, SEATS, {0: "o"}, meta=TableMeta(1000.0))
            await store.create("new", START, SEATS, {0: "n"}, meta=TableMeta(3000.0))
            assert await store.expire_idle(2000.0) == ["old"]
            assert await store.expire_idle(2000.0) == []  # closed once
            old, new = store.load("old"), store.load("new")
            assert old is not None and old.finished == EXPIRED
            assert new is not None and not new.finished
            await eventually(lambda: ("old", -1) in heard)
        finally:
            await listener.close()
            store.close()

    run(scenario)


RACER = """
import asyncio, sys
from buraco_rules.server.pgstore import MoveConflict, PostgresStore

url, run = sys.argv[1], int(sys.argv[2])
store = PostgresStore(url)

async def table(t):
    number, seq = store.move_counts([t])[t], 0
    while True:
        seq += 1
        try:
            await store.append(t, number, run, seq, f"run{run} {number}", False)
        except MoveConflict:  # another process stored this number: catch up from the rows
            print("conflict", t, flush=True)
            number = store.move_counts([t])[t]
            continue
        print(t, number, run, flush=True)  # acknowledged: committed
        number += 1
        await asyncio.sleep(0.01)  # racing, not hogging the cores the next process starts on

async def main():
    await asyncio.gather(*(table(f"t{t}") for t in range(4)))

asyncio.run(main())
"""


def test_racing_processes_killed_at_random_lose_nothing_and_store_nothing_twice(
    pg_url: str, tmp_path: Path
) -> None:
    """Writer processes race for the same move numbers of four tables, and are SIGKILLed at
    random and replaced: every acknowledged move is stored as acknowledged, no number is
    acknowledged twice, and each table's numbers have no hole."""
    store = PostgresStore(pg_url)
    for t in range(4):
        asyncio.run(store.create(f"t{t}", START, SEATS, {}))
    rng = random.Random(35)
    running: dict[int, subprocess.Popen[bytes]] = {}

    def start(run: int) -> None:
        with open(tmp_path / f"run{run}.out", "wb") as out:
            running[run] = subprocess.Popen(
                [sys.executable, "-c", RACER, pg_url, str(run)], stdout=out
            )

    def racing(run: int) -> None:  # once the process has stored a move (a bounded wait)
        deadline = time.monotonic() + 60
        while b"\n" not in (tmp_path / f"run{run}.out").read_bytes():
            assert running[run].poll() is None and time.monotonic() < deadline
            time.sleep(0.02)

    try:
        for run in range(3):
            start(run)
        for run in range(3):
            racing(run)
        for run in range(3, 7):  # four kills, each replaced by a new process
            time.sleep(rng.uniform(0.1, 0.4))
            victim = rng.choice(sorted(running))
            running.pop(victim).kill()
            start(run)
            racing(run)
        time.sleep(0.3)
    finally:
        for process in running.values():
            process.kill()
            process.wait()
    acknowledged: dict[tuple[str, int], int] = {}
    conflicts = 0
    for run in range(7):
        for line in (tmp_path / f"run{run}.out").read_text().splitlines():
            parts = line.split()
            conflicts += parts[:1] == ["conflict"]
            if len(parts) != 3 or parts[0] == "conflict":
                continue  # the line a kill cut short, or a lost race
            key = (parts[0], int(parts[1]))
            assert key not in acknowledged, f"{key} acknowledged twice"
            acknowledged[key] = int(parts[2])
    try:
        for t in range(4):
            stored = store.load(f"t{t}")
            assert stored is not None
            actions = [action for _, _, action in stored.moves]
            assert actions == [a.split()[0] + f" {n}" for n, a in enumerate(actions)]  # no hole
            for (table_id, number), run in acknowledged.items():
                if table_id == f"t{t}":
                    assert actions[number] == f"run{run} {number}"
        assert len(acknowledged) > 50 and conflicts > 0  # the processes did race
        assert set(acknowledged.values()) == set(range(7))  # every process stored moves
    finally:
        store.close()

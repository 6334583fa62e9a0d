"""A real PostgreSQL for the tests: a cluster initialised in a temporary folder (in memory where
the machine has room: see ``cluster_parent``) with Debian's ``postgresql`` (``initdb``,
``pg_ctl``), started on a free loopback port, and a new database for each test that asks for
one. PostgreSQL refuses to run as root, so under root the cluster belongs to the ``postgres``
user and its commands run through ``runuser``.

Without PostgreSQL (or the ``psycopg`` driver) the tests that need it are skipped, except where
``BURACO_REQUIRE_POSTGRES=1`` (CI): there they fail."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_support import free_port

REQUIRED = os.environ.get("BURACO_REQUIRE_POSTGRES") == "1"


def unavailable(reason: str) -> None:
    """Fail where PostgreSQL is required (CI), skip elsewhere."""
    if REQUIRED:
        pytest.fail(f"PostgreSQL is required (BURACO_REQUIRE_POSTGRES=1): {reason}")
    pytest.skip(reason)


def bin_dir() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: ``BURACO_PG_BIN``, or on the path, or the newest
    of Debian's ``/usr/lib/postgresql/N/bin``."""
    if "BURACO_PG_BIN" in os.environ:
        return Path(os.environ["BURACO_PG_BIN"])
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name),
    )
    return Path(found[-1]).parent if found else None


def cluster_parent() -> str | None:
    """Where the cluster's folder goes: ``BURACO_PG_DIR``, else a memory file system
    (``/dev/shm``) where there is one with room, else the usual temporary folder. PostgreSQL
    fsyncs the same there, and what a crash of PostgreSQL (not of the machine) may lose is the
    same: what the tests check. Disk flushes are only a cost there (a restart after a crash
    fsyncs every file of the cluster: tens of seconds on a busy disk), which the load tools, not
    the tests, measure on a disk."""
    if "BURACO_PG_DIR" in os.environ:
        return os.environ["BURACO_PG_DIR"]
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2**30:
        return str(shm)
    return None


class Cluster:
    """A PostgreSQL cluster in a temporary folder, on ``127.0.0.1:port``; its superuser is
    ``buraco`` and trusted (a test cluster: nothing outside this machine reaches it)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="buraco-pg-", dir=cluster_parent()))
        self.data = self.folder / "data"
        self.log = self.folder / "log"
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

    def init(self) -> None:
        options = ["-U", "buraco", "--auth=trust", "--no-sync", "-E", "UTF8"]
        done = self.run("initdb", "-D", str(self.data), *options)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr[-2000:]}")

    def start(self) -> None:
        """Start the server (again), and wait until it takes connections."""
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        where = ["-D", str(self.data), "-l", str(self.log)]
        done = self.run("pg_ctl", *where, "-o", options, "-w", "start")
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stderr[-2000:]} {log}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: a clean shutdown; ``immediate``: as a crash)."""
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://buraco@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}".encode())
        return self.url(name)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster() -> Cluster:
    """A running cluster, or the test's skip (its failure in CI) saying why there is none."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("the psycopg driver is not installed (the 'postgres' extra)")
    bindir = bin_dir()
    if bindir is None or not (bindir / "initdb").exists():
        unavailable("PostgreSQL's initdb was not found (Debian's 'postgresql' package)")
        raise AssertionError  # unreachable: unavailable() skips or fails
    cluster = Cluster(bindir)
    try:
        cluster.init()
        cluster.start()
    except (RuntimeError, OSError, KeyError, subprocess.TimeoutExpired) as error:
        cluster.remove()
        unavailable(f"the test cluster did not start: {error}")
    return cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """The session's PostgreSQL cluster, removed at the end."""
    started = time.monotonic()
    cluster = start_cluster()
    print(f"PostgreSQL test cluster up in {time.monotonic() - started:.1f} s")
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """The URL of a new database of the session's cluster, this test's own."""
    return pg_cluster.new_database()

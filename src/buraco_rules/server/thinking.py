"""Where the server's bots think: a bounded pool of processes for the search bots, and the pause
before a failed bot move is tried again.

A search bot (MonteCarloBot, ISMCTSBot) spends a whole budget of CPU on each decision. The
pool runs at most ``processes`` such decisions at once for the whole server, whatever the
number of tables; the others wait their turn on the event loop, which goes on serving every
table. Each decision runs in a process of its own, at a lower priority than the server's, so
that it neither holds the event loop's interpreter lock nor takes a core the server needs:
with threads, a flood of search-bot tables slowed every other table's moves five-fold
(docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import multiprocessing
import os
import random
import signal
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Final

from .parent import follow_parent

if TYPE_CHECKING:
    from ..bots import Bot
    from ..core.actions import Action
    from ..hidden.views import PlayerView

__all__ = ["MAX_BACKOFF", "THINKER_NICENESS", "Backoff", "ThinkingPool", "network_of", "one_line"]

MAX_BACKOFF: Final = 30.0
"""The longest pause, in seconds, before a failed bot move is tried again."""

THINKER_NICENESS: Final = 10
"""How much lower than the server's a thinking process's scheduling priority is (``nice``)."""


class ThinkingPool:
    """At most ``processes`` decisions at once, each in a process of the pool (started on
    first use, afresh after one dies). Decisions waiting for a process are taken in turn from
    each owner's network (a table's creator's address, by :func:`network_of`): one who seats
    many search bots waits for their own, and another's decision waits behind at most one of
    theirs, not behind all of them. By network, not by address: an outside probe seated search
    bots from 20 addresses of one network and left an honest table a 21st of the pool (its
    bot turns 1.3 s -> 13.9 s); one network's addresses now share one turn. (Many networks are
    a flood for a firewall or a proxy to stop, or for more ``processes``.)"""

    def __init__(self, processes: int = 1) -> None:
        if processes < 1:
            raise ValueError(f"a thinking pool needs a process at least, not {processes}")
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = None
        self._running = 0
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        """Each owner's decisions waiting for a process, the owners in the order they are
        served next."""

    async def decide(
        self, bot: Bot, seen: PlayerView, rng: random.Random, owner: str = ""
    ) -> Action:
        """``bot``'s choice from the view ``seen``, made in the pool once a process is free and
        ``owner``'s turn has come. The bot draws from a generator seeded from ``rng``, which
        advances as if the bot had drawn from it here. A process that died on the way (killed,
        out of memory) is an error, and the next decision starts a new pool."""
        seed = rng.getrandbits(64)
        turn = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(network_of(owner), deque()).append(turn)
        self._serve()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # its turn had come: give it back
                self._running -= 1
                self._serve()
            raise
        try:
            return await self._run(bot, seen, seed)
        finally:
            self._running -= 1
            self._serve()

    def _serve(self) -> None:
        """Give free processes to the waiting decisions, one owner after another."""
        while self._running < self.processes and self._waiting:
            owner = next(iter(self._waiting))
            queue = self._waiting.pop(owner)
            turn = queue.popleft()
            if queue:
                self._waiting[owner] = queue  # served: to the back of the line
            if not turn.cancelled():
                self._running += 1
                turn.set_result(None)

    async def _run(self, bot: Bot, seen: PlayerView, seed: int) -> Action:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_thinking,
            )
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, _choose, bot, seen, seed)
        except BrokenProcessPool:
            self.close()
            raise

    def close(self) -> None:
        """Let the processes end once their decisions are made."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def network_of(owner: str) -> str:
    """The network whose turn an owner's decisions share: an IPv4 address's /24, an IPv6
    address's or network's /48 (a subscriber is often given a /48 or /56: 256 to 65,536 of the
    /64s addresses are counted by); anything else (a name, no address) as it is."""
    try:
        network = ipaddress.ip_network(owner, strict=False)
    except ValueError:
        return owner
    prefix = 24 if network.version == 4 else 48
    if network.prefixlen <= prefix:
        return str(network)
    return str(network.supernet(new_prefix=prefix))


def _start_thinking() -> None:
    """A thinking process: below the server's priority, deaf to the terminal's Ctrl-C (the
    server stops its pool itself), and gone within a second of a server killed outright (which
    cannot stop it, and whose pipe a waiting process would not notice)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(AttributeError, OSError):  # no nice on Windows
        os.nice(THINKER_NICENESS)
    follow_parent(lambda: os._exit(0))


def _choose(bot: Bot, seen: PlayerView, seed: int) -> Action:
    return bot.choose(seen, random.Random(seed))


class Backoff:
    """The pause before a bot's next try: the usual delay while all goes well, then doubling
    from half a second with each failure in a row, up to :data:`MAX_BACKOFF`."""

    def __init__(self) -> None:
        self.failures = 0

    def pause(self, usual: float) -> float:
        """The seconds to wait before the next try."""
        if self.failures == 0:
            return usual
        return max(usual, min(MAX_BACKOFF, 0.5 * 2.0 ** min(self.failures - 1, 16)))

    def failed(self) -> None:
        """One more failure in a row."""
        self.failures += 1

    def reset(self) -> None:
        """A success: the usual delay again."""
        self.failures = 0


def one_line(error: BaseException) -> str:
    """An error for a log line: its type and message, on one line, printable, at most 300
    characters (never its traceback)."""
    text = f"{type(error).__name__}: {error}"
    text = "".join(c if c.isprintable() else " " for c in text)
    return text if len(text) <= 300 else text[:297] + "..."

"""Where the server's bots think: a bounded pool for the search bots, and the pause before a
failed bot move is tried again.

A search bot (MonteCarloBot, ISMCTSBot) spends a whole budget of CPU on each decision. The
pool runs at most ``threads`` such decisions at once for the whole server, whatever the number
of tables; the others wait their turn on the event loop, which goes on serving every table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

__all__ = ["MAX_BACKOFF", "Backoff", "ThinkingPool", "one_line"]

MAX_BACKOFF: Final = 30.0
"""The longest pause, in seconds, before a failed bot move is tried again."""

_Result = TypeVar("_Result")


class ThinkingPool:
    """At most ``threads`` decisions at once, in threads of their own (created on first use)."""

    def __init__(self, threads: int = 1) -> None:
        if threads < 1:
            raise ValueError(f"a thinking pool needs a thread at least, not {threads}")
        self.threads = threads
        self._executor: ThreadPoolExecutor | None = None

    async def run(self, work: Callable[..., _Result], *args: object) -> _Result:
        """``work(*args)`` in the pool, once a thread is free."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="buraco-bot")
        return await asyncio.get_running_loop().run_in_executor(self._executor, work, *args)

    def close(self) -> None:
        """Let the threads end once their decisions are made."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


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

"""The garbage collector's settings for a server process, and a record of its pauses.

A server keeps many long-lived objects (the modules, the tables, the connections, the engine's
memo caches, whose entries hold tuples of cards and actions that the collector can never leave
untracked) and makes few reference cycles. With Python's defaults, every few hundred net new
objects start a young collection, and every promotion of a quarter of the old generation's size
starts a full one, which walks every tracked object of the process: under load that is a
pause of tens to hundreds of milliseconds every few seconds, felt by every table at once
(docs/performance.md, the server under load). :func:`tune_for_server` applies the policy
measured there; :class:`PauseLog` times each collection (``gc.callbacks``), for the load tool
and for an operator who wants to see them.
"""

from __future__ import annotations

import gc
import time
from typing import Final

__all__ = ["SERVER_THRESHOLDS", "PauseLog", "tune_for_server"]

SERVER_THRESHOLDS: Final = (500, 1, 50_000)
"""The collector's thresholds for a server (Python's are 700, 10, 10). A young collection
walks what is young and still alive; under load that is every table's latest state and the
coroutines of every connection a message woke since the last one, so its pause grows with the
time between collections, and Python counts that time in *net* new objects: a move that makes
a state and frees the last one adds few, so the young generation can grow for a second before
one starts. A small first threshold keeps each young collection short (a few milliseconds at
2,000 tables), and a middle collection after every young one promotes what survives at once,
so that no middle collection walks seconds' worth of survivors (measured in
docs/performance.md: at 2,000 tables, 5,000 and 10 gave young pauses of 50 ms and middle ones
of 100-130 ms, this policy 3 and 10 ms, with less collector time in all). What is promoted is only
walked again by a full collection, at most once per 50,000 middle ones (a few hours of a busy
server) and only once a quarter of the old generation is new (Python's own rule): a pause of
some hundreds of milliseconds at 2,000 tables, that rare. The cycles a server makes (a closed
connection's objects, an exception's traceback) die young and are found by the young
collections, so memory stays bounded; only cycles that live long wait for a full one."""


def tune_for_server(thresholds: tuple[int, int, int] = SERVER_THRESHOLDS) -> None:
    """Set the collector for a long-running server process: collect what is garbage now, move
    every object alive (modules, variants, loaded tables) to the permanent generation, which no
    collection walks again (``gc.freeze``), and raise the thresholds. Call it once the process
    has loaded what it keeps (after the tables are loaded, before serving); calling it again
    freezes what is alive then. Objects that die later are freed as usual; only a reference
    cycle among frozen objects would be kept (``gc.unfreeze`` gives them back to the
    collector)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


class PauseLog:
    """Every garbage collection of this process from :meth:`start` to :meth:`stop`, in
    :attr:`pauses`."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, int, float, float]] = []
        """Each collection as ``(began, generation, seconds, cpu_seconds)``: when it began
        (``time.monotonic``), the generation collected, how long it took, and how much of that
        the thread spent on the processor (less when the machine made it wait)."""
        self._began = (0.0, 0.0)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if phase == "start":
            self._began = (now, cpu)
        else:
            took = now - self._began[0]
            at = time.monotonic() - took
            self.pauses.append((at, info["generation"], took, cpu - self._began[1]))

    def start(self) -> None:
        """Record every collection from now on."""
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def stop(self) -> None:
        """Stop recording (the pauses recorded stay)."""
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

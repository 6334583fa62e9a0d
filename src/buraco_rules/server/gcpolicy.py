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

SERVER_THRESHOLDS: Final = (5_000, 10, 1000)
"""The collector's thresholds for a server (Python's are 700, 10, 10): a young collection per
50,000 net new tracked objects (a pause of a few milliseconds, as rare as a cache fills), and a
full one at most once per 100 middle ones, that is once per 100 million net new objects; a
full collection also needs a quarter of the old generation to be new since the last (Python's
own rule). The cycles a server makes (a closed connection's objects, an exception's traceback)
are found by the young collections, so memory stays bounded; only cycles that live long wait
for a full collection."""


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

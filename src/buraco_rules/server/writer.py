"""The writer thread of a store (SQLite's and PostgreSQL's): the writes the event loop submits
wait in a list, and the thread takes all of those waiting at once and hands them to the store as
one batch (a group commit: one transaction, or one statement, and one flush for all of them);
each write's caller is answered on its own event loop once the batch's outcome is known. The
thread is woken only when the list stops being empty, so that a busy writer takes many writes
for one wake-up."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Generic, Protocol, TypeVar

__all__ = ["Pending", "Writer"]

log = logging.getLogger(__name__)


class Pending(Protocol):
    """A write waiting for the writer: its caller's event loop and the future answered there."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop of the write's caller."""

    @property
    def done(self) -> asyncio.Future[None]:
        """_Settled with the write's outcome: its result once committed, else its error."""


P = TypeVar("P", bound=Pending)


class Writer(Generic[P]):
    """A store's writer thread, named ``name``. ``commit`` writes a batch on the thread and
    gives each item's outcome (None: committed; else its error), ``closed`` is the error a
    write submitted after :meth:`close` raises; ``start`` runs on the thread first (opening its
    connection: if it fails, every write fails with its error) and ``finish`` as it ends."""

    def __init__(
        self,
        name: str,
        commit: Callable[[list[P]], Sequence[BaseException | None]],
        closed: Callable[[], BaseException],
        start: Callable[[], None] | None = None,
        finish: Callable[[], None] | None = None,
    ) -> None:
        self._commit = commit
        self._start = start
        self._closed = closed
        self._finish = finish
        self._pending: list[P] = []
        self._closing = False
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    async def submit(self, item: P) -> None:
        """Queue ``item`` for the writer; returns once it is committed (or raises its error)."""
        with self._wake:
            if self._closing:
                raise self._closed()
            self._pending.append(item)
            if len(self._pending) == 1:
                self._wake.notify()
        await item.done

    def close(self) -> None:
        """Write what is waiting, then stop the thread."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join()

    def _run(self) -> None:
        unusable: BaseException | None = None  # why the writer cannot write at all
        try:
            if self._start is not None:
                self._start()
        except Exception as failed:
            log.error("the store's writer cannot start: %s", failed)
            unusable = failed
        try:
            while True:
                with self._wake:
                    while not self._pending and not self._closing:
                        self._wake.wait()
                    batch, self._pending = self._pending, []
                if not batch:
                    return  # closing, and nothing left to write
                outcomes: Sequence[BaseException | None] = [unusable] * len(batch)
                if unusable is None:
                    try:
                        outcomes = self._commit(batch)
                    except Exception as failed:  # a bug: the batch fails, not the thread
                        log.exception("writing %d changes failed", len(batch))
                        outcomes = [failed] * len(batch)
                # One wake-up of each caller's loop for the whole batch, not one a write.
                settled: dict[asyncio.AbstractEventLoop, list[_Settled]] = {}
                for item, outcome in zip(batch, outcomes, strict=True):
                    settled.setdefault(item.loop, []).append((item.done, outcome))
                for loop, answers in settled.items():
                    loop.call_soon_threadsafe(_settle, answers)
        finally:
            if self._finish is not None:
                self._finish()


_Settled = tuple[asyncio.Future[None], BaseException | None]


def _settle(answers: list[_Settled]) -> None:
    for done, error in answers:
        if done.cancelled():
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)

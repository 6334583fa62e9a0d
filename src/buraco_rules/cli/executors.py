"""Where the commands that play many hands (``simulate``, ``ladder``) play them, and how they
show their progress: the ``--workers`` and ``--dask-scheduler`` options, the executor they name,
and the progress bar."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from typing import TextIO

from ..bots.simulate import dask_executor
from .options import positive_int

__all__ = ["add_executor_options", "executor_of", "progress_bar"]


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers`` and ``--dask-scheduler`` to a command that plays many hands."""
    parser.add_argument(
        "--workers", type=positive_int, default=1, help="processes to play in (default 1)"
    )
    parser.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="play on a Dask cluster (needs the 'distributed' extra), e.g. tcp://10.0.0.1:8786",
    )


@contextmanager
def executor_of(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> Iterator[Executor | None]:
    """The executor the options name: a Dask cluster's, a process pool, or None (this process).
    Refuses both at once, and a scheduler without Dask or out of reach, as a usage error."""
    workers: int = args.workers
    scheduler: str | None = args.dask_scheduler
    if scheduler and workers != 1:
        parser.error("give --workers or --dask-scheduler, not both")
    if scheduler:
        if importlib.util.find_spec("distributed") is None:
            parser.error(
                "--dask-scheduler needs Dask: python -m pip install 'buraco-rules[distributed]'"
            )
        with ExitStack() as stack:
            try:
                executor = stack.enter_context(dask_executor(scheduler))
            except (OSError, TimeoutError, ValueError) as error:
                parser.error(f"cannot reach the Dask scheduler at {scheduler}: {error}")
            yield executor
    elif workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            yield pool
    else:
        yield None


@contextmanager
def progress_bar(stream: TextIO, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback drawing on ``stream`` (with rich, when it is installed), or None."""
    if not enabled:
        yield None
        return
    if importlib.util.find_spec("rich") is not None:
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(file=stream), transient=True) as bar:
            task = bar.add_task("playing", total=None)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            yield advance
        return

    def draw(done: int, total: int) -> None:
        filled = 30 * done // total
        stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} hands")
        stream.flush()

    try:
        yield draw
    finally:
        stream.write("\r" + " " * 60 + "\r")
        stream.flush()

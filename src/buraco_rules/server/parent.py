"""Child processes that do not outlive the process that started them.

A process killed outright (SIGKILL, the out-of-memory killer) cannot stop its children, and a
child waiting on a socket or a pipe may never notice: ``serve --workers``'s workers would go on
holding the port (so that no new server can start) and their tables' leases; a thinking process
would wait for work for good. :func:`follow_parent` gives a child a thread that looks at its
parent once a second and acts when it is gone.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

__all__ = ["follow_parent"]


def follow_parent(then: Callable[[], object], every: float = 1.0) -> None:
    """Call ``then`` (in a daemon thread of this process) once this process's parent is gone,
    within ``every`` seconds of its end: the parent seen now is the one followed."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        then()

    threading.Thread(target=watch, name="buraco-follow-parent", daemon=True).start()

"""What the memo caches hold: bytes per entry and when full, after random play (``--memory``)."""

from __future__ import annotations

import gc
import platform
import random
import tracemalloc
from typing import Any

from .. import variants
from ..core import memo
from ..core.memo import clear_caches
from .playouts import _now, _playout, build


def cache_memory(seconds: float, seed: int = 12345) -> dict[str, Any]:
    """Fill the memo caches by random play of every variant and player count for ``seconds``
    under ``tracemalloc``; then the bytes each cache held (what emptying it gave back), per
    entry, and full (its bound, from the mean entry)."""
    rng = random.Random(seed)
    configs = [(variants.get(n), p) for n in variants.NAMES for p in variants.get(n).player_counts]
    clear_caches()
    gc.collect()
    tracemalloc.start()
    games = 0
    start = _now()
    while _now() - start < seconds:
        rules, players = configs[games % len(configs)]
        _playout(rules, players, rng)
        games += 1
    gc.collect()
    caches: dict[str, Any] = {}
    sizes = memo.cache_sizes()
    for name, size in sizes.items():
        before = tracemalloc.get_traced_memory()[0]
        memo.clear_cache(name)
        gc.collect()
        held = before - tracemalloc.get_traced_memory()[0]
        per_entry = held / size.entries if size.entries else 0.0
        caches[name] = {
            "entries": size.entries,
            "maxsize": size.maxsize,
            "bytes": held,
            "bytes_per_entry": per_entry,
            "bound_bytes": per_entry * size.maxsize,
        }
    tracemalloc.stop()
    return {
        "games": games,
        "bytes_held": sum(c["bytes"] for c in caches.values()),
        "bound_bytes": sum(c["bound_bytes"] for c in caches.values()),
        "caches": caches,
        "python": platform.python_version(),
        "build": build(),
    }

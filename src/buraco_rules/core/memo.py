"""The engine's memo caches, in one registry.

Every memo cache of the engine is a bounded LRU cache of a pure function, made with
:func:`memoised`, which records it here: so :func:`clear_caches` empties them all and
:func:`cache_sizes` reports them, and the memory they may hold is bounded by the sum of their
sizes (measured in ``docs/performance.md``). A cache changes no answer, only its cost.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import _lru_cache_wrapper, lru_cache
from typing import NamedTuple, TypeVar

__all__ = ["CacheSize", "cache_sizes", "clear_cache", "clear_caches", "memoised"]

T = TypeVar("T")

_REGISTRY: dict[str, _lru_cache_wrapper[object]] = {}


def memoised(maxsize: int) -> Callable[[Callable[..., T]], _lru_cache_wrapper[T]]:
    """Decorate a pure function with an LRU cache of at most ``maxsize`` entries, recorded in the
    registry under the function's module and name."""

    def register(function: Callable[..., T]) -> _lru_cache_wrapper[T]:
        cached = lru_cache(maxsize=maxsize)(function)
        _REGISTRY[f"{function.__module__}.{function.__qualname__}"] = cached
        return cached

    return register


class CacheSize(NamedTuple):
    """How full one memo cache is."""

    entries: int
    maxsize: int


def cache_sizes() -> dict[str, CacheSize]:
    """Every memo cache of the engine by its function's name, with its entries and its bound."""
    sizes = {}
    for name, cached in _REGISTRY.items():
        info = cached.cache_info()
        sizes[name] = CacheSize(info.currsize, info.maxsize or 0)
    return sizes


def clear_caches() -> None:
    """Empty every memo cache of the engine (for a benchmark that must start cold, to give their
    memory back, or so that the next answers' timings owe nothing to what earlier work, another
    seat's hand included, left in them). No answer changes, only the time the next ones take."""
    for cached in _REGISTRY.values():
        cached.cache_clear()


def clear_cache(name: str) -> None:
    """Empty the one memo cache ``name`` (a key of :func:`cache_sizes`), to measure it."""
    _REGISTRY[name].cache_clear()

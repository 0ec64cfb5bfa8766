"""Run numpy-heavy work on a few threads: numpy releases the GIL inside its kernels.

No pool is kept between calls (nothing per-process survives, so callers pickle cleanly).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_PARALLEL = 1 << 17  # below this many elements a thread costs more than it saves
CHUNK = 1 << 18


def threads() -> int:
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def chunk_bounds(length: int, chunk: int = CHUNK) -> list[tuple[int, int]]:
    return [(start, min(start + chunk, length)) for start in range(0, length, chunk)]


def map_chunks(fn: Callable[[int, int], R], length: int, *, chunk: int = CHUNK) -> list[R]:
    """``fn(start, stop)`` over consecutive chunks of ``range(length)``, in order."""
    bounds = chunk_bounds(length, chunk) or [(0, 0)]
    workers = threads()
    if length < MIN_PARALLEL or workers == 1 or len(bounds) == 1:
        return [fn(start, stop) for start, stop in bounds]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda b: fn(*b), bounds))


def for_each(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    workers = threads()
    if workers == 1 or len(items) < 2:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))

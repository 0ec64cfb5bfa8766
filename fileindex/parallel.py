"""Run numpy-heavy work on a few threads: numpy releases the GIL inside its kernels.

No pool is kept between calls (nothing per-process survives, so callers pickle cleanly), but for the scan's
reader threads (``reader_pool``): started once per process and kept, so that a scan on a busy machine waits
neither for new threads to start nor for them to end (each such wait is a wake-up queued behind the other
work on the cores).
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

MIN_PARALLEL = 1 << 17  # below this many elements a thread costs more than it saves
CACHE_BLOCK = 1 << 14  # elements per numpy pass: an int64 pipeline's temporaries stay in L2 (about 2x faster)


def threads() -> int:
    """The threads a pool here may use: the cores this process may run on (its affinity), at most 4."""
    return max(1, min(4, _cores()))


_READER_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}  # (process id, threads) -> the pool
_READER_POOLS_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    """A forked child's own lock (one forked while another thread held the parent's would never get it)."""
    global _READER_POOLS_LOCK
    _READER_POOLS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def reader_pool(workers: int) -> ThreadPoolExecutor:
    """This process's pool of ``workers`` reader threads, kept between calls (a forked child makes its own: its
    parent's threads are not in it). Its threads start on the first reads and then wait for the next ones."""
    key = (os.getpid(), workers)
    with _READER_POOLS_LOCK:
        pool = _READER_POOLS.get(key)
        if pool is None:
            from concurrent.futures import ThreadPoolExecutor  # (and logging) not imported before a read needs it

            for stale in [k for k in _READER_POOLS if k[0] != key[0]]:
                del _READER_POOLS[stale]  # (a parent's, in a forked child: never shut down, its threads are gone)
            pool = _READER_POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="fileindex-read")
        return pool


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def chunk_bounds(length: int, chunk: int) -> list[tuple[int, int]]:
    return [(start, min(start + chunk, length)) for start in range(0, length, chunk)]


def cache_blocks(length: int) -> list[tuple[int, int]]:
    """``range(length)`` cut into blocks small enough for a chain of numpy operations to run in cache."""
    return chunk_bounds(length, CACHE_BLOCK)


def map_chunks(fn: Callable[[int, int], R], length: int, *, per_thread: int = 1) -> list[R]:
    """``fn(start, stop)`` over consecutive chunks of ``range(length)``, in order, ``per_thread`` chunks a thread.

    Few, large chunks measured fastest for chains of numpy calls: smaller chunks mean more,
    shorter calls, and the threads then spend their time handing the GIL back and forth. A few
    chunks a thread pay off when ``fn`` mixes GIL-free work with work that holds the GIL
    (``np.put``): the threads drift apart and overlap the two.
    """
    workers = threads()
    if length < MIN_PARALLEL or workers == 1:
        return [fn(0, length)]
    bounds = chunk_bounds(length, -(-length // (workers * per_thread)))
    from concurrent.futures import ThreadPoolExecutor  # with logging: imported by the first call that needs it

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda b: fn(*b), bounds))


def for_each(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    workers = threads()
    if workers == 1 or len(items) < 2:
        return [fn(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))

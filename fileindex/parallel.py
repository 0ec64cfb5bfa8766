"""Run numpy-heavy work on a few threads: numpy releases the GIL inside its kernels.

No pool is kept between calls (nothing per-process survives, so callers pickle cleanly), but for the scan's
reader threads (``reader_pool``): started once per process and kept, so that a scan on a busy machine waits
neither for new threads to start nor for them to end (each such wait is a wake-up queued behind the other
work on the cores). They are a :class:`ReaderPool` of this module, not ``concurrent.futures``: that package
imports ``logging``, ``traceback`` and ``string``, a tenth of the imports of a cold ``fileindex read`` (#54).
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_PARALLEL = 1 << 17  # below this many elements a thread costs more than it saves
CACHE_BLOCK = 1 << 14  # elements per numpy pass: an int64 pipeline's temporaries stay in L2 (about 2x faster)


def threads() -> int:
    """The threads a pool here may use: the cores this process may run on (its affinity), at most 4."""
    return max(1, min(4, _cores()))


class Read:
    """One read handed to a :class:`ReaderPool`: the subset of ``concurrent.futures.Future`` the scan uses. A
    read runs once, on whichever thread claims it first (a pool thread, or the consumer through ``cancel``)."""

    __slots__ = ("_call", "_claimed", "_ended", "_value", "_error")

    def __init__(self, call: Callable[[], Any] | None = None):
        self._call = call
        self._claimed = threading.Lock()  # held by the thread that runs (or cancels) it
        self._ended = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    def run(self) -> None:
        """Run it here, unless another thread has claimed it."""
        if not self._claimed.acquire(blocking=False):
            return
        try:
            self._value = self._call()  # type: ignore[misc]
        except BaseException as err:  # (raised where the consumer asks for the result)
            self._error = err
            if not isinstance(err, Exception):
                raise  # (Ctrl-C stops a consumer reading here at once)
        finally:
            self._call = None
            self._ended.set()

    def cancel(self) -> bool:
        """Whether it was cancelled (True only for a read no thread has started)."""
        if not self._claimed.acquire(blocking=False):
            return False
        self._call = None
        self._error = CancelledRead()
        self._ended.set()
        return True

    def done(self) -> bool:
        return self._ended.is_set()

    def result(self, timeout: float | None = None) -> Any:
        if not self._ended.wait(timeout):
            raise TimeoutError("the read did not end in time")
        if self._error is not None:
            raise self._error
        return self._value


def aside(call: Callable[[], T]) -> Read:
    """``call()`` started on a daemon thread of its own, its answer (or error) given by ``result()``: what a caller
    needs later (a request to a store), sent beside what it does first. A caller that stops waiting (an error,
    Ctrl-C) leaves it behind: a daemon thread keeps no process alive, and exit does not wait for it."""
    read = Read(call)
    threading.Thread(target=read.run, name="fileindex-aside", daemon=True).start()
    return read


class CancelledRead(Exception):
    """What a cancelled :class:`Read` answers."""


_SIDE_BY_SIDE = threading.local()


def reading_side_by_side() -> bool:
    """Is this thread running one of several reads side by side (a :class:`ReaderPool` thread, or a consumer
    running a queued read itself: :func:`side_by_side`)? Such a read decodes its file on this thread alone: the
    reads are the parallelism already, and handing a file's columns to pyarrow's threads adds only wake-ups,
    each a wait for a core on a busy machine (#54: half the voluntary context switches of a selective scan)."""
    return getattr(_SIDE_BY_SIDE, "on", False)


@contextmanager
def side_by_side() -> Iterator[None]:
    """``with side_by_side():`` this thread's reads count as one of several running side by side."""
    was, _SIDE_BY_SIDE.on = reading_side_by_side(), True
    try:
        yield
    finally:
        _SIDE_BY_SIDE.on = was


class ReaderPool:
    """``workers`` daemon threads taking reads off one queue; stopped (their reads ended) at interpreter exit,
    as ``concurrent.futures`` stops its own, before the interpreter finalizes. Their reads run side by side
    (:func:`reading_side_by_side`)."""

    def __init__(self, workers: int):
        from queue import SimpleQueue  # (pyarrow imports it anyway)

        self._queue: SimpleQueue[Read | None] = SimpleQueue()
        self._threads = [threading.Thread(target=self._work, name=f"fileindex-read_{n}", daemon=True)
                         for n in range(workers)]
        for thread in self._threads:
            thread.start()
        _at_exit(self.shutdown)

    def submit(self, function: Callable[..., R], *args: Any) -> Read:
        read = Read(lambda: function(*args))
        self._queue.put(read)
        return read

    def shutdown(self) -> None:
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()

    def _work(self) -> None:
        _SIDE_BY_SIDE.on = True
        while (read := self._queue.get()) is not None:
            read.run()


def _at_exit(stop: Callable[[], None]) -> None:
    """``stop`` called when the main thread ends, before non-daemon threads are joined and the interpreter
    finalizes (where ``concurrent.futures`` registers its own); ``atexit`` where that hook is missing."""
    register = getattr(threading, "_register_atexit", None)
    if register is None:
        import atexit

        atexit.register(stop)
    else:
        register(stop)


_READER_POOLS: dict[tuple[int, int], ReaderPool] = {}  # (process id, threads) -> the pool
_READER_POOLS_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    """A forked child's own lock (one forked while another thread held the parent's would never get it)."""
    global _READER_POOLS_LOCK
    _READER_POOLS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def reader_pool(workers: int) -> ReaderPool:
    """This process's pool of ``workers`` reader threads, kept between calls (a forked child makes its own: its
    parent's threads are not in it)."""
    key = (os.getpid(), workers)
    with _READER_POOLS_LOCK:
        pool = _READER_POOLS.get(key)
        if pool is None:
            for stale in [k for k in _READER_POOLS if k[0] != key[0]]:
                del _READER_POOLS[stale]  # (a parent's, in a forked child: never shut down, its threads are gone)
            pool = _READER_POOLS[key] = ReaderPool(workers)
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

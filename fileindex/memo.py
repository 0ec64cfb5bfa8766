"""Bounded per-process memos of what is decoded from files that cannot change under the same identity.

A memo holds at most ``items`` values and ``budget`` bytes of them (each value's weight is given when
it is put; least recently used out), under a lock so that threads may share it. Keys are file
identities (``file_identity``: a file replaced or written in place has a new one) or the bytes a
value was decoded from. Nothing is put for a file that failed to decode, so a malformed file raises
each time it is read. Memos are module-level state of one process: they are never pickled into
tasks, and each Spark worker keeps its own. ``FILEINDEX_MEMOS=off`` in a process's environment keeps
them all empty (read when the module is imported).
"""
from __future__ import annotations

import gc
import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Generic, TypeVar

_OFF, _ON = ("off", "0", "false", "no"), ("on", "1", "true", "yes", "")


def memos_enabled(environ=os.environ) -> bool:
    """Whether the environment lets the memos keep anything (``FILEINDEX_MEMOS``, default on)."""
    setting = environ.get("FILEINDEX_MEMOS", "on").strip().lower()
    if setting not in _OFF + _ON:
        warnings.warn(f"FILEINDEX_MEMOS={setting!r} is neither on nor off: the memos stay on", stacklevel=2)
    return setting not in _OFF


ENABLED = memos_enabled()
V = TypeVar("V")
T = TypeVar("T")
R = TypeVar("R")


def file_identity(path: str, stat: os.stat_result) -> tuple:
    """Changes whenever the file at ``path`` is replaced or written (the ctime moves on any change)."""
    return path, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


class BoundedMemo(Generic[V]):
    """Up to ``items`` values weighing up to ``budget`` bytes in all, least recently used out (the last
    value put stays even when it alone is over the budget). Holds nothing when ``ENABLED`` is false."""

    def __init__(self, items: int, budget: int):
        self.items, self.budget = (items if ENABLED else 0), budget
        self._values: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            found = self._values.get(key)
            if found is None:
                return None
            self._values.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: V, weight: int) -> None:
        with self._lock:
            self._put(key, value, weight)

    def reweigh(self, key: Hashable, value: V, weight: int) -> None:
        """``value``, held under ``key``, now weighs ``weight`` (a value that grew: least recently used ones out);
        nothing where ``key`` holds another value or none (evicted or replaced meanwhile)."""
        with self._lock:
            found = self._values.get(key)
            if found is not None and found[0] is value:
                self._put(key, value, weight)

    def _put(self, key: Hashable, value: V, weight: int) -> None:
        old = self._values.pop(key, None)
        self._bytes += weight - (old[1] if old else 0)
        self._values[key] = (value, weight)
        while len(self._values) > self.items or (self._bytes > self.budget and len(self._values) > 1):
            self._bytes -= self._values.popitem(last=False)[1][1]

    @property
    def weight(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._bytes = 0


@contextmanager
def collection_paused() -> Iterator[None]:
    """No automatic garbage collection inside (restored as it was, on errors too). Filling a memo makes
    many long-lived objects and no cycles; on Python 3.11 each full collection meanwhile walks every
    object the memos already hold, which made a first plan of 10,000 files 1.6 times slower."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def computed_in_batches(work: Callable[[T], R], items: Sequence[T], size: int = 1024) -> Iterator[R]:
    """``work(item)`` of each item in order, ``size`` items at a time with automatic collection paused
    (``collection_paused``): never paused while the caller runs between two results."""
    for start in range(0, len(items), size):
        with collection_paused():
            done = [work(item) for item in items[start:start + size]]
        yield from done

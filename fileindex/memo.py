"""Bounded per-process memos of what is decoded from files that cannot change under the same identity.

A memo holds at most ``items`` values and ``budget`` bytes of them (each value's weight is given when
it is put; least recently used out), under a lock so that threads may share it. Keys are file
identities (``file_identity``: a file replaced or written in place has a new one) or the bytes a
value was decoded from. Nothing is put for a file that failed to decode, so a malformed file raises
each time it is read. Memos are module-level state of one process: they are never pickled into
tasks, and each Spark worker keeps its own.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


def file_identity(path: str, stat: os.stat_result) -> tuple:
    """Changes whenever the file at ``path`` is replaced or written (the ctime moves on any change)."""
    return path, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


class BoundedMemo(Generic[V]):
    """Up to ``items`` values weighing up to ``budget`` bytes in all, least recently used out (the last
    value put stays even when it alone is over the budget)."""

    def __init__(self, items: int, budget: int):
        self.items, self.budget = items, budget
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

"""Iteration order of ``java.util.HashMap`` (JDK 8+), for byte-identical output (spec §11).

Java writers iterate HashMaps when they lay out containers and bitmap bodies, so reproducing
their bytes means reproducing the order in which a HashMap built by the same sequence of
``put`` / ``computeIfAbsent`` calls iterates. Only the sequence of first insertions and each
key's ``hashCode`` matter; values do not.
"""
from __future__ import annotations

from typing import Callable, Generic, Hashable, Iterable, TypeVar

from .errors import EncodeError

K = TypeVar("K", bound=Hashable)

_INITIAL_CAPACITY = 16
_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_CAPACITY = 64


def spread(hash_code: int) -> int:
    h = hash_code & 0xFFFFFFFF
    return h ^ (h >> 16)


class JavaHashMapOrder(Generic[K]):
    """Tracks where each key sits in a Java HashMap; iterate it for Java's order."""

    def __init__(self, hash_code: Callable[[K], int]):
        self._hash_code = hash_code
        self._table: list[list[tuple[int, K]]] = []
        self._keys: set[K] = set()

    @property
    def capacity(self) -> int:
        return len(self._table)

    def _threshold(self) -> int:
        return self.capacity * 3 // 4

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        for bucket in self._table:
            for _, key in bucket:
                yield key

    def compute_if_absent(self, key: K) -> None:
        """``HashMap.computeIfAbsent``: resize check first (even for present keys), head insertion."""
        if not self._table or len(self._keys) > self._threshold():
            self._resize()
        if key in self._keys:
            return
        h = spread(self._hash_code(key))
        bucket = self._table[h & (self.capacity - 1)]
        existing = len(bucket)
        bucket.insert(0, (h, key))
        self._keys.add(key)
        if existing >= _TREEIFY_THRESHOLD - 1:
            self._treeify_bin()

    def put(self, key: K) -> None:
        """``HashMap.put``: tail insertion, then the size check."""
        if not self._table:
            self._resize()
        if key in self._keys:
            return
        h = spread(self._hash_code(key))
        bucket = self._table[h & (self.capacity - 1)]
        existing = len(bucket)
        bucket.append((h, key))
        self._keys.add(key)
        if existing >= _TREEIFY_THRESHOLD:
            self._treeify_bin()
        if len(self._keys) > self._threshold():
            self._resize()

    def _treeify_bin(self) -> None:
        if self.capacity < _MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        raise EncodeError(
            "this key sequence makes java.util.HashMap build a tree bin, whose iteration order "
            "is not emulated yet; Java's byte order cannot be reproduced for it"
        )

    def _resize(self) -> None:
        old = self._table
        capacity = len(old) * 2 if old else _INITIAL_CAPACITY
        table: list[list[tuple[int, K]]] = [[] for _ in range(capacity)]
        old_capacity = len(old)
        for j, bucket in enumerate(old):
            for entry in bucket:  # splits keep relative order: lo stays at j, hi moves to j + old_capacity
                table[j + old_capacity if entry[0] & old_capacity else j].append(entry)
        self._table = table


def compute_if_absent_order(keys: Iterable[K], hash_code: Callable[[K], int]) -> list[K]:
    """Java's iteration order of a HashMap filled by ``computeIfAbsent`` in this sequence."""
    order: JavaHashMapOrder[K] = JavaHashMapOrder(hash_code)
    for key in keys:
        order.compute_if_absent(key)
    return list(order)


def put_order(keys: Iterable[K], hash_code: Callable[[K], int]) -> list[K]:
    """Java's iteration order of a HashMap filled by ``put`` in this sequence."""
    order: JavaHashMapOrder[K] = JavaHashMapOrder(hash_code)
    for key in keys:
        order.put(key)
    return list(order)

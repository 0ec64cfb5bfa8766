"""Arrow string/binary columns as raw buffers, and per-length batching for vectorized hashes.

A hash over many short strings is fast in numpy when all strings of one length are processed
together: word ``w`` of every string is then one strided gather. ``map_by_length`` groups the
strings by length and hands each group to a vectorized kernel (small groups, where numpy's
per-call overhead dominates, to a scalar function).
"""
from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
from fileindex.lazy import numpy as np


def binary_buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(data bytes, offsets) of a string or binary array, offsets already shifted by its slice offset."""
    if pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type):
        offset_type: type[np.signedinteger] = np.int64
    elif pa.types.is_string(array.type) or pa.types.is_binary(array.type):
        offset_type = np.int32
    else:  # string views, fixed-size binary: normalise
        array = array.cast(pa.large_binary())
        offset_type = np.int64
    offsets = np.frombuffer(array.buffers()[1], dtype=offset_type)[array.offset:array.offset + len(array) + 1]
    data_buffer = array.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    return data, offsets


def unaligned(data: np.ndarray, dtype: str) -> np.ndarray:
    """Element j is the little-endian word that starts at byte j of ``data``."""
    width = np.dtype(dtype).itemsize
    count = max(len(data) - width + 1, 0)
    if count == 0:
        return np.empty(0, dtype=dtype)
    return np.ndarray(shape=(count,), dtype=dtype, buffer=data, strides=(1,))


def map_by_length(data: np.ndarray, offsets: np.ndarray, *, rows: Callable[[np.ndarray, np.ndarray, int], np.ndarray],
                  one: Callable[[memoryview], int], small_group: int, dtype) -> np.ndarray:
    """``rows(data, starts, length)`` for each group of equal-length strings, ``one(bytes)`` for small groups.

    Returns one value per string (``data[offsets[i]:offsets[i+1]]``), in input order.
    """
    data = np.ascontiguousarray(data, dtype=np.uint8)
    starts = offsets[:-1].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    out = np.empty(len(lengths), dtype=dtype)
    if len(lengths) == 0:
        return out
    key = lengths.astype(np.uint16) if lengths.max() < 65536 else lengths  # 16-bit keys: radix sort
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(lengths[order])) + 1
    source = data.data  # a memoryview of the bytes
    for group in np.split(order, bounds):
        length = int(lengths[group[0]])
        group_starts = starts[group]
        if len(group) < small_group:
            out[group] = [one(source[s:s + length]) for s in group_starts.tolist()]
        else:
            out[group] = rows(data, group_starts, length)
    return out

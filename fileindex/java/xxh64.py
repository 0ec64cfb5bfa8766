"""XXH64 (seed 0) over many byte strings at once, with numpy.

Strings are grouped by length (``string_buffers.map_by_length``). Each 8-byte lane, 4-byte word
and tail byte of a group is loaded for all its strings at once from overlapping strided views of
the data, and goes through the XXH64 rounds as a column of uint64. Groups too small to amortise
numpy's per-call overhead use the ``xxhash`` binding. Checked
against the binding on random inputs (tests/test_xxh64.py).
"""
from __future__ import annotations

import xxhash

from fileindex import kernels
from fileindex.java.string_buffers import map_by_length, unaligned
from fileindex.lazy import numpy as np


P1 = np.uint64(0x9E3779B185EBCA87)
P2 = np.uint64(0xC2B2AE3D27D4EB4F)
P3 = np.uint64(0x165667B19E3779F9)
P4 = np.uint64(0x85EBCA77C2B2AE63)
P5 = np.uint64(0x27D4EB2F165667C5)
SMALL_GROUP = 48  # below this many strings of one length, the binding is faster


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _rotl_in_place(x: np.ndarray, r: int, scratch: np.ndarray) -> None:
    np.right_shift(x, np.uint64(64 - r), out=scratch)
    x <<= np.uint64(r)
    x |= scratch


def _mix_tail(h: np.ndarray, lane: np.ndarray, rotation: int, prime: np.uint64, addend, scratch: np.ndarray) -> None:
    """``h = rotl(h ^ lane, rotation) * prime (+ addend)``, in place."""
    h ^= lane
    _rotl_in_place(h, rotation, scratch)
    h *= prime
    if addend is not None:
        h += addend


def _round(acc: np.ndarray, lane: np.ndarray) -> np.ndarray:
    return _rotl(acc + lane * P2, 31) * P1


def xxh64_rows(data: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    """XXH64 of the ``length`` bytes at each of ``starts`` in ``data``, as uint64."""
    u64, u32 = unaligned(data, "<u8"), unaligned(data, "<u4")
    n = len(starts)
    with np.errstate(over="ignore"):
        offset = 0
        if length >= 32:
            zeros = np.zeros(n, dtype=np.uint64)
            v1 = np.full(n, P1 + P2, dtype=np.uint64)
            v2 = np.full(n, P2, dtype=np.uint64)
            v3 = zeros.copy()
            v4 = np.full(n, np.uint64(0) - P1, dtype=np.uint64)
            while offset + 32 <= length:
                at = starts + offset
                v1 = _round(v1, u64[at])
                v2 = _round(v2, u64[at + 8])
                v3 = _round(v3, u64[at + 16])
                v4 = _round(v4, u64[at + 24])
                offset += 32
            h = _rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)
            for v in (v1, v2, v3, v4):
                h = (h ^ _round(zeros, v)) * P1 + P4
            h += np.uint64(length)
        else:
            h = np.full(n, P5 + np.uint64(length), dtype=np.uint64)
        # the tail, in place: these short inputs are the common case (names, codes, IDs)
        scratch, lane, at = np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int64)

        def load(view: np.ndarray, multiplier: np.uint64) -> np.ndarray:
            np.add(starts, offset, out=at)
            lane[:] = view[at]
            return np.multiply(lane, multiplier, out=lane)

        while offset + 8 <= length:
            _rotl_in_place(load(u64, P2), 31, scratch)
            lane *= P1
            _mix_tail(h, lane, 27, P1, P4, scratch)
            offset += 8
        if offset + 4 <= length:
            _mix_tail(h, load(u32, P1), 23, P2, P3, scratch)
            offset += 4
        while offset < length:
            _mix_tail(h, load(data, P5), 11, P1, None, scratch)
            offset += 1
        for shift, prime in ((33, P2), (29, P3), (32, None)):
            np.right_shift(h, np.uint64(shift), out=scratch)
            h ^= scratch
            if prime is not None:
                h *= prime
    return h


def xxh64_offsets(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """XXH64 of each ``data[offsets[i]:offsets[i+1]]`` (Arrow's string/binary layout), as int64."""
    if kernels.compiled:
        out = np.empty(max(len(offsets) - 1, 0), dtype=np.int64)
        if len(offsets):
            offsets = np.ascontiguousarray(offsets, dtype=np.int64 if offsets.dtype.itemsize == 8 else np.int32)
            kernels.compiled.xxh64_offsets(np.ascontiguousarray(data, dtype=np.uint8), offsets, offsets.itemsize, out)
        return out
    return map_by_length(data, offsets, rows=xxh64_rows, one=xxhash.xxh64_intdigest, small_group=SMALL_GROUP,
                         dtype=np.uint64).view(np.int64)

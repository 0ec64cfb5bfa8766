"""Parquet's RLE / bit-packed hybrid (the dictionary indices of a data page): the values at chosen positions.

The runs are read one after another up to the run holding the last chosen position; a run holding none is
skipped from its header, without unpacking, and nothing after that run is read. Each run's header and values
are checked against the bytes before they are read (``BadRun`` names the run that does not fit). The loop is
the compiled kernel's (``fileindex.kernels``, csrc/hybrid.c) where it is built; the numpy path below gives the
same values and errors (tests/arrow/test_dictionary_pages.py runs both).
"""
from __future__ import annotations

import numpy as np

from fileindex import kernels

MAX_WIDTH = 32
HEADER_BYTES = 5  # (a run header is a ULEB128 of at most 32 bits)
VALUE_SPAN = 5  # (a value of 32 bits at a bit offset of up to 7 spans five bytes)
PAD = b"\0" * VALUE_SPAN  # (those of a run's last value may lie past it)


class BadRun(ValueError):
    """A run whose header or values do not fit in the bytes (``at``: its byte; the length: the runs end first)."""

    def __init__(self, at: int):
        super().__init__(f"the hybrid run at byte {at} does not fit in the page's bytes")
        self.at = at


def take(data: bytes | memoryview, width: int, positions: np.ndarray | memoryview) -> np.ndarray:
    """The values (uint32) at ``positions`` (ascending, not negative int64) of the runs in ``data`` (after the
    bit-width byte) of values ``width`` bits wide (0 to 32). Raises BadRun where a run does not fit."""
    if not 0 <= width <= MAX_WIDTH:
        raise ValueError(f"bit width {width}: the hybrid's values are 0 to {MAX_WIDTH} bits")
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    if len(positions) and (positions[0] < 0 or (len(positions) > 1 and bool((np.diff(positions) < 0).any()))):
        raise ValueError("positions are ascending and not negative")
    out = np.empty(len(positions), np.uint32)
    if kernels.compiled:
        read = kernels.compiled.hybrid_take(data, width, positions, out)
        if read < 0:
            raise BadRun(-1 - read)
        return out
    _take(bytes(data), width, positions, out)
    return out


def _take(data: bytes, width: int, positions: np.ndarray, out: np.ndarray) -> int:
    value_bytes, at, first, done = (width + 7) // 8, 0, 0, 0
    while done < len(positions):
        run_at = at
        header, at = _run_header(data, at)
        if header & 1:  # bit-packed: header >> 1 groups of 8 values, ``width`` bytes a group
            count, size = (header >> 1) * 8, (header >> 1) * width
            if size > len(data) - at:
                raise BadRun(run_at)
            end = _end(positions, first + count)
            if end > done:
                out[done:end] = _unpacked(data[at:at + size], width, positions[done:end] - first)
        else:  # RLE: header >> 1 repeats of one value of ``value_bytes`` bytes
            count, size = header >> 1, value_bytes
            if size > len(data) - at:
                raise BadRun(run_at)
            end = _end(positions, first + count)
            out[done:end] = int.from_bytes(data[at:at + size], "little")
        at, first, done = at + size, first + count, end
    return at


def _run_header(data: bytes, at: int) -> tuple[int, int]:
    header = 0
    for i in range(min(HEADER_BYTES, len(data) - at)):
        byte = data[at + i]
        header |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return header, at + i + 1
    raise BadRun(at)


def _end(positions: np.ndarray, past: int) -> int:
    """How many positions lie before ``past``."""
    return int(np.searchsorted(positions, min(past, np.iinfo(np.int64).max), side="left"))


def _unpacked(run: bytes, width: int, ks: np.ndarray) -> np.ndarray:
    """The values numbered ``ks`` of a bit-packed run (LSB first, ``width`` bits each)."""
    bits = ks.astype(np.uint64) * np.uint64(width)
    start = bits >> np.uint64(3)
    padded = np.frombuffer(run + PAD, np.uint8)
    word = np.zeros(len(ks), np.uint64)
    for byte in range(VALUE_SPAN):
        word |= padded[start + np.uint64(byte)].astype(np.uint64) << np.uint64(8 * byte)
    mask = np.uint64((1 << width) - 1)
    return ((word >> (bits & np.uint64(7))) & mask).astype(np.uint32)

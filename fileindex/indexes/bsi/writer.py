"""The ``bsi`` writer (spec §7), byte-identical to Java's: non-negative values go to the positive half,
negative values to the negative half as |v|; each half keeps an existence bitmap and one bitmap per
bit of its largest magnitude (Java writes min as 0).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fileindex import errors
from fileindex.indexes import roaring
from fileindex.indexes.bsi import INDEX_TYPE, OPTIONS
from fileindex.indexes.bsi.keys import _keys, check_type
from fileindex.indexes.options import check_known
from fileindex.java_numbers import LONG_MIN
from fileindex.parallel import for_each
from fileindex.types import DataType


HALVES_AT_ONCE = 1 << 22  # rows up to which the two halves are built on two threads


def _serialize_half(rows: np.ndarray, magnitudes: np.ndarray) -> bytes:
    """A BitSliceIndexRoaringBitmap with min 0: version, min, max, ebm, slices (spec §7.1)."""
    maximum = int(magnitudes.max()) if len(magnitudes) else 0
    slices = maximum.bit_length()
    parts = roaring.serialized_bit_slices(rows, magnitudes, slices)
    head = b"\x01" + (0).to_bytes(8, "big") + maximum.to_bytes(8, "big", signed=True)
    return head + roaring.serialize(roaring.bitmap_of(rows)) + slices.to_bytes(4, "big") + b"".join(parts)


def check_writable(data_type: DataType, options: Mapping[str, str] | None = None) -> None:
    """Raise unless the type and options are ones Java's writer takes (it takes no option)."""
    check_type(data_type)
    check_known(options or {}, OPTIONS, INDEX_TYPE)


def build(values, data_type: DataType, options: Mapping[str, str] | None = None) -> bytes:
    check_writable(data_type, options)
    valid, keys = _keys(values, data_type)
    rows = np.flatnonzero(valid).astype(np.int64)
    if (keys == LONG_MIN).any():
        raise errors.UsageError(
            f"bsi cannot index {LONG_MIN} (Long.MIN_VALUE): its magnitude does not fit a long "
            "(Java fails with 'values should be non-negative'); use range-bitmap for this column")
    negative = keys < 0

    def half(mask: np.ndarray, sign: int) -> bytes | None:
        return _serialize_half(rows[mask], sign * keys[mask]) if mask.any() else None

    # Both halves at once while the column is small: one sorts its slices (no GIL) while the other
    # builds its bitmaps (GIL), 30% faster at 1M rows; at 10M both working sets cost 140 MB of peak.
    halves = [(~negative, 1), (negative, -1)]
    if len(rows) <= HALVES_AT_ONCE:
        parts = for_each(lambda pair: half(*pair), halves)
    else:
        parts = [half(*pair) for pair in halves]
    out = [b"\x01", len(valid).to_bytes(4, "big")]
    for part in parts:
        out += [b"\x00"] if part is None else [b"\x01", part]
    return b"".join(out)

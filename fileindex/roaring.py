"""Roaring bitmaps as Paimon writes them: ``RoaringBitmap32`` in the portable format (spec §4).

pyroaring is byte-identical to Java after ``run_optimize()`` (checked on the Java vectors).
"""
from __future__ import annotations

from array import array

import numpy as np
from pyroaring import BitMap, FrozenBitMap

from .errors import InvalidEncodingError


def bitmap_of(rows: np.ndarray) -> BitMap:
    """A bitmap of row numbers (any integer numpy array of values in [0, 2^31))."""
    return BitMap(array("I", np.asarray(rows, dtype=np.uint32).tobytes()))


def serialize(bitmap: BitMap | FrozenBitMap) -> bytes:
    """``RoaringBitmap32.serialize``: runOptimize first, then the portable format."""
    mutable = bitmap if isinstance(bitmap, BitMap) and not isinstance(bitmap, FrozenBitMap) else BitMap(bitmap)
    mutable.run_optimize()
    return mutable.serialize()


def serialized_size_of_single_row() -> int:
    return 18  # cookie, one container header, one offset, one 16-bit value (spec §4)


def deserialize(data, *, offset: int, field: str) -> FrozenBitMap:
    """Decode a portable-format bitmap; trailing bytes are ignored (Roaring is self-delimiting)."""
    try:
        bitmap = FrozenBitMap.deserialize(data)
    except (ValueError, MemoryError, OverflowError) as err:
        raise InvalidEncodingError(f"not a valid Roaring bitmap ({err})", offset=offset, field=field) from None
    if bitmap and bitmap.max() > 0x7FFFFFFF:
        raise InvalidEncodingError(
            f"row number {bitmap.max()} does not fit Java's signed int", offset=offset, field=field)
    return bitmap


def all_rows(row_count: int) -> FrozenBitMap:
    return FrozenBitMap(range(row_count))


def complement(bitmap, row_count: int) -> FrozenBitMap:
    """Rows of [0, row_count) not in ``bitmap`` (Java's ``flip(0, rowCount)``)."""
    return FrozenBitMap(BitMap(bitmap).flip(0, row_count))

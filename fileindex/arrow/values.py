"""Column values from Arrow arrays (or Python sequences) as the integers Paimon's indexes key on.

Integer types, DATE (days) and TIME (millis of day) are themselves; TIMESTAMP(p) and LTZ(p) are
epoch millis (p <= 3) or micros (floor, p > 3); FLOAT and DOUBLE are their IEEE bits
(``floatToIntBits``/``doubleToLongBits``: NaN canonical, or raw bits when ``canonical_nan`` is off).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from fileindex.java_numbers import DOUBLE, FLOAT
from fileindex.types import DataType
from fileindex.values import long_key
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
else:
    compute = LazyModule("fileindex.arrow.compute")

_UNIT_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def integer_keys(array: pa.Array, data_type: DataType, *, canonical_nan: bool = True) -> np.ndarray:
    """int64 keys of the non-null values of ``array`` (nulls must have been dropped)."""
    kind = array.type
    if data_type.root == "FLOAT":
        return FLOAT.bits_array(compute.to_numpy(_as(array, pa.float32())), canonical_nan=canonical_nan)
    if data_type.root == "DOUBLE":
        return DOUBLE.bits_array(compute.to_numpy(_as(array, pa.float64())), canonical_nan=canonical_nan)
    if data_type.is_timestamp:
        unit = kind.unit if pa.types.is_timestamp(kind) else "us"
        raw = array.cast(pa.int64()) if pa.types.is_timestamp(kind) else array
        ticks = compute.to_numpy(raw).astype(np.int64)
        target = 1_000 if data_type.required_precision <= 3 else 1_000_000
        per_second = _UNIT_PER_SECOND[unit]
        if per_second >= target:
            return np.floor_divide(ticks, per_second // target)
        return ticks * (target // per_second)
    if pa.types.is_decimal(kind):
        return _unscaled(array, data_type)
    if pa.types.is_date(kind) or pa.types.is_time(kind):
        as_int = pa.int32() if kind.bit_width == 32 else pa.int64()
        ticks = compute.to_numpy(array.cast(as_int)).astype(np.int64)
        if pa.types.is_time(kind) and kind.unit != "ms":  # Paimon TIME is millis of day
            ticks = np.floor_divide(ticks * 1000, _UNIT_PER_SECOND[kind.unit])
        return ticks
    return compute.to_numpy(array).astype(np.int64, copy=False)


def _as(array: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    """``array`` in ``arrow_type``: cast only where it is another type (a cast imports pyarrow.compute)."""
    return array if array.type == arrow_type else array.cast(arrow_type)


def _unscaled(array: pa.Array, data_type: DataType) -> np.ndarray:
    """A DECIMAL column's unscaled longs, read from Arrow's 128-bit two's-complement values."""
    if data_type.root == "DECIMAL" and array.type.scale != data_type.scale:
        array = array.cast(pa.decimal128(38, data_type.scale))
    if array.type.bit_width != 128:
        array = array.cast(pa.decimal128(38, array.type.scale))
    words = np.frombuffer(array.buffers()[1], dtype="<i8")[2 * array.offset:2 * (array.offset + len(array))]
    low, high = words[0::2], words[1::2]
    wide = np.flatnonzero(high != (low >> 63))
    if len(wide):
        raise OverflowError(f"the value {array[int(wide[0])].as_py()}: its unscaled value does not fit a long "
                            "(Java's toUnscaledLong throws ArithmeticException for it)")
    return low.astype(np.int64)


def integer_key(value, data_type: DataType, *, canonical_nan: bool = True) -> int:
    """The same key for one Python value."""
    if data_type.root in ("FLOAT", "DOUBLE"):
        floating = FLOAT if data_type.root == "FLOAT" else DOUBLE
        return floating.to_bits(value) if canonical_nan else floating.to_raw_bits(value)
    if data_type.root == "BOOLEAN":
        return int(bool(value))
    return long_key(value, data_type)


def split_nulls(values, data_type: DataType, *, canonical_nan: bool = True):
    """(valid mask, keys of the valid rows) for a fixed-width column: numpy bool and int64 arrays."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        valid = compute.to_numpy(compute.call("is_valid", array))
        return valid, integer_keys(array.drop_null(), data_type, canonical_nan=canonical_nan)
    valid = np.array([v is not None for v in values], dtype=bool)
    keys = np.array([integer_key(v, data_type, canonical_nan=canonical_nan) for v in values if v is not None],
                    dtype=np.int64)
    return valid, keys

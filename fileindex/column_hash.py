"""FastHash over whole columns (pyarrow arrays or Python sequences) with numpy, nulls dropped."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from .fast_hash import check_bloom_type, hash_value, wang_mix_array
from .parallel import map_chunks
from .types import DataType
from .xxh64 import xxh64_offsets

_UNIT_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def column_hashes(values, data_type: DataType, *, distinct: bool = True) -> np.ndarray:
    """The int64 FastHash of every non-null value (of each distinct value when ``distinct``)."""
    check_bloom_type(data_type)
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        present = [v for v in values if v is not None]
        if data_type.is_string or data_type.is_binary or not present:
            return np.array([hash_value(v, data_type) for v in present], dtype=np.int64)
        if data_type.root in ("FLOAT", "DOUBLE"):
            return np.array([hash_value(v, data_type) for v in present], dtype=np.int64)
        from .values import long_key

        return wang_mix_array(np.array([long_key(v, data_type) for v in present], dtype=np.int64))
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if pa.types.is_dictionary(array.type):
        # Hash each dictionary entry once; with ``distinct`` only the entries in use.
        indices = array.indices.drop_null().to_numpy(zero_copy_only=False)
        hashes = column_hashes(array.dictionary, data_type, distinct=False)
        return hashes[np.unique(indices)] if distinct else hashes[indices]
    array = array.drop_null()
    pieces = map_chunks(lambda start, stop: _hash_plain(array.slice(start, stop - start), data_type), len(array))
    return np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64)


def _hash_plain(array: pa.Array, data_type: DataType) -> np.ndarray:
    if data_type.is_string or data_type.is_binary:
        return _hash_binary_array(array)
    return wang_mix_array(_long_keys(array, data_type))


def _hash_binary_array(array: pa.Array) -> np.ndarray:
    if pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type):
        offset_type = np.int64
    elif pa.types.is_string(array.type) or pa.types.is_binary(array.type):
        offset_type = np.int32
    else:  # string views, fixed-size binary: normalise
        array = array.cast(pa.large_binary())
        offset_type = np.int64
    offsets = np.frombuffer(array.buffers()[1], dtype=offset_type)[array.offset:array.offset + len(array) + 1]
    data_buffer = array.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    return xxh64_offsets(data, offsets)


def _long_keys(array: pa.Array, data_type: DataType) -> np.ndarray:
    """The signed long each value widens to before Wang's mix (spec §5.4)."""
    kind = array.type
    if data_type.root == "FLOAT":
        bits = array.cast(pa.float32()).to_numpy(zero_copy_only=False).view(np.int32).astype(np.int64)
        nan = np.isnan(array.cast(pa.float32()).to_numpy(zero_copy_only=False))
        return np.where(nan, 0x7FC00000, bits)
    if data_type.root == "DOUBLE":
        doubles = array.cast(pa.float64()).to_numpy(zero_copy_only=False)
        return np.where(np.isnan(doubles), 0x7FF8000000000000, doubles.view(np.int64))
    if data_type.is_timestamp:
        unit = kind.unit if pa.types.is_timestamp(kind) else "us"
        raw = array.cast(pa.int64()) if pa.types.is_timestamp(kind) else array
        ticks = raw.to_numpy(zero_copy_only=False).astype(np.int64)
        target = 1_000 if data_type.precision <= 3 else 1_000_000
        per_second = _UNIT_PER_SECOND[unit]
        if per_second >= target:
            return np.floor_divide(ticks, per_second // target)
        return ticks * (target // per_second)
    if pa.types.is_date(kind) or pa.types.is_time(kind):
        kind_int = pa.int32() if kind.bit_width == 32 else pa.int64()
        ticks = array.cast(kind_int).to_numpy(zero_copy_only=False).astype(np.int64)
        if pa.types.is_time(kind) and kind.unit != "ms":  # Paimon TIME is millis of day
            ticks = np.floor_divide(ticks * 1000, _UNIT_PER_SECOND[kind.unit])
        return ticks
    return array.to_numpy(zero_copy_only=False).astype(np.int64)

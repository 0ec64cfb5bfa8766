"""FastHash over whole columns (pyarrow arrays or Python sequences) with numpy, nulls dropped."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from .arrow_values import integer_keys
from .fast_hash import check_bloom_type, hash_value, wang_mix_array
from .parallel import map_chunks
from .types import DataType
from .xxh64 import xxh64_offsets


def column_hashes(values, data_type: DataType, *, distinct: bool = True) -> np.ndarray:
    """The int64 FastHash of every non-null value (of each distinct value when ``distinct``)."""
    check_bloom_type(data_type)
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        present = [v for v in values if v is not None]
        return np.array([hash_value(v, data_type) for v in present], dtype=np.int64)
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
    return wang_mix_array(integer_keys(array, data_type))


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

"""FastHash over whole columns (pyarrow arrays or Python sequences) with numpy, nulls dropped."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from .arrow_values import integer_keys
from .fast_hash import check_bloom_type, hash_value, wang_mix_array
from .parallel import map_chunks
from .string_buffers import binary_buffers
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
    if not (data_type.is_string or data_type.is_binary):
        return wang_mix_array(integer_keys(array, data_type))  # one thread: threads contend for the GIL here
    pieces = map_chunks(lambda start, stop: _hash_binary_array(array.slice(start, stop - start)), len(array))
    return np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64)


def _hash_binary_array(array: pa.Array) -> np.ndarray:
    return xxh64_offsets(*binary_buffers(array))

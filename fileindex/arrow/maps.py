"""The value of one key in each map of an Arrow map column: what a map-key index (``m[k]``) receives.

``pyarrow.compute.map_lookup(column, key, "first")`` answers the same, but walks the maps one by
one: about 0.75 µs a row on a 200k-row column of small maps, three quarters of building a
file's indexes in the Spark pipeline. This finds every occurrence of the key with one
vectorized comparison over the flattened keys and maps each back to its row (about 0.09 µs a
row). The tests hold it to ``map_lookup`` on generated columns.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from fileindex.arrow import scalars
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
else:
    compute = LazyModule("fileindex.arrow.compute")  # imported when first used: importing this module stays light


def map_values(column: pa.Array | pa.ChunkedArray, key) -> pa.ChunkedArray:
    """Per row, the value of the first entry whose key equals ``key``; null when the map is null
    or has no such key (as ``map_lookup(column, key, "first")``)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    scalar = scalars.scalar(key, column.type.key_type)
    return pa.chunked_array([_chunk_values(chunk, scalar) for chunk in chunks], type=column.type.item_type)


def _chunk_values(chunk: pa.MapArray, key: pa.Scalar) -> pa.Array:
    rows = len(chunk)
    offsets = compute.to_numpy(chunk.offsets)  # positions in the (unsliced) flattened keys and items
    first, last = int(offsets[0]), int(offsets[rows])
    found = np.flatnonzero(compute.to_numpy(compute.call("equal", chunk.keys.slice(first, last - first), key)))
    found += first
    owners = np.searchsorted(offsets, found, side="right") - 1  # nondecreasing: found is sorted
    earliest = np.ones(len(owners), dtype=bool)
    earliest[1:] = owners[1:] != owners[:-1]
    positions = np.full(rows, -1, dtype=np.int64)
    positions[owners[earliest]] = found[earliest]
    missing = positions < 0
    if chunk.null_count:
        missing |= compute.to_numpy(compute.call("is_null", chunk))
    return compute.call("take", chunk.items, compute.from_numpy(positions, pa.int64(), mask=missing))

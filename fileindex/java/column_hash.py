"""FastHash over whole columns (pyarrow arrays or Python sequences), nulls dropped.

A column is cut into pieces, one or a few a thread. A piece carries what its hashes come from
(int64 keys, string bytes with Arrow offsets, or hashes already computed), so a consumer with a
fused kernel (the bloom writer's hash-and-set) can skip the array of hashes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import pyarrow as pa

from fileindex import kernels
from fileindex.arrow.values import integer_keys
from fileindex.java.fast_hash import check_bloom_type, hash_value, wang_mix_array
from fileindex.java.string_buffers import binary_buffers
from fileindex.java.xxh64 import xxh64_offsets
from fileindex.parallel import map_chunks
from fileindex.types import DataType
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
else:
    compute = LazyModule("fileindex.arrow.compute")

R = TypeVar("R")


@dataclass(frozen=True)
class ColumnPiece:
    """Consecutive non-null values of a column: int64 ``keys``, ``strings`` (bytes, offsets) or ``hashes``."""

    keys: np.ndarray | None = None
    strings: tuple[np.ndarray, np.ndarray] | None = None
    hashes: np.ndarray | None = None

    def hashed(self) -> np.ndarray:
        if self.keys is not None:
            return wang_mix_array(self.keys)
        if self.strings is not None:
            return xxh64_offsets(*self.strings)
        assert self.hashes is not None  # a piece holds one of the three
        return self.hashes


def column_hashes(values, data_type: DataType, *, distinct: bool = True) -> np.ndarray:
    """The int64 FastHash of every non-null value (of each distinct value when ``distinct``)."""
    pieces = map_column_hashes(values, data_type, lambda hashes: hashes, distinct=distinct)
    return np.concatenate(pieces) if len(pieces) > 1 else pieces[0]


def map_column_hashes(values, data_type: DataType, consume: Callable[[np.ndarray], R], *,
                      distinct: bool = True) -> list[R]:
    """``consume`` applied to the hashes of consecutive pieces of the column, on a few threads.

    Each piece is hashed on the thread that then consumes it, so one thread's work overlaps
    another's hashing, and no hash array for the whole column is kept.
    """
    return map_column_pieces(values, data_type, lambda piece: consume(piece.hashed()), distinct=distinct)


def map_column_pieces(values, data_type: DataType, consume: Callable[[ColumnPiece], R], *,
                      distinct: bool = True) -> list[R]:
    """``consume`` applied to consecutive pieces of the column's non-null values, on a few threads.

    Dictionary arrays hash each entry once (with ``distinct``, only the entries in use) and Python
    sequences hash value by value; their pieces carry hashes. (Measured on the numpy path: integers
    fastest in 4 pieces a thread, where ``np.put`` holding the GIL overlaps other threads' hashing;
    strings, and everything else on the compiled path, in one.) Integers on the compiled path are one
    piece, on this thread: the kernels hash and set 1M keys in about 11 ms, and a second thread, with
    its own bit set to fill and merge, cost 10-20% more CPU for the wall it saved (#54 holds both).
    """
    check_bloom_type(data_type)
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        if not pa.types.is_dictionary(array.type):
            array = array.drop_null()
            if data_type.is_string or data_type.is_binary:
                return map_chunks(lambda start, stop: consume(ColumnPiece(
                    strings=binary_buffers(array.slice(start, stop - start)))), len(array))
            if kernels.compiled:
                return [consume(ColumnPiece(keys=integer_keys(array, data_type)))]
            return map_chunks(lambda start, stop: consume(ColumnPiece(
                keys=integer_keys(array.slice(start, stop - start), data_type))), len(array), per_thread=4)
        indices = compute.to_numpy(array.indices.drop_null())
        hashes = column_hashes(array.dictionary, data_type, distinct=False)
        hashes = hashes[np.unique(indices)] if distinct else hashes[indices]
    else:
        hashes = np.array([hash_value(v, data_type) for v in values if v is not None], dtype=np.int64)
    return map_chunks(lambda start, stop: consume(ColumnPiece(hashes=hashes[start:stop])), len(hashes))

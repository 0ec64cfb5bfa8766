"""The ``bloom-filter`` writer (spec §5), byte-identical to Java's: it hashes whole columns with numpy
(or the compiled kernels) and sets all bits at once.
"""
from __future__ import annotations

import threading
from collections.abc import Mapping

import numpy as np

from fileindex import kernels
from fileindex.indexes.bloom_filter.keys import BloomParameters, iter_bit_positions, parameters_from_options
from fileindex.java.fast_hash import check_bloom_type, hash_value
from fileindex.parallel import map_chunks
from fileindex.types import DataType

class BloomFilterWriter:
    """Collects values of one column; ``serialize()`` gives Java's payload bytes.

    With the compiled kernels the bit set is kept as serialized (a bit a bit) and each thread
    fills a bit set of its own, OR-ed in after; the numpy path keeps a byte a bit (``np.put``).
    """

    def __init__(self, data_type: DataType, options: Mapping[str, str] | None = None):
        self.data_type = data_type
        self.parameters = check_writable(data_type, options)
        self._packed = kernels.compiled is not None
        num_bits = self.parameters.num_bits
        self._bits = np.zeros(num_bits // 8, dtype=np.uint8) if self._packed else np.zeros(num_bits, dtype=bool)

    def add_hashes(self, hashes: np.ndarray) -> None:
        hashes = np.ascontiguousarray(hashes, dtype=np.int64)
        if self._packed:
            from fileindex.java.column_hash import ColumnPiece

            fill = self._filler()
            self._merge(map_chunks(lambda start, stop: fill(ColumnPiece(hashes=hashes[start:stop])), len(hashes)))
        else:
            map_chunks(lambda start, stop: self._set_bits(hashes[start:stop]), len(hashes))

    def _set_bits(self, hashes: np.ndarray) -> None:
        # Threads only ever store True into a byte per bit: concurrent stores cannot conflict.
        for positions in iter_bit_positions(hashes, *self._sizing):
            np.put(self._bits, positions, True)  # faster than a fancy-index store

    def _filler(self):
        """For one call's pieces (compiled: each hashed and set in one pass): the first piece to come
        sets the writer's own bit set, each other one (on another thread) a fresh one, returned to
        be OR-ed in once all are done. A one-piece call allocates nothing."""
        own = threading.Lock()  # held, never released, by the piece that writes into self._bits
        fast = kernels.compiled
        assert fast is not None, "the packed bit set is only chosen with the compiled kernels"

        def fill(piece) -> np.ndarray | None:
            mine = own.acquire(blocking=False)
            bits = self._bits if mine else np.zeros_like(self._bits)
            if piece.keys is not None:
                fast.bloom_add_longs(bits, np.ascontiguousarray(piece.keys, dtype=np.int64), *self._sizing)
            elif piece.strings is not None:
                data, offsets = piece.strings
                fast.bloom_add_strings(bits, data, offsets, offsets.itemsize, *self._sizing)
            else:
                fast.bloom_add_hashes(bits, piece.hashes, *self._sizing)
            return None if mine else bits
        return fill

    def _merge(self, pieces: list[np.ndarray | None]) -> None:
        for bits in pieces:
            if bits is not None:
                np.bitwise_or(self._bits, bits, out=self._bits)

    @property
    def _sizing(self) -> tuple[int, int]:
        return self.parameters.num_bits, self.parameters.num_hash_functions

    def write(self, value) -> None:
        """One row's value; nulls are skipped (they count as written, as in Java)."""
        if value is not None:
            self.add_hashes(np.array([hash_value(value, self.data_type)], dtype=np.int64))

    def write_column(self, values) -> None:
        """A whole column: a pyarrow Array/ChunkedArray or a sequence of Python values."""
        from fileindex.java.column_hash import map_column_hashes, map_column_pieces

        if self._packed:
            self._merge(map_column_pieces(values, self.data_type, self._filler()))
        else:
            map_column_hashes(values, self.data_type, self._set_bits)  # each thread sets the bits it hashed

    def serialize(self) -> bytes:
        k = self.parameters.num_hash_functions.to_bytes(4, "big", signed=True)
        return k + (self._bits.tobytes() if self._packed else np.packbits(self._bits, bitorder="little").tobytes())


def check_writable(data_type: DataType, options: Mapping[str, str] | None = None) -> BloomParameters:
    """The filter's sizing, once the type and options are ones Java's writer takes."""
    check_bloom_type(data_type)
    return parameters_from_options(options or {})


def build(values, data_type: DataType, options: Mapping[str, str] | None = None) -> bytes:
    writer = BloomFilterWriter(data_type, options)
    writer.write_column(values)
    return writer.serialize()

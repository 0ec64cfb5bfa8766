"""The ``bloom-filter`` index (spec §5): Java's sizing, a vectorized byte-identical writer, a reader.

Paimon's ``BloomFilter64`` sets, for each value's 64-bit FastHash, k bit positions derived from
its two 32-bit halves. The writer hashes whole columns with numpy and sets all bits at once; the
reader answers ``=`` and ``IN`` (SKIP only when no literal can be present) and REMAIN otherwise.
"""
from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from fileindex import errors, kernels
from fileindex.codec import kaitai as kaitai_bridge
from fileindex.generated.bloom_filter import BloomFilter
from fileindex.generated.fast import bloom_filter as fast
from fileindex.indexes.options import OptionWarning, check_known, get_double, get_int
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult
from fileindex.java.fast_hash import check_bloom_type, hash_value
from fileindex.java_numbers import INT_MAX, double_to_int, int32, math_round
from fileindex.parallel import map_chunks
from fileindex.types import NUMERIC_BITS, DataType

INDEX_TYPE = "bloom-filter"
OPTIONS = ("items", "fpp")
DEFAULT_ITEMS = 1_000_000
DEFAULT_FPP = 0.1
ROOT = "bloom_filter"
_VALIDATIONS = {"/seq/0": errors.InvalidLengthError}


@dataclass(frozen=True)
class BloomParameters:
    num_bits: int
    num_hash_functions: int

    @property
    def payload_length(self) -> int:
        return 4 + self.num_bits // 8


def _java_log(x: float) -> float:
    """``Math.log``: NaN for NaN and negative numbers, -Infinity for 0 (Python raises for both)."""
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


def bloom_parameters(items: int, fpp: float) -> BloomParameters:
    """``BloomFilter64(items, fpp)`` sizing, exactly as Java computes it (spec §5.2).

    Java sizes any items and fpp its arithmetic survives (a NaN or negative fpp, or negative items
    with fpp > 1, give the smallest filter: 8 bits, k = 1) and fails when the bit count is not a
    positive int (its array allocation throws); so does this, with a warning for the former.
    """
    ln2 = math.log(2)
    nb = double_to_int(-items * _java_log(fpp) / (ln2 * ln2))
    num_bits = nb + (8 - int(math.fmod(nb, 8)))  # Java's %: the sign of the dividend; adds 8 when nb % 8 == 0
    if not 0 < num_bits <= INT_MAX:
        raise errors.UsageError(
            f"bloom-filter items={items}, fpp={fpp} gives {num_bits} bits, which Java cannot build "
            "(it overflows or divides by zero): use 0 < fpp < 1 and fewer items"
        )
    if items < 0 or not 0 < fpp <= 1:
        warnings.warn(f"bloom-filter items={items}, fpp={fpp}: Java sizes this filter as {num_bits} bits, which "
                      "rules little out; use items >= 0 and 0 < fpp < 1", OptionWarning, stacklevel=3)
    ratio = num_bits / items if items else math.inf
    k = max(1, int32(math_round(ratio * ln2)))
    return BloomParameters(num_bits, k)


def parameters_from_options(options: Mapping[str, str]) -> BloomParameters:
    check_known(options, OPTIONS, INDEX_TYPE)
    return bloom_parameters(get_int(options, "items", DEFAULT_ITEMS), get_double(options, "fpp", DEFAULT_FPP))


def iter_bit_positions(hashes: np.ndarray, num_bits: int, num_hash_functions: int):
    """For i = 1..k, the i-th bit position of every hash (uint32 arrays)."""
    hashes = np.asarray(hashes, dtype=np.int64)
    h2 = (hashes >> 32).astype(np.int32)
    combined = hashes.astype(np.int32)  # h1, the low 32 bits; the casts wrap like Java's (int)
    modulus = np.uint32(num_bits)
    for _ in range(num_hash_functions):
        combined += h2  # h1 + i*h2 in int32 wrap-around arithmetic
        # ~c for negative c (c ^ -1), c itself otherwise: c ^ (c >> 31), then a non-negative modulo
        positions = combined >> 31
        positions ^= combined
        positions = positions.view(np.uint32)
        multiples = positions // modulus  # numpy divides by a scalar fast (libdivide), but not % (3x slower)
        multiples *= modulus
        positions -= multiples
        yield positions


def bit_positions(hashes: np.ndarray, num_bits: int, num_hash_functions: int) -> np.ndarray:
    """All k bit positions of each hash: shape (len(hashes), k), int64."""
    columns = list(iter_bit_positions(hashes, num_bits, num_hash_functions))
    if not columns:
        return np.empty((len(hashes), 0), dtype=np.int64)
    return np.stack(columns, axis=1).astype(np.int64)


class BloomFilterWriter:
    """Collects values of one column; ``serialize()`` gives Java's payload bytes.

    With the compiled kernels the bit set is kept as serialized (a bit a bit) and each thread
    fills a bit set of its own, OR-ed in after; the numpy path keeps a byte a bit (``np.put``).
    """

    def __init__(self, data_type: DataType, options: Mapping[str, str] | None = None):
        check_bloom_type(data_type)
        self.data_type = data_type
        self.parameters = parameters_from_options(options or {})
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

        def fill(piece) -> np.ndarray | None:
            mine = own.acquire(blocking=False)
            bits = self._bits if mine else np.zeros_like(self._bits)
            fast = kernels.compiled
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


def build(values, data_type: DataType, options: Mapping[str, str] | None = None) -> bytes:
    writer = BloomFilterWriter(data_type, options)
    writer.write_column(values)
    return writer.serialize()


def read_sizing(view: memoryview, base_offset: int) -> tuple[int, int]:
    """(k, number of bits) of a payload, refusing what no reader can probe: k < 1 (the spec's check),
    more hash functions than bits, or no bit bytes at all (Java divides by zero probing it)."""
    parsed = kaitai_bridge.parse_fast(fast.BloomFilter, BloomFilter, view, root=ROOT, validations=_VALIDATIONS,
                                      base=base_offset)
    k, num_bits = parsed.num_hash_functions, 8 * parsed.len_bitset
    if num_bits == 0:
        raise errors.InvalidLengthError(
            f"{k} hash function(s) and no bit bytes: Java divides by zero probing this filter",
            offset=base_offset + 4, field=f"{ROOT}/bitset")
    if k > num_bits:
        raise errors.InvalidLengthError(
            f"{k} hash functions for a {num_bits}-bit filter: no Java writer produces more hash functions than bits",
            offset=base_offset, field=f"{ROOT}/num_hash_functions")
    return k, num_bits


class BloomFilterReader(FileIndexReader):
    """Reads a payload without copying its bit set; ``base_offset`` places errors in the file."""

    def __init__(self, payload, data_type: DataType, *, base_offset: int = 0):
        check_bloom_type(data_type)
        self.data_type = data_type
        view = memoryview(payload).cast("B")
        self.num_hash_functions, self.num_bits = read_sizing(view, base_offset)
        self.bitset = np.frombuffer(view, dtype=np.uint8, offset=4)
        self._bitset_bytes = view[4:]
        bits = NUMERIC_BITS.get(data_type.root)
        self._int_range = None if bits is None else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)

    def validate(self) -> None:
        """Everything a query relies on is checked on opening: k, and the bit set's size (the deep
        checks of ``fileindex check`` are in :mod:`fileindex.indexes.bloom_filter.check`)."""

    def test_hashes(self, hashes: np.ndarray) -> np.ndarray:
        """For each hash, whether all its k bits are set (True = might be present)."""
        hashes = np.ascontiguousarray(hashes, dtype=np.int64)
        if kernels.compiled:
            found = np.empty(len(hashes), dtype=np.uint8)
            kernels.compiled.bloom_test_hashes(self._bitset_bytes, hashes, self.num_bits, self.num_hash_functions,
                                               found)
            return found.view(bool)
        positions = bit_positions(hashes, self.num_bits, self.num_hash_functions)
        bits = (self.bitset[positions >> 3] >> (positions & 7).astype(np.uint8)) & 1
        return bits.all(axis=1)

    def test_hash(self, hash64: int) -> bool:
        """One hash with Python integers: cheaper than numpy for a single probe."""
        if kernels.compiled:
            return kernels.compiled.bloom_test_hash(self._bitset_bytes, self.num_bits, self.num_hash_functions, hash64)
        bitset, num_bits = self._bitset_bytes, self.num_bits
        # h1 + i*h2 as unsigned 32-bit words; a negative int c (top bit set) becomes ~c, i.e. c ^ 0xFFFFFFFF
        combined, h2 = hash64 & 0xFFFFFFFF, (hash64 >> 32) & 0xFFFFFFFF
        for _ in range(self.num_hash_functions):
            combined = (combined + h2) & 0xFFFFFFFF
            position = (combined ^ 0xFFFFFFFF if combined & 0x80000000 else combined) % num_bits
            if not bitset[position >> 3] >> (position & 7) & 1:
                return False
        return True

    def might_contain(self, value) -> bool:
        fast = kernels.compiled
        if fast:  # one call hashes and probes the common plain int and str literals
            if type(value) is int and self._int_range and self._int_range[0] <= value <= self._int_range[1]:
                return fast.bloom_test_value(self._bitset_bytes, self.num_bits, self.num_hash_functions, value)
            if type(value) is str and self.data_type.is_string:
                return fast.bloom_test_value(self._bitset_bytes, self.num_bits, self.num_hash_functions,
                                             value.encode("utf-8", "surrogatepass"))
        return self.test_hash(hash_value(value, self.data_type))

    def might_contain_column(self, values) -> np.ndarray:
        """Batch probe: a boolean per non-null value of a column (pyarrow array or sequence)."""
        from fileindex.java.column_hash import column_hashes

        return self.test_hashes(column_hashes(values, self.data_type, distinct=False))

    def visit_equal(self, literal) -> FileIndexResult:
        if literal is None:
            return REMAIN
        return REMAIN if self.might_contain(literal) else SKIP

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        if not literals or any(literal is None for literal in literals):
            return REMAIN
        return REMAIN if any(self.might_contain(v) for v in literals) else SKIP

"""The ``bloom-filter`` reader (spec §5): it answers ``=`` and ``IN`` (SKIP only when no literal can be
present) and REMAIN otherwise.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

from fileindex import errors, kernels
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.generated.fast import bloom_filter as fast
from fileindex.indexes.bloom_filter.keys import bit_positions
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult
from fileindex.java.fast_hash import check_bloom_type, hash_value
from fileindex.lazy import LazyFunction, numpy as np
from fileindex.types import NUMERIC_BITS, DataType

_DEBUG = LazyFunction("fileindex.generated.bloom_filter", "BloomFilter")  # the debug reader: places a failure

ROOT = "bloom_filter"


_VALIDATIONS = {"/seq/0": errors.InvalidLengthError}


def read_sizing(view: memoryview, base_offset: int) -> tuple[int, int]:
    """(k, number of bits) of a payload, refusing what no reader can probe: k < 1 (the spec's check),
    more hash functions than bits, or no bit bytes at all (Java divides by zero probing it)."""
    parsed = kaitai_bridge.parse_fast(fast.BloomFilter, _DEBUG, view, root=ROOT, validations=_VALIDATIONS,
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


def test_hash(bitset: memoryview, num_bits: int, k: int, hash64: int) -> bool:
    """Whether all k bits of one hash are set in the serialized bit set: Python integers, cheaper than numpy
    for a single probe."""
    if kernels.compiled:
        return kernels.compiled.bloom_test_hash(bitset, num_bits, k, hash64)
    # h1 + i*h2 as unsigned 32-bit words; a negative int c (top bit set) becomes ~c, i.e. c ^ 0xFFFFFFFF
    combined, h2 = hash64 & 0xFFFFFFFF, (hash64 >> 32) & 0xFFFFFFFF
    for _ in range(k):
        combined = (combined + h2) & 0xFFFFFFFF
        position = (combined ^ 0xFFFFFFFF if combined & 0x80000000 else combined) % num_bits
        if not bitset[position >> 3] >> (position & 7) & 1:
            return False
    return True


def visit_equal_hashed(bitset: memoryview, num_bits: int, k: int, data_type: DataType, literal) -> FileIndexResult:
    """``visit_equal`` with the literal hashed in Python: every literal without the kernels, and with them
    those the kernels' probe does not hash. A function of the filter, not of its reader, so that the probe
    holding it makes no reference cycle."""
    if literal is None:
        return REMAIN
    return REMAIN if test_hash(bitset, num_bits, k, hash_value(literal, data_type)) else SKIP


def _probe_arguments(reader: BloomFilterReader) -> tuple:
    """The kernels' ``BloomProbe`` arguments for one reader's filter. It hashes the plain int literals of an
    integer column (within the type's range) and the str literals of a string column; it hands every other
    literal to :func:`visit_equal_hashed`."""
    data_type = reader.data_type
    bits = NUMERIC_BITS.get(data_type.root)
    low, high = (1, 0) if bits is None else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)  # (1, 0): no int
    sized = (reader._bitset_bytes, reader.num_bits, reader.num_hash_functions)
    fallback = functools.partial(visit_equal_hashed, *sized, data_type)
    return (*sized, low, high, data_type.is_string, REMAIN, SKIP, fallback)


class BloomFilterReader(FileIndexReader):
    """Reads a payload without copying its bit set; ``base_offset`` places errors in the file.

    With the kernels, the reader made is a :func:`_probing_reader`: a subclass that is also the kernels'
    per-literal probe, whose ``visit_equal`` is the probe's C method as the subclass's own. A per-value lookup
    is then one C call that the interpreter's specialized opcodes make straight from a loop: about 530
    instructions a BIGINT probe in a list comprehension, where the probe's bound method set on the instance
    took 710 (an attribute of the instance is looked up unspecialized, and called through the generic path).
    """

    def __new__(cls, payload, data_type: DataType, *, base_offset: int = 0):
        if cls is BloomFilterReader and kernels.compiled is not None:
            cls = _probing_reader()
        return super().__new__(cls)

    def __init__(self, payload, data_type: DataType, *, base_offset: int = 0):
        check_bloom_type(data_type)
        self.data_type = data_type
        view = memoryview(payload).cast("B")
        self.num_hash_functions, self.num_bits = read_sizing(view, base_offset)
        self._bitset_bytes = view[4:]

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
        bitset = np.frombuffer(self._bitset_bytes, dtype=np.uint8)
        bits = (bitset[positions >> 3] >> (positions & 7).astype(np.uint8)) & 1
        return bits.all(axis=1)

    def test_hash(self, hash64: int) -> bool:
        """One hash with Python integers: cheaper than numpy for a single probe."""
        return test_hash(self._bitset_bytes, self.num_bits, self.num_hash_functions, hash64)

    def might_contain(self, value) -> bool:
        return self.test_hash(hash_value(value, self.data_type))

    def might_contain_column(self, values) -> np.ndarray:
        """Batch probe: a boolean per non-null value of a column (pyarrow array or sequence)."""
        from fileindex.java.column_hash import column_hashes

        return self.test_hashes(column_hashes(values, self.data_type, distinct=False))

    def visit_equal(self, literal) -> FileIndexResult:  # (the probe's visit, with the kernels)
        return visit_equal_hashed(self._bitset_bytes, self.num_bits, self.num_hash_functions, self.data_type, literal)

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        if not literals or any(literal is None for literal in literals):
            return REMAIN
        return REMAIN if any(self.might_contain(v) for v in literals) else SKIP


@functools.cache
def _probing_reader() -> type[BloomFilterReader]:
    """The reader class of the kernels' path: a ``BloomFilterReader`` that is also a ``BloomProbe`` of its
    filter (one class per process, made on first use: tests turn the kernels off and on after import)."""
    from fileindex._kernels import BloomProbe as probe

    class ProbingBloomFilterReader(BloomFilterReader, probe):

        def __init__(self, payload, data_type: DataType, *, base_offset: int = 0):
            super().__init__(payload, data_type, base_offset=base_offset)
            probe.__init__(self, *_probe_arguments(self))

        def might_contain(self, value) -> bool:
            found = self.test(value)  # one C call hashes and probes the common plain int and str literals
            return super().might_contain(value) if found is None else found

    # found on the type, and the type its own: the interpreter calls it straight, no bound method, no type check
    ProbingBloomFilterReader.visit_equal = probe.visit_method(ProbingBloomFilterReader)  # type: ignore[assignment]
    return ProbingBloomFilterReader

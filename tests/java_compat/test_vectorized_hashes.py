"""The vectorized hashes equal their scalar references on random inputs of every length class.

XXH64 (seed 0) against the xxhash binding; Paimon's ``BinaryString.hashCode`` against the scalar
transcription that the Java vectors check.
"""
import numpy as np
import pyarrow as pa
import xxhash
from hypothesis import given
from hypothesis import strategies as st

from fileindex.java.column_hash import column_hashes
from fileindex.java.fast_hash import xxh64
from fileindex.java.hash import binary_string_hash_code, binary_string_hash_codes
from fileindex.java.xxh64 import xxh64_offsets
from fileindex.types import parse_type


def reference(values):
    return [xxhash.xxh64_intdigest(v) for v in values]


def buffers(values):
    data = np.frombuffer(b"".join(values), dtype=np.uint8)
    return data, np.concatenate(([0], np.cumsum([len(v) for v in values]))).astype(np.int64)


def vectorized(values):
    return xxh64_offsets(*buffers(values)).view(np.uint64).tolist()


@given(st.lists(st.binary(max_size=80), max_size=50))
def test_small_groups(values):
    assert vectorized(values) == reference(values)


@given(st.integers(0, 100), st.integers(48, 300), st.randoms(use_true_random=False))
def test_one_large_group_per_length(length, count, rng):
    values = [rng.randbytes(length) for _ in range(count)]
    assert vectorized(values) == reference(values)


def test_mixed_lengths_and_arrow_layouts():
    rng = np.random.default_rng(3)
    values = [rng.bytes(int(n)) for n in rng.integers(0, 140, size=20000)]
    assert vectorized(values) == reference(values)
    strings = [v.hex() for v in values[:5000]]
    expected = np.array([xxh64(s.encode()) for s in strings], dtype=np.int64)
    for array in (pa.array(strings), pa.array(strings, pa.large_string()), pa.array(strings).slice(0),
                  pa.array(strings).dictionary_encode()):
        got = column_hashes(array, parse_type("STRING"), distinct=False)
        assert (got == expected).all()
    sliced = pa.array(strings).slice(1000, 2000)
    assert (column_hashes(sliced, parse_type("STRING"), distinct=False) == expected[1000:3000]).all()


@given(st.lists(st.binary(max_size=40), max_size=40), st.integers(0, 20), st.integers(32, 120),
       st.randoms(use_true_random=False))
def test_binary_string_hash_codes_equal_the_scalar_hash(values, length, count, rng):
    values = values + [rng.randbytes(length) for _ in range(count)]  # one group large enough for numpy
    assert binary_string_hash_codes(*buffers(values)).tolist() == [binary_string_hash_code(v) for v in values]

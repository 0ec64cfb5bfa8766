"""Paimon's ``FastHash`` (spec §5.4): the 64-bit hash a bloom filter sets bits from.

CHAR/VARCHAR hash their UTF-8 bytes and BINARY/VARBINARY their raw bytes with XXH64 (seed 0);
every other accepted type widens its value to a signed long and applies Thomas Wang's 64-bit
integer mix with Java's signed arithmetic. Hashes are signed 64-bit integers, as Java's ``long``.
Scalar functions serve single lookups; the ``*_array`` functions hash whole columns with numpy.
"""
from __future__ import annotations

import xxhash

from fileindex import kernels
from fileindex.errors import UnsupportedTypeError
from fileindex.java_numbers import LONG_MAX, LONG_MIN, double_to_long_bits, float_to_int_bits, int64
from fileindex.parallel import cache_blocks
from fileindex.types import NUMERIC_BITS, DataType
from fileindex.values import binary_key, check_integer, long_key, utf8_key
from fileindex.lazy import numpy as np


def wang_mix(key: int) -> int:
    """Thomas Wang's 64-bit mix over a signed long, with arithmetic right shifts."""
    key = int64(~key + (key << 21))
    key ^= key >> 24
    key = int64(key + (key << 3) + (key << 8))
    key ^= key >> 14
    key = int64(key + (key << 2) + (key << 4))
    key ^= key >> 28
    return int64(key + (key << 31))


def wang_mix_array(keys: np.ndarray) -> np.ndarray:
    """``wang_mix`` over an int64 array (numpy wraps like Java's long; >> is arithmetic on int64)."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    out = np.empty_like(keys)
    if kernels.compiled:
        kernels.compiled.wang_mix(keys, out)
        return out
    for start, stop in cache_blocks(len(keys)):
        out[start:stop] = _wang_mix_block(keys[start:stop])
    return out


def _wang_mix_block(key: np.ndarray) -> np.ndarray:
    key = ~key + (key << 21)
    key ^= key >> 24
    key = key + (key << 3) + (key << 8)
    key ^= key >> 14
    key = key + (key << 2) + (key << 4)
    key ^= key >> 28
    return key + (key << 31)


def xxh64(data: bytes) -> int:
    """XXH64 with seed 0, as a signed long (lz4-java / zero-allocation-hashing)."""
    return int64(xxhash.xxh64_intdigest(data))


def check_bloom_type(data_type: DataType) -> None:
    supported = (
        data_type.is_string or data_type.is_binary or data_type.is_timestamp
        or data_type.root in NUMERIC_BITS or data_type.root in ("DATE", "TIME", "FLOAT", "DOUBLE")
    )
    if not supported:
        raise UnsupportedTypeError(f"bloom-filter does not support {data_type} (Paimon's FastHash refuses it)")


def hash_value(value, data_type: DataType) -> int:
    """FastHash of one non-null value of ``data_type``."""
    if data_type.root in NUMERIC_BITS:  # the common case first: no other type check needed
        return _mix(check_integer(value, data_type))
    key = hash_key(value, data_type)
    return xxh64(key) if isinstance(key, bytes) else _mix(key)


def hash_key(value, data_type: DataType) -> int | bytes:
    """What FastHash hashes for one non-null value: the bytes XXH64 takes (CHAR/VARCHAR as UTF-8,
    BINARY/VARBINARY as they are), or the signed long Wang's mix takes (integers widened, FLOAT's
    ``floatToIntBits``, DOUBLE's ``doubleToLongBits``, DATE days, TIME millis, TIMESTAMP millis up to
    precision 3 and micros above)."""
    if data_type.root in NUMERIC_BITS:
        return check_integer(value, data_type)
    if data_type.is_string:
        return utf8_key(value, data_type)
    if data_type.is_binary:
        return binary_key(value, data_type)
    if data_type.root == "FLOAT":
        return float_to_int_bits(value)
    if data_type.root == "DOUBLE":
        return double_to_long_bits(value)
    check_bloom_type(data_type)
    return long_key(value, data_type)


def _mix(key: int) -> int:
    """``wang_mix`` of a signed long: compiled when the kernels are."""
    if kernels.compiled and LONG_MIN <= key <= LONG_MAX:
        return kernels.compiled.wang_mix_one(key)
    return wang_mix(key)

"""What the ``bloom-filter`` index's writer and reader share (spec §5.2): Java's sizing (items and fpp to
bits and hash functions) and the bit positions of a hash.

Paimon's ``BloomFilter64`` sets, for each value's 64-bit FastHash, k bit positions derived from
its two 32-bit halves.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from fileindex.frozen import frozen

from fileindex import errors
from fileindex.indexes.bloom_filter import INDEX_TYPE, OPTIONS
from fileindex.java_numbers import INT_MAX, double_to_int, int32, math_round
from fileindex.lazy import numpy as np


DEFAULT_ITEMS = 1_000_000
DEFAULT_FPP = 0.1


@frozen
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
    if not 0 < num_bits <= INT_MAX and items < 0:
        raise errors.UsageError(f"bloom-filter items={items}: items must be positive (the number of distinct values "
                                "a file holds)")
    if not 0 < num_bits <= INT_MAX:
        raise errors.UsageError(
            f"bloom-filter items={items}, fpp={fpp} gives {num_bits} bits, which Java cannot build "
            "(it overflows or divides by zero): use 0 < fpp < 1 and fewer items"
        )
    if items < 0 or not 0 < fpp <= 1:
        from fileindex.indexes.options import OptionWarning

        warnings.warn(f"bloom-filter items={items}, fpp={fpp}: Java sizes this filter as {num_bits} bits, which "
                      "rules little out; use items >= 0 and 0 < fpp < 1", OptionWarning, stacklevel=3)
    ratio = num_bits / items if items else math.inf
    k = max(1, int32(math_round(ratio * ln2)))
    return BloomParameters(num_bits, k)


def parameters_from_options(options: Mapping[str, str]) -> BloomParameters:
    # (the options' parsers, with their regular expressions, imported by a build: a read probes bits only, #54)
    from fileindex.indexes.options import check_known, get_double, get_int

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

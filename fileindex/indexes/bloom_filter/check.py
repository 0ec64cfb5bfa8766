"""Deep checks of a bloom-filter body (``fileindex check``): is it a filter Java's writer could
have produced, and is its fill plausible for what it holds?

Java sizes a filter from ``items`` and ``fpp`` (spec §5.2), so m and k are tied together; and a
filter's set bits are spread uniformly (every value sets k pseudo-random bits). A region of the
bit set far emptier than the overall fill allows (zeroed bytes, a block overwritten) loses set
bits, and a lost bit is a false negative: rows skipped that match. Java reads such a filter
without noticing. The thresholds below are probability bounds, so a body Java wrote is refused
with a chance below ``IMPLAUSIBLE`` per filter.

Invalid: a fill too low for the data or a region too empty (cleared bits: Java skips rows that
match). Non-canonical (notes; Java's ``BloomFilterFileIndex`` reads k and probes the bits it is
given, whatever their number): k and m that no ``items`` sizes, more bits set than the column's
values can set (more false positives, never a skipped row).
"""
from __future__ import annotations

import math

import numpy as np

from fileindex.indexes.bloom_filter.reader import ROOT, read_sizing
from fileindex.container.invariants import Note
from fileindex.indexes.invariants import BodyFacts, violation
from fileindex.java_numbers import int32, math_round

IMPLAUSIBLE = 1e-9  # a bound on the chance that a filter Java wrote fails a statistical check
WINDOWS = (64, 512, 4096)  # bytes: the region sizes tested for a fill far below the filter's


def check(payload, data_type=None, *, base_offset: int = 0, distinct: int | None = None) -> BodyFacts:
    """Raise the first invariant the body breaks; ``distinct`` is the column's number of distinct
    non-null values when a sibling index records it (bitmap, range-bitmap), else None."""
    view = memoryview(payload).cast("B")
    k, m = read_sizing(view, base_offset)
    notes = _sizing_notes(k, m, base_offset)
    bits = np.frombuffer(view, dtype=np.uint8, offset=4)
    set_bits = int(np.bitwise_count(bits).sum())
    if distinct is not None:
        notes += _check_fill_for_items(k, m, set_bits, distinct, base_offset)
    _check_uniform_fill(bits, set_bits, base_offset + 4)
    return BodyFacts(notes=tuple(notes))


def _items_for(k: int, m: int) -> int | None:
    """An ``items`` for which Java sizes k hash functions over m bits, or None when there is none."""
    ln2 = math.log(2)
    if k == 1:
        return 0  # items = 0, or any items large enough
    centre = m * ln2 / k
    for items in range(max(1, int(m * ln2 / (k + 0.5)) - 1), int(m * ln2 / (k - 0.5)) + 2):
        if max(1, int32(math_round(m / items * ln2))) == k:
            return items
        if items > centre + 2:
            break
    return None


def _sizing_notes(k: int, m: int, base_offset: int) -> list[Note]:
    if _items_for(k, m) is None:
        return [Note(f"{k} hash functions over {m} bits: Java sizes k = round(m/items * ln 2), and no items gives "
                     f"{k} for m = {m}", offset=base_offset, field=f"{ROOT}/num_hash_functions")]
    return []


def _check_fill_for_items(k: int, m: int, set_bits: int, distinct: int, base_offset: int) -> list[Note]:
    """Each distinct value sets at most k bits; n values set about m(1 - e^(-kn/m)) of them."""
    at, field = base_offset + 4, f"{ROOT}/bitset"
    if set_bits > k * distinct:
        return [Note(f"{set_bits} bits set, more than the {k} x {distinct} that the column's {distinct} distinct "
                     "value(s) can set", offset=at, field=field)]
    expected = m * -math.expm1(k * distinct * math.log1p(-1 / m))
    spread = math.sqrt(max(expected * (1 - expected / m), 1.0))
    if set_bits < expected - 12 * spread - 1:
        raise violation(f"{set_bits} bits set where {distinct} distinct value(s) set about {expected:.0f} "
                        f"(k={k}, m={m}): bits were cleared, and cleared bits skip rows that match",
                        offset=at, field=field, java_notices=False)
    return []


def _check_uniform_fill(bits: np.ndarray, set_bits: int, at: int) -> None:
    """No run of zero bytes, and no window much emptier, than the overall fill makes plausible."""
    size = len(bits)
    fill = set_bits / (8 * size)
    if fill == 0 or size < 16:
        return
    log_empty_byte = 8 * math.log1p(-fill) if fill < 1 else -math.inf  # ln P(a byte is zero)
    start, length = _longest_zero_run(bits)
    # union bound over every position where a run could start
    if length and math.log(size) + length * log_empty_byte < math.log(IMPLAUSIBLE):
        raise violation(
            f"{length} zero bytes in a row in a filter {100 * fill:.1f}% full (chance below {IMPLAUSIBLE:g}): "
            "bits were cleared, and cleared bits skip rows that match",
            offset=at + start, field=f"{ROOT}/bitset", java_notices=False)
    tests = sum(2 * (size // window) for window in WINDOWS if 2 * window <= size)
    for window in WINDOWS:
        if 2 * window > size:
            break
        for shift in (0, window // 2):
            counts = np.bitwise_count(bits[shift:shift + (size - shift) // window * window]).reshape(-1, window)
            counts = counts.sum(axis=1, dtype=np.int64)
            lowest = int(counts.argmin())
            observed = int(counts[lowest]) / (8 * window)
            if observed < fill and math.log(tests) - 8 * window * _kl(observed, fill) < math.log(IMPLAUSIBLE):
                raise violation(
                    f"{window} bytes {100 * observed:.1f}% full in a filter {100 * fill:.1f}% full (chance below "
                    f"{IMPLAUSIBLE:g}): bits were cleared, and cleared bits skip rows that match",
                    offset=at + shift + lowest * window, field=f"{ROOT}/bitset", java_notices=False)


def _kl(q: float, p: float) -> float:
    """Kullback-Leibler divergence of Bernoulli(q) from Bernoulli(p): the Chernoff exponent of
    P(fill <= q) for bits set with probability p."""
    def term(a: float, b: float) -> float:
        return 0.0 if a == 0 else a * math.log(a / b)
    return term(q, p) + term(1 - q, 1 - p)


def _longest_zero_run(bits: np.ndarray) -> tuple[int, int]:
    """(start, length) of the longest run of zero bytes."""
    nonzero = np.flatnonzero(bits)
    if not len(nonzero):
        return 0, len(bits)
    bounds = np.concatenate(([-1], nonzero, [len(bits)]))
    gaps = np.diff(bounds) - 1
    i = int(gaps.argmax())
    return int(bounds[i] + 1), int(gaps[i])


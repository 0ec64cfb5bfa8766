"""Deep checks of a bsi body (``fileindex check``; spec §7.1).

Java writes each half only when it holds rows, with min 0, max the largest magnitude it holds and
exactly bit-length(max) slices, every slice a subset of the half's existence bitmap; the halves
hold disjoint rows below the row count, and nothing follows them. A slice or a max out of line
answers comparisons for values no row holds, and Java's reader does not notice.
"""
from __future__ import annotations

import numpy as np

from fileindex.indexes import roaring
from fileindex.indexes.bsi.reader import ROOT, BsiReader, _Half
from fileindex.indexes.invariants import BodyFacts, check_canonical, check_rows, violation
from fileindex.types import DataType

_HALF_FIXED = 18  # has_index, version, min, max


def check(payload, data_type: DataType, *, base_offset: int = 0, distinct: int | None = None) -> BodyFacts:
    reader = BsiReader(payload, data_type, base_offset=base_offset)
    reader.validate()
    view, base = reader._view, base_offset
    at = 5  # after the version and the row count
    for name, half in (("positive", reader.positive), ("negative", reader.negative)):
        at = _check_half(reader, half, name, at)
    if reader.positive.ebm.intersect(reader.negative.ebm):
        row = min(reader.positive.ebm & reader.negative.ebm)
        raise violation(f"row {row} is in both halves: a row holds one value", offset=base + 5 + _HALF_FIXED,
                        field=f"{ROOT}/negative/index/ebm", java_notices=False)
    if at != len(view):
        raise violation(f"{len(view) - at} byte(s) after the negative half: Java writes none", offset=base + at,
                        field=ROOT, java_notices=False)
    return BodyFacts(row_count=reader.row_count)


def _check_half(reader: BsiReader, half: _Half, name: str, at: int) -> int:
    """Check the half whose flag is at payload ``at``; return where it ends."""
    view, base, field = reader._view, reader._base, f"{ROOT}/{name}"
    if not view[at]:
        return at + 1
    if view[at] != 1:
        raise violation(f"has_{name} byte {view[at]}: Java writes 0 or 1", offset=base + at,
                        field=f"{field}/has_index", java_notices=False)
    ebm_at = at + _HALF_FIXED
    ebm_size = roaring.portable_size(view, ebm_at, base=base, field=f"{field}/index/ebm")
    if not half.ebm:
        raise violation(f"the {name} half is written with no rows: Java writes a half only when it holds rows",
                        offset=base + at, field=f"{field}/has_index", java_notices=False)
    if half.min != 0:
        raise violation(f"min {half.min}: Java's writer always writes 0", offset=base + at + 2,
                        field=f"{field}/header/min", java_notices=False)
    if half.max < half.min:
        raise violation(f"max {half.max} below min {half.min}", offset=base + at + 10, field=f"{field}/header/max",
                        java_notices=False)
    expected_slices = (half.max - half.min).bit_length()
    if len(half.slices) != expected_slices:
        raise violation(f"{len(half.slices)} slice(s) for max {half.max}: Java writes bit-length(max - min) = "
                        f"{expected_slices}", offset=base + ebm_at + ebm_size, field=f"{field}/index/num_slices",
                        java_notices=False)
    check_rows(half.ebm, reader.row_count, what=f"the {name} existence bitmap", offset=base + ebm_at,
               field=f"{field}/index/ebm")
    check_canonical(view[ebm_at:ebm_at + ebm_size], half.ebm, what=f"the {name} existence bitmap",
                    offset=base + ebm_at, field=f"{field}/index/ebm")
    rows = np.asarray(half.ebm.to_array(), dtype=np.uint32)
    magnitudes = np.zeros(len(rows), dtype=np.uint64)
    for i, (start, size) in enumerate(half.slices):
        bits = reader._slice(half, i)
        slice_field = f"{field}/index/slices[{i}]"
        if not bits.issubset(half.ebm):
            row = min(bits - half.ebm)
            raise violation(f"slice {i} holds row {row}, which the {name} existence bitmap lacks",
                            offset=base + start, field=slice_field, java_notices=False)
        check_canonical(view[start:start + size], bits, what=f"slice {i}", offset=base + start, field=slice_field)
        magnitudes[np.searchsorted(rows, np.asarray(bits.to_array(), dtype=np.uint32))] |= np.uint64(1) << np.uint64(i)
    largest = int(magnitudes.max()) + half.min if len(magnitudes) else half.min
    if largest != half.max:
        raise violation(f"max {half.max}, but the largest value the slices hold is {largest}", offset=base + at + 10,
                        field=f"{field}/header/max", java_notices=False)
    if name == "negative" and len(magnitudes) and int(magnitudes.min()) + half.min == 0:
        row = int(rows[int(magnitudes.argmin())])
        raise violation(f"row {row} holds magnitude 0 in the negative half: Java writes 0 in the positive half",
                        offset=base + ebm_at, field=f"{field}/index/ebm", java_notices=False)
    return half.slices[-1][0] + half.slices[-1][1] if half.slices else ebm_at + ebm_size + 4


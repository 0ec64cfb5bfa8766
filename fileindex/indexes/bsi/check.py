"""Deep checks of a bsi body (``fileindex check``; spec §7.1).

Java writes each half only when it holds rows, with min 0, max the largest magnitude it holds and
exactly bit-length(max) slices, every slice a subset of the half's existence bitmap; the halves
hold disjoint rows below the row count, and nothing follows them.

Invalid (Java misreads): rows in both halves, rows past the row count, a slice row outside the
existence bitmap, a magnitude 0 in the negative half (``= 0`` looks in the positive half only), a
max below the largest value held (``BitSliceIndexRoaringBitmap`` skips values above max without
reading the slices), max below min. Non-canonical (notes): a flag byte other than 1 (``readBoolean``),
a half without rows, a min other than 0 (Java subtracts min from every value it compares), a max
above the largest value held, more slices than bit-length(max - min), bytes after the last half,
Roaring bitmaps not run-optimized.
"""
from __future__ import annotations

import numpy as np

from fileindex.indexes import roaring
from fileindex.indexes.bsi.reader import ROOT, BsiReader, _Half
from fileindex.container.invariants import Note
from fileindex.indexes.invariants import BodyFacts, check_rows, check_serialized, violation
from fileindex.types import DataType, parse_type

_HALF_FIXED = 18  # has_index, version, min, max


# Every value a bsi holds is a long whatever its column's type: without the type, its layout and invariants are
# checked as a BIGINT body's (all but whether the values fit the column's narrower type).
UNTYPED = parse_type("BIGINT")


def check(payload, data_type: DataType | None, *, base_offset: int = 0, distinct: int | None = None) -> BodyFacts:
    reader = BsiReader(payload, data_type or UNTYPED, base_offset=base_offset)
    reader.validate()
    view, base = reader._view, base_offset
    at = 5  # after the version and the row count
    notes: list[Note] = []
    for name, half in (("positive", reader.positive), ("negative", reader.negative)):
        at = _check_half(reader, half, name, at, notes)
    if reader.positive.ebm.intersect(reader.negative.ebm):
        row = min(reader.positive.ebm & reader.negative.ebm)
        raise violation(f"row {row} is in both halves: a row holds one value", offset=base + 5 + _HALF_FIXED,
                        field=f"{ROOT}/negative/index/ebm", java_notices=False)
    if at != len(view):
        notes.append(Note(f"{len(view) - at} byte(s) after the negative half: Java writes none", offset=base + at,
                          field=ROOT))
    return BodyFacts(row_count=reader.row_count, notes=tuple(notes))


def _check_half(reader: BsiReader, half: _Half, name: str, at: int, notes: list[Note]) -> int:
    """Check the half whose flag is at payload ``at``; return where it ends."""
    view, base, field = reader._view, reader._base, f"{ROOT}/{name}"
    if not view[at]:
        return at + 1
    if view[at] != 1:
        notes.append(Note(f"has_{name} byte {view[at]}: Java writes 0 or 1", offset=base + at,
                          field=f"{field}/has_index"))
    ebm_at = at + _HALF_FIXED
    ebm_size = roaring.portable_size(view, ebm_at, base=base, field=f"{field}/index/ebm")
    if not half.ebm:
        notes.append(Note(f"the {name} half is written with no rows: Java writes a half only when it holds rows",
                          offset=base + at, field=f"{field}/has_index"))
    if half.min != 0:
        notes.append(Note(f"min {half.min}: Java's writer always writes 0", offset=base + at + 2,
                          field=f"{field}/header/min"))
    if half.max < half.min:
        raise violation(f"max {half.max} below min {half.min}", offset=base + at + 10, field=f"{field}/header/max",
                        java_notices=False)
    expected_slices = (half.max - half.min).bit_length()
    if len(half.slices) < expected_slices:
        raise violation(f"{len(half.slices)} slice(s) for max {half.max}: Java writes bit-length(max - min) = "
                        f"{expected_slices}", offset=base + ebm_at + ebm_size, field=f"{field}/index/num_slices",
                        java_notices=False)
    if len(half.slices) > expected_slices:
        notes.append(Note(f"{len(half.slices)} slice(s) for max {half.max}: Java writes bit-length(max - min) = "
                          f"{expected_slices}", offset=base + ebm_at + ebm_size, field=f"{field}/index/num_slices"))
    check_rows(half.ebm, reader.row_count, what=f"the {name} existence bitmap", offset=base + ebm_at,
               field=f"{field}/index/ebm")
    check_serialized(view[ebm_at:ebm_at + ebm_size], half.ebm, notes, what=f"the {name} existence bitmap",
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
        check_serialized(view[start:start + size], bits, notes, what=f"slice {i}", offset=base + start,
                         field=slice_field)
        magnitudes[np.searchsorted(rows, np.asarray(bits.to_array(), dtype=np.uint32))] |= np.uint64(1) << np.uint64(i)
    largest = int(magnitudes.max()) + half.min if len(magnitudes) else half.min
    if largest < half.max:
        notes.append(Note(f"max {half.max}, but the largest value the slices hold is {largest}: Java writes the "
                          "largest", offset=base + at + 10, field=f"{field}/header/max"))
    elif largest != half.max:
        raise violation(f"max {half.max}, but the largest value the slices hold is {largest}", offset=base + at + 10,
                        field=f"{field}/header/max", java_notices=False)
    if name == "negative" and len(magnitudes) and int(magnitudes.min()) + half.min == 0:
        row = int(rows[int(magnitudes.argmin())])
        raise violation(f"row {row} holds magnitude 0 in the negative half: Java writes 0 in the positive half",
                        offset=base + ebm_at, field=f"{field}/index/ebm", java_notices=False)
    return half.slices[-1][0] + half.slices[-1][1] if half.slices else ebm_at + ebm_size + 4


"""ORDER BY one column LIMIT k over bit-sliced values (spec §8.5), for the range-bitmap (its codes) and bsi (each
half's magnitudes) readers: O'Neil's top-k over the slices, and the null rows placed before or after the values
as Java's ``RangeBitmap.fillNulls`` places them.

``strict`` (Java: one ORDER BY key) gives exactly k rows, breaking ties at the boundary as Java does (the
smallest row ids of the tied values are dropped, the smallest of the nulls kept); otherwise every row tied with
the k-th is kept too.
"""
from __future__ import annotations

from collections.abc import Callable

from pyroaring import BitMap, FrozenBitMap

from fileindex.errors import UsageError
from fileindex.indexes import roaring


def check_limit(limit: int) -> None:
    if limit < 0:
        raise UsageError(f"TopN limit must be >= 0, not {limit}")


def top_values(k: int, existing: FrozenBitMap, slice_of: Callable[[int], FrozenBitMap], num_slices: int, *,
               largest: bool, found: FrozenBitMap | None, strict: bool) -> FrozenBitMap:
    """The rows of ``existing`` (∩ ``found``) with the ``k`` largest (or smallest) values, a value being the
    bits its row has in slices 0 .. ``num_slices`` - 1 (O'Neil and Quass's algorithm 4.1, Java's
    ``BitSliceIndexBitmap.topK``/``bottomK``)."""
    if k == 0 or (found is not None and not found):
        return FrozenBitMap()
    before = BitMap()  # rows surely in the answer
    tied = existing & found if found is not None else existing  # rows equal so far on the higher slices
    if len(tied) <= k:
        return tied
    for i in range(num_slices - 1, -1, -1):
        ahead = tied & slice_of(i) if largest else tied - slice_of(i)
        taken = before | ahead
        if len(taken) > k:
            tied = ahead
        elif len(taken) < k:
            before = taken
            tied = tied - ahead
        else:
            tied = ahead
            break
    answer = before | tied
    if strict and len(answer) > k:
        answer = before | _last_rows(tied, k - len(before))
    return roaring.frozen(answer)


def with_nulls(limit: int, nulls: FrozenBitMap, values: Callable[[int], FrozenBitMap], *, nulls_first: bool,
               strict: bool) -> FrozenBitMap:
    """The first ``limit`` rows with the ``nulls`` (all tied) before or after the non-null rows ``values(k)``
    ranks first."""
    if nulls_first:
        taken = _first_rows(nulls, limit) if strict else nulls
        return taken | values(limit - len(taken)) if len(taken) < limit else taken
    taken = values(limit)
    if len(taken) < limit:
        taken = taken | (_first_rows(nulls, limit - len(taken)) if strict else nulls)
    return taken


def _first_rows(rows: FrozenBitMap, count: int) -> FrozenBitMap:
    """The ``count`` smallest row ids (a slice by rank: no array of every row is built)."""
    if count <= 0:
        return FrozenBitMap()
    return FrozenBitMap(rows[:count])


def _last_rows(rows, count: int) -> BitMap:
    """The ``count`` largest row ids."""
    if count <= 0:
        return BitMap()
    return BitMap(rows[max(len(rows) - count, 0):])

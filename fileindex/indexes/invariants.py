"""What the deep checks of every index type share (``fileindex check``): the error they raise,
the facts a body reports for the checks across a container, and the checks of Roaring bitmaps.

A deep check proves an invariant the layout implies beyond parsing: what every body Java writes
satisfies, so a body that breaks it was damaged or hand-made. The query path never runs them.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyroaring import FrozenBitMap

from fileindex.container.invariants import JAVA_MISSES
from fileindex.errors import InvariantError
from fileindex.indexes import roaring


@dataclass(frozen=True)
class BodyFacts:
    """What one body says about its data file, for the checks across a container's entries."""

    row_count: int | None = None  # rows of the data file (bitmap, bsi, range-bitmap)
    distinct: int | None = None  # distinct non-null values (bitmap, range-bitmap)


def violation(message: str, *, offset: int, field: str, java_notices: bool) -> InvariantError:
    """The error for a broken invariant; the message says when Java's reader would not notice."""
    return InvariantError(message if java_notices else f"{message} ({JAVA_MISSES})", offset=offset, field=field)


def check_rows(bitmap: FrozenBitMap, row_count: int, *, what: str, offset: int, field: str) -> None:
    """Every row of ``bitmap`` lies in [0, row_count)."""
    if bitmap and bitmap.max() >= row_count:
        raise violation(f"{what} holds row {bitmap.max()}, past the row count {row_count}", offset=offset,
                        field=field, java_notices=False)


def check_canonical(stored, bitmap: FrozenBitMap, *, what: str, offset: int, field: str) -> None:
    """``stored`` is the bytes Java writes for ``bitmap`` (runOptimize, then the portable format):
    a count or container type changed in place reads as another set than the bytes hold."""
    expected = roaring.serialize(bitmap)
    if bytes(stored) != expected:
        at = next((i for i, (a, b) in enumerate(zip(bytes(stored), expected, strict=False)) if a != b),
                  min(len(stored), len(expected)))
        raise violation(f"{what} is not serialized as Java serializes its {len(bitmap)} row(s) "
                        f"({len(stored)} bytes where Java writes {len(expected)}; first difference at +{at})",
                        offset=offset + at, field=field, java_notices=False)

"""What the deep checks of every index type share (``fileindex check``): the error they raise,
the facts a body reports for the checks across a container, and the checks of Roaring bitmaps.

A deep check proves an invariant the layout implies beyond parsing: what every body Java writes
satisfies. A breach a correct reader would misread (keys out of order, rows past the row count,
cleared bloom bits) raises :func:`violation`; one Java's reader reads correctly (bitmaps not back to
back, a Roaring bitmap serialized without run containers) is a :class:`Note` in ``BodyFacts.notes``
(non-canonical, not malformed). The query path never runs them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pyroaring import FrozenBitMap

from fileindex.container.invariants import JAVA_MISSES, Note
from fileindex.errors import InvariantError
from fileindex.indexes import roaring


@dataclass(frozen=True)
class BodyFacts:
    """What one body says about its data file, for the checks across a container's entries."""

    row_count: int | None = None  # rows of the data file (bitmap, bsi, range-bitmap)
    distinct: int | None = None  # distinct non-null values (bitmap, range-bitmap)
    notes: tuple[Note, ...] = field(default=(), compare=False)  # how the body differs from Java's writer's


def violation(message: str, *, offset: int, field: str, java_notices: bool) -> InvariantError:
    """The error for a broken invariant; the message says when Java's reader would not notice."""
    return InvariantError(message if java_notices else f"{message} ({JAVA_MISSES})", offset=offset, field=field)


def check_rows(bitmap: FrozenBitMap, row_count: int, *, what: str, offset: int, field: str) -> None:
    """Every row of ``bitmap`` lies in [0, row_count)."""
    if bitmap and bitmap.max() >= row_count:
        raise violation(f"{what} holds row {bitmap.max()}, past the row count {row_count}", offset=offset,
                        field=field, java_notices=False)


def check_serialized(stored, bitmap: FrozenBitMap, notes: list[Note], *, what: str, offset: int, field: str) -> None:
    """``stored`` holds ``bitmap`` as Java would read it. Java writes ``runOptimize`` then the portable
    format; other choices of run containers are a note (Java's ``RoaringBitmap.deserialize`` reads
    any well-formed portable bytes), but bytes that do not re-serialize as themselves (a count or a
    container type changed in place) read as another set than they hold: invalid."""
    stored = bytes(stored)
    expected = roaring.serialize(bitmap)
    if stored == expected:
        return
    if roaring.deserialize(stored, offset=offset, field=field).serialize() == stored:
        notes.append(Note(f"{what} is serialized in {len(stored)} bytes where Java writes {len(expected)} "
                          "(Java's writer run-optimizes first)", offset=offset, field=field))
        return
    at = next((i for i, (a, b) in enumerate(zip(stored, expected, strict=False)) if a != b),
              min(len(stored), len(expected)))
    raise violation(f"{what} is not a well-formed serialization of its {len(bitmap)} row(s) ({len(stored)} bytes "
                    f"where Java writes {len(expected)}; first difference at +{at})",
                    offset=offset + at, field=field, java_notices=False)

"""Paimon's ``FileIndexResult`` algebra (spec §9.1): REMAIN, SKIP, or a set of candidate rows.

Every result is a superset of the rows that truly match. ``REMAIN`` keeps the whole file, ``SKIP``
drops it, and a :class:`Rows` result keeps just its rows (it *remains* iff it is non-empty).
Its ``kind`` (``"REMAIN"``, ``"SKIP"``, ``"ROWS"``) names it wherever a result is written out.
An :class:`Answer` is a result that also says whether it is exact (not a superset), and
:func:`exact_count` the number of rows a scan returns from a file where that alone says it.
"""
from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable, Sequence
from fileindex.frozen import frozen
from typing import cast

from pyroaring import BitMap, FrozenBitMap

from fileindex import kernels
from fileindex.indexes import roaring


class FileIndexResult:
    __slots__ = ()
    kind: str  # "REMAIN", "SKIP" or "ROWS"

    def remain(self) -> bool:
        raise NotImplementedError

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        raise NotImplementedError

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        raise NotImplementedError


class _WholeFile(FileIndexResult):
    """REMAIN or SKIP: an answer for the whole file, neutral for AND or for OR respectively."""

    __slots__ = ("kind", "_remains")

    def __init__(self, kind: str, remains: bool):
        self.kind, self._remains = kind, remains

    def remain(self) -> bool:
        return self._remains

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        return other if self._remains else self

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        return self if self._remains else other

    def __repr__(self) -> str:
        return self.kind

    def __reduce__(self):
        return self.kind  # the module-level singleton of that name


REMAIN: FileIndexResult = _WholeFile("REMAIN", True)
SKIP: FileIndexResult = _WholeFile("SKIP", False)


UNION_LISTED = 1 << 16  # past this many rows, a union of row lists is merged as bitmaps


class Rows(FileIndexResult):
    """Candidate rows (Java's ``BitmapIndexResult``), as an immutable Roaring bitmap.

    A kernel that decoded a few rows hands them over as a list (:meth:`listed`): the bitmap is made from it when
    first asked for (a warm lookup answers in a few microseconds, and a bitmap object costs two of them), and
    ``remain`` and ``cardinality`` do not ask for it."""

    __slots__ = ("_bitmap", "_listed", "_serialized")
    kind = "ROWS"
    _bitmap: FrozenBitMap | None  # None until asked for, where the rows came listed
    _listed: bytes | None
    _serialized: bytes | None  # the portable bitmap the listed rows were decoded from, where it is kept

    def __init__(self, rows: Iterable[int] | BitMap | FrozenBitMap = ()):
        self._listed = self._serialized = None
        if type(rows) is FrozenBitMap:  # most results: no copy, and no further checks
            self._bitmap = rows
        else:
            self._bitmap = roaring.frozen(rows) if isinstance(rows, (BitMap, FrozenBitMap)) else FrozenBitMap(rows)

    @classmethod
    def listed(cls, rows: bytes, serialized: bytes | None = None) -> Rows:
        """The rows of a native uint32 list, ascending and distinct (as the kernels decode them). ``serialized``,
        the portable bitmap they were decoded from (checked alike by the kernel: CRoaring's checks), makes the
        bitmap when asked for: pyroaring builds one from a list of ten thousand rows in 100-200 µs, and
        deserializes the same rows in under 10."""
        made = cls.__new__(cls)
        made._bitmap, made._listed, made._serialized = None, rows, serialized
        return made

    @classmethod
    def union(cls, parts: Sequence[Rows]) -> Rows:
        """The rows of all the parts: merged in one sort by the kernels where each part is listed and they hold up to
        ``UNION_LISTED`` rows, else as bitmaps."""
        listed = [part._listed for part in parts]
        if kernels.compiled is not None and parts and None not in listed and \
                sum(map(len, cast(list[bytes], listed))) <= 4 * UNION_LISTED:
            return cls.listed(kernels.compiled.rows_union(cast(list[bytes], listed)))
        return cls(roaring.union([part.bitmap for part in parts]))

    @property
    def bitmap(self) -> FrozenBitMap:
        bitmap = self._bitmap
        if bitmap is None:
            serialized = self._serialized
            bitmap = self._bitmap = FrozenBitMap(array("I", cast(bytes, self._listed)), optimize=False) \
                if serialized is None else FrozenBitMap.deserialize(serialized)  # (kept)
        return bitmap

    def remain(self) -> bool:
        listed = self._listed
        return bool(listed) if listed is not None else bool(self.bitmap)

    def and_(self, other: FileIndexResult) -> FileIndexResult:
        if isinstance(other, Rows):
            return Rows(self.bitmap & other.bitmap)
        return self if other.remain() else SKIP

    def or_(self, other: FileIndexResult) -> FileIndexResult:
        if isinstance(other, Rows):
            return Rows(self.bitmap | other.bitmap)
        return REMAIN if other.remain() else self

    @property
    def cardinality(self) -> int:
        listed = self._listed
        return len(listed) // 4 if listed is not None else len(self.bitmap)

    def ranges(self) -> list[tuple[int, int]]:
        """Maximal inclusive ranges [first, last], ascending (never a list of every row)."""
        return roaring.runs(self.bitmap)

    def to_json(self) -> dict:
        """``{"cardinality": n, "ranges": [[first, last], ...]}``"""
        return {"cardinality": self.cardinality, "ranges": [list(r) for r in self.ranges()]}

    def __eq__(self, other) -> bool:
        return isinstance(other, Rows) and self.bitmap == other.bitmap

    def __hash__(self) -> int:
        return hash(self.bitmap)

    def __repr__(self) -> str:
        return f"Rows({list(itertools.islice(self.bitmap, 16))}{'...' if len(self.bitmap) > 16 else ''})"

    def __reduce__(self):
        return (Rows, (self.bitmap,))


def result_json(result: FileIndexResult) -> dict:
    """A result as JSON: ``{"result": kind}``, with ``cardinality`` and ``ranges`` for ROWS."""
    return {"result": result.kind, **(result.to_json() if isinstance(result, Rows) else {})}


@frozen
class Answer:
    """A result, and whether its rows are exactly the rows that match (``exact``), not a superset of them.

    Exact are: every result that keeps no row (every result is sound); a row set an index type answers
    a leaf with exactly (``IndexType.answers_exactly``); AND and OR of exact answers. ``Answer(REMAIN,
    True)`` says every row matches (an AND of nothing); REMAIN from an index is never exact.
    """

    result: FileIndexResult
    exact: bool

    @classmethod
    def of(cls, result: FileIndexResult, exact: bool) -> Answer:
        return cls(result, exact or not result.remain())

    def remain(self) -> bool:
        return self.result.remain()

    def and_(self, other: Answer) -> Answer:
        return Answer.of(self.result.and_(other.result), self.exact and other.exact)

    def or_(self, other: Answer) -> Answer:
        return Answer.of(self.result.or_(other.result), self.exact and other.exact)


def exact_count(answer: Answer | None, row_count: int, deleted: BitMap | FrozenBitMap | None = None) -> int | None:
    """How many rows a scan returns from a file of ``row_count`` rows, its ``deleted`` positions (its deletion
    vector; None: none) left out, where ``answer`` (its predicate's; None: no predicate) alone says it; None
    where the file must be read to count. The answer may be taken before or after the deletion vector."""
    if answer is not None and not answer.remain():
        return 0
    if answer is not None and not answer.exact:
        return None
    rows = answer.result if answer is not None else REMAIN
    if isinstance(rows, Rows):
        kept = rows.bitmap.range_cardinality(0, row_count)
        return kept - (rows.bitmap & deleted).range_cardinality(0, row_count) if deleted else kept
    return row_count - (deleted.range_cardinality(0, row_count) if deleted else 0)

"""The visitor every index reader implements: Paimon's ``FileIndexReader`` (spec §9.3).

Each ``visit_*`` returns a :class:`~fileindex.indexes.result.FileIndexResult`. The defaults answer
REMAIN, as Java's base reader does; IN and NOT IN default to an OR over equalities and
inequalities. Where Java would return null (an empty IN list on the base reader) or throw on a
legal predicate, the answer is REMAIN: the safe superset.
"""
from __future__ import annotations

from collections.abc import Sequence

from pyroaring import FrozenBitMap

from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult


class FileIndexReader:
    def visit_is_null(self) -> FileIndexResult:
        return REMAIN

    def visit_is_not_null(self) -> FileIndexResult:
        return REMAIN

    def visit_equal(self, literal) -> FileIndexResult:
        return REMAIN

    def visit_equal_many(self, literals: Sequence) -> list[FileIndexResult]:
        """``visit_equal`` of each literal; readers with a batch path answer all in one call."""
        self.prefetch(literals)
        return [self.visit_equal(literal) for literal in literals]

    def prefetch(self, literals: Sequence) -> None:
        """Read ahead what equalities on these literals will need (a reader that caches reads them in one batch)."""

    def visit_not_equal(self, literal) -> FileIndexResult:
        return REMAIN

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        return _fold_or(self.visit_equal(literal) for literal in literals)

    def visit_not_in(self, literals: Sequence) -> FileIndexResult:
        return _fold_or(self.visit_not_equal(literal) for literal in literals)

    def visit_less_than(self, literal) -> FileIndexResult:
        return REMAIN

    def visit_less_or_equal(self, literal) -> FileIndexResult:
        return REMAIN

    def visit_greater_than(self, literal) -> FileIndexResult:
        return REMAIN

    def visit_greater_or_equal(self, literal) -> FileIndexResult:
        return REMAIN

    def visit_between(self, low, high) -> FileIndexResult:
        return REMAIN

    def visit_not_between(self, low, high) -> FileIndexResult:
        return REMAIN

    def visit_range(self, low, high, *, low_inclusive: bool, high_inclusive: bool) -> FileIndexResult:
        """``column >(=) low AND column <(=) high``: the AND of the two answers, as Paimon folds them; a reader
        that answers both at once, cheaper, overrides it."""
        first = self.visit_greater_or_equal(low) if low_inclusive else self.visit_greater_than(low)
        if not first.remain():
            return first
        return first.and_(self.visit_less_or_equal(high) if high_inclusive else self.visit_less_than(high))

    def visit_top_n(self, limit: int, *, descending: bool, nulls_first: bool = False,
                    found: FrozenBitMap | None = None, strict: bool = True) -> FileIndexResult:
        """The rows of ``found`` (None: every row) that come first in ``ORDER BY column [DESC] NULLS
        FIRST|LAST LIMIT limit`` (Java's ``visitTopN``; ``strict``: exactly ``limit`` rows, ties broken, else
        every row tied with the last): REMAIN where the index cannot say (as Java's base reader)."""
        return REMAIN


def _fold_or(results) -> FileIndexResult:
    folded = None
    for result in results:
        folded = result if folded is None else folded.or_(result)
    return REMAIN if folded is None else folded  # Java returns null for an empty list


class EmptyFileIndexReader(FileIndexReader):
    """An index whose writer saw no record (an entry with start -1, Java's ``EmptyFileIndexReader``):
    nothing can match a value, and nothing is non-null."""

    def visit_is_not_null(self) -> FileIndexResult:
        return SKIP

    def visit_equal(self, literal) -> FileIndexResult:
        return SKIP

    def visit_in(self, literals) -> FileIndexResult:
        return SKIP

    def visit_less_than(self, literal) -> FileIndexResult:
        return SKIP

    def visit_less_or_equal(self, literal) -> FileIndexResult:
        return SKIP

    def visit_greater_than(self, literal) -> FileIndexResult:
        return SKIP

    def visit_greater_or_equal(self, literal) -> FileIndexResult:
        return SKIP

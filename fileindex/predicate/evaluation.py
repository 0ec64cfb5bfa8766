"""Whole-file evaluation with Paimon's ``FileIndexPredicate`` semantics (spec §9).

A leaf on column c starts from REMAIN and ANDs in the answer of every index on c, stopping as soon
as the result no longer remains; a column without an index answers REMAIN. AND folds left to right
and stops when the result no longer remains; OR folds without stopping. An empty entry (start -1)
is read as Java's ``EmptyFileIndexReader``; an index type this package does not implement answers
REMAIN. ``extended=True`` lets the bitmap index answer ranges from its sorted dictionary (sound,
tighter than Java). An evaluator holds only its schema and mode, so it pickles for Spark executors.

``evaluate_exact`` also says whether the rows are exactly the matching ones (an :class:`Answer`), and
``top_n`` answers ORDER BY a column LIMIT k from its range-bitmap or bsi (Java's ``evaluateTopN``).
"""
from __future__ import annotations

from fileindex.frozen import frozen
from collections.abc import Iterator
from typing import TypeVar

from pyroaring import FrozenBitMap

from fileindex.container.file import FileIndexContainer
from fileindex.container.head import IndexEntry
from fileindex.errors import DecodeError, FileIndexError, InvalidLengthError, SchemaMisfitError, UsageError
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.registry import INDEX_TYPES, body_failure, open_entry
from fileindex.indexes.result import REMAIN, SKIP, Answer, FileIndexResult, Rows
from fileindex.predicate.operators import Operator
from fileindex.predicate.precision import at_column_precision
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, conjuncts, leaves, without_null_alternatives
from fileindex.predicate.tree import visit as visit_tree
from fileindex.types import DataType, column_type
from fileindex.values import held_exactly

R = TypeVar("R", FileIndexResult, Answer)
Unreadable = DecodeError | SchemaMisfitError  # a malformed body, or one built for another column type


@frozen
class FileIndexEvaluator:
    """Evaluates predicates over containers. ``lenient``: a malformed body answers REMAIN, not an error."""

    schema: dict[str, DataType]
    extended: bool = False
    lenient: bool = False

    def evaluate(self, container: FileIndexContainer, predicate: Predicate, *,
                 row_count: int | None = None) -> FileIndexResult:
        """The rows of the file that may match. ``row_count``: the data file's rows, which every body read must
        record where its type records one: a body recording another count (an index built over other rows) is
        malformed for this file (raised; in lenient mode reported, answering REMAIN)."""
        return _Results(self, container, row_count=row_count).evaluate(predicate)

    def evaluate_exact(self, container: FileIndexContainer, predicate: Predicate, *,
                       row_count: int | None = None) -> Answer:
        """``evaluate``'s result, and whether its rows are exactly the rows that match (module docstring of
        :mod:`fileindex.indexes.result`): never where a leaf is answered by no index, by a bloom filter, by an
        index that answers it with a superset (bitmap ``<>``: null rows too), or with a null literal; a malformed
        body (lenient mode) is no answer. ``row_count`` as ``evaluate`` takes it."""
        return _Answers(self, container, row_count=row_count).evaluate(predicate)

    def top_n(self, container: FileIndexContainer, column: str, limit: int, *, descending: bool,
              nulls_first: bool, selection: FrozenBitMap | None = None, with_ties: bool = False) -> Rows | None:
        """The positions of the first ``limit`` rows of ``selection`` (None: every row) in ``ORDER BY column
        [DESC] NULLS FIRST|LAST``, from the column's first range-bitmap or bsi that answers (Java's
        ``evaluateTopN``); None where none does: read the column. The order is the index's: Paimon's
        comparison (FLOAT/DOUBLE by ``Float.compare``: -0.0 before 0.0, NaN after +Infinity; strings bytewise).

        ``selection`` must hold exactly the rows to rank (an exact answer's rows minus the deleted ones): the
        top of a superset may hold rows the predicate drops. Without ``with_ties``: min(``limit``, rows) rows, each
        ordering at or before every row left out (ties at the limit broken as Java breaks them); ``with_ties``:
        every row ordering at or before the ``limit``-th (Java's answer for more than one ORDER BY key)."""
        if limit < 0:
            raise UsageError(f"a top-N limit must be 0 or more, not {limit}")
        if limit == 0:
            return Rows()
        if selection is not None and len(selection) <= limit:
            return Rows(selection)
        answer = _Results(self, container).first_answer(column, "visit_top_n", (limit,), {
            "descending": descending, "nulls_first": nulls_first, "found": selection, "strict": not with_ties})
        if not isinstance(answer, Rows):
            return None
        rows = answer.bitmap if selection is None else answer.bitmap & selection
        if not with_ties and len(rows) > limit:  # a range bitmap without a non-null value answers every row, Java's
            rows = FrozenBitMap(rows[:limit])  # way: all of them null, so tied
        return Rows(rows)

    def evaluate_reporting(self, container: FileIndexContainer,
                           predicate: Predicate) -> tuple[FileIndexResult, list[Unreadable]]:
        """The result, and (lenient mode) why the bodies answered REMAIN could not be read."""
        evaluation = _Results(self, container)
        return evaluation.evaluate(predicate), evaluation.malformed

    def evaluate_many(self, container: FileIndexContainer,
                      predicates: list[Predicate]) -> Iterator[tuple[FileIndexResult, list[Unreadable]]]:
        """``evaluate_reporting`` of each predicate on one container, in order, sharing its readers.

        What one predicate made a reader read serves the next, and the literals of every ``=``
        and ``IN`` on a column are located in one batch call first (``FileIndexReader.prefetch``).
        In lenient mode a malformed body is reported with each predicate that reads it.
        """
        evaluation = _Results(self, container, _equality_literals(predicates))
        for predicate in predicates:
            reported = len(evaluation.malformed)
            result = evaluation.evaluate(predicate)
            yield result, evaluation.malformed[reported:]


    def evaluate_each(self, container: FileIndexContainer, predicates: list[Predicate], *,
                      row_count: int | None = None) -> Iterator[FileIndexResult | Unreadable]:
        """``evaluate`` of each predicate on one container, in order, sharing its readers as ``evaluate_many``
        does. A predicate that meets a body it cannot read yields that error in place of its result, and the
        predicates after it are evaluated afresh (nothing the failed one half read is reused)."""
        evaluation = _Results(self, container, _equality_literals(predicates), row_count=row_count)
        for position, predicate in enumerate(predicates):
            answer: FileIndexResult | Unreadable
            try:
                answer = evaluation.evaluate(predicate)
            except (DecodeError, SchemaMisfitError) as err:
                answer = err
                evaluation = _Results(self, container, _equality_literals(predicates[position + 1:]),
                                      row_count=row_count)
            yield answer


class _Evaluation(PredicateVisitor[R]):
    """One container's readers, opened on first use and shared by every leaf of the predicate; the walk
    folds :class:`FileIndexResult` (``_Results``) or :class:`Answer` (``_Answers``)."""

    everything: R  # AND's start: every row
    nothing: R  # OR's start: no row
    unanswered: R  # a leaf no index answers

    def __init__(self, evaluator: FileIndexEvaluator, container: FileIndexContainer,
                 prefetch: dict[str, list] | None = None, *, row_count: int | None = None):
        self.evaluator = evaluator
        self.container = container
        self.row_count = row_count  # the data file's rows, which each body read must record (None: unknown)
        self.prefetch = prefetch or {}  # column → literals its readers may locate in one batch when opened
        self.readers: dict[str, list[FileIndexReader]] = {}
        self.malformed: list[Unreadable] = []

    def evaluate(self, predicate: Predicate) -> R:
        predicate = without_null_alternatives(predicate)  # (c IN (3, NULL): the rows of 3 are the answer)
        parts = conjuncts(predicate)
        return visit_tree(predicate, self) if len(parts) < 2 else self.and_(self._conjunct_answers(parts))

    def _conjunct_answers(self, parts: tuple[Predicate, ...]) -> Iterator[R]:
        """Each conjunct's answer, in order, with a lower and an upper bound on one column next to each other
        (``ts >= a AND ts < b``) answered together (``FileIndexReader.visit_range``): the same rows as
        answering them one after the other, which Java does."""
        position = 0
        while position < len(parts):
            bounds = _range_bounds(parts[position], parts[position + 1]) if position + 1 < len(parts) else None
            if bounds is None or any(self._held(bound) is not bound for bound in bounds):
                yield visit_tree(parts[position], self)
                position += 1
            else:
                lower, upper = bounds
                yield self._answer(lower.column, bounds, "visit_range", (lower.literals[0], upper.literals[0]),
                                   {"low_inclusive": lower.function is Operator.GTE,
                                    "high_inclusive": upper.function is Operator.LTE})
                position += 2

    def and_(self, children: Iterator[R]) -> R:
        result = self.everything
        for child in children:
            result = result.and_(child)
            if not result.remain():
                break
        return result

    def or_(self, children: Iterator[R]) -> R:
        result = self.nothing
        for child in children:
            result = result.or_(child)
        return result

    def leaf(self, predicate: Leaf) -> R:
        held = self._held(predicate)
        if held is not predicate:
            return visit_tree(held, self)
        function = predicate.function
        return self._answer(predicate.column, (predicate,), function.visitor, function.arguments(predicate.literals))

    def _held(self, leaf: Leaf) -> Predicate:
        """``leaf`` with literals its column holds (``fileindex.predicate.precision``)."""
        return at_column_precision(leaf, column_type(self.evaluator.schema, leaf.column))

    def _answer(self, column: str, leaves: tuple[Leaf, ...], visitor: str, arguments: tuple,
                keywords: dict | None = None) -> R:
        """The AND of every index on ``column``'s ``visitor`` method (``visit_equal``, ``visit_range``...) of
        ``arguments`` (answering ``leaves``), stopping once it no longer remains (the reader's method is called
        directly: no wrapper frame between a leaf and the index)."""
        result = self.unanswered
        for entry, reader in self._entry_readers(column):
            answer = self._asked(column, entry, reader, visitor, arguments, keywords)
            if answer is not None:
                result = self._narrowed(result, answer, entry, leaves)
                if not result.remain():
                    break
        return result

    def _narrowed(self, result: R, answer: FileIndexResult, entry: IndexEntry, leaves: tuple[Leaf, ...]) -> R:
        """``result`` of the indexes before ``entry`` on one column ANDed with ``entry``'s ``answer``."""
        raise NotImplementedError

    def first_answer(self, column: str, visitor: str, arguments: tuple, keywords: dict | None = None,
                     ) -> FileIndexResult:
        """``visitor`` of the first index on ``column`` that does not answer REMAIN (REMAIN when none does)."""
        for entry, reader in self._entry_readers(column):
            answer = self._asked(column, entry, reader, visitor, arguments, keywords)
            if answer is not None and answer is not REMAIN:
                return answer
        return REMAIN

    def _entry_readers(self, column: str) -> Iterator[tuple[IndexEntry, FileIndexReader]]:
        # no readers when the column has no type: nothing to zip; else one reader per entry
        return zip(self.container.indexes(column).values(), self._readers(column), strict=False)

    def _asked(self, column: str, entry: IndexEntry, reader: FileIndexReader, visitor: str, arguments: tuple,
               keywords: dict | None) -> FileIndexResult | None:
        """The reader's ``visitor`` of ``arguments``; None where its body is malformed (lenient mode: reported),
        else that error raised."""
        try:
            answer = getattr(reader, visitor)(*arguments, **(keywords or {}))
        except DecodeError as err:
            data_type = column_type(self.evaluator.schema, column)
            failure = body_failure(self.container, entry, data_type, err)
            if not self.evaluator.lenient:
                raise failure from None
            self.malformed.append(failure if isinstance(failure, SchemaMisfitError) else err)
            return None
        return answer if self._of_the_file(entry, reader) else None

    def _readers(self, column: str) -> list[FileIndexReader]:
        readers = self.readers.get(column)
        if readers is None:
            data_type = column_type(self.evaluator.schema, column)
            shared = self.container.readers  # a shared container's readers, opened by an earlier query
            key = (column, data_type, self.evaluator.extended)
            readers = None if shared is None else shared.get(key)
            if readers is None:
                opened = len(self.malformed)
                entries = self.container.indexes(column).values()
                readers = [self._open(entry, data_type) for entry in entries] if data_type else []
                if shared is not None and len(self.malformed) == opened:  # a malformed body must fail again
                    shared[key] = readers
            self.readers[column] = readers
            for reader in readers if len(self.prefetch.get(column, ())) > 1 else ():  # (one: visiting finds it)
                try:
                    reader.prefetch(self.prefetch[column])
                except FileIndexError:
                    pass  # the same failure is met, and reported or raised, where a predicate reads it
        return readers

    def _of_the_file(self, entry: IndexEntry, reader: FileIndexReader) -> bool:
        """Whether the body ``reader`` answered from records the data file's row count (or none, or the count is
        not known: a reader learns it from its header as it answers); else raised as malformed, or in lenient mode
        reported (no answer): its rows are another file's (an index of a file's first 4 of 8 rows skipped the
        file for row 4's value)."""
        recorded = getattr(reader, "row_count", None)
        if self.row_count is None or recorded is None or recorded == self.row_count:
            return True
        at, field = INDEX_TYPES[entry.index_type].row_count_at or (0, entry.index_type)
        err = InvalidLengthError(f"the body on {entry.column} records {recorded} rows, the data file "
                                 f"{self.row_count}: an index of other rows", offset=entry.start + at, field=field)
        if not self.evaluator.lenient:
            raise err
        self.malformed.append(err)
        return False

    def _open(self, entry: IndexEntry, data_type: DataType) -> FileIndexReader:
        try:
            reader = open_entry(self.container, entry, data_type, extended=self.evaluator.extended)
        except (DecodeError, SchemaMisfitError) as err:
            if not self.evaluator.lenient:
                raise
            self.malformed.append(err)
            return FileIndexReader()
        return FileIndexReader() if reader is None else reader  # an unknown index type: REMAIN for everything


class _Results(_Evaluation[FileIndexResult]):
    everything, nothing, unanswered = REMAIN, SKIP, REMAIN

    def _narrowed(self, result: FileIndexResult, answer: FileIndexResult, entry: IndexEntry,
                  leaves: tuple[Leaf, ...]) -> FileIndexResult:
        return result.and_(answer)


class _Answers(_Evaluation[Answer]):
    """Results with their exactness: each index's row set is exact where its type answers every leaf it was
    asked exactly (in the evaluator's mode) and each literal is one the column's type holds exactly; on one
    column, any exact answer makes the AND of them all exact (each is a superset of the same rows)."""

    everything, nothing, unanswered = Answer(REMAIN, True), Answer(SKIP, True), Answer(REMAIN, False)

    def _narrowed(self, result: Answer, answer: FileIndexResult, entry: IndexEntry,
                  leaves: tuple[Leaf, ...]) -> Answer:
        exact = isinstance(answer, Rows) and self._exact(entry.index_type, leaves)
        return Answer.of(result.result.and_(answer), result.exact or exact)

    def _exact(self, index_type: str, leaves: tuple[Leaf, ...]) -> bool:
        index = INDEX_TYPES.get(index_type)
        if index is None:
            return False
        extended = self.evaluator.extended
        for leaf in leaves:
            data_type = column_type(self.evaluator.schema, leaf.column)
            if data_type is None or not index.answers_exactly(leaf.function, extended=extended) or any(
                    literal is None or not held_exactly(literal, data_type) for literal in leaf.literals):
                return False
        return True


_EQUALITIES = {Operator.EQ, Operator.NEQ, Operator.IN, Operator.NOT_IN}
_LOWER_BOUNDS, _UPPER_BOUNDS = {Operator.GT, Operator.GTE}, {Operator.LT, Operator.LTE}


def _range_bounds(first: Predicate, second: Predicate) -> tuple[Leaf, Leaf] | None:
    """(lower, upper) where the two conjuncts bound one column from below and above, in either order."""
    if not isinstance(first, Leaf) or not isinstance(second, Leaf) or first.column != second.column:
        return None
    if first.function in _LOWER_BOUNDS and second.function in _UPPER_BOUNDS:
        return first, second
    if first.function in _UPPER_BOUNDS and second.function in _LOWER_BOUNDS:
        return second, first
    return None


def _equality_literals(predicates: list[Predicate]) -> dict[str, list]:
    """Column → the non-null literals of every =, <>, IN and NOT IN on it."""
    literals: dict[str, list] = {}
    for predicate in predicates:
        for leaf in leaves(predicate):
            if leaf.function in _EQUALITIES:
                literals.setdefault(leaf.column, []).extend(v for v in leaf.literals if v is not None)
    return literals


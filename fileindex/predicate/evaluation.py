"""Whole-file evaluation with Paimon's ``FileIndexPredicate`` semantics (spec §9).

A leaf on column c starts from REMAIN and ANDs in the answer of every index on c, stopping as soon
as the result no longer remains; a column without an index answers REMAIN. AND folds left to right
and stops when the result no longer remains; OR folds without stopping. An empty entry (start -1)
is read as Java's ``EmptyFileIndexReader``; an index type this package does not implement answers
REMAIN. ``extended=True`` lets the bitmap index answer ranges from its sorted dictionary (sound,
tighter than Java). An evaluator holds only its schema and mode, so it pickles for Spark executors.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterator

from fileindex.container.file import FileIndexContainer
from fileindex.container.head import IndexEntry
from fileindex.errors import DecodeError, FileIndexError, SchemaMisfitError
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.registry import body_failure, open_entry
from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, conjuncts, leaves
from fileindex.predicate.tree import visit as visit_tree
from fileindex.types import DataType, column_type

Unreadable = DecodeError | SchemaMisfitError  # a malformed body, or one built for another column type


def visit(reader: FileIndexReader, leaf: Leaf) -> FileIndexResult:
    return leaf.function.visit(reader, leaf.literals)


@dataclass(frozen=True)
class FileIndexEvaluator:
    """Evaluates predicates over containers. ``lenient``: a malformed body answers REMAIN, not an error."""

    schema: dict[str, DataType]
    extended: bool = False
    lenient: bool = False

    def evaluate(self, container: FileIndexContainer, predicate: Predicate) -> FileIndexResult:
        return _Evaluation(self, container).evaluate(predicate)

    def evaluate_reporting(self, container: FileIndexContainer,
                           predicate: Predicate) -> tuple[FileIndexResult, list[Unreadable]]:
        """The result, and (lenient mode) why the bodies answered REMAIN could not be read."""
        evaluation = _Evaluation(self, container)
        return evaluation.evaluate(predicate), evaluation.malformed

    def evaluate_many(self, container: FileIndexContainer,
                      predicates: list[Predicate]) -> Iterator[tuple[FileIndexResult, list[Unreadable]]]:
        """``evaluate_reporting`` of each predicate on one container, in order, sharing its readers.

        What one predicate made a reader read serves the next, and the literals of every ``=``
        and ``IN`` on a column are located in one batch call first (``FileIndexReader.prefetch``).
        In lenient mode a malformed body is reported with each predicate that reads it.
        """
        evaluation = _Evaluation(self, container, _equality_literals(predicates))
        for predicate in predicates:
            reported = len(evaluation.malformed)
            result = evaluation.evaluate(predicate)
            yield result, evaluation.malformed[reported:]


    def evaluate_each(self, container: FileIndexContainer,
                      predicates: list[Predicate]) -> Iterator[FileIndexResult | Unreadable]:
        """``evaluate`` of each predicate on one container, in order, sharing its readers as ``evaluate_many``
        does. A predicate that meets a body it cannot read yields that error in place of its result, and the
        predicates after it are evaluated afresh (nothing the failed one half read is reused)."""
        evaluation = _Evaluation(self, container, _equality_literals(predicates))
        for position, predicate in enumerate(predicates):
            answer: FileIndexResult | Unreadable
            try:
                answer = evaluation.evaluate(predicate)
            except (DecodeError, SchemaMisfitError) as err:
                answer = err
                evaluation = _Evaluation(self, container, _equality_literals(predicates[position + 1:]))
            yield answer


class _Evaluation(PredicateVisitor[FileIndexResult]):
    """One container's readers, opened on first use and shared by every leaf of the predicate."""

    def __init__(self, evaluator: FileIndexEvaluator, container: FileIndexContainer,
                 prefetch: dict[str, list] | None = None):
        self.evaluator = evaluator
        self.container = container
        self.prefetch = prefetch or {}  # column → literals its readers may locate in one batch when opened
        self.readers: dict[str, list[FileIndexReader]] = {}
        self.malformed: list[Unreadable] = []

    def evaluate(self, predicate: Predicate) -> FileIndexResult:
        parts = conjuncts(predicate)
        return visit_tree(predicate, self) if len(parts) < 2 else self.and_(self._conjunct_answers(parts))

    def _conjunct_answers(self, parts: tuple[Predicate, ...]) -> Iterator[FileIndexResult]:
        """Each conjunct's answer, in order, with a lower and an upper bound on one column next to each other
        (``ts >= a AND ts < b``) answered together (``FileIndexReader.visit_range``): the same rows as
        answering them one after the other, which Java does."""
        position = 0
        while position < len(parts):
            bounds = _range_bounds(parts[position], parts[position + 1]) if position + 1 < len(parts) else None
            if bounds is None:
                yield visit_tree(parts[position], self)
                position += 1
            else:
                lower, upper = bounds
                yield self._answer(lower.column, "visit_range", (lower.literals[0], upper.literals[0]),
                                   {"low_inclusive": lower.function is Operator.GTE,
                                    "high_inclusive": upper.function is Operator.LTE})
                position += 2

    def and_(self, children: Iterator[FileIndexResult]) -> FileIndexResult:
        result = REMAIN
        for child in children:
            result = result.and_(child)
            if not result.remain():
                break
        return result

    def or_(self, children: Iterator[FileIndexResult]) -> FileIndexResult:
        result = SKIP
        for child in children:
            result = result.or_(child)
        return result

    def leaf(self, predicate: Leaf) -> FileIndexResult:
        function = predicate.function
        return self._answer(predicate.column, function.visitor, function.arguments(predicate.literals))

    def _answer(self, column: str, visitor: str, arguments: tuple, keywords: dict | None = None) -> FileIndexResult:
        """The AND of every index on ``column``'s ``visitor`` method (``visit_equal``, ``visit_range``...) of
        ``arguments``, stopping once it no longer remains (the reader's method called directly: no wrapper
        frame between a leaf and the index)."""
        result = REMAIN
        readers = self._readers(column)
        # no readers when the column has no type: nothing to zip; else one reader per entry
        for entry, reader in zip(self.container.indexes(column).values(), readers, strict=False):
            try:
                result = result.and_(getattr(reader, visitor)(*arguments, **(keywords or {})))
            except DecodeError as err:
                data_type = column_type(self.evaluator.schema, column)
                failure = body_failure(self.container, entry, data_type, err)
                if not self.evaluator.lenient:
                    raise failure from None
                self.malformed.append(failure if isinstance(failure, SchemaMisfitError) else err)
            if not result.remain():
                break
        return result

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

    def _open(self, entry: IndexEntry, data_type: DataType) -> FileIndexReader:
        try:
            reader = open_entry(self.container, entry, data_type, extended=self.evaluator.extended)
        except (DecodeError, SchemaMisfitError) as err:
            if not self.evaluator.lenient:
                raise
            self.malformed.append(err)
            return FileIndexReader()
        return FileIndexReader() if reader is None else reader  # an unknown index type: REMAIN for everything


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


"""Rewriting a table-schema predicate for a data file written with an older schema (table spec §8).

Columns are matched by field id, never by name. Per top-level AND conjunct: a leaf whose field the
file lacks, or whose type changed in a way a literal cannot follow exactly, makes the conjunct
unusable. Java then drops the conjunct (REMAIN for it); ``absent_as_null`` instead answers it as the
file truly is when the column did not exist: all null (value predicates match nothing, IS NULL
matches everything), unless the field has a default value. Integer widening keeps the literal when
it fits the file's narrower type. For statistics (``keep_retyped``), a leaf whose column changed type is kept
with its literals in the table's type, and ``FilePredicate.retyped`` names that type: statistics cast the
file's bounds to it where the cast keeps order (``table.statistics``).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from fileindex.predicate.tree import Leaf, LeafRewrite, Predicate, PredicateVisitor, and_, conjuncts, visit
from fileindex.table.metadata import Schema
from fileindex.types import NUMERIC_BITS, DataType

ALL_NULL_TRUE = {"is_null"}


def split_column(column: str) -> tuple[str, str | None]:
    """``m[k]`` → ('m', '[k]'); a plain column → (column, None)."""
    if column.endswith("]") and "[" in column:
        return column[: column.index("[")], column[column.index("["):]
    return column, None


def _same_type(a: DataType, b: DataType) -> bool:
    return a.not_null() == b.not_null()


class _Unusable(Exception):
    pass


class _AllNull(Exception):
    """The leaf's column did not exist when the file was written."""


def _leaf(leaf: Leaf, table: Schema, data: Schema, retyped: dict[str, DataType] | None = None) -> Leaf:
    name, key = split_column(leaf.column)
    table_field = table.by_name().get(name)
    if table_field is None:
        raise _Unusable
    data_field = data.by_id().get(table_field.id)
    if data_field is None:
        raise _AllNull if table_field.default_value is None else _Unusable
    literals = leaf.literals
    table_type, data_type = table_field.type, data_field.type
    if key is not None:  # a map-key column: compare the value types
        if table_type.root != "MAP" or data_type.root != "MAP":
            raise _Unusable
        table_type, data_type = table_type.children[1], data_type.children[1]
    if not _same_type(table_type, data_type) and retyped is not None and key is None:
        retyped[data_field.name] = table_type
    elif not _same_type(table_type, data_type):
        narrower = NUMERIC_BITS.get(data_type.root)
        wider = NUMERIC_BITS.get(table_type.root)
        if narrower is None or wider is None or narrower > wider:
            raise _Unusable
        low, high = -(1 << (narrower - 1)), (1 << (narrower - 1)) - 1
        if any(v is not None and not low <= v <= high for v in literals):
            raise _Unusable
    return Leaf(leaf.function, data_field.name + (key or ""), literals)


class _Remap(LeafRewrite):
    def __init__(self, table: Schema, data: Schema, retyped: dict[str, DataType] | None):
        self.table, self.data, self.retyped = table, data, retyped

    def leaf(self, leaf: Leaf) -> Predicate:
        return _leaf(leaf, self.table, self.data, self.retyped)


class _NullAnswer(PredicateVisitor[bool]):
    """A conjunct's value on a row where every column the file lacks is null (_Unusable: it names a column
    the file has, so the rows decide)."""

    def __init__(self, table: Schema, data: Schema):
        self.table, self.data = table, data

    def leaf(self, leaf: Leaf) -> bool:
        try:
            _leaf(leaf, self.table, self.data)
        except _AllNull:
            return leaf.function in ALL_NULL_TRUE
        raise _Unusable

    def and_(self, children: Iterator[bool]) -> bool:
        return all(children)

    def or_(self, children: Iterator[bool]) -> bool:
        return any(children)


def _true_when_absent_columns_are_null(conjunct: Predicate, table: Schema, data: Schema) -> bool:
    try:
        return visit(conjunct, _NullAnswer(table, data))
    except _Unusable:
        return True  # (the rows decide: it may hold)


@dataclass(frozen=True)
class FilePredicate:
    """A table predicate as a data file written under another schema can be asked it: ``predicate``, the
    usable conjuncts in the file's column names (None: none is usable, every row may match: REMAIN);
    ``matches_nothing``, a conjunct on a column the file lacks that no row can satisfy (SKIP)."""

    predicate: Predicate | None
    matches_nothing: bool = False
    retyped: tuple[tuple[str, DataType], ...] = ()  # (file column, the table's type of its literals): keep_retyped


def remap_predicate(predicate: Predicate, table: Schema, data: Schema, *,
                    absent_as_null: bool = False, keep_retyped: bool = False) -> FilePredicate:
    """``predicate`` (in the table's schema) for a file written under ``data`` (see the module docstring).
    ``absent_as_null``: a conjunct on a column the file lacks is answered as that column, all null, would.
    ``keep_retyped``: a leaf on a column of another type is kept, its type in ``retyped`` (statistics only)."""
    if table.id == data.id:
        return FilePredicate(predicate)
    kept = []
    retyped: dict[str, DataType] | None = {} if keep_retyped else None
    remap = _Remap(table, data, retyped)
    for conjunct in conjuncts(predicate):
        try:
            kept.append(visit(conjunct, remap))
        except _AllNull:
            if absent_as_null and not _true_when_absent_columns_are_null(conjunct, table, data):
                return FilePredicate(None, matches_nothing=True)
        except _Unusable:
            pass
    return FilePredicate(and_(*kept) if kept else None, retyped=tuple((retyped or {}).items()))

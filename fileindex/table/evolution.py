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

from collections.abc import Callable, Iterator
from fileindex.frozen import frozen
from enum import Enum

from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, and_, conjuncts, or_, visit
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


class Gap(Enum):
    """Why a leaf cannot be asked of a file as it is (paimon-rust's ``remap_predicate`` answers None)."""

    ABSENT = "the column did not exist when the file was written (all null, without a default value)"
    UNUSABLE = "no literal in the file's type says the same (a narrower or other type, or no such column)"


def _leaf(leaf: Leaf, table: Schema, data: Schema, retyped: dict[str, DataType] | None = None) -> Leaf | Gap:
    """The leaf in the file's column names, or the gap that keeps it from being asked; with ``retyped``, a leaf
    on a column of another type is kept in the table's type, which ``retyped`` records."""
    name, key = (leaf.column, None) if leaf.column in table.by_name() else split_column(leaf.column)
    table_field = table.by_name().get(name)
    if table_field is None:
        return Gap.UNUSABLE
    data_field = data.by_id().get(table_field.id)
    if data_field is None:
        return Gap.ABSENT if table_field.default_value is None else Gap.UNUSABLE
    literals = leaf.literals
    table_type, data_type = table_field.type, data_field.type
    if key is not None:  # a map-key column: compare the value types
        if table_type.root != "MAP" or data_type.root != "MAP":
            return Gap.UNUSABLE
        table_type, data_type = table_type.children[1], data_type.children[1]
    if not _same_type(table_type, data_type) and retyped is not None and key is None:
        retyped[data_field.name] = table_type
    elif not _same_type(table_type, data_type):
        narrower = NUMERIC_BITS.get(data_type.root)
        wider = NUMERIC_BITS.get(table_type.root)
        if narrower is None or wider is None or narrower > wider:
            return Gap.UNUSABLE
        low, high = -(1 << (narrower - 1)), (1 << (narrower - 1)) - 1
        if any(v is not None and not low <= v <= high for v in literals):
            return Gap.UNUSABLE
    return Leaf(leaf.function, data_field.name + (key or ""), literals)


class _Remap(PredicateVisitor[Predicate | Gap]):  # (types, not a string: see scan.truth._NumpyVisitor)
    """A conjunct in the file's column names; a gap when one of its leaves has one (UNUSABLE before ABSENT)."""

    def __init__(self, table: Schema, data: Schema, retyped: dict[str, DataType] | None = None):
        self.table, self.data, self.retyped = table, data, retyped

    def leaf(self, leaf: Leaf) -> Predicate | Gap:
        return _leaf(leaf, self.table, self.data, self.retyped)

    def and_(self, children: Iterator[Predicate | Gap]) -> Predicate | Gap:
        return _joined(list(children), and_)

    def or_(self, children: Iterator[Predicate | Gap]) -> Predicate | Gap:
        return _joined(list(children), or_)


def _joined(children: list[Predicate | Gap], join: Callable[..., Predicate]) -> Predicate | Gap:
    for gap in (Gap.UNUSABLE, Gap.ABSENT):
        if gap in children:
            return gap
    return join(*children)


class _NullAnswer(PredicateVisitor[bool | None]):
    """A conjunct's value on every row of a file where each column the file lacks is null: True, False, or None
    where the rows decide (a leaf on a column the file has, or one it cannot be asked of), in Kleene's logic."""

    def __init__(self, table: Schema, data: Schema):
        self.table, self.data = table, data

    def leaf(self, leaf: Leaf) -> bool | None:
        return leaf.function in ALL_NULL_TRUE if _leaf(leaf, self.table, self.data) is Gap.ABSENT else None

    def and_(self, children: Iterator[bool | None]) -> bool | None:
        values = []
        for value in children:
            if value is False:
                return False
            values.append(value)
        return True if all(values) else None

    def or_(self, children: Iterator[bool | None]) -> bool | None:
        values = []
        for value in children:
            if value is True:
                return True
            values.append(value)
        return None if None in values else False


@frozen
class FilePredicate:
    """A table predicate as a data file written under another schema can be asked it: ``predicate``, the
    usable conjuncts in the file's column names (None: none is usable, every row may match: REMAIN);
    ``matches_nothing``, a conjunct on a column the file lacks that no row can satisfy (SKIP); ``lossless``, no
    conjunct was dropped but one every row of the file satisfies (``predicate`` holds on exactly the rows the
    table's predicate holds on: an exact answer to it is exact for the table's)."""

    predicate: Predicate | None
    matches_nothing: bool = False
    lossless: bool = True
    retyped: tuple[tuple[str, DataType], ...] = ()  # (file column, the table's type of its literals): keep_retyped


def remap_predicate(predicate: Predicate, table: Schema, data: Schema, *,
                    absent_as_null: bool = False, keep_retyped: bool = False) -> FilePredicate:
    """``predicate`` (in the table's schema) for a file written under ``data`` (see the module docstring).
    ``absent_as_null``: a conjunct on a column the file lacks is answered as that column, all null, would.
    ``keep_retyped``: a leaf on a column of another type is kept, its type in ``retyped`` (statistics only)."""
    if table.id == data.id:
        return FilePredicate(predicate)
    kept = []
    lossless = True
    retyped: dict[str, DataType] | None = {} if keep_retyped else None
    remap = _Remap(table, data, retyped)
    for conjunct in conjuncts(predicate):
        remapped = visit(conjunct, remap)
        if remapped is Gap.ABSENT:
            value = visit(conjunct, _NullAnswer(table, data)) if absent_as_null else None
            if value is False:
                return FilePredicate(None, matches_nothing=True)
            lossless = lossless and value is True
        elif remapped is Gap.UNUSABLE:
            lossless = False
        else:
            kept.append(remapped)
    return FilePredicate(and_(*kept) if kept else None, lossless=lossless and not retyped,
                         retyped=tuple((retyped or {}).items()))

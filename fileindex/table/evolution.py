"""Rewriting a table-schema predicate for a data file written with an older schema (table spec §8).

Columns are matched by field id, never by name. Per top-level AND conjunct: a leaf whose field the
file lacks, or whose type changed in a way a literal cannot follow exactly, makes the conjunct
unusable. Java then drops the conjunct (REMAIN for it); ``absent_as_null`` instead answers it as the
file truly is when the column did not exist: all null (value predicates match nothing, IS NULL
matches everything), unless the field has a default value. Integer widening keeps the literal when
it fits the file's narrower type.
"""
from __future__ import annotations

from fileindex.predicate.tree import And, Leaf, Predicate, and_
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


def _leaf(leaf: Leaf, table: Schema, data: Schema) -> Leaf:
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
    if not _same_type(table_type, data_type):
        narrower = NUMERIC_BITS.get(data_type.root)
        wider = NUMERIC_BITS.get(table_type.root)
        if narrower is None or wider is None or narrower > wider:
            raise _Unusable
        low, high = -(1 << (narrower - 1)), (1 << (narrower - 1)) - 1
        if any(v is not None and not low <= v <= high for v in literals):
            raise _Unusable
    return Leaf(leaf.function, data_field.name + (key or ""), literals)


def _rewrite(predicate: Predicate, table: Schema, data: Schema) -> Predicate:
    if isinstance(predicate, Leaf):
        return _leaf(predicate, table, data)
    children = tuple(_rewrite(child, table, data) for child in predicate.children)
    return type(predicate)(children)


def _all_null_answer(predicate: Predicate, table: Schema, data: Schema) -> bool | None:
    """True/False when the conjunct's answer on an all-null column decides it, None otherwise."""
    if isinstance(predicate, Leaf):
        try:
            _leaf(predicate, table, data)
            return None
        except _AllNull:
            return predicate.function in ALL_NULL_TRUE
        except _Unusable:
            return None
    return None


def devolve(predicate: Predicate, table: Schema, data: Schema, *, absent_as_null: bool = False):
    """The predicate in the file's schema, or None when nothing usable is left (REMAIN).

    Returns ``False`` (with ``absent_as_null``) when a conjunct on an absent column can match no row.
    """
    if table.id == data.id:
        return predicate
    conjuncts = predicate.children if isinstance(predicate, And) else (predicate,)
    kept = []
    for conjunct in conjuncts:
        try:
            kept.append(_rewrite(conjunct, table, data))
        except (_Unusable, _AllNull):
            if absent_as_null and _all_null_answer(conjunct, table, data) is False:
                return False
    return and_(*kept) if kept else None



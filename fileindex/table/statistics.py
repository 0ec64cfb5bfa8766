"""Min/max/null-count statistics against a predicate, as Paimon's scan uses them (``LeafFunction.test``
with the row count and statistics): a data file's (``_VALUE_STATS``) and a manifest's partitions'
(``_PARTITION_STATS``): whether any row may match.

Only a definite "no row can match" prunes, so everything this module cannot decide keeps the file:
columns whose type it does not compare exactly here (a data file's strings, whose statistics Paimon
truncates; floating point, with NaN and -0.0; decimals and timestamps, not decoded), map-key columns,
NOT IN and NOT BETWEEN, null literals, unknown null counts, and statistics that do not decode.
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from fileindex.errors import FileIndexError
from fileindex.java.binary_row import UNKNOWN, field_at
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, visit
from fileindex.table.metadata import ManifestEntry, Schema, ValueStats
from fileindex.types import DataType

INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME")


class Statistics(PredicateVisitor[bool]):
    """Min/max/null counts of some columns, each column's decoded when a predicate first asks; as a visitor,
    whether rows satisfying a predicate may be among them.

    ``strings``: whether string minimums and maximums are exact (a manifest's partition statistics) rather
    than truncated (a data file's, in Paimon's default ``truncate(16)`` mode); ``row_count`` None: unknown.
    """

    def __init__(self, stats: ValueStats | None, names: tuple[str, ...], types: dict[str, DataType],
                 row_count: int | None, *, strings: bool = False):
        self.row_count = row_count
        self.stats = stats
        self.strings = strings
        usable = stats is not None and len(stats.null_counts) == len(names) and all(n in types for n in names) \
            and _arity(stats.min_values) == len(names) and _arity(stats.max_values) == len(names)
        self.positions = {name: (i, types[name]) for i, name in enumerate(names)} if usable else {}
        self.arity = len(names)
        self.columns: dict[str, tuple | None] = {}

    def column(self, name: str) -> tuple | None:
        """(min, max, null count) of the column, None where unknown (or None: no statistics for it)."""
        if name not in self.columns:
            self.columns[name] = self._decode(name)
        return self.columns[name]

    def _decode(self, name: str) -> tuple | None:
        if name not in self.positions or self.stats is None:
            return None
        position, data_type = self.positions[name]
        nulls = self.stats.null_counts[position]
        if data_type.root not in INTEGERS and not (self.strings and data_type.is_string):
            return None, None, nulls
        try:
            low = field_at(self.stats.min_values, position, data_type, self.arity, lenient=True)
            high = field_at(self.stats.max_values, position, data_type, self.arity, lenient=True)
        except (FileIndexError, IndexError, struct.error, ValueError):
            return None, None, nulls
        if low is UNKNOWN or high is UNKNOWN:
            return None, None, nulls
        return low, high, nulls

    def may_match(self, predicate: Predicate) -> bool:
        return visit(predicate, self)

    def and_(self, children: Iterator[bool]) -> bool:
        return all(children)

    def or_(self, children: Iterator[bool]) -> bool:
        return any(children)

    def leaf(self, leaf: Leaf) -> bool:
        found = self.column(leaf.column)
        if found is None:
            return True
        low, high, nulls = found
        function = leaf.function
        if function is Operator.IS_NULL:
            return nulls is None or nulls > 0
        if function is Operator.IS_NOT_NULL:
            return nulls is None or self.row_count is None or nulls < self.row_count
        if nulls is not None and nulls == self.row_count and function is not Operator.NOT_IN:
            return False  # every value is null: no comparison holds
        if low is None or high is None or any(type(value) is not type(low) for value in leaf.literals):
            return True
        return _range_may_match(function, leaf.literals, low, high)


def file_statistics(entry: ManifestEntry, schema: Schema) -> Statistics:
    """A data file's ``_VALUE_STATS``, over ``value_stats_cols`` (or every column of its schema)."""
    names = entry.value_stats_cols if entry.value_stats_cols is not None else tuple(f.name for f in schema.fields)
    return Statistics(entry.value_stats, names, schema.types(), entry.row_count)


def _arity(row: bytes) -> int | None:
    return struct.unpack_from(">i", row)[0] if len(row) >= 4 else None


def _range_may_match(function: Operator, literals: tuple, low: Any, high: Any) -> bool:
    if function is Operator.EQ:
        return low <= literals[0] <= high
    if function is Operator.NEQ:
        return not low == high == literals[0]
    if function is Operator.LT:
        return low < literals[0]
    if function is Operator.LTE:
        return low <= literals[0]
    if function is Operator.GT:
        return high > literals[0]
    if function is Operator.GTE:
        return high >= literals[0]
    if function is Operator.IN:
        return any(low <= value <= high for value in literals)
    if function is Operator.BETWEEN:
        return low <= literals[1] and high >= literals[0]
    return True

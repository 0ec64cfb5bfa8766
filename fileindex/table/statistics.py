"""A data file's min/max/null-count statistics (``_VALUE_STATS``) against a predicate, as Paimon's scan
uses them (``LeafFunction.test`` with the file's row count and statistics): whether any row may match.

Only a definite "no row can match" prunes, so everything this module cannot decide keeps the file:
columns whose type it does not compare exactly here (strings, whose statistics Paimon truncates;
floating point, with NaN and -0.0; decimals and timestamps, not decoded), map-key columns, NOT IN and
NOT BETWEEN, null literals, unknown null counts, and statistics that do not decode.
"""
from __future__ import annotations

import struct

from fileindex.errors import FileIndexError
from fileindex.java.binary_row import UNKNOWN, field_at
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import And, Leaf, Or, Predicate
from fileindex.table.metadata import DataFile, Schema

COMPARED = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME")


class FileStats:
    """One file's statistics, each column's (min, max, null count) decoded when a predicate first asks."""

    def __init__(self, entry: DataFile, schema: Schema):
        self.row_count = entry.row_count
        self.stats = entry.value_stats
        names = entry.value_stats_cols if entry.value_stats_cols is not None else tuple(f.name for f in schema.fields)
        by_name = schema.by_name()
        usable = self.stats is not None and len(self.stats.null_counts) == len(names) \
            and all(name in by_name for name in names) and _arity(self.stats.min_values) == len(names) \
            and _arity(self.stats.max_values) == len(names)
        self.positions = {name: (i, by_name[name].type) for i, name in enumerate(names)} if usable else {}
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
        if data_type.root not in COMPARED:
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
        if isinstance(predicate, And):
            return all(self.may_match(child) for child in predicate.children)
        if isinstance(predicate, Or):
            return any(self.may_match(child) for child in predicate.children)
        return self._leaf(predicate)

    def _leaf(self, leaf: Leaf) -> bool:
        found = self.column(leaf.column)
        if found is None:
            return True
        low, high, nulls = found
        function = leaf.function
        if function is Operator.IS_NULL:
            return nulls is None or nulls > 0
        if function is Operator.IS_NOT_NULL:
            return nulls is None or nulls < self.row_count
        if nulls is not None and nulls == self.row_count and function is not Operator.NOT_IN:
            return False  # every value is null: no comparison holds
        if low is None or high is None or any(value is None or type(value) is not int for value in leaf.literals):
            return True
        return _range_may_match(function, leaf.literals, low, high)


def _arity(row: bytes) -> int | None:
    return struct.unpack_from(">i", row)[0] if len(row) >= 4 else None


def _range_may_match(function: Operator, literals: tuple, low: int, high: int) -> bool:
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

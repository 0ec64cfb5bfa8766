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
from fileindex.java.binary_row import UNKNOWN, fields
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import And, Leaf, Or, Predicate
from fileindex.table.metadata import DataFile, Schema

COMPARED = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME")


class FileStats:
    """One file's statistics by column name: (min, max, null count), None where unknown."""

    def __init__(self, entry: DataFile, schema: Schema):
        self.row_count = entry.row_count
        self.columns: dict[str, tuple] = {}
        stats = entry.value_stats
        if stats is None:
            return
        names = entry.value_stats_cols if entry.value_stats_cols is not None else tuple(f.name for f in schema.fields)
        by_name = schema.by_name()
        if any(name not in by_name for name in names) or len(stats.null_counts) != len(names):
            return
        types = [by_name[name].type for name in names]
        try:
            lows = fields(stats.min_values, types, lenient=True)
            highs = fields(stats.max_values, types, lenient=True)
        except (FileIndexError, IndexError, struct.error, ValueError):
            return
        for name, data_type, low, high, nulls in zip(names, types, lows, highs, stats.null_counts, strict=True):
            exact = data_type.root in COMPARED and low is not UNKNOWN and high is not UNKNOWN
            self.columns[name] = (low if exact else None, high if exact else None, nulls)

    def may_match(self, predicate: Predicate) -> bool:
        if isinstance(predicate, And):
            return all(self.may_match(child) for child in predicate.children)
        if isinstance(predicate, Or):
            return any(self.may_match(child) for child in predicate.children)
        return self._leaf(predicate)

    def _leaf(self, leaf: Leaf) -> bool:
        found = self.columns.get(leaf.column)
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

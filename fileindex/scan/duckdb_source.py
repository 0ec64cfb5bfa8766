"""A table scan as a DuckDB relation that prunes with each query's WHERE and reads only the columns the query
needs, streamed (nothing held between queries, nothing collected).

DuckDB 2 reads a Python object through a source object (``duckdb._sources``): the scan offers each filter
DuckDB would apply to it (``accepts``: a tree of AND, OR, NOT, comparisons of a column with a constant of
its type, IS [NOT] NULL and IN), and opens a stream for the columns and the accepted filters
(``stream``). A filter accepted is not applied again by DuckDB, so this source accepts exactly the filters
it translates exactly (:mod:`.pushdown`: SQL's three-valued logic, DuckDB's -0.0 = 0.0 and NaN ordering)
and filters the rows read by them as ``where`` does; files and rows are pruned by them. Filters it does not
translate stay with DuckDB. A LIMIT is not pushed, but the stream is read only as far as DuckDB pulls it.
The protocol is DuckDB's own, not a public API: where the installed DuckDB has none, the relation reads the
scan as a plain Arrow stream (every column, every row the scan's own predicate keeps, per query).
"""
from __future__ import annotations

import datetime as dt
import decimal
import functools
import re
from typing import Any

import pyarrow as pa

from fileindex.scan.engine_scan import Scan, engine_batches
from fileindex.scan.pushdown import (
    UNKNOWN,
    Pushed,
    Value,
    all_of,
    compare,
    is_null,
    member,
)
from fileindex.predicate.operators import Operator

_COMPARISONS = {"=": Operator.EQ, "!=": Operator.NEQ, "<": Operator.LT, "<=": Operator.LTE, ">": Operator.GT,
                ">=": Operator.GTE}
_INTEGERS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
             "UHUGEINT"}
_NAIVE_TIMESTAMPS = {"TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP"}
_DECIMAL = re.compile(r"DECIMAL\(\d+,\d+\)")
_EPOCH = dt.datetime(1970, 1, 1)


def duckdb_relation(scan: Scan, connection, name: str | None):
    """A relation over ``scan`` in ``connection``; with ``name``, also a view of that name there."""
    source_class = _source_class()
    relation = connection.from_arrow(scan if source_class is None else source_class(scan))
    if name is not None:
        relation.create_view(name, replace=True)
    return relation


def duckdb_pushdown(node: Any, scan: Scan) -> Pushed:
    """What a filter DuckDB offers the scan lets it prune with (exactly, where ``exact``)."""
    try:
        return _translate(node, scan)
    except RecursionError:
        return UNKNOWN


def _translate(node: Any, scan: Scan) -> Pushed:
    kind, op = type(node).__name__, getattr(node, "op", None)
    if kind == "Binary" and op in ("AND", "OR"):
        left, right = _translate(node.left, scan), _translate(node.right, scan)
        return left & right if op == "AND" else left | right
    if kind == "Unary" and op == "NOT":
        return ~_translate(node.operand, scan)
    if kind == "Postfix" and op in ("IS NULL", "IS NOT NULL"):
        column = _column(node.operand, scan)
        return UNKNOWN if column is None else is_null(column) if op == "IS NULL" else ~is_null(column)
    if kind == "Binary" and op in _COMPARISONS:
        column = _column(node.left, scan)
        if column is None or type(node.right).__name__ != "Lit":
            return UNKNOWN
        try:
            return compare(column, scan.types[column], _COMPARISONS[op], _value(node.right))
        except _Untranslatable:
            return UNKNOWN
    if kind == "In":
        column = _column(node.operand, scan)
        if column is None or not node.values or any(type(v).__name__ != "Lit" for v in node.values):
            return UNKNOWN
        try:
            return member(column, scan.types[column], [_value(v) for v in node.values], "sql")
        except _Untranslatable:
            return UNKNOWN
    return UNKNOWN


class _Untranslatable(Exception):
    pass


def _column(node: Any, scan: Scan) -> str | None:
    parts = getattr(node, "parts", None) if type(node).__name__ == "Col" else None
    if not isinstance(parts, tuple) or len(parts) != 1 or parts[0] not in scan.columns:
        return None
    return parts[0] if parts[0] in scan.types else None


def _value(constant: Any) -> Value | None:
    """A DuckDB constant as an engine literal (None: NULL)."""
    value, kind = constant.value, constant.type
    if value is None:
        return None
    if kind in _INTEGERS and type(value) is int:
        return Value("int", value)
    if kind in ("FLOAT", "DOUBLE") and type(value) is float:
        return Value("float", value)
    if _DECIMAL.fullmatch(kind or "") and isinstance(value, decimal.Decimal):
        return Value("decimal", value)
    if kind == "VARCHAR" and isinstance(value, str):
        return Value("str", value)
    if kind == "BLOB" and isinstance(value, bytes):
        return Value("bytes", value)
    if kind == "BOOLEAN" and isinstance(value, bool):
        return Value("bool", value)
    if kind == "DATE" and type(value) is dt.date:
        return Value("date", value)
    if kind in _NAIVE_TIMESTAMPS and type(value) is dt.datetime and value.tzinfo is None:
        delta = value - _EPOCH
        return Value("datetime", ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds, "us", None))
    if kind == "TIMESTAMP WITH TIME ZONE" and type(value) is int:
        return Value("datetime", (value, "us", "UTC"))
    raise _Untranslatable


@functools.cache
def _source_class():
    """DuckDB's Arrow scan source class, subclassed for a table scan; None where DuckDB has no such protocol."""
    try:
        from duckdb._sources.arrow import ArrowScanSource
    except ImportError:
        return None
    if not all(callable(getattr(ArrowScanSource, method, None)) for method in ("accepts", "stream")):
        return None

    class TableScanSource(ArrowScanSource):
        """A table scan as DuckDB's Arrow scan reads it: pruned and filtered by the filters it accepts."""

        schema_is_stable = True  # a scan reads one snapshot, with one schema

        def __init__(self, scan: Scan):
            super().__init__(scan)
            self.scan = scan

        def __arrow_c_schema__(self):
            return self.scan.schema.__arrow_c_schema__()

        def __arrow_c_stream__(self, requested_schema=None):  # (DuckDB takes an object that has one)
            return self.scan.__arrow_c_stream__(requested_schema)

        def accepts(self, predicate) -> bool:
            return duckdb_pushdown(predicate, self.scan).exact

        def stream(self, columns, filters):
            pushed = all_of(duckdb_pushdown(node, self.scan) for node in filters)
            if filters and not pushed.exact:  # (only accepted filters come here: each was translated exactly)
                raise AssertionError(f"a filter this source did not accept: {[n.fragment() for n in filters]}")
            names = [self.scan.columns[i] for i in columns] if columns else list(self.scan.columns)
            schema = pa.schema([self.scan.schema.field(name) for name in names])
            batches = engine_batches(self.scan, pushed.true, names, None)
            return pa.RecordBatchReader.from_batches(schema, batches).__arrow_c_stream__(), bool(columns)

    return TableScanSource


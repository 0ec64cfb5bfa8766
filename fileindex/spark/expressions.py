"""The project's predicates as Spark SQL columns, and the one place where the two semantics differ.

Spark filters the rows exactly (``to_column``); the index only decides which rows are worth reading.
Both compare FLOAT/DOUBLE with NaN equal to itself and above everything, but Spark calls 0.0 and
-0.0 equal where Paimon's ``Double.compare`` (and so every index) tells them apart. Before an index
answers, ``widen_signed_zeros`` rewrites the comparisons whose Spark answer could include a zero
of the other sign, so that pruning never removes a row Spark's filter keeps.
"""
from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Iterator
from dataclasses import replace

from fileindex.errors import UsageError
from fileindex.scan.truth import split_column
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, LeafRewrite, Predicate, PredicateVisitor, or_, visit
from fileindex.types import DataType, column_type
from fileindex.values import Timestamp

_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1)


def as_spark_reads(predicate: Predicate, types: dict[str, DataType]) -> tuple[Predicate, dict[str, DataType]]:
    """``predicate`` and ``types`` as Spark evaluates them on the rows a source hands it: a timestamp finer
    than microseconds is cut to microseconds, the column's values (``jobs.conform``) and the literals
    (``spark_literal``) alike."""
    cut = {name: replace(t, precision=6) if t.is_nano_timestamp else t for name, t in types.items()}
    return visit(predicate, _CutLiterals(types)), cut


class _CutLiterals(LeafRewrite):
    def __init__(self, types: dict[str, DataType]):
        self.types = types

    def leaf(self, leaf: Leaf) -> Predicate:
        data_type = column_type(self.types, leaf.column)
        if data_type is None or not data_type.is_nano_timestamp:
            return leaf
        return Leaf(leaf.function, leaf.column, tuple(
            Timestamp(v.millis, v.nanos_of_milli // 1000 * 1000) if isinstance(v, Timestamp) else v
            for v in leaf.literals))


def _is_zero(value) -> bool:
    return isinstance(value, float) and value == 0.0


def _other_zero(value: float) -> float:
    return 0.0 if math.copysign(1.0, value) < 0 else -0.0


def widen_signed_zeros(predicate: Predicate, types: dict[str, DataType]) -> Predicate:
    """A predicate that keeps every row Spark's filter keeps (equal to ``predicate`` without ±0.0)."""
    return visit(predicate, _WidenSignedZeros(types))


class _WidenSignedZeros(LeafRewrite):
    def __init__(self, types: dict[str, DataType]):
        self.types = types

    def leaf(self, leaf: Leaf) -> Predicate:
        data_type = column_type(self.types, leaf.column)
        if data_type is None or data_type.root not in ("FLOAT", "DOUBLE"):
            return leaf
        return _widened(leaf)


def _widened(predicate: Leaf) -> Predicate:
    """A FLOAT or DOUBLE leaf that keeps the rows Spark keeps for it, whatever the sign of their zeros."""
    function, literals = predicate.function, predicate.literals
    if function == Operator.EQ and _is_zero(literals[0]):
        return or_(predicate, Leaf(Operator.EQ, predicate.column, (_other_zero(literals[0]),)))
    if function == Operator.IN and any(_is_zero(v) for v in literals):
        extra = tuple(_other_zero(v) for v in literals if _is_zero(v))
        return Leaf(Operator.IN, predicate.column, literals + extra)
    if function == Operator.LTE and _is_zero(literals[0]):
        return Leaf(Operator.LTE, predicate.column, (0.0,))
    if function == Operator.GTE and _is_zero(literals[0]):
        return Leaf(Operator.GTE, predicate.column, (-0.0,))
    if function == Operator.BETWEEN:
        low, high = literals
        widened = (-0.0 if _is_zero(low) else low, 0.0 if _is_zero(high) else high)
        return Leaf(Operator.BETWEEN, predicate.column, widened)
    return predicate  # strict comparisons and negations: Spark's answer is within Paimon's


def to_column(predicate: Predicate, types: dict[str, DataType]):
    """A pyspark Column that is true exactly for the rows Spark SQL's filter keeps."""
    return visit(predicate, _SparkColumn(types))


class _SparkColumn(PredicateVisitor):
    def __init__(self, types: dict[str, DataType]):
        self.types = types

    def leaf(self, leaf: Leaf):
        base, key = split_column(leaf.column)
        column = spark_column(base)
        if key is not None:
            column = column.getItem(key)
        data_type = column_type(self.types, leaf.column)
        values = [spark_literal(v, data_type, leaf.column) for v in leaf.literals]
        return _filter(column, leaf.function, values)

    def and_(self, children: Iterator):
        return functools.reduce(lambda left, right: left & right, children)

    def or_(self, children: Iterator):
        return functools.reduce(lambda left, right: left | right, children)


def spark_column(name: str):
    """The top-level column ``name`` (dots and backticks in it taken literally)."""
    from pyspark.sql import functions as F

    return F.col(f"`{name.replace('`', '``')}`")


def _filter(column, operator: Operator, values: list):
    if operator.spark_method is None:  # NOT IN, NOT BETWEEN
        return ~_filter(column, operator.negation, values)
    return getattr(column, operator.spark_method)(*operator.arguments(values))


def spark_literal(value, data_type: DataType | None, column: str):
    """A literal as a pyspark Column of the column's Spark type."""
    from pyspark.sql import functions as F

    if value is None:
        return F.lit(None)
    root = data_type.root if data_type else None
    if root == "DATE":
        return F.lit(_EPOCH_DATE + dt.timedelta(days=value))
    if root == "TIME":
        raise UsageError(f"column {column}: Spark cannot filter TIME columns; leave {column} out of the predicate")
    if isinstance(value, Timestamp):
        if root == "TIMESTAMP_LTZ":
            return F.timestamp_micros(F.lit(value.micros))
        # wall-clock text, so that the session's time zone plays no part
        wall_clock = (_EPOCH + dt.timedelta(microseconds=value.micros)).isoformat(sep=" ")
        return F.lit(wall_clock).cast("timestamp_ntz")
    if isinstance(value, (bytes, bytearray)):
        return F.lit(bytearray(value))
    return F.lit(value)

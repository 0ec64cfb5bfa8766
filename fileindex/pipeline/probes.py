"""Predicates generated from a column's own values, to test an index where it can be wrong.

Per column: values that are present (the smallest, the largest, one at random); absent values right
next to present ones; the minimum − 1 and the maximum + 1; IS NULL and IS NOT NULL; <> a present
value; comparisons at the ends and at the median; a BETWEEN around the median and its negation; an
IN list (and NOT IN) mixing present and absent values. Literals are Python values of the column
type, as :func:`fileindex.predicate.literals.convert` makes them.
"""
from __future__ import annotations

import decimal
import math
import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fileindex.errors import UsageError
from fileindex.scan.truth import UNIT_NANOS, ColumnTruth, python_values, timestamp_at
from fileindex.predicate.literals import convert
from fileindex.predicate.tree import Leaf
from fileindex.types import NUMERIC_BITS, DataType
from fileindex.values import DECIMAL_CONTEXT, Timestamp, decimal_unscaled_long

MAX_SAMPLE = 3


def neighbours(value, data_type: DataType, arrow_type: pa.DataType) -> list:
    """Values right next to ``value`` in the column's order (candidates for absent probes)."""
    root = data_type.root
    if root in NUMERIC_BITS or root in ("DATE", "TIME"):
        return [value - 1, value + 1]
    if root in ("FLOAT", "DOUBLE"):
        if math.isnan(value):
            return []
        dtype = np.float32 if root == "FLOAT" else np.float64
        with np.errstate(over="ignore"):  # past MAX is Infinity, a value too
            return [float(np.nextafter(dtype(value), dtype(-np.inf))),
                    float(np.nextafter(dtype(value), dtype(np.inf)))]
    if root == "DECIMAL":
        step = decimal.Decimal(1).scaleb(-(data_type.scale or 0))
        return [DECIMAL_CONTEXT.subtract(value, step), DECIMAL_CONTEXT.add(value, step)]
    if data_type.is_string:
        return [value + "\x00", value[:-1] if value else "\x7f"]
    if data_type.is_binary:
        return [] if pa.types.is_fixed_size_binary(arrow_type) else [value + b"\x00", value[:-1]]
    if root == "BOOLEAN":
        return [not value]
    if data_type.is_timestamp and pa.types.is_timestamp(arrow_type):
        unit = UNIT_NANOS[arrow_type.unit]
        nanos = value.millis * 1_000_000 + value.nanos_of_milli
        return [timestamp_at(nanos - unit), timestamp_at(nanos + unit)]
    return []


def probe_predicates(truth: ColumnTruth, column: str, rng: random.Random) -> list[Leaf]:
    """Single-leaf predicates on ``column`` from its values (as the index writer saw them)."""
    data_type, values = truth.type, truth.values
    leaves = [Leaf("is_null", column), Leaf("is_not_null", column)]
    present_array = pc.unique(values.drop_null())
    if len(present_array) == 0:
        return leaves + _fitting(column, data_type, [Leaf("eq", column, (_zero(data_type),))])
    ordered = present_array.take(pc.sort_indices(present_array))
    last = len(ordered) - 1
    picks = [0, last, last // 2, last // 4, (3 * last) // 4, rng.randint(0, last)]
    low, high, middle, quarter, three_quarters, chosen = python_values(ordered.take(picks), data_type)
    sample = [_unhash(v) for v in dict.fromkeys(_hashable(v) for v in (low, high, chosen))]
    absent: list[object] = []
    for value in [low, high, middle, *sample]:
        for near in neighbours(value, data_type, values.type):
            if len(absent) < 2 * MAX_SAMPLE and _hashable(near) not in map(_hashable, absent) \
                    and not _present(truth, near):
                absent.append(near)
    candidates = [Leaf("eq", column, (v,)) for v in sample + absent]
    candidates.append(Leaf("neq", column, (sample[-1],)))
    mixed = tuple(sample[:2] + absent[:2])
    candidates += [Leaf("in", column, mixed), Leaf("not_in", column, mixed)]
    if data_type.root != "BOOLEAN":
        candidates += [Leaf("lt", column, (low,)), Leaf("lte", column, (low,)), Leaf("gt", column, (high,)),
                       Leaf("gte", column, (high,)), Leaf("lt", column, (middle,)), Leaf("gte", column, (middle,)),
                       Leaf("between", column, (quarter, three_quarters)),
                       Leaf("not_between", column, (quarter, three_quarters))]
    return leaves + _fitting(column, data_type, candidates)


def _present(truth: ColumnTruth, value) -> bool:
    try:
        return bool(truth.compare("eq", value).any())
    except (pa.ArrowException, OverflowError, ValueError, TypeError):
        return False  # not even a value of the column's type


def _fitting(column: str, data_type: DataType, leaves: list[Leaf]) -> list[Leaf]:
    """The leaves whose literals are values of the type (min − 1 of a TINYINT is not), and that an
    index can compare (a DECIMAL whose unscaled value passes a long: Java's indexes throw on it)."""
    out = []
    for leaf in leaves:
        try:
            literals = tuple(convert(v, data_type, column) for v in leaf.literals)
            if data_type.root == "DECIMAL":
                for literal in literals:
                    decimal_unscaled_long(literal, data_type)
            out.append(Leaf(leaf.function, column, literals))
        except (UsageError, OverflowError, ValueError):
            continue
    return out


def _zero(data_type: DataType):
    if data_type.is_string:
        return "a"
    if data_type.is_binary:
        return b"a"
    if data_type.root == "BOOLEAN":
        return True
    if data_type.root in ("FLOAT", "DOUBLE"):
        return 0.0
    if data_type.root == "DECIMAL":
        return decimal.Decimal(0)
    if data_type.is_timestamp:
        return Timestamp(0)
    return 0


def _hashable(value):
    # -0.0 == 0.0 and NaN != NaN in Python; the index tells them apart by their bits
    if isinstance(value, float):
        return ("float", np.float64(value).view(np.int64).item() if not math.isnan(value) else "nan")
    return value


def _unhash(value):
    if isinstance(value, tuple) and value and value[0] == "float":
        return float("nan") if value[1] == "nan" else float(np.int64(value[1]).view(np.float64))
    return value

"""The JSON layout of Java-written conformance vectors (``tests/vectors/java``).

``datasets/<name>.json`` holds a column's values in row order and its Paimon type; floats are
Java ``toString`` strings (``NaN``, ``-0.0``, ``Infinity``), timestamps ``{millis, nanos_of_milli}``,
decimals ``{decimal, precision, scale}``. ``vectors.json`` records Java's answers:
``"REMAIN"``, ``"SKIP"``, or ``{cardinality, ranges}`` (or ``first32`` + ``sha256_rows_int32be``
when there are more than 256 ranges).
"""
from __future__ import annotations

import decimal
import hashlib

import numpy as np

from fileindex.indexes.result import REMAIN, FileIndexResult, Rows
from fileindex.java.text import java_float_text
from fileindex.predicate.operators import Operator
from fileindex.types import DataType
from fileindex.values import Timestamp, float32


def value_from_json(raw, data_type: DataType):
    """A dataset or literal value as the Python value of ``data_type`` (None stays None)."""
    if raw is None:
        return None
    if data_type.root in ("FLOAT", "DOUBLE"):
        number = float(raw)
        return float32(number) if data_type.root == "FLOAT" else number
    if data_type.is_timestamp:
        return Timestamp(raw["millis"], raw["nanos_of_milli"])
    if data_type.root == "DECIMAL":
        return decimal.Decimal(raw["decimal"])
    if data_type.is_binary and isinstance(raw, list):
        return bytes(raw)
    return raw


def value_to_json(value, data_type: DataType):
    """The inverse of :func:`value_from_json`: a value in the datasets' JSON spelling."""
    if value is None:
        return None
    if data_type.root in ("FLOAT", "DOUBLE"):
        return java_float_text(value, single=data_type.root == "FLOAT")
    if data_type.is_timestamp:
        return {"millis": value.millis, "nanos_of_milli": value.nanos_of_milli}
    if data_type.root == "DECIMAL":
        return {"decimal": format(value, "f"), "precision": data_type.precision, "scale": data_type.scale}
    if data_type.is_binary:
        return list(value)
    return value


def recorded_query(op: dict, data_type: DataType) -> tuple[Operator, tuple]:
    """A recorded query's operator and literals: ``{"name": "eq", "literal": 5}``, ``"literals"`` for
    IN, NOT IN and BETWEEN, neither for IS [NOT] NULL."""
    operator = Operator(op["name"])
    raw = () if operator.arity == 0 else (op["literal"],) if operator.arity == 1 else op["literals"]
    return operator, tuple(value_from_json(v, data_type) for v in raw)


def result_to_json(result: FileIndexResult) -> object:
    """A result in the recorded shape: its kind, or its rows (always with full ranges)."""
    return result.to_json() if isinstance(result, Rows) else result.kind


def result_matches(result: FileIndexResult, expected) -> bool:
    """Whether ``result`` equals a recorded Java result (SKIP and an empty row set stay distinct)."""
    if isinstance(expected, str):
        return result_to_json(result) == expected
    if not isinstance(result, Rows) or result.cardinality != expected["cardinality"]:
        return False
    if "ranges" in expected:
        return [list(r) for r in result.ranges()] == expected["ranges"]
    rows = np.asarray(result.bitmap.to_array(), dtype=">i4")
    return (
        rows[:32].tolist() == expected["first32"]
        and hashlib.sha256(rows.tobytes()).hexdigest() == expected["sha256_rows_int32be"]
    )


def current_java_answer(index_type: str, data_type: DataType, op: dict, recorded):
    """The answer current Java gives where recorded vectors predate a fix.

    Value predicates on TIMESTAMP(p > 6) bitmap and bsi indexes answer REMAIN since
    apache/paimon #9654 and #9866; vectors recorded before that show row sets.
    """
    from fileindex.indexes.registry import INDEX_TYPES

    index = INDEX_TYPES.get(index_type)
    if data_type.is_nano_timestamp and index is not None and index.nano_timestamps_remain \
            and Operator(op["name"]).arity != 0:
        return REMAIN.kind
    return recorded


def to_arrow(values: list, data_type: DataType):
    """A dataset column (values as :func:`value_from_json` gives them) as the Arrow array a
    Parquet file of that Paimon type reads back as."""
    import pyarrow as pa

    from fileindex.arrow.types import arrow_type

    target = arrow_type(data_type)
    if data_type.is_timestamp:
        per_milli = {"s": None, "ms": 1, "us": 1_000, "ns": 1_000_000}[target.unit]
        ticks = [None if v is None else v.millis * per_milli + v.nanos_of_milli * per_milli // 1_000_000
                 for v in values]
        return pa.array(ticks, pa.int64()).cast(target)
    if data_type.root == "DATE":
        return pa.array(values, pa.int32()).cast(target)
    if data_type.root == "MAP":
        return pa.array([None if v is None else list(v.items()) for v in values], target)
    return pa.array(values, target)

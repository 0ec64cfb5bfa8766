"""The part of a Polars filter a table scan can prune with: its conjuncts that compare an integer, string,
boolean or date column with a literal, or test it for null, as this project's predicate text.

Polars hands an IO plugin its filter as an expression; its JSON form (``Expr.meta.serialize``) is read
here. What is not understood (another shape, a floating-point column, whose -0.0 and NaN Polars compares
otherwise than Paimon, a Polars version that serializes differently) is left out: the conjuncts kept
are implied by the filter, so pruning with them never drops a row the filter keeps, and Polars still
applies its whole filter to the rows read.
"""
from __future__ import annotations

import datetime as dt
import json

from fileindex.types import DataType

_COMPARISONS = {"Eq": "=", "NotEq": "<>", "Lt": "<", "LtEq": "<=", "Gt": ">", "GtEq": ">="}
_MIRRORED = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PRUNABLE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "STRING", "VARCHAR", "CHAR", "BOOLEAN", "DATE")
_EPOCH = dt.date(1970, 1, 1)


def pushed_conjuncts(expression, types: dict[str, DataType]) -> list[str]:
    """The conjuncts of a Polars expression this project's predicates say exactly (None: no filter)."""
    if expression is None:
        return []
    try:
        tree = json.loads(expression.meta.serialize(format="json"))
    except Exception:  # any Polars that cannot serialize its expression: nothing is pushed
        return []
    return [text for node in _conjuncts(tree) if (text := _leaf(node, types)) is not None]


def _conjuncts(node) -> list:
    binary = node.get("BinaryExpr") if isinstance(node, dict) else None
    if binary is not None and binary.get("op") in ("And", "LogicalAnd"):
        return _conjuncts(binary.get("left")) + _conjuncts(binary.get("right"))
    return [node]


def _leaf(node, types: dict[str, DataType]) -> str | None:
    if not isinstance(node, dict):
        return None
    if "Function" in node:
        function, inputs = node["Function"].get("function"), node["Function"].get("input") or []
        name = function.get("Boolean") if isinstance(function, dict) else None
        test = {"IsNull": "IS NULL", "IsNotNull": "IS NOT NULL"}.get(name) if isinstance(name, str) else None
        column = _column(inputs[0], types) if len(inputs) == 1 else None
        return f"{_quoted(column)} {test}" if test and column else None
    binary = node.get("BinaryExpr")
    if not isinstance(binary, dict) or binary.get("op") not in _COMPARISONS:
        return None
    operator = _COMPARISONS[binary["op"]]
    column, literal = _column(binary.get("left"), types), binary.get("right")
    if column is None:
        column, literal, operator = _column(binary.get("right"), types), binary.get("left"), _MIRRORED[operator]
    text = _literal(literal, types[column]) if column is not None else None
    return f"{_quoted(column)} {operator} {text}" if text is not None else None


def _column(node, types: dict[str, DataType]) -> str | None:
    name = node.get("Column") if isinstance(node, dict) else None
    return name if isinstance(name, str) and name in types and types[name].root in _PRUNABLE else None


def _literal(node, data_type: DataType) -> str | None:
    literal = node.get("Literal") if isinstance(node, dict) else None
    value = literal.get("Dyn") or literal.get("Scalar") if isinstance(literal, dict) else None
    if not isinstance(value, dict) or len(value) != 1:
        return None
    (kind, item), = value.items()
    root = data_type.root
    if kind in ("Int", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32") and type(item) is int \
            and root in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return str(item)
    if kind == "String" and isinstance(item, str) and data_type.is_string:
        return "'" + item.replace("\\", "\\\\").replace("'", "''") + "'"
    if kind == "Boolean" and isinstance(item, bool) and root == "BOOLEAN":
        return "TRUE" if item else "FALSE"
    if kind == "Date" and type(item) is int and root == "DATE":
        return f"DATE '{(_EPOCH + dt.timedelta(days=item)).isoformat()}'"
    return None


def _quoted(column: str | None) -> str:
    return f"`{column}`"

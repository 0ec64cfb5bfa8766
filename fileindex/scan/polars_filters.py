"""A Polars filter as what a table scan can prune with (:mod:`fileindex.scan.pushdown`), built as this
project's predicate tree from the expression's JSON form (``Expr.meta.serialize``), never as predicate text.

Understood: comparisons of a column with a literal (either side), ``is_null`` / ``is_not_null``, ``is_nan``,
``is_in`` (a list, a Series, and DuckDB's ``when(k.is_null()).then(None).otherwise(k.is_in(...))``),
``is_between`` (every ``closed``), a BOOLEAN column, boolean literals, ``&``, ``|``, ``~``,
``all_horizontal`` / ``any_horizontal``, ``when/then/otherwise`` and aliases. Anything else (another shape,
a float literal Polars serializes without its value, such as NaN, a Polars version that serializes
otherwise) is unknown: it prunes nothing, and Polars still applies its whole filter to the rows read.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

import pyarrow as pa

from fileindex.scan.pushdown import (
    NULL,
    UNKNOWN,
    Pushed,
    Value,
    all_of,
    any_of,
    between,
    boolean_column,
    compare,
    constant,
    date_value,
    is_nan,
    is_null,
    member,
    when,
)
from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import MAX_NESTING
from fileindex.types import DataType

_COMPARISONS = {"Eq": Operator.EQ, "NotEq": Operator.NEQ, "Lt": Operator.LT, "LtEq": Operator.LTE,
                "Gt": Operator.GT, "GtEq": Operator.GTE}
_MIRRORED = {Operator.EQ: Operator.EQ, Operator.NEQ: Operator.NEQ, Operator.LT: Operator.GT,
             Operator.LTE: Operator.GTE, Operator.GT: Operator.LT, Operator.GTE: Operator.LTE}
_INTEGERS = ("Int8", "Int16", "Int32", "Int64", "Int128", "UInt8", "UInt16", "UInt32", "UInt64", "UInt128")
_UNITS = {"Nanoseconds": "ns", "Microseconds": "us", "Milliseconds": "ms"}


def polars_pushdown(expression, types: dict[str, DataType]) -> Pushed:
    """What a Polars filter (None: no filter) lets a scan of columns ``types`` prune with."""
    if expression is None:
        return constant(True)
    try:
        tree = json.loads(expression.meta.serialize(format="json"))
        return _Translation(types).boolean(tree)
    except Exception:  # a Polars that cannot serialize, an unforeseen form, or JSON nested past Python's recursion
        return UNKNOWN  # limit (json.loads raises RecursionError): nothing pushed


class _NotLiteral(Exception):
    pass


class _Translation:
    def __init__(self, types: dict[str, DataType]):
        self.types = types
        self.depth = 0  # the boolean expressions open around the current one

    def boolean(self, node: Any) -> Pushed:
        """What ``node`` lets a scan prune with; nothing below MAX_NESTING levels (as where's parser refuses them):
        a deep branch (a reduce of thousands of ORs) costs no time here and prunes nothing, the rest still prunes."""
        if self.depth >= MAX_NESTING:
            return UNKNOWN
        self.depth += 1
        try:
            return self._boolean(node)
        finally:
            self.depth -= 1

    def _boolean(self, node: Any) -> Pushed:
        if not isinstance(node, dict) or len(node) != 1:
            return UNKNOWN
        (kind, body), = node.items()
        if kind == "Alias" and isinstance(body, list) and body:
            return self.boolean(body[0])
        if kind == "Column":
            return boolean_column(body, self.types[body]) if body in self.types else UNKNOWN
        if kind == "Literal":
            try:
                value = _literal(body)
            except _NotLiteral:
                return UNKNOWN
            return NULL if value is None else constant(value.value) if value.kind == "bool" else UNKNOWN
        if kind == "BinaryExpr" and isinstance(body, dict):
            return self.binary(body.get("left"), body.get("op"), body.get("right"))
        if kind == "Function" and isinstance(body, dict):
            return self.function(body.get("function"), body.get("input") or [])
        if kind == "Ternary" and isinstance(body, dict):
            return when(self.boolean(body.get("predicate")), self.boolean(body.get("truthy")),
                        self.boolean(body.get("falsy")))
        return UNKNOWN

    def binary(self, left: Any, op: Any, right: Any) -> Pushed:
        if op in ("And", "LogicalAnd"):
            return self.boolean(left) & self.boolean(right)
        if op in ("Or", "LogicalOr"):
            return self.boolean(left) | self.boolean(right)
        if op not in _COMPARISONS:
            return UNKNOWN
        operator = _COMPARISONS[op]
        column, other = self.column(left), right
        if column is None:
            column, other, operator = self.column(right), left, _MIRRORED[operator]
        if column is None:
            return UNKNOWN
        try:
            value = _literal_of(other)
        except _NotLiteral:
            return UNKNOWN
        return compare(column, self.types[column], operator, value)

    def function(self, function: Any, inputs: list) -> Pushed:
        name = function.get("Boolean") if isinstance(function, dict) else None
        if name in ("AllHorizontal", "AnyHorizontal"):
            parts = [self.boolean(node) for node in inputs]
            return all_of(parts) if name == "AllHorizontal" else any_of(parts)
        if name == "Not" and len(inputs) == 1:
            return ~self.boolean(inputs[0])
        column = self.column(inputs[0]) if inputs else None
        if column is None:
            return UNKNOWN
        data_type = self.types[column]
        if name in ("IsNull", "IsNotNull") and len(inputs) == 1:
            return is_null(column) if name == "IsNull" else ~is_null(column)
        if name in ("IsNan", "IsNotNan") and len(inputs) == 1:
            return is_nan(column, data_type) if name == "IsNan" else ~is_nan(column, data_type)
        try:
            if isinstance(name, dict) and "IsIn" in name and len(inputs) == 2:
                nulls = "equal" if (name["IsIn"] or {}).get("nulls_equal") else "ignored"
                return member(column, data_type, _listed(inputs[1]), nulls)
            if isinstance(name, dict) and "IsBetween" in name and len(inputs) == 3:
                closed = str((name["IsBetween"] or {}).get("closed", "")).lower()
                return between(column, data_type, _literal_of(inputs[1]), _literal_of(inputs[2]), closed)
        except _NotLiteral:
            return UNKNOWN
        return UNKNOWN

    def column(self, node: Any) -> str | None:
        name = node.get("Column") if isinstance(node, dict) else None
        return name if isinstance(name, str) and name in self.types else None


def _literal_of(node: Any) -> Value | None:
    if not isinstance(node, dict) or "Literal" not in node:
        raise _NotLiteral
    return _literal(node["Literal"])


def _literal(body: Any) -> Value | None:
    """A Polars literal's value (None: NULL); _NotLiteral for another form or a value JSON drops (NaN, inf)."""
    if not isinstance(body, dict) or len(body) != 1:
        raise _NotLiteral
    (form, value), = body.items()
    if form not in ("Dyn", "Scalar") or not isinstance(value, dict) or len(value) != 1:
        raise _NotLiteral
    (kind, item), = value.items()
    if kind == "Null":
        return None
    if (kind == "Int" or kind in _INTEGERS) and type(item) is int:
        return Value("int", item)
    if kind in ("Float", "Float32", "Float64") and type(item) in (int, float):
        return Value("float", float(item))
    if kind in ("String", "Str") and isinstance(item, str):
        return Value("str", item)
    if kind == "Boolean" and isinstance(item, bool):
        return Value("bool", item)
    if kind == "Binary" and isinstance(item, list) and all(type(b) is int and 0 <= b < 256 for b in item):
        return Value("bytes", bytes(item))
    if kind == "Date" and type(item) is int:
        try:
            return date_value(item)
        except OverflowError:
            raise _NotLiteral from None
    if kind == "Datetime" and isinstance(item, list) and len(item) == 3 and type(item[0]) is int \
            and item[1] in _UNITS:
        zone = item[2]["inner"] if isinstance(item[2], dict) and isinstance(item[2].get("inner"), str) else item[2]
        if zone is None or isinstance(zone, str):
            return Value("datetime", (item[0], _UNITS[item[1]], zone))
    if kind == "Decimal" and isinstance(item, list) and len(item) == 3 and all(type(i) is int for i in item):
        return Value("decimal", decimal.Decimal(item[0]).scaleb(-item[2]))
    raise _NotLiteral


def _listed(node: Any) -> list[Value | None]:
    """The values of ``is_in``'s list: a List scalar, or a Series (DuckDB's: one row of a list)."""
    body = node.get("Literal") if isinstance(node, dict) else None
    if not isinstance(body, dict) or len(body) != 1:
        raise _NotLiteral
    (form, value), = body.items()
    payload = value.get("List") if form == "Scalar" and isinstance(value, dict) else value if form == "Series" \
        else None
    if not isinstance(payload, list):
        raise _NotLiteral
    try:
        table = pa.ipc.open_stream(bytes(payload)).read_all()
    except (pa.ArrowException, ValueError, TypeError):
        raise _NotLiteral from None
    if table.num_columns != 1:
        raise _NotLiteral
    values = table.column(0).combine_chunks()
    if pa.types.is_list(values.type) or pa.types.is_large_list(values.type):
        if len(values) != 1 or not values.is_valid()[0].as_py():
            raise _NotLiteral
        values = values.values
    return arrow_values(values)


def arrow_values(values: pa.Array) -> list[Value | None]:
    """An Arrow array's values as engine literals (None for nulls); _NotLiteral for a type not compared here."""
    kind = values.type
    if pa.types.is_integer(kind):
        return [None if v is None else Value("int", v) for v in values.to_pylist()]
    if pa.types.is_floating(kind):
        return [None if v is None else Value("float", float(v)) for v in values.to_pylist()]
    if pa.types.is_decimal(kind):
        return [None if v is None else Value("decimal", v) for v in values.to_pylist()]
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return [None if v is None else Value("str", v) for v in values.cast(pa.string()).to_pylist()]
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_binary_view(kind):
        return [None if v is None else Value("bytes", v) for v in values.cast(pa.binary()).to_pylist()]
    if pa.types.is_boolean(kind):
        return [None if v is None else Value("bool", v) for v in values.to_pylist()]
    if pa.types.is_date32(kind):
        return [None if v is None else Value("date", dt.date(1970, 1, 1) + dt.timedelta(days=v))
                for v in values.cast(pa.int32()).to_pylist()]
    if pa.types.is_timestamp(kind):
        return [None if v is None else Value("datetime", (v, kind.unit, kind.tz))
                for v in values.cast(pa.int64()).to_pylist()]
    if pa.types.is_null(kind):
        return [None] * len(values)
    raise _NotLiteral

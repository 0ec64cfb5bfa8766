"""What an engine's filter lets a table scan prune with, as this project's predicate tree (never as text).

An engine (Polars, DuckDB) filters with three-valued logic: a row is kept where the filter is TRUE, and
dropped where it is FALSE or NULL. A :class:`Pushed` holds, for one boolean expression, a predicate that holds
on every row where the expression is TRUE and one that holds on every row where it is FALSE: with both, NOT
swaps them, AND and OR combine them by Kleene's rules (TRUE AND x is TRUE where x is; FALSE OR x is FALSE
where x is), and an expression not understood holds anywhere (:data:`UNKNOWN`), so a conjunct not understood
still lets the others prune, and pruning by the TRUE side never drops a row the engine keeps. ``exact`` says
the predicates are exactly those rows (DuckDB trusts an exact translation to filter for it).

The leaves follow the semantics Polars and DuckDB share, where they differ from Paimon's: floating point
NaN equals NaN and sorts above every number in all three, but the engines call -0.0 equal to 0.0, which
Paimon orders below it, so a comparison with zero names both zeros (``x = 0`` is ``x IN (0.0, -0.0)``, ``x <
0`` is ``x < -0.0``); a literal is compared with a column only where the engine compares them by value as
Paimon does (an integer with an integer column, a date with a DATE column, a timestamp with the column's
time zone and on its unit's grid, as Polars casts a literal to the column's unit); anything else is unknown.
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fileindex.arrow.types import arrow_type
from fileindex.errors import UsageError
from fileindex.predicate.literals import convert
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, and_, in_, not_in, or_
from fileindex.scan.truth import UNIT_NANOS
from fileindex.types import NUMERIC_BITS, DataType
from fileindex.values import Timestamp, float32


class Bound:
    """Every row or no row: the ends of a row set no predicate tree writes."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


ALL_ROWS = Bound("ALL_ROWS")
NO_ROWS = Bound("NO_ROWS")
Selection = Predicate | Bound  # the rows a predicate holds on, or all of them, or none


def _and(a: Selection, b: Selection) -> Selection:
    return _joined(and_, a, b, absorbing=NO_ROWS, neutral=ALL_ROWS)


def _or(a: Selection, b: Selection) -> Selection:
    return _joined(or_, a, b, absorbing=ALL_ROWS, neutral=NO_ROWS)


def _joined(join, a: Selection, b: Selection, *, absorbing: Bound, neutral: Bound) -> Selection:
    if a is absorbing or b is absorbing:
        return absorbing
    if a is neutral:
        return b
    if b is neutral:
        return a
    return join(a, b)


@dataclass(frozen=True)
class Pushed:
    """Where a boolean expression may be TRUE (``true``) and where it may be FALSE (``false``)."""

    true: Selection
    false: Selection
    exact: bool = False  # each is exactly those rows
    total: bool = False  # never NULL

    def __and__(self, other: Pushed) -> Pushed:
        return Pushed(_and(self.true, other.true), _or(self.false, other.false), self.exact and other.exact,
                      self.total and other.total)

    def __or__(self, other: Pushed) -> Pushed:
        return Pushed(_or(self.true, other.true), _and(self.false, other.false), self.exact and other.exact,
                      self.total and other.total)

    def __invert__(self) -> Pushed:
        return Pushed(self.false, self.true, self.exact, self.total)


UNKNOWN = Pushed(ALL_ROWS, ALL_ROWS)
NULL = Pushed(NO_ROWS, NO_ROWS, exact=True)  # a NULL literal: neither TRUE nor FALSE anywhere


def constant(value: bool | None) -> Pushed:
    """A boolean literal."""
    if value is None:
        return NULL
    return Pushed(ALL_ROWS if value else NO_ROWS, NO_ROWS if value else ALL_ROWS, exact=True, total=True)


def all_of(parts: Iterable[Pushed]) -> Pushed:
    result = constant(True)
    for part in parts:
        result = result & part
    return result


def any_of(parts: Iterable[Pushed]) -> Pushed:
    result = constant(False)
    for part in parts:
        result = result | part
    return result


def when(condition: Pushed, then: Pushed, otherwise: Pushed) -> Pushed:
    """``when(condition).then(then).otherwise(otherwise)``: a NULL condition takes ``otherwise``."""
    # where the condition is not TRUE: where it is FALSE if it is never NULL, else anywhere
    not_true = condition.false if condition.total else ALL_ROWS
    return Pushed(_or(_and(condition.true, then.true), _and(not_true, otherwise.true)),
                  _or(_and(condition.true, then.false), _and(not_true, otherwise.false)),
                  condition.exact and condition.total and then.exact and otherwise.exact,
                  then.total and otherwise.total)


@dataclass(frozen=True)
class Value:
    """An engine's literal: its kind (int, float, decimal, str, bytes, bool, date, datetime) and Python value; a
    datetime is (count, unit: s/ms/us/ns, time zone or None)."""

    kind: str
    value: Any


class _Unknown(Exception):
    """A literal the engine would not compare with the column as Paimon does."""


# -- leaves ---------------------------------------------------------------------------------------

def is_null(column: str) -> Pushed:
    return Pushed(Leaf(Operator.IS_NULL, column), Leaf(Operator.IS_NOT_NULL, column), exact=True, total=True)


def boolean_column(column: str, data_type: DataType) -> Pushed:
    """A BOOLEAN column used as the filter itself."""
    if data_type.root != "BOOLEAN":
        return UNKNOWN
    return Pushed(Leaf(Operator.EQ, column, (True,)), Leaf(Operator.EQ, column, (False,)), exact=True)


def is_nan(column: str, data_type: DataType) -> Pushed:
    if data_type.root not in ("FLOAT", "DOUBLE"):
        return UNKNOWN
    nan = float("nan")
    return Pushed(Leaf(Operator.EQ, column, (nan,)), Leaf(Operator.NEQ, column, (nan,)), exact=True)


def compare(column: str, data_type: DataType, operator: Operator, value: Value | None) -> Pushed:
    """``column <operator> value`` (a comparison; a NULL literal makes it NULL everywhere)."""
    if value is None:
        return NULL
    try:
        literal = paimon_literal(value, data_type, column)
    except _Unknown:
        return UNKNOWN
    if isinstance(literal, float) and literal == 0:  # the engines' -0.0 = 0.0, either side of Paimon's order
        if operator in (Operator.EQ, Operator.NEQ):
            zeros = in_(column, (0.0, -0.0))
            equal = Pushed(zeros, not_in(column, (0.0, -0.0)), exact=True)
            return equal if operator is Operator.EQ else ~equal
        literal = -0.0 if operator in (Operator.LT, Operator.GTE) else 0.0
    return Pushed(Leaf(operator, column, (literal,)), Leaf(operator.negation, column, (literal,)), exact=True)


def between(column: str, data_type: DataType, low: Value | None, high: Value | None, closed: str) -> Pushed:
    """Polars' ``is_between``; ``closed`` is both, left, right or none."""
    lower = Operator.GTE if closed in ("both", "left") else Operator.GT
    upper = Operator.LTE if closed in ("both", "right") else Operator.LT
    return compare(column, data_type, lower, low) & compare(column, data_type, upper, high)


def member(column: str, data_type: DataType, values: Sequence[Value | None], nulls: str) -> Pushed:
    """``column IN values``. ``nulls`` says what a NULL among the values means: ``ignored`` (Polars: it matches
    nothing, and a value not in the list is FALSE), ``equal`` (Polars' ``nulls_equal``: it matches a NULL
    row), ``sql`` (a value not in the list is NULL, not FALSE)."""
    try:
        present = [paimon_literal(v, data_type, column) for v in values if v is not None]
    except _Unknown:
        return UNKNOWN
    if any(isinstance(v, float) and v == 0 for v in present):
        present = [v for v in present if not (isinstance(v, float) and v == 0)] + [0.0, -0.0]
    listed_null = any(v is None for v in values)
    inside = in_(column, present) if present else NO_ROWS
    outside = not_in(column, present) if present else Leaf(Operator.IS_NOT_NULL, column)
    if nulls == "equal":
        null_rows = Leaf(Operator.IS_NULL, column)
        return Pushed(_or(inside, null_rows) if listed_null else inside,
                      outside if listed_null else _or(outside, null_rows), exact=True, total=True)
    if nulls == "sql" and listed_null:
        return Pushed(inside, NO_ROWS, exact=True)
    return Pushed(inside, outside, exact=True)


# -- literals ---------------------------------------------------------------------------------------

_KINDS = {"int": ("int",), "float": ("int", "float"), "decimal": ("int", "decimal")}


def paimon_literal(value: Value, data_type: DataType, column: str) -> Any:
    """The engine's literal as the Paimon value it equals in the column's type, where the engine compares the
    two by value as Paimon does; else _Unknown."""
    root, kind, item = data_type.root, value.kind, value.value
    if root in NUMERIC_BITS:
        family = "int"
    elif root in ("FLOAT", "DOUBLE"):
        family = "float"
    elif root == "DECIMAL":
        family = "decimal"
    else:
        family = ""
    if family:
        if kind not in _KINDS[family]:
            raise _Unknown
        if family == "float":
            real = float(item)
            exact = math.isnan(real) or (real == item and (root == "DOUBLE" or _fits_float32(real)))
            if not exact:  # an engine compares a rounded literal otherwise than Paimon's cast would round it
                raise _Unknown
            item = real
        elif family == "decimal":
            item = decimal.Decimal(item)
    elif data_type.is_string:
        _expect(kind, "str")
    elif data_type.is_binary:
        _expect(kind, "bytes")
    elif root == "BOOLEAN":
        _expect(kind, "bool")
    elif root == "DATE":
        _expect(kind, "date")
    elif data_type.is_timestamp:
        _expect(kind, "datetime")
        item = _timestamp(item, data_type)
    else:
        raise _Unknown
    try:
        return convert(item, data_type, column)
    except UsageError:
        raise _Unknown from None


def _expect(kind: str, wanted: str) -> None:
    if kind != wanted:
        raise _Unknown


def _fits_float32(real: float) -> bool:
    try:
        return math.isinf(real) or float32(real) == real
    except OverflowError:
        return False


def _timestamp(item: tuple, data_type: DataType) -> Timestamp:
    """(count, unit, zone) as a Timestamp, if the zone is the column's (none, or UTC for LOCAL TIME ZONE) and
    the instant lies on the grid of the unit the column's values have (an engine casts a finer literal to the
    column's unit)."""
    count, unit, zone = item
    wanted_zone = "UTC" if data_type.root == "TIMESTAMP_LTZ" else None
    if zone != wanted_zone or unit not in UNIT_NANOS or type(count) is not int:
        raise _Unknown
    nanos = count * UNIT_NANOS[unit]
    if nanos % UNIT_NANOS[arrow_type(data_type).unit]:
        raise _Unknown
    millis, rest = divmod(nanos, 1_000_000)
    return Timestamp(millis, rest)


def date_value(days: int) -> Value:
    return Value("date", dt.date(1970, 1, 1) + dt.timedelta(days=days))

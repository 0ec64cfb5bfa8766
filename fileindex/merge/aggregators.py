"""Paimon 0.9.0's field aggregators (``FieldAggregator`` and its subclasses), over one field's values as Python
objects: integers wrap at their type's width as Java's arithmetic does, FLOAT is computed in binary32, min and
max compare as ``InternalRowUtils.compare`` (``Float.compare``, unsigned bytes, UTF-8 bytes); a retraction an
aggregate has no inverse for raises :class:`MergeError` with Java's message, unless the field ignores
retractions. Timestamps, dates and times arrive as the integers of their Arrow storage.

``agg(accumulator, value)``, ``agg_reversed`` (``agg(value, accumulator)``), ``retract`` and ``reset`` (between
keys; first_value and first_non_null_value remember whether they have seen a value).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fileindex.errors import UsageError
from fileindex.java_numbers import DOUBLE, FLOAT
from fileindex.merge.errors import MergeError
from fileindex.types import DataType
from fileindex.lazy import numpy as np


NUMERIC = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE")
COMPARABLE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "TIME", "DECIMAL", "TIMESTAMP",
              "TIMESTAMP_LTZ", "CHAR", "VARCHAR", "BINARY", "VARBINARY")
WIDTHS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}

# function -> the type roots it takes (None: any)
FUNCTIONS: dict[str, tuple[str, ...] | None] = {
    "sum": NUMERIC, "product": NUMERIC, "min": COMPARABLE, "max": COMPARABLE, "last_value": None,
    "last_non_null_value": None, "first_value": None, "first_non_null_value": None, "first_not_null_value": None,
    "bool_and": ("BOOLEAN",), "bool_or": ("BOOLEAN",), "listagg": ("VARCHAR",), "primary-key": None,
}


def check_function(function: str, data_type: DataType, field: str) -> None:
    """A UsageError when ``function`` is not an aggregate this reader implements for ``data_type``."""
    if function not in FUNCTIONS:
        known = ", ".join(sorted(f for f in FUNCTIONS if f not in ("primary-key", "first_not_null_value")))
        raise UsageError(f"fields.{field}.aggregate-function={function}: not an aggregate function this reader "
                         f"implements ({known})")
    roots = FUNCTIONS[function]
    if roots is not None and data_type.root not in roots:
        raise UsageError(f"fields.{field}.aggregate-function={function} over {data_type}: not implemented here "
                         f"(it takes {', '.join(roots)})")


def may_refuse_retraction(aggregate_function: str, data_type: DataType) -> bool:
    """Whether a retraction can make ``aggregate_function`` over ``data_type`` fail (Java's merge fails there too):
    a function without ``retract``, or an integer product's (a division by zero)."""
    if aggregate_function in ("primary-key", "last_value", "last_non_null_value", "sum"):
        return False
    return aggregate_function != "product" or data_type.root in WIDTHS


def wrap(value: int, root: str) -> int:
    """Java's two's-complement overflow of an integer of type ``root``."""
    bits = WIDTHS[root]
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def arithmetic(data_type: DataType, operation: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``operation`` as Java computes it in the field's type."""
    root = data_type.root
    if root in WIDTHS:
        return lambda a, b: wrap(operation(a, b), root)
    if root in ("FLOAT", "DOUBLE"):
        width = np.float32 if root == "FLOAT" else np.float64

        def floating(a: Any, b: Any) -> float:
            with np.errstate(all="ignore"):  # overflow, 0/0: IEEE 754's infinities and NaN, as in Java
                return float(operation(width(a), width(b)))
        return floating
    return operation


def java_divide(root: str) -> Callable[[Any, Any], Any]:
    """Java's ``/``: integers truncate toward zero and a zero divisor throws; floating point follows IEEE 754."""
    if root in WIDTHS:
        def divide(a: int, b: int) -> int:
            if b == 0:
                raise MergeError("product retraction divides by zero (Java: ArithmeticException: / by zero)")
            quotient = abs(a) // abs(b)
            return quotient if (a < 0) == (b < 0) else -quotient
        return divide

    return np.divide


def order_key(data_type: DataType) -> Callable[[Any], Any]:
    """What ``InternalRowUtils.compare`` compares, as a Python sort key."""
    if data_type.root == "FLOAT":
        return lambda v: FLOAT.compare_order(FLOAT.to_bits(v))
    if data_type.root == "DOUBLE":
        return lambda v: DOUBLE.compare_order(DOUBLE.to_bits(v))
    if data_type.is_string:
        return lambda v: v.encode("utf-8")
    return lambda v: v


class FieldAggregator:
    """``FieldAggregator``: by default a retraction is refused, as Java refuses it."""

    def __init__(self, name: str, data_type: DataType):
        self.name = name
        self.data_type = data_type

    def agg(self, accumulator: Any, value: Any) -> Any:
        raise NotImplementedError

    def agg_reversed(self, accumulator: Any, value: Any) -> Any:
        return self.agg(value, accumulator)

    def retract(self, accumulator: Any, value: Any) -> Any:
        raise MergeError(f"Aggregate function '{self.name}' does not support retraction (Java refuses it too; "
                         "'fields.<field>.ignore-retract'='true' ignores retractions)")

    def reset(self) -> None:
        pass


class Sum(FieldAggregator):
    def __init__(self, name: str, data_type: DataType):
        super().__init__(name, data_type)
        self.add = arithmetic(data_type, lambda a, b: a + b)
        self.subtract = arithmetic(data_type, lambda a, b: a - b)
        self.negate = arithmetic(data_type, lambda a, b: -a)

    def agg(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return value if accumulator is None else accumulator
        return self.add(accumulator, value)

    def retract(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return (None if value is None else self.negate(value, None)) if accumulator is None else accumulator
        return self.subtract(accumulator, value)


class Product(FieldAggregator):
    def __init__(self, name: str, data_type: DataType):
        super().__init__(name, data_type)
        self.multiply = arithmetic(data_type, lambda a, b: a * b)
        self.divide = arithmetic(data_type, java_divide(data_type.root))

    def agg(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return value if accumulator is None else accumulator
        return self.multiply(accumulator, value)

    def retract(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return value if accumulator is None else accumulator
        return self.divide(accumulator, value)


class Extreme(FieldAggregator):
    """min (``keep_smaller``) or max: the accumulator stays on a tie."""

    def __init__(self, name: str, data_type: DataType, keep_smaller: bool):
        super().__init__(name, data_type)
        self.key = order_key(data_type)
        self.keep_smaller = keep_smaller

    def agg(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return value if accumulator is None else accumulator
        smaller = self.key(accumulator) < self.key(value)
        if self.keep_smaller:
            return accumulator if smaller else value
        return value if smaller else accumulator


class LastValue(FieldAggregator):
    def agg(self, accumulator: Any, value: Any) -> Any:
        return value

    def retract(self, accumulator: Any, value: Any) -> Any:
        return None


class LastNonNullValue(FieldAggregator):
    def agg(self, accumulator: Any, value: Any) -> Any:
        return accumulator if value is None else value

    def retract(self, accumulator: Any, value: Any) -> Any:
        return None if value is not None else accumulator


class FirstValue(FieldAggregator):
    """first_value, or first_non_null_value (``skip_nulls``): the first value the key's merge gave it."""

    def __init__(self, name: str, data_type: DataType, skip_nulls: bool):
        super().__init__(name, data_type)
        self.skip_nulls = skip_nulls
        self.initialized = False

    def agg(self, accumulator: Any, value: Any) -> Any:
        if not self.initialized and (value is not None or not self.skip_nulls):
            self.initialized = True
            return value
        return accumulator

    def reset(self) -> None:
        self.initialized = False


class BoolAggregate(FieldAggregator):
    def __init__(self, name: str, data_type: DataType, conjunction: bool):
        super().__init__(name, data_type)
        self.conjunction = conjunction

    def agg(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return accumulator if value is None else value
        return (accumulator and value) if self.conjunction else (accumulator or value)


class ListAgg(FieldAggregator):
    def __init__(self, name: str, data_type: DataType, delimiter: str):
        super().__init__(name, data_type)
        self.delimiter = delimiter

    def agg(self, accumulator: Any, value: Any) -> Any:
        if accumulator is None or value is None:
            return accumulator if value is None else value
        return f"{accumulator}{self.delimiter}{value}"


class PrimaryKey(FieldAggregator):
    def agg(self, accumulator: Any, value: Any) -> Any:
        return value

    def retract(self, accumulator: Any, value: Any) -> Any:
        return value


class IgnoreRetract(FieldAggregator):
    """``fields.<field>.ignore-retract``: a retraction leaves the accumulator."""

    def __init__(self, inner: FieldAggregator):
        super().__init__(inner.name, inner.data_type)
        self.inner = inner

    def agg(self, accumulator: Any, value: Any) -> Any:
        return self.inner.agg(accumulator, value)

    def agg_reversed(self, accumulator: Any, value: Any) -> Any:
        return self.inner.agg_reversed(accumulator, value)

    def retract(self, accumulator: Any, value: Any) -> Any:
        return accumulator

    def reset(self) -> None:
        self.inner.reset()


def make_aggregator(function: str, data_type: DataType, *, ignore_retract: bool = False,
                    delimiter: str = ",") -> FieldAggregator:
    """The aggregator ``FieldAggregator.createFieldAggregator`` makes (``check_function`` has accepted it)."""
    makers: dict[str, Callable[[], FieldAggregator]] = {
        "sum": lambda: Sum("sum", data_type),
        "product": lambda: Product("product", data_type),
        "min": lambda: Extreme("min", data_type, True),
        "max": lambda: Extreme("max", data_type, False),
        "last_value": lambda: LastValue("last_value", data_type),
        "last_non_null_value": lambda: LastNonNullValue("last_non_null_value", data_type),
        "first_value": lambda: FirstValue("first_value", data_type, False),
        "first_non_null_value": lambda: FirstValue("first_non_null_value", data_type, True),
        "first_not_null_value": lambda: FirstValue("first_non_null_value", data_type, True),
        "bool_and": lambda: BoolAggregate("bool_and", data_type, True),
        "bool_or": lambda: BoolAggregate("bool_or", data_type, False),
        "listagg": lambda: ListAgg("listagg", data_type, delimiter),
        "primary-key": lambda: PrimaryKey("primary-key", data_type),
    }
    aggregator = makers[function]()
    return IgnoreRetract(aggregator) if ignore_retract else aggregator

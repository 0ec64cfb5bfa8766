"""Min/max/null-count statistics against a predicate, as Paimon's scan uses them (``LeafFunction.test``
with the row count and statistics): a data file's (``_VALUE_STATS``) and a manifest's partitions'
(``_PARTITION_STATS``): whether any row may match.

Only a definite "no row can match" prunes, so everything this module cannot decide keeps the file.
Values compare as Paimon compares them (``CompareUtils.compareLiteral``): integers, dates and times by
value, decimals by value whatever their scale, timestamps to the nanosecond (milliseconds, then the
nanoseconds of the millisecond), floats and doubles in ``Float.compare``/``Double.compare`` order
(-0.0 below 0.0, NaN above everything and equal to itself), exact strings (a manifest's partition
statistics) by their UTF-8 bytes. Floating-point statistics are read as writers leave them: Java's
Parquet writer counts NaN in the maximum (or drops both bounds when reading its footer), pypaimon-rust
leaves NaN out of both and writes a zero minimum as -0.0; so a NaN may be in a file whose maximum is
not NaN, a bound that is NaN tells nothing, and a zero bound stands for either zero. TIMESTAMP(7..9)
statistics are left unknown by Java's writer; they are used when present.

A file written under an older schema has its statistics in the column's older type; given the table's
type of a column (``literal_types``), the bounds are cast to it where the cast keeps order (integers
widened, integers to DECIMAL or floating point, FLOAT to DOUBLE, DECIMAL to DECIMAL, a timestamp's
precision changed), each bound moved outwards to the nearest value of the new type that surely holds
the cast of every value between them (whatever the cast rounds to); for any other cast the column is
unknown.

Left unknown (the file is kept): data files' strings (Paimon truncates them), map-key columns, NOT IN
and NOT BETWEEN, null literals, unknown null counts, statistics that do not decode, and statistics no file
can have (a minimum above its maximum, a null count below 0 or above the row count).
"""
from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Iterator, Mapping
from typing import Any

from fileindex.errors import FileIndexError
from fileindex.java.binary_row import UNKNOWN, field_at
from fileindex.java_numbers import DOUBLE, FLOAT
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, visit
from fileindex.table.metadata import ManifestEntry, Schema, ValueStats
from fileindex.types import NUMERIC_BITS, DataType
from fileindex.values import DECIMAL_CONTEXT, Timestamp

INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME")
FLOATING = {"FLOAT": FLOAT, "DOUBLE": DOUBLE}


class Statistics(PredicateVisitor[bool]):
    """Min/max/null counts of some columns, each column's decoded when a predicate first asks; as a visitor,
    whether rows satisfying a predicate may be among them.

    ``strings``: whether string minimums and maximums are exact (a manifest's partition statistics) rather
    than truncated (a data file's, in Paimon's default ``truncate(16)`` mode); ``row_count`` None: unknown.
    ``literal_types``: for a column whose statistics are in an older type than the predicate's literals
    (schema evolution), the literals' type.
    """

    def __init__(self, stats: ValueStats | None, names: tuple[str, ...], types: dict[str, DataType],
                 row_count: int | None, *, strings: bool = False, literal_types: Mapping[str, DataType] | None = None,
                 timestamps: bool = True):
        self.row_count = row_count
        self.timestamps = timestamps
        self.stats = stats
        self.strings = strings
        self.literal_types = literal_types or {}
        usable = stats is not None and len(stats.null_counts) == len(names) and all(n in types for n in names) \
            and _arity(stats.min_values) == len(names) and _arity(stats.max_values) == len(names)
        self.positions = {name: (i, types[name]) for i, name in enumerate(names)} if usable else {}
        self.arity = len(names)
        self.columns: dict[str, tuple | None] = {}

    def column(self, name: str) -> tuple | None:
        """(low key, high key, null count, the literals' type) of the column: the bounds in the order of
        :func:`ordered_key` of the literals' type (None where unknown); None: no statistics for it."""
        if name not in self.columns:
            self.columns[name] = self._decode(name)
        return self.columns[name]

    def _decode(self, name: str) -> tuple | None:
        if name not in self.positions or self.stats is None:
            return None
        position, data_type = self.positions[name]
        nulls = self.stats.null_counts[position]
        target = self.literal_types.get(name, data_type)
        retyped = target is not data_type and target.not_null() != data_type.not_null()  # (most: no copies made)
        if not self._compared(data_type) or not self._compared(target):
            return None, None, None if retyped else nulls, target  # a cast may make values null
        try:
            low = field_at(self.stats.min_values, position, data_type, self.arity, lenient=True)
            high = field_at(self.stats.max_values, position, data_type, self.arity, lenient=True)
            bounds = None if low in (None, UNKNOWN) or high in (None, UNKNOWN) else _cast_bounds(low, high, data_type,
                                                                                                   target)
        except (FileIndexError, IndexError, struct.error, ValueError, OverflowError, decimal.DecimalException):
            bounds = None
        if bounds is None:  # (nor is it known that the cast made no value null: an overflowing decimal)
            return None, None, None if retyped and nulls != self.row_count else nulls, target
        return (*ordered_bounds(*bounds, target), nulls, target)

    def _compared(self, data_type: DataType) -> bool:
        return data_type.root in INTEGERS or data_type.root in FLOATING or data_type.root == "DECIMAL" \
            or (data_type.is_timestamp and self.timestamps) or (self.strings and data_type.is_string)

    def may_match(self, predicate: Predicate) -> bool:
        return visit(predicate, self)

    def and_(self, children: Iterator[bool]) -> bool:
        return all(children)

    def or_(self, children: Iterator[bool]) -> bool:
        return any(children)

    def leaf(self, leaf: Leaf) -> bool:
        found = self.column(leaf.column)
        if found is None:
            return True
        low, high, nulls, data_type = _plausible(found, self.row_count)
        function = leaf.function
        if function is Operator.IS_NULL:
            return nulls is None or nulls > 0
        if function is Operator.IS_NOT_NULL:
            return nulls is None or self.row_count is None or nulls < self.row_count
        if nulls is not None and nulls == self.row_count and function is not Operator.NOT_IN:
            return False  # every value is null: no comparison holds
        if low is None or high is None:
            return True
        literals = [ordered_key(value, data_type) for value in leaf.literals]
        if any(key is None for key in literals):
            return True
        if data_type.root in FLOATING:  # a NaN may be in the file whatever the maximum says
            nan = FLOATING[data_type.root].compare_order(FLOATING[data_type.root].canonical_nan)
            return _range_may_match(function, literals, low, high) or _range_may_match(function, literals, nan, nan)
        return _range_may_match(function, literals, low, high)


class KnownBounds(Statistics):
    """Bounds known already as (low key, high key, null count, type) a column (:meth:`Statistics.column`; a
    column left out is unknown): a row group's or a page's, answering a predicate as a file's statistics do."""

    def __init__(self, columns: dict[str, tuple], row_count: int):
        super().__init__(None, (), {}, row_count)
        self.columns = dict(columns)


def file_statistics(entry: ManifestEntry, schema: Schema,
                    literal_types: Mapping[str, DataType] | None = None) -> Statistics:
    """A data file's ``_VALUE_STATS``, over ``value_stats_cols`` (or every column of its schema); ``literal_types``:
    the table's types of the columns the file holds under another type (``FilePredicate.retyped``)."""
    names = entry.value_stats_cols if entry.value_stats_cols is not None else tuple(f.name for f in schema.fields)
    return Statistics(entry.value_stats, names, schema.types(), entry.row_count, literal_types=literal_types,
                      timestamps=timestamp_bounds_trusted(entry.file_name))


def timestamp_bounds_trusted(file_name: str) -> bool:
    """Whether a data file's timestamp bounds in its manifest are instants as its rows hold them. Not for ORC:
    Java's ORC statistics go through ``java.sql.Timestamp`` in the writer's time zone, so a Java-written ORC
    file's TIMESTAMP WITH LOCAL TIME ZONE bounds were found 8 hours off its values (``orc/timestamp_index``),
    which would drop a matching file; its timestamp columns are not pruned by statistics."""
    return not file_name.lower().endswith(".orc")


def ordered_key(value: Any, data_type: DataType) -> Any:
    """``value`` of ``data_type`` as a key that orders as Paimon compares the type's values, or None where
    it is not such a value (a literal of another kind is never compared): an int for integers, dates,
    times and floating point (its ``Float.compare`` order), a Decimal, a (milliseconds, nanoseconds)
    tuple for timestamps, the string or bytes themselves."""
    root = data_type.root
    if root in FLOATING:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        floating = FLOATING[root]
        try:
            return floating.compare_order(floating.to_bits(float(value)))  # a FLOAT literal rounded as truth rounds it
        except OverflowError:  # beyond FLOAT's range
            return None
    if root in INTEGERS or root in NUMERIC_BITS:
        return value if type(value) is int else None
    if root == "DECIMAL":
        if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
            return None
        exact = decimal.Decimal(value)
        return exact if exact.is_finite() else None
    if data_type.is_timestamp:
        if not isinstance(value, Timestamp):
            try:
                value = Timestamp.from_datetime(value)
            except (AttributeError, TypeError):
                return None
        return value.millis, value.nanos_of_milli
    if data_type.is_binary:
        return value if type(value) is bytes else None
    return value if type(value) is str else None


def ordered_bounds(low: Any, high: Any, data_type: DataType) -> tuple[Any, Any]:
    """The bounds as keys; floating point: unknown (None, None) where a bound is NaN, a zero bound stretched
    to both zeros (a writer comparing as IEEE does may have kept either)."""
    if data_type.root not in FLOATING:
        return ordered_key(low, data_type), ordered_key(high, data_type)
    if math.isnan(low) or math.isnan(high):
        return None, None
    return ordered_key(-0.0 if low == 0 else low, data_type), ordered_key(0.0 if high == 0 else high, data_type)


def _cast_bounds(low: Any, high: Any, stored: DataType, target: DataType) -> tuple[Any, Any] | None:
    """Bounds in ``target`` of the values a file holds in [low, high] of ``stored`` once cast to ``target``,
    or None where the cast may not keep their order (or may make them null: a decimal overflow)."""
    if stored is target or stored.not_null() == target.not_null():
        return low, high
    old, new = stored.root, target.root
    if old in NUMERIC_BITS and new in NUMERIC_BITS:
        return (low, high) if NUMERIC_BITS[old] <= NUMERIC_BITS[new] else None
    if old in NUMERIC_BITS and new in FLOATING:
        return _float_bound(low, new, -math.inf), _float_bound(high, new, math.inf)
    if old == "FLOAT" and new == "DOUBLE":
        return low, high  # a float is a double exactly (NaN stays NaN)
    if new == "DECIMAL" and (old in NUMERIC_BITS or old == "DECIMAL"):
        step = decimal.Decimal(1).scaleb(-target.required_scale)
        floor = decimal.Decimal(low).quantize(step, rounding=decimal.ROUND_FLOOR, context=DECIMAL_CONTEXT)
        ceiling = decimal.Decimal(high).quantize(step, rounding=decimal.ROUND_CEILING, context=DECIMAL_CONTEXT)
        limit = decimal.Decimal(10) ** (target.required_precision - target.required_scale)
        return (floor, ceiling) if -limit < floor and ceiling < limit else None  # beyond: Java's cast gives null
    if stored.is_timestamp and old == new:
        unit = 10 ** (9 - target.required_precision)  # nanoseconds
        return _timestamp(_nanos(low) // unit * unit), _timestamp(-(-_nanos(high) // unit) * unit)
    return None


def _float_bound(value: int, root: str, direction: float) -> float:
    """The nearest value of the floating-point type at or below (``direction`` -inf) or at or above (+inf) the
    integer ``value``: where every rounding of it lies on that side."""
    import numpy as np

    dtype = np.float64 if root == "DOUBLE" else np.float32
    bound = dtype(value)
    while (float(bound) > value) if direction < 0 else (float(bound) < value):  # (float against int: exact)
        bound = np.nextafter(bound, dtype(direction))
    return float(bound)


def _nanos(value: Timestamp) -> int:
    return value.millis * 1_000_000 + value.nanos_of_milli


def _timestamp(nanos: int) -> Timestamp:
    millis, nanos_of_milli = divmod(nanos, 1_000_000)
    return Timestamp(millis, nanos_of_milli)


def _plausible(column: tuple, row_count: int | None) -> tuple:
    """A column's (low, high, null count, type) with what no file can hold made unknown: a null count below 0 or
    above the row count, a minimum above its maximum (a manifest or footer that lies would otherwise drop matching
    rows)."""
    low, high, nulls, data_type = column
    if nulls is not None and (nulls < 0 or (row_count is not None and nulls > row_count)):
        nulls = None
    if low is not None and high is not None and low > high:
        low = high = None
    return low, high, nulls, data_type


def _arity(row: bytes) -> int | None:
    return struct.unpack_from(">i", row)[0] if len(row) >= 4 else None


def _range_may_match(function: Operator, literals: list, low: Any, high: Any) -> bool:
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

"""Which rows of a data file truly match a predicate, computed from the data with Paimon's semantics.

This is the brute-force side of verification, independent of every index reader: comparisons
follow Paimon's ``CompareUtils`` (FLOAT/DOUBLE by ``Float.compare``/``Double.compare``, so
-0.0 < 0.0 and NaN equals NaN and sorts last; strings and bytes by unsigned bytes; timestamps to
the nanosecond), a null value matches nothing but IS NULL, and a null literal matches nothing.
A map-key column ``m[k]`` is each row's value for key k (null when absent).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import decimal
import sys
from collections.abc import Collection, Iterator
from functools import partial

import pyarrow as pa

from fileindex.arrow import scalars
from fileindex.arrow.maps import map_values
from fileindex.arrow.values import integer_key, integer_keys
from fileindex.errors import UsageError
from fileindex.java_numbers import DOUBLE, FLOAT
from fileindex.lazy import LazyModule, numpy as np
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, columns, visit
from fileindex.types import NUMERIC_BITS, DataType, column_type
from fileindex.values import DECIMAL_CONTEXT, Timestamp, float32

if TYPE_CHECKING:
    from fileindex.arrow import compute
else:
    compute = LazyModule("fileindex.arrow.compute")  # imported when first used: importing this module stays light

UNIT_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def python_values(array: pa.Array, data_type: DataType) -> list:
    """Non-null Arrow values as predicate literals of ``data_type`` (dates in days, times in millis)."""
    kind = array.type
    if pa.types.is_dictionary(kind):
        return python_values(array.cast(kind.value_type), data_type)
    if pa.types.is_timestamp(kind):
        unit = UNIT_NANOS[kind.unit]
        return [timestamp_at(int(t) * unit) for t in array.cast(pa.int64()).to_pylist()]
    if pa.types.is_date32(kind):
        return array.cast(pa.int32()).to_pylist()
    if pa.types.is_time(kind):
        ticks = array.cast(pa.int64() if kind.bit_width == 64 else pa.int32()).to_pylist()
        per_milli = {"s": None, "ms": 1, "us": 1000, "ns": 1_000_000}[kind.unit]
        return [t * 1000 if per_milli is None else t // per_milli for t in ticks]
    if data_type.root == "FLOAT":
        return [float32(v) for v in array.to_pylist()]
    return array.to_pylist()


def timestamp_at(nanos: int) -> Timestamp:
    """Epoch nanoseconds as a TIMESTAMP literal."""
    millis, rest = divmod(nanos, 1_000_000)
    return Timestamp(millis, rest)


def split_column(column: str, names: Collection[str] = ()) -> tuple[str, str | None]:
    """``m[k]`` → ('m', 'k'); a plain column → (column, None), as is one of ``names`` (the columns there are: a
    column may be named ``a[b]``)."""
    if column not in names and column.endswith("]") and "[" in column:
        return column[: column.index("[")], column[column.index("[") + 1:-1]
    return column, None


def source_columns(predicate: Predicate, names: Collection[str] = ()) -> list[str]:
    """The data-file columns a predicate reads (a map-key column reads its map; ``names``: see split_column)."""
    return list(dict.fromkeys(split_column(column, names)[0] for column in columns(predicate)))


def column_values(table: pa.Table, column: str) -> pa.Array:
    base, key = split_column(column, table.column_names)
    values = table.column(base).combine_chunks()
    if key is None:
        return values
    return map_values(values, key).combine_chunks()


def matches(table: pa.Table, predicate: Predicate, types: dict[str, DataType]) -> np.ndarray:
    """A bool per row of ``table``: does the row satisfy ``predicate``?"""
    return visit(predicate, _Matches(table, types))


def filtered(table: pa.Table, predicate: Predicate, types: dict[str, DataType]) -> pa.Table:
    """The rows of ``table`` that satisfy ``predicate`` (those ``matches`` finds): by Arrow's compute kernels
    where Arrow compares as Paimon does (integers, decimals, strings and bytes against literals the column's
    type holds exactly), else by ``matches``. (The kernels are called on the columns: a filter expression
    would be evaluated by Acero, whose import brings pyarrow.dataset and pandas into every reading process.)"""
    mask = match_mask(table, predicate, types)
    if mask is True:
        return table
    return table.slice(0, 0) if mask is False else compute.filter_rows(table, mask)


def match_mask(table: pa.Table, predicate: Predicate, types: dict[str, DataType]) -> Mask | np.ndarray:
    """What ``filtered`` filters by: True or False for every row, or a boolean per row (a null: not kept), by
    Arrow's kernels where they answer exactly (a pass over the column, where ``matches`` first orders it)."""
    if "numpy" in sys.modules:  # (never imported for this: a command line's read spends more importing it)
        try:
            return visit(predicate, _IntegerMask(table, types))
        except _NotArrowExact:
            pass
    try:
        return visit(predicate, _ArrowMask(table, types))
    except _NotArrowExact:
        return matches(table, predicate, types)


def kept_mask(table: pa.Table, predicate: Predicate, types: dict[str, DataType]) -> pa.BooleanArray:
    """``matches`` as ``match_mask`` computes it: an Arrow bool per row of ``table``, without nulls (numpy only
    where ``matches`` answers: a read Arrow's kernels filter imports none)."""
    mask = match_mask(table, predicate, types)
    if isinstance(mask, bool):
        return compute.fill_null(pa.nulls(table.num_rows, pa.bool_()), mask)
    if isinstance(mask, (pa.Array, pa.ChunkedArray)):
        filled = compute.fill_null(mask, False)
        return filled.combine_chunks() if isinstance(filled, pa.ChunkedArray) else filled
    return compute.bool_array(mask)


class _NotArrowExact(Exception):
    """A leaf Arrow would not answer exactly as Paimon does (``matches`` answers it)."""


# Paimon's types that Arrow orders alike: numbers by value, strings (unsigned UTF-8 bytes) and bytes bytewise
_ARROW_ORDERED = frozenset(NUMERIC_BITS) | {"DECIMAL", "CHAR", "VARCHAR", "BINARY", "VARBINARY"}

Mask: TypeAlias = bool | pa.ChunkedArray  # a boolean per row (null: unknown), or one answer for every row


class _ArrowMask(PredicateVisitor[Mask]):
    """The predicate's boolean per row, by Arrow's kernels. A null compares as unknown, and a filter drops unknown
    rows: with NOT only inside leaves (``is_valid`` guarding the negated ones), a row is kept exactly where
    Paimon's predicate, which calls a null comparison false, holds."""

    def __init__(self, table: pa.Table, types: dict[str, DataType]):
        self.table, self.types = table, types

    def leaf(self, leaf: Leaf) -> Mask:
        data_type = column_type(self.types, leaf.column)
        floating = data_type is not None and data_type.root in ("FLOAT", "DOUBLE")
        if data_type is None or not (data_type.root in _ARROW_ORDERED or data_type.is_timestamp or floating) or \
                split_column(leaf.column, self.table.column_names)[1] is not None:
            raise _NotArrowExact
        column, function, literals = self.table.column(leaf.column), leaf.function, leaf.literals
        if function is Operator.IS_NULL:
            return compute.call("is_null", column)
        if function is Operator.IS_NOT_NULL:
            return compute.call("is_valid", column)
        if floating:  # (compared by their keys in Float.compare's order: -0.0 < 0.0, NaN equal to NaN and last)
            column = _compare_keys(column, data_type)
        arrow_type = column.type
        present = [_key_scalar(literal, arrow_type, data_type) if floating else
                   _exact_scalar(literal, arrow_type, data_type) for literal in literals if literal is not None]
        if function in (Operator.IN, Operator.NOT_IN):
            if function is Operator.NOT_IN and len(present) < len(literals):
                return False  # x NOT IN (..., NULL) is never true
            hit = compute.is_in(column, scalars.array([scalar.as_py() for scalar in present], arrow_type))
            return hit if function is Operator.IN else _valid_and_not(column, hit)
        if len(present) < len(literals):
            return False
        if function in (Operator.BETWEEN, Operator.NOT_BETWEEN):
            inside = compute.call("and_kleene", compute.call("greater_equal", column, present[0]),
                                  compute.call("less_equal", column, present[1]))
            return inside if function is Operator.BETWEEN else _valid_and_not(column, inside)
        assert function.arrow_function is not None  # every other leaf is a comparison
        return compute.call(function.arrow_function, column, present[0])

    def and_(self, children: Iterator[Mask]) -> Mask:
        return _combined(children, partial(compute.call, "and_kleene"), True)

    def or_(self, children: Iterator[Mask]) -> Mask:
        return _combined(children, partial(compute.call, "or_kleene"), False)


if TYPE_CHECKING:
    _NumpyVisitor: TypeAlias = PredicateVisitor[np.ndarray]
else:  # (not PredicateVisitor["np.ndarray"]: typing compiles a string parameter, and a process's first compile() builds
    # Python's AST types, 10 M instructions of a cold read, #54; nor np.ndarray, which would import numpy here)
    _NumpyVisitor = PredicateVisitor


class _IntegerMask(_NumpyVisitor):
    """The predicate's boolean per row by numpy, where every leaf compares an integer column without nulls with
    integers its type holds (no null, hence no unknown): the id probe of a file a bloom filter kept, a pass per
    literal, 3-4x faster than Arrow's kernels with the conversion of their bitmap to numpy."""

    def __init__(self, table: pa.Table, types: dict[str, DataType]):
        self.table, self.types = table, types
        self.values: dict[str, np.ndarray] = {}

    def leaf(self, leaf: Leaf) -> np.ndarray:
        data_type = column_type(self.types, leaf.column)
        if data_type is None or data_type.root not in NUMERIC_BITS or leaf.column not in self.table.column_names:
            raise _NotArrowExact
        values = self._values(leaf.column)
        function, literals = leaf.function, leaf.literals
        if function in (Operator.IS_NULL, Operator.IS_NOT_NULL):
            return np.full(len(values), function is Operator.IS_NOT_NULL)
        held = np.iinfo(values.dtype)
        if not all(type(literal) is int and held.min <= literal <= held.max for literal in literals):
            raise _NotArrowExact  # (a null, a bool, another type or an integer out of range: Arrow's or exact)
        if function in (Operator.IN, Operator.NOT_IN):
            hit = np.isin(values, np.array(literals, dtype=values.dtype))
            return hit if function is Operator.IN else ~hit
        if function in (Operator.BETWEEN, Operator.NOT_BETWEEN):
            inside = (values >= literals[0]) & (values <= literals[1])
            return inside if function is Operator.BETWEEN else ~inside
        assert function.comparison is not None  # every other leaf is a comparison
        return function.comparison(values, literals[0])

    def _values(self, name: str) -> np.ndarray:
        if name not in self.values:
            column = self.table.column(name)
            if column.null_count or not pa.types.is_integer(column.type):
                raise _NotArrowExact
            self.values[name] = compute.to_numpy(column)
        return self.values[name]

    def and_(self, children: Iterator[np.ndarray]) -> np.ndarray:
        return _folded(children, np.logical_and, self.table.num_rows, True)

    def or_(self, children: Iterator[np.ndarray]) -> np.ndarray:
        return _folded(children, np.logical_or, self.table.num_rows, False)


def _folded(children: Iterator[np.ndarray], combine, rows: int, neutral: bool) -> np.ndarray:
    out = None
    for child in children:
        out = child if out is None else combine(out, child, out=out if out.base is None else None)
    return np.full(rows, neutral) if out is None else out


def _valid_and_not(column: pa.ChunkedArray, mask: pa.ChunkedArray) -> pa.ChunkedArray:
    """Where the column holds a value and ``mask`` is not true (a negated leaf: false, not unknown, for nulls)."""
    return compute.call("and_kleene", compute.call("is_valid", column), compute.call("invert", mask))


def _combined(children: Iterator[Mask], kleene, neutral: bool) -> Mask:
    """AND (``neutral`` True) or OR (False) of masks in Kleene logic; ``not neutral`` decides alone."""
    combined: Mask = neutral
    for child in children:
        if child is (not neutral):
            return child
        if child is not neutral:
            combined = child if combined is neutral else kleene(combined, child)
    return combined


# a FLOAT or DOUBLE column's values as the signed integers of the same width their bits are
_FLOAT_BITS = {"FLOAT": (pa.float32(), pa.int32(), FLOAT), "DOUBLE": (pa.float64(), pa.int64(), DOUBLE)}


def _compare_keys(column: pa.ChunkedArray, data_type: DataType) -> pa.ChunkedArray:
    """A FLOAT or DOUBLE column as ``FloatingBits.compare_order`` of its canonical bits (what ``matches`` orders
    it by), computed by Arrow's kernels on the bits (nulls stay null): signed integers that order as
    ``Float.compare`` / ``Double.compare`` order the values."""
    floating, integer, bits = _FLOAT_BITS[data_type.root]
    if column.type != floating:
        raise _NotArrowExact  # (a dictionary or another width: matches answers)
    raw = pa.chunked_array([chunk.view(integer) for chunk in column.chunks], type=integer)
    flipped = compute.call("bit_wise_xor", raw, scalars.scalar(bits.magnitude, integer))  # negative: magnitude flipped
    ordered = compute.call("if_else", compute.call("less", raw, scalars.scalar(0, integer)), flipped, raw)
    nan = scalars.scalar(bits.compare_order(bits.canonical_nan), integer)  # every NaN as Java's canonical one
    return compute.call("if_else", compute.call("is_nan", column), nan, ordered)


def _key_scalar(literal, arrow_type: pa.DataType, data_type: DataType) -> pa.Scalar:
    """A FLOAT or DOUBLE literal as ``_compare_keys`` keys the column's values (rounded to the column's width as
    ``matches`` rounds it)."""
    try:
        key, _ = _literal_ordinal(literal, data_type, arrow_type)
        return scalars.scalar(key, arrow_type)
    except (pa.ArrowException, OverflowError, TypeError, ValueError, UsageError):  # (matches says what is wrong)
        raise _NotArrowExact from None


def _exact_scalar(literal, arrow_type: pa.DataType, data_type: DataType) -> pa.Scalar:
    """The literal in the column's Arrow type, exactly (not a decimal with more places than the column, nor a
    number out of its range, nor a timestamp between two of the column's ticks)."""
    if pa.types.is_dictionary(arrow_type):
        raise _NotArrowExact
    if data_type.is_timestamp:
        return _exact_ticks(literal, arrow_type, data_type)
    try:
        scalar = scalars.scalar(literal, arrow_type)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        raise _NotArrowExact from None
    if scalar.as_py() != literal:
        raise _NotArrowExact
    return scalar


def _exact_ticks(literal, arrow_type: pa.DataType, data_type: DataType) -> pa.Scalar:
    """A timestamp literal as a scalar of the column's timestamp type (compared as ``matches`` compares them: by
    the column's stored ticks), where it falls on one of its ticks; not for nanoseconds (``as_py`` of a value
    set would need pandas)."""
    if not pa.types.is_timestamp(arrow_type) or arrow_type.unit == "ns":
        raise _NotArrowExact
    try:
        ticks, remainder = _literal_ordinal(literal, data_type, arrow_type)
        if remainder:
            raise _NotArrowExact
        return scalars.scalar(ticks, arrow_type)
    except (pa.ArrowException, OverflowError, TypeError, ValueError, AttributeError):  # (not a timestamp: matches)
        raise _NotArrowExact from None


class _Matches(_NumpyVisitor):
    def __init__(self, table: pa.Table, types: dict[str, DataType]):
        self.table, self.types = table, types

    def leaf(self, leaf: Leaf) -> np.ndarray:
        data_type = column_type(self.types, leaf.column)
        if data_type is None:
            raise UsageError(f"{leaf.column!r} is not a column of the data file")
        return ColumnTruth(column_values(self.table, leaf.column), data_type).matches(leaf)

    def and_(self, children: Iterator[np.ndarray]) -> np.ndarray:
        out = np.ones(self.table.num_rows, dtype=bool)
        for child in children:
            out &= child
        return out

    def or_(self, children: Iterator[np.ndarray]) -> np.ndarray:
        out = np.zeros(self.table.num_rows, dtype=bool)
        for child in children:
            out |= child
        return out


class ColumnTruth:
    """One column's values, prepared once to answer many leaves on it."""

    def __init__(self, values: pa.Array, data_type: DataType):
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        self.values, self.type = values, data_type
        self.valid = np.ones(len(values), dtype=bool) if values.null_count == 0 else \
            compute.to_numpy(compute.call("is_valid", values))
        self.ordinal = _ordinal(values, self.valid, data_type)  # int64 per row in a total order, or None

    def matches(self, leaf: Leaf) -> np.ndarray:
        valid, function, literals = self.valid, leaf.function, leaf.literals
        if function is Operator.IS_NULL:
            return ~valid
        if function is Operator.IS_NOT_NULL:
            return valid.copy()
        none = np.zeros(len(valid), dtype=bool)
        if function in (Operator.IN, Operator.NOT_IN):
            hit = none
            for literal in literals:
                if literal is None:
                    if function is Operator.NOT_IN:
                        return none  # x NOT IN (..., NULL) is never true
                    continue
                hit = hit | self.compare(Operator.EQ, literal)
            return hit if function is Operator.IN else valid & ~hit
        if any(literal is None for literal in literals):
            return none
        if function in (Operator.BETWEEN, Operator.NOT_BETWEEN):
            inside = self.compare(Operator.GTE, literals[0]) & self.compare(Operator.LTE, literals[1])
            return inside if function is Operator.BETWEEN else valid & ~inside
        return self.compare(function, literals[0])

    def compare(self, function: Operator | str, literal) -> np.ndarray:
        """Rows whose value compares with ``literal`` as the comparison ``function`` says (False for nulls)."""
        function = Operator(function)
        if function.comparison is None or function.arrow_function is None:
            raise UsageError(f"{function.sql} is not a comparison of a value with one literal")
        if self.ordinal is None:
            if pa.types.is_decimal(self.values.type):
                return self.valid & function.comparison(self._decimal_order(literal), 0)
            scalar = scalars.scalar(literal, self.values.type)
            result = compute.fill_null(compute.call(function.arrow_function, self.values, scalar), False)
            return compute.to_numpy(result)
        key, remainder = _literal_ordinal(literal, self.type, self.values.type)
        if remainder:
            # key < literal < key + 1 (a finer timestamp than the column holds): no row equals the literal, and a
            # row's order against it is its order against key, with a row at key ordered below it
            return self.valid & function.comparison(np.where(self.ordinal > key, 1, -1), 0)
        return self.valid & function.comparison(self.ordinal, key)

    def _decimal_order(self, literal) -> np.ndarray:
        """Per row of a DECIMAL wider than a long, -1, 0 or 1 as its value is below, equal to or above
        ``literal`` (a null row: any), compared by Arrow as 38-digit decimals of the column's scale; a literal
        finer than the scale is taken as its floor plus a remainder, as :func:`_literal_ordinal` gives it."""
        scale = self.type.scale or 0
        key, remainder = _literal_ordinal(literal, self.type, self.values.type)
        if abs(key) >= 10 ** 38:  # (beyond every value of the column)
            return np.full(len(self.valid), -1 if key > 0 else 1, dtype=np.int64)
        wide = pa.decimal128(38, scale)
        values, bound = self.values.cast(wide), scalars.scalar(decimal.Decimal(key).scaleb(-scale), wide)
        above = compute.to_numpy(compute.fill_null(compute.call("greater", values, bound), False))
        if remainder:
            return np.where(above, 1, -1)
        equal = compute.to_numpy(compute.fill_null(compute.call("equal", values, bound), False))
        return np.where(above, 1, np.where(equal, 0, -1))


COMPACT_DECIMAL = 18  # the widest DECIMAL precision whose unscaled values fit a long (Paimon's compact decimals)


def _ordinal(values: pa.Array, valid: np.ndarray, data_type: DataType) -> np.ndarray | None:
    """int64 per row ordered as Paimon compares the type (0 for nulls), None for the byte-string types and
    DECIMALs wider than COMPACT_DECIMAL."""
    root = data_type.root
    if not (root in NUMERIC_BITS or root in ("FLOAT", "DOUBLE", "DATE", "TIME", "DECIMAL") or data_type.is_timestamp):
        return None
    if root == "DECIMAL" and (data_type.precision or 0) > COMPACT_DECIMAL:
        return None  # (unscaled values past a long: compared as decimals)
    present = values if values.null_count == 0 else values.drop_null()
    if root in ("FLOAT", "DOUBLE"):
        keys = (FLOAT if root == "FLOAT" else DOUBLE).compare_order(integer_keys(present, data_type))
    elif data_type.is_timestamp and pa.types.is_timestamp(values.type):
        keys = compute.to_numpy(present.cast(pa.int64()))
    else:
        keys = integer_keys(present, data_type)
    if values.null_count == 0:
        return np.asarray(keys, dtype=np.int64)
    out = np.zeros(len(values), dtype=np.int64)
    out[valid] = keys
    return out


def _literal_ordinal(literal, data_type: DataType, arrow_type: pa.DataType) -> tuple[int, int]:
    """The literal in the column's ordinal scale: (floor, remainder in the column's finest unit)."""
    root = data_type.root
    if root in ("FLOAT", "DOUBLE"):
        return (FLOAT if root == "FLOAT" else DOUBLE).compare_order(integer_key(literal, data_type)), 0
    if data_type.is_timestamp and pa.types.is_timestamp(arrow_type):
        ts = literal if isinstance(literal, Timestamp) else Timestamp.from_datetime(literal)
        nanos = ts.millis * 1_000_000 + ts.nanos_of_milli
        return divmod(nanos, UNIT_NANOS[arrow_type.unit])
    if root == "DECIMAL":
        assert data_type.scale is not None  # parse_type gives every DECIMAL its precision and scale
        exact = decimal.Decimal(literal).scaleb(data_type.scale, context=DECIMAL_CONTEXT)
        floor = int(exact.to_integral_value(rounding=decimal.ROUND_FLOOR, context=DECIMAL_CONTEXT))
        return floor, int(exact != floor)
    return int(integer_key(literal, data_type)), 0

"""Statistics prune soundly (issue #54): a file is dropped only if no row of it satisfies the predicate.

Rows are drawn for floating-point (NaN, both zeros, infinities), decimal (several precisions and scales,
literals of other scales) and timestamp columns (several precisions, literals finer than the column),
with nulls; their statistics are written the ways writers write them (Java's Parquet writer counts NaN
in the maximum, pypaimon-rust leaves NaN out and writes a zero minimum as -0.0, a writer comparing as
IEEE keeps whichever zero it met first, and all of them may leave the bounds unknown), serialized as the
BinaryRows a manifest holds; every row is then checked by brute force (``scan.truth``, Paimon's
comparisons). Files written under an older, narrower type are checked against their rows cast as Java
casts them."""
import datetime as dt
import decimal
import math
import struct

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileindex.arrow.types import arrow_type
from fileindex.java.binary_row import field_at, serialize
from fileindex.java_numbers import DOUBLE, FLOAT
from fileindex.scan.truth import matches
from fileindex.predicate.tree import Leaf
from fileindex.table.metadata import ValueStats
from fileindex.table.statistics import Statistics
from fileindex.types import NUMERIC_BITS, parse_type
from fileindex.values import Timestamp

FUNCTIONS = ["eq", "neq", "lt", "lte", "gt", "gte", "in", "not_in", "between", "not_between", "is_null",
             "is_not_null"]
SPECIAL_FLOATS = [math.nan, 0.0, -0.0, math.inf, -math.inf, 0.25, -1.5, 1e300, -1e-300, 3.4028235e38]


def float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def floats(type_name: str):
    plain = st.floats(allow_nan=True, allow_infinity=True, width=32 if type_name == "FLOAT" else 64)
    values = st.one_of(plain, st.sampled_from(SPECIAL_FLOATS).filter(lambda v: type_name == "DOUBLE" or abs(v) < 1e38
                                                                     or math.isinf(v) or math.isnan(v)))
    return values.map(float32) if type_name == "FLOAT" else values


def decimals(precision: int, scale: int, places: int | None = None):
    """Values the brute force reads (``scan.truth`` reads a decimal's unscaled value as a long): a wide
    DECIMAL's statistics are still written in the BinaryRow's tail."""
    places = scale if places is None else places
    limit = min(10 ** (precision - scale) - decimal.Decimal(1).scaleb(-scale),
                decimal.Decimal(2**63 - 1).scaleb(-places))
    return st.decimals(-limit, limit, places=places, allow_nan=False, allow_infinity=False)


def timestamps(precision: int):
    unit = 10 ** (9 - precision)
    return st.integers(-10**17 // unit, 10**17 // unit).map(lambda n: n * unit).map(
        lambda nanos: Timestamp(nanos // 1_000_000, nanos % 1_000_000))


TYPES = {
    "DOUBLE": lambda: floats("DOUBLE"),
    "FLOAT": lambda: floats("FLOAT"),
    "DECIMAL(5, 2)": lambda: decimals(5, 2),
    "DECIMAL(18, 0)": lambda: decimals(18, 0),
    "DECIMAL(20, 4)": lambda: decimals(20, 4),
    "DECIMAL(38, 10)": lambda: decimals(38, 10),
    "TIMESTAMP(0)": lambda: timestamps(0),
    "TIMESTAMP(3)": lambda: timestamps(3),
    "TIMESTAMP(6)": lambda: timestamps(6),
    "TIMESTAMP(9)": lambda: timestamps(9),
    "TIMESTAMP(6) WITH LOCAL TIME ZONE": lambda: timestamps(6),
    "BIGINT": lambda: st.integers(-2**63, 2**63 - 1),
}


def literal_values(type_name: str):
    """Literals of the column's kind, finer than the column (decimal places, timestamp digits) too."""
    data_type = parse_type(type_name)
    if data_type.root == "FLOAT":  # a double literal is rounded to FLOAT (one beyond its range is refused)
        return st.one_of(floats("FLOAT"), st.floats(-3.4e38, 3.4e38), st.integers(-10, 10))
    if data_type.root == "DOUBLE":
        return st.one_of(floats("DOUBLE"), st.integers(-10, 10))
    if data_type.root == "DECIMAL":
        return st.one_of(TYPES[type_name](), decimals(data_type.precision, data_type.scale, data_type.scale + 1),
                         st.integers(-10**5, 10**5))
    if data_type.is_timestamp:
        return st.one_of(TYPES[type_name](), timestamps(9))
    return TYPES[type_name]()


def compare_key(value, data_type):
    """Paimon's order of a value (Float.compare for floating point)."""
    if data_type.root in ("FLOAT", "DOUBLE"):
        floating = FLOAT if data_type.root == "FLOAT" else DOUBLE
        return floating.compare_order(floating.to_bits(value))
    if data_type.is_timestamp:
        return value.millis, value.nanos_of_milli
    return value


WRITERS = ["compare-order", "nan-left-out", "ieee-first-zero", "unknown"]


def written_bounds(values: list, data_type, writer: str):
    """(min, max) of the non-null values as a writer of that kind records them (None, None: unknown)."""
    present = [v for v in values if v is not None]
    if not present or writer == "unknown":
        return None, None
    if data_type.root not in ("FLOAT", "DOUBLE") or writer == "compare-order":  # Java: Double.compare, NaN on top
        return (min(present, key=lambda v: compare_key(v, data_type)),
                max(present, key=lambda v: compare_key(v, data_type)))
    numbers = [v for v in present if not math.isnan(v)]
    if not numbers:
        return None, None
    if writer == "nan-left-out":  # pypaimon-rust: NaN left out, a zero minimum written as -0.0, maximum as +0.0
        low, high = min(numbers), max(numbers)
        return (-0.0 if low == 0 else low), (0.0 if high == 0 else high)
    low = high = numbers[0]  # an IEEE comparison: the first of equal values stays, so either zero may
    for v in numbers[1:]:
        low, high = (v if v < low else low), (v if v > high else high)
    return low, high


def statistics(values: list, data_type, writer: str) -> Statistics:
    low, high = written_bounds(values, data_type, writer)
    nulls = sum(v is None for v in values)
    stats = ValueStats(serialize([low], [data_type]), serialize([high], [data_type]), (nulls,))
    return Statistics(stats, ("c",), {"c": data_type}, len(values))


def arrow_values(values: list, data_type) -> pa.Array:
    arrow = arrow_type(data_type)
    if data_type.is_timestamp:
        unit = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[arrow.unit]
        return pa.array([None if v is None else (v.millis * 1_000_000 + v.nanos_of_milli) // unit for v in values],
                        type=arrow)
    return pa.array(values, type=arrow)


def leaf_of(draw, type_name: str, values: list) -> Leaf:
    function = draw(st.sampled_from(FUNCTIONS))
    pool = st.one_of(literal_values(type_name), st.sampled_from([v for v in values if v is not None] or [None]))
    count = {"is_null": 0, "is_not_null": 0, "between": 2, "not_between": 2, "in": 3, "not_in": 3}.get(function, 1)
    literals = tuple(draw(pool) for _ in range(draw(st.integers(1, count)) if function in ("in", "not_in") else count))
    return Leaf(function, "c", literals)


def rows_match(values: list, leaf: Leaf, data_type) -> bool:
    return bool(matches(pa.table({"c": arrow_values(values, data_type)}), leaf, {"c": data_type}).any())


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_statistics_drop_a_file_only_when_no_row_matches(data):
    type_name = data.draw(st.sampled_from(sorted(TYPES)))
    values = data.draw(st.lists(st.one_of(st.none(), TYPES[type_name]()), min_size=1, max_size=8))
    check_file(type_name, values, data.draw(st.sampled_from(WRITERS)), leaf_of(data.draw, type_name, values))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_floating_point_statistics_drop_a_file_only_when_no_row_matches(data):
    """Few distinct values, so that NaN, both zeros and the literals meet often."""
    type_name = data.draw(st.sampled_from(["DOUBLE", "FLOAT"]))
    pool = st.sampled_from([math.nan, 0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf])
    values = data.draw(st.lists(st.one_of(st.none(), pool), min_size=1, max_size=5))
    function = data.draw(st.sampled_from(FUNCTIONS))
    count = {"is_null": 0, "is_not_null": 0, "between": 2, "not_between": 2, "in": 2, "not_in": 2}.get(function, 1)
    leaf = Leaf(function, "c", tuple(data.draw(pool) for _ in range(count)))
    check_file(type_name, values, data.draw(st.sampled_from(WRITERS)), leaf)


def check_file(type_name: str, values: list, writer: str, leaf: Leaf) -> None:
    data_type = parse_type(type_name)
    if not statistics(values, data_type, writer).may_match(leaf):
        assert not rows_match(values, leaf, data_type), (type_name, writer, values, leaf)


def test_floating_point_decimal_and_timestamp_statistics_prune():
    """What the statistics now decide (they kept every file of these types before)."""
    double, money, stamp = parse_type("DOUBLE"), parse_type("DECIMAL(12, 2)"), parse_type("TIMESTAMP(6)")
    files = [[0.1, 0.2], [0.25, math.nan], [1.0, 2.0, None]]
    kept = [statistics(rows, double, writer).may_match(Leaf("eq", "c", (0.25,)))
            for rows in files for writer in ("compare-order", "nan-left-out")]
    assert kept == [False, False, True, True, False, False]
    assert not statistics([0.1, 0.2], double, "nan-left-out").may_match(Leaf("lt", "c", (0.05,)))
    assert statistics([0.1, 0.2], double, "nan-left-out").may_match(Leaf("gt", "c", (5.0,)))  # a NaN may be there
    assert not statistics([0.1, 0.2], double, "nan-left-out").may_match(Leaf("gt", "c", (math.nan,)))
    assert statistics([0.0, -0.0], double, "ieee-first-zero").may_match(Leaf("eq", "c", (-0.0,)))  # [0.0, 0.0]
    cents = [decimal.Decimal("1.25"), decimal.Decimal("3.50")]
    assert not statistics(cents, money, "compare-order").may_match(Leaf("eq", "c", (decimal.Decimal("3.5001"),)))
    assert statistics(cents, money, "compare-order").may_match(Leaf("eq", "c", (decimal.Decimal("3.5000"),)))
    assert not statistics(cents, money, "compare-order").may_match(Leaf("gt", "c", (decimal.Decimal("3.50"),)))
    noon = Timestamp(1_700_000_000_000, 123_000)
    assert not statistics([noon], stamp, "compare-order").may_match(Leaf("eq", "c", (Timestamp(noon.millis, 123_001),)))
    assert statistics([noon], stamp, "compare-order").may_match(Leaf("lt", "c", (Timestamp(noon.millis, 123_001),)))
    assert not statistics([noon], stamp, "compare-order").may_match(
        Leaf("gte", "c", (dt.datetime(2030, 1, 1),)))


def test_bounds_round_trip_the_binary_row():
    for type_name, value in [("DOUBLE", -0.0), ("FLOAT", float32(0.1)), ("DECIMAL(38, 10)", decimal.Decimal("-1E-10")),
                             ("DECIMAL(20, 4)", decimal.Decimal("12345678901234.5678")),
                             ("TIMESTAMP(9)", Timestamp(-1, 999_999)), ("TIMESTAMP(3)", Timestamp(-5))]:
        data_type = parse_type(type_name)
        decoded = field_at(serialize([value], [data_type]), 0, data_type, 1, lenient=True)
        assert decoded == value and str(decoded) == str(value), type_name


# ----------------------------------------------------------------------------------- schema evolution

def new_literals(new):
    """Literals of the table's type (a value beyond an integer type is refused by the parser)."""
    if new.root in ("FLOAT", "DOUBLE"):
        return st.one_of(literal_values(new.root), st.integers(-10**10, 10**10))
    if new.root == "DECIMAL":
        return st.one_of(decimals(new.precision, new.scale), decimals(new.precision, new.scale, new.scale + 1),
                         st.integers(-10**4, 10**4))
    if new.is_timestamp:
        return st.one_of(timestamps(new.precision), timestamps(9))
    if new.root in NUMERIC_BITS:
        bits = NUMERIC_BITS[new.root]
        return st.integers(-2**(bits - 1), 2**(bits - 1) - 1)
    return st.text(max_size=3)


def java_cast(value, old, new):
    """A value of ``old`` as Java's cast makes it ``new`` (None: the cast overflows to null)."""
    if value is None:
        return None
    if new.root == "STRING":
        return str(value)
    if new.root in NUMERIC_BITS and old.root in ("FLOAT", "DOUBLE"):  # (int) d: NaN 0, saturating
        bits = NUMERIC_BITS[new.root]
        return 0 if math.isnan(value) else max(-2**(bits - 1), min(2**(bits - 1) - 1, int(value))) \
            if not math.isinf(value) else (2**(bits - 1) - 1 if value > 0 else -2**(bits - 1))
    if new.root in ("FLOAT", "DOUBLE"):
        return float32(float(value)) if new.root == "FLOAT" else float(value)
    if new.root == "DECIMAL":
        rounded = decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-new.scale), rounding=decimal.ROUND_HALF_UP)
        return rounded if abs(rounded) < 10 ** (new.precision - new.scale) else None
    if new.is_timestamp:  # to a coarser precision the digits below it are dropped
        unit = 10 ** (9 - new.precision)
        nanos = value.millis * 1_000_000 + value.nanos_of_milli
        nanos = int(nanos / unit) * unit if nanos < 0 else nanos // unit * unit
        return Timestamp(nanos // 1_000_000, nanos % 1_000_000)
    return value


EVOLUTIONS = [("INT", "BIGINT"), ("SMALLINT", "INT"), ("INT", "DOUBLE"), ("BIGINT", "DOUBLE"), ("BIGINT", "FLOAT"),
              ("INT", "FLOAT"), ("FLOAT", "DOUBLE"), ("INT", "DECIMAL(12, 2)"), ("BIGINT", "DECIMAL(5, 0)"),
              ("DECIMAL(10, 4)", "DECIMAL(12, 2)"), ("DECIMAL(10, 2)", "DECIMAL(20, 4)"),
              ("DECIMAL(10, 2)", "DECIMAL(4, 2)"), ("TIMESTAMP(6)", "TIMESTAMP(3)"), ("TIMESTAMP(3)", "TIMESTAMP(9)"),
              ("TIMESTAMP(9)", "TIMESTAMP(0)"), ("INT", "STRING"), ("DOUBLE", "INT")]
OLD_VALUES = {"INT": st.integers(-2**31, 2**31 - 1), "BIGINT": st.integers(-2**63, 2**63 - 1),
              "SMALLINT": st.integers(-2**15, 2**15 - 1), "FLOAT": floats("FLOAT"), "DOUBLE": floats("DOUBLE"),
              "DECIMAL(10, 4)": decimals(10, 4), "DECIMAL(10, 2)": decimals(10, 2),
              "TIMESTAMP(6)": timestamps(6), "TIMESTAMP(3)": timestamps(3), "TIMESTAMP(9)": timestamps(9)}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_an_older_files_statistics_drop_it_only_when_no_row_matches(data):
    """Statistics in the older type, a predicate in the table's: the file is dropped only if no row, cast as
    Java casts it, satisfies the predicate."""
    old_name, new_name = data.draw(st.sampled_from(EVOLUTIONS))
    old, new = parse_type(old_name), parse_type(new_name)
    values = data.draw(st.lists(st.one_of(st.none(), OLD_VALUES[old_name]), min_size=1, max_size=6))
    cast = [java_cast(v, old, new) for v in values]
    function = data.draw(st.sampled_from(FUNCTIONS))
    count = {"is_null": 0, "is_not_null": 0, "between": 2, "not_between": 2, "in": 2, "not_in": 2}.get(function, 1)
    pool = st.one_of(new_literals(new), st.sampled_from([v for v in cast if v is not None] or [None]))
    leaf = Leaf(function, "c", tuple(data.draw(pool) for _ in range(count)))
    low, high = written_bounds(values, old, data.draw(st.sampled_from(WRITERS)))
    stats = ValueStats(serialize([low], [old]), serialize([high], [old]), (sum(v is None for v in values),))
    kept = Statistics(stats, ("c",), {"c": old}, len(values), literal_types={"c": new}).may_match(leaf)
    if not kept:
        assert not rows_match(cast, leaf, new), (old_name, new_name, values, cast, leaf)


def test_a_literal_beyond_the_older_type_rules_the_file_out():
    """``f1 = 5000000000`` on a file where f1 was INT (its statistics in INT): no row can hold it."""
    old, new = parse_type("INT"), parse_type("BIGINT")
    stats = ValueStats(serialize([-7], [old]), serialize([2**31 - 1], [old]), (0,))

    def kept(leaf: Leaf) -> bool:
        return Statistics(stats, ("f1",), {"f1": old}, 10, literal_types={"f1": new}).may_match(leaf)

    assert not kept(Leaf("eq", "f1", (5_000_000_000,)))
    assert kept(Leaf("lt", "f1", (5_000_000_000,)))
    assert not kept(Leaf("lt", "f1", (-2**40,)))
    stats_double = ValueStats(serialize([1], [old]), serialize([2**31 - 1], [old]), (0,))
    assert not Statistics(stats_double, ("f1",), {"f1": old}, 10, literal_types={"f1": parse_type("DOUBLE")}) \
        .may_match(Leaf("eq", "f1", (0.5,)))
    assert Statistics(stats, ("f1",), {"f1": old}, 10, literal_types={"f1": parse_type("STRING")}) \
        .may_match(Leaf("eq", "f1", ("zzz",)))  # INT to STRING does not keep the order: unknown


@pytest.mark.parametrize("value", [2**53 + 1, -(2**62) - 3, 2**63 - 1, 7])
def test_integer_bounds_cast_to_floating_point_enclose_every_rounding(value):
    from fileindex.table.statistics import _float_bound

    for root, dtype in (("DOUBLE", np.float64), ("FLOAT", np.float32)):
        below, above = _float_bound(value, root, -math.inf), _float_bound(value, root, math.inf)
        assert below <= value <= above and float(dtype(below)) == below and float(dtype(above)) == above
        assert below == float(dtype(value)) or above == float(dtype(value))


@pytest.mark.parametrize("low, high, nulls, leaf", [
    (20, 10, 0, Leaf("eq", "c", (10,))),  # a minimum above its maximum
    (20, 10, 0, Leaf("between", "c", (12, 15))),
    (10, 20, 99, Leaf("is_not_null", "c", ())),  # more nulls than rows
    (10, 20, -1, Leaf("is_null", "c", ())),  # a negative count
], ids=["min above max, =", "min above max, between", "nulls above rows", "negative nulls"])
def test_statistics_that_contradict_themselves_rule_out_nothing(low, high, nulls, leaf):
    """Statistics no file can have (a manifest's that lie) are unknown: they dropped a file holding matching rows
    (``f1 = 10`` on a file whose bounds were swapped answered no row; ``f1 IS NOT NULL``, 99 nulls of 8 rows,
    none)."""
    int_type = parse_type("INT")
    stats = ValueStats(serialize([low], [int_type]), serialize([high], [int_type]), (nulls,))
    assert Statistics(stats, ("c",), {"c": int_type}, 8).may_match(leaf)

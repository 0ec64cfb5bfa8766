"""The brute-force truth of verification against a row-by-row model of Paimon's comparisons."""
import datetime as dt
import math
import struct

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileindex.scan.truth import ColumnTruth, filtered, matches
from fileindex.predicate.tree import Leaf, and_, or_
from fileindex.types import parse_type
from fileindex.values import Timestamp

FUNCTIONS = ["eq", "neq", "lt", "lte", "gt", "gte", "in", "not_in", "between", "not_between", "is_null",
             "is_not_null"]


def java_key(value):
    """Double.compare order: -0.0 < 0.0, every NaN equal and above +Infinity."""
    if isinstance(value, float):
        if math.isnan(value):
            return (2, 0)
        bits = struct.unpack(">q", struct.pack(">d", value))[0]
        return (1, bits ^ 0x7FFFFFFFFFFFFFFF if bits < 0 else bits)
    return value


def model(value, leaf: Leaf) -> bool:
    f, lits = leaf.function, leaf.literals
    if f == "is_null":
        return value is None
    if f == "is_not_null":
        return value is not None
    if value is None:
        return False
    if f in ("in", "not_in"):
        if f == "not_in" and any(v is None for v in lits):
            return False
        hit = any(v is not None and java_key(value) == java_key(v) for v in lits)
        return hit if f == "in" else not hit
    if any(v is None for v in lits):
        return False
    k = java_key(value)
    if f in ("between", "not_between"):
        inside = java_key(lits[0]) <= k <= java_key(lits[1])
        return inside if f == "between" else not inside
    other = java_key(lits[0])
    return {"eq": k == other, "neq": k != other, "lt": k < other, "lte": k <= other, "gt": k > other,
            "gte": k >= other}[f]


def leaves(values):
    return st.builds(lambda f, a, b: Leaf(f, "c", () if f in ("is_null", "is_not_null") else
                                          (a, b) if f in ("in", "not_in", "between", "not_between") else (a,)),
                     st.sampled_from(FUNCTIONS), values, values)


DOUBLES = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, -2.25]) | st.floats(width=64)
# FLOAT: literals and values a float32 holds (a literal is rounded to the column's width, as Java's Float is)
FLOATS = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, -2.25]) | st.floats(width=32)
CASES = [("DOUBLE", pa.float64(), DOUBLES), ("BIGINT", pa.int64(), st.integers(-2**63, 2**63 - 1)),
         ("STRING", pa.string(), st.text(max_size=4)), ("INT", pa.int32(), st.integers(-5, 5)),
         ("BYTES", pa.binary(), st.binary(max_size=3))]


@given(st.data())
def test_truth_matches_the_row_model(data):
    name, arrow, values = data.draw(st.sampled_from(CASES))
    column = data.draw(st.lists(values | st.none(), max_size=30))
    leaf = data.draw(leaves(values | st.none()))
    got = ColumnTruth(pa.array(column, type=arrow), parse_type(name)).matches(leaf)
    assert got.tolist() == [model(v, leaf) for v in column], (leaf, column)


@given(st.lists(st.integers(-10**15, 10**15) | st.none(), max_size=20), st.integers(-10**15, 10**15),
       st.integers(0, 999_999), st.sampled_from(FUNCTIONS[:6]))
def test_timestamp_literals_finer_than_the_column(micros, millis, nanos, function):
    """A TIMESTAMP(6) column against a nanosecond literal: compared exactly, not rounded."""
    literal = Timestamp(millis, nanos)
    column = pa.array(micros, type=pa.timestamp("us"))
    got = ColumnTruth(column, parse_type("TIMESTAMP(6)")).matches(Leaf(function, "c", (literal,)))
    exact = millis * 1_000_000 + nanos
    expected = [v is not None and model(v * 1000, Leaf(function, "c", (exact,))) for v in micros]
    assert got.tolist() == expected



WIDE = st.integers(-10**20 + 1, 10**20 - 1)  # unscaled DECIMAL(20, 4) values, past a long's range too


@given(st.lists(WIDE | st.none(), max_size=20), st.integers(-10**25, 10**25), st.integers(2, 6),
       st.sampled_from(FUNCTIONS[:10]), WIDE)
def test_decimals_wider_than_a_long_compare_exactly(unscaled, literal, scale, function, other):
    """A DECIMAL(20, 4) column (its values past a long's range too) against literals of any scale, finer than
    the column's too: compared exactly (a row model over Python Decimals), not refused as a long overflow."""
    import decimal

    column = pa.array([None if u is None else decimal.Decimal(u).scaleb(-4) for u in unscaled], pa.decimal128(20, 4))
    literals = (decimal.Decimal(literal).scaleb(-scale), decimal.Decimal(other).scaleb(-4))
    leaf = Leaf(function, "c", literals if function in ("in", "not_in", "between", "not_between") else literals[:1])
    got = ColumnTruth(column, parse_type("DECIMAL(20, 4)")).matches(leaf)
    assert got.tolist() == [model(v, leaf) for v in column.to_pylist()], leaf


def test_map_key_column_and_compound_predicates():
    table = pa.table({"m": pa.array([[("k", 1)], [("j", 2)], None, [("k", 3)]], type=pa.map_(pa.string(), pa.int32())),
                      "s": ["a", "b", "c", None]})
    types = {"m": parse_type("MAP<STRING, INT>"), "s": parse_type("STRING")}
    assert matches(table, Leaf("is_null", "m[k]"), types).tolist() == [False, True, True, False]
    predicate = or_(Leaf("gte", "m[k]", (3,)), and_(Leaf("eq", "s", ("b",)), Leaf("is_null", "m[k]")))
    assert matches(table, predicate, types).tolist() == [False, True, False, True]


ARROW_CASES = [("BIGINT", pa.int64(), st.integers(-2**63, 2**63 - 1)), ("INT", pa.int32(), st.integers(-5, 5)),
               ("TINYINT", pa.int8(), st.integers(-3, 3)), ("STRING", pa.string(), st.text(max_size=4)),
               ("BYTES", pa.binary(), st.binary(max_size=3)),
               ("DECIMAL(12, 2)", pa.decimal128(12, 2), st.decimals(-10**4, 10**4, places=2)),
               ("DOUBLE", pa.float64(), DOUBLES), ("FLOAT", pa.float32(), FLOATS),
               ("TIMESTAMP(6)", pa.timestamp("us"), st.datetimes(dt.datetime(1960, 1, 1), dt.datetime(2040, 1, 1))),
               ("TIMESTAMP_LTZ(3)", pa.timestamp("ms", tz="UTC"),
                st.datetimes(dt.datetime(1960, 1, 1), dt.datetime(2040, 1, 1)).map(
                    lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)))]
# literals finer than the column's type holds: these are answered by `matches`
WIDER = {"DECIMAL(12, 2)": st.decimals(-10**4, 10**4, places=3),
         "TIMESTAMP(6)": st.builds(Timestamp, st.integers(-10**12, 10**12), st.integers(0, 999_999)),
         "TIMESTAMP_LTZ(3)": st.builds(Timestamp, st.integers(-10**12, 10**12), st.integers(0, 999_999))}


def drawn_table_and_tree(data, cases: list, nulls: bool, wider: dict) -> tuple[pa.Table, object, dict]:
    """A table of one to three columns of ``cases`` (with nulls or none) and a tree of one to four leaves over
    them (literals from the column's values, ``wider`` ones, or null), an AND inside an OR or the other way."""
    chosen = data.draw(st.lists(st.sampled_from(cases), min_size=1, max_size=3, unique_by=lambda c: c[0]))
    rows = data.draw(st.integers(0, 25))
    names = [f"c{i}" for i in range(len(chosen))]
    table = pa.table({name: pa.array(data.draw(st.lists(values | st.none() if nulls else values, min_size=rows,
                                                        max_size=rows)), type=arrow)
                      for name, (_, arrow, values) in zip(names, chosen, strict=True)})
    types = {name: parse_type(type_name) for name, (type_name, _, _) in zip(names, chosen, strict=True)}

    def leaf():
        index = data.draw(st.integers(0, len(names) - 1))
        type_name, _, values = chosen[index]
        drawn = data.draw(leaves((values | wider.get(type_name, values)) | st.none()))
        return Leaf(drawn.function, names[index], drawn.literals)

    drawn = [leaf() for _ in range(data.draw(st.integers(1, 4)))]
    split = data.draw(st.integers(1, len(drawn)))
    inner, outer = data.draw(st.permutations([and_, or_]))
    return table, outer(inner(*drawn[:split]), *drawn[split:]), types


def assert_filtered_as_matches(table: pa.Table, tree, types: dict) -> list[int]:
    """``filtered`` keeps the rows ``matches`` finds (their positions, returned)."""
    expected = np.flatnonzero(matches(table, tree, types)).tolist()
    numbered = table.append_column("row", pa.array(range(table.num_rows), type=pa.int64()))  # (NaN != NaN in equals)
    assert filtered(numbered, tree, types).column("row").to_pylist() == expected, tree
    return expected


@given(st.data())
def test_arrow_filters_keep_exactly_the_rows_that_match(data):
    """``filtered`` (Arrow's kernels where Arrow compares as Paimon does) keeps exactly the rows ``matches``
    finds, for trees of leaves over nullable columns of several types, with literals exact and finer."""
    assert_filtered_as_matches(*drawn_table_and_tree(data, ARROW_CASES, True, WIDER))


def test_arrow_filters_answer_integers_decimals_and_strings_themselves(monkeypatch):
    """Arrow's kernels are what filter these (``matches``, the fallback, is not called)."""
    import decimal

    from fileindex.scan import truth
    table = pa.table({"n": pa.array([1, None, 3]), "d": pa.array([decimal.Decimal("1.50"), None, None],
                                                                 pa.decimal128(12, 2)), "s": ["a", "b", None]})
    types = {"n": parse_type("BIGINT"), "d": parse_type("DECIMAL(12, 2)"), "s": parse_type("STRING")}
    monkeypatch.setattr(truth, "matches", lambda *a: (_ for _ in ()).throw(AssertionError("fell back")))
    tree = or_(Leaf("gt", "n", (2,)), and_(Leaf("lte", "d", (decimal.Decimal("1.5"),)), Leaf("not_in", "s", ("b",))))
    assert truth.filtered(table, tree, types).column("n").to_pylist() == [1, 3]


def test_arrow_filters_answer_timestamps_on_the_columns_ticks(monkeypatch):
    """A timestamp literal on one of the column's ticks is compared by Arrow's kernels (a range bitmap's window
    reads no numpy); one between two ticks (nanoseconds of a microsecond column) by ``matches``."""
    from fileindex.scan import truth
    day = dt.datetime(2026, 1, 26)
    table = pa.table({"ts": pa.array([day, None, day + dt.timedelta(minutes=30)], pa.timestamp("us"))})
    types = {"ts": parse_type("TIMESTAMP(6)")}
    window = and_(Leaf("gte", "ts", (Timestamp.from_datetime(day),)),
                  Leaf("lt", "ts", (Timestamp.from_datetime(day + dt.timedelta(minutes=20)),)))
    with monkeypatch.context() as patched:
        patched.setattr(truth, "matches", lambda *a: (_ for _ in ()).throw(AssertionError("fell back")))
        assert truth.filtered(table, window, types).num_rows == 1
    finer = Leaf("gte", "ts", (Timestamp(Timestamp.from_datetime(day).millis, 1),))
    assert truth.kept_mask(table, finer, types).to_pylist() == [False, False, True]



def floating_column(values: list, arrow: pa.DataType, odd_nans: list[int]) -> pa.Array:
    """``values`` as a column of ``arrow``, the rows at ``odd_nans`` holding NaNs of other bits than Python's
    (negative, another payload): Java canonicalizes every NaN, so all compare alike."""
    base = pa.array(values, type=arrow)
    width = arrow.bit_width // 8
    patterns = [b"\xff" * width, b"\x01" + b"\x00" * (width - 3) + (b"\xf0\x7f" if width == 8 else b"\x80\x7f")]
    data = bytearray(base.buffers()[1].to_pybytes())
    for number, row in enumerate(odd_nans):
        data[row * width:(row + 1) * width] = patterns[number % 2]
    return pa.Array.from_buffers(arrow, len(values), [base.buffers()[0], pa.py_buffer(bytes(data))])


@given(st.data())
def test_arrow_compares_floats_and_doubles_as_java_does(data):
    """FLOAT and DOUBLE leaves are filtered by Arrow's kernels on the values' bits, in ``Float.compare`` /
    ``Double.compare`` order: -0.0 below 0.0, every NaN (any sign or payload) equal to NaN and above +Infinity,
    nulls matching nothing but IS NULL. Held to the row model, with ``matches`` never called."""
    from fileindex.scan import truth

    name, arrow, values = data.draw(st.sampled_from([("DOUBLE", pa.float64(), DOUBLES),
                                                     ("FLOAT", pa.float32(), FLOATS)]))
    column = data.draw(st.lists(values | st.none(), max_size=20))
    odd = data.draw(st.lists(st.sampled_from([i for i, v in enumerate(column) if v is not None] or [None]),
                             max_size=3, unique=True).map(lambda rows: [r for r in rows if r is not None]))
    leaf = data.draw(leaves(values | st.none()))
    table = pa.table({"c": floating_column(column, arrow, odd)})
    modelled = [None if v is None else math.nan if i in odd else v for i, v in enumerate(column)]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(truth, "matches", lambda *a: (_ for _ in ()).throw(AssertionError("fell back")))
        mask = truth.kept_mask(table, leaf, {"c": parse_type(name)})
    assert mask.to_pylist() == [model(v, leaf) for v in modelled], (leaf, column, odd)


INTEGER_CASES = [("BIGINT", pa.int64(), st.integers(-2**63, 2**63 - 1)), ("INT", pa.int32(), st.integers(-5, 5)),
                 ("TINYINT", pa.int8(), st.integers(-3, 3))]


@given(st.data())
def test_integer_columns_without_nulls_keep_exactly_the_rows_that_match(data):
    """Integer columns without nulls are filtered by numpy (``_IntegerMask``), which must keep what ``matches``
    finds; a null literal goes to the other paths."""
    from fileindex.scan import truth

    table, tree, types = drawn_table_and_tree(data, INTEGER_CASES, False, {})
    expected = assert_filtered_as_matches(table, tree, types)
    assert [row for row, kept in enumerate(truth.kept_mask(table, tree, types).to_pylist()) if kept] == expected, tree


def test_integer_columns_without_nulls_are_filtered_by_numpy(monkeypatch):
    """An IN and a range over integer columns without nulls are answered by numpy, neither Arrow's kernels nor
    ``matches`` called; a column with a null is not."""
    from fileindex.scan import truth

    table = pa.table({"id": pa.array([5, 7, 9, 11], pa.int64()), "n": pa.array([1, 2, 3, 4], pa.int32())})
    types = {"id": parse_type("BIGINT"), "n": parse_type("INT")}
    monkeypatch.setattr(truth, "matches", lambda *a: (_ for _ in ()).throw(AssertionError("fell back")))
    monkeypatch.setattr(truth._ArrowMask, "leaf", lambda *a: (_ for _ in ()).throw(AssertionError("by Arrow")))
    tree = and_(or_(Leaf("in", "id", (7, 11, 12)), Leaf("eq", "id", (5,))), Leaf("not_between", "n", (2, 3)))
    assert truth.kept_mask(table, tree, types).to_pylist() == [True, False, False, True]
    with_null = pa.table({"id": pa.array([5, None], pa.int64())})
    try:
        truth.kept_mask(with_null, Leaf("eq", "id", (5,)), types)
    except AssertionError as err:
        assert str(err) == "by Arrow"
    else:
        raise AssertionError("a column with a null was answered by numpy")

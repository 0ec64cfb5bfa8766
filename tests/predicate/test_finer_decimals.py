"""A DECIMAL literal with more places than its column is compared by value, as SQL compares it: ``d = 1.005`` on
DECIMAL(10, 2) matches no row, ``d > 1.005`` matches 1.01 and up. Every route agrees with a reference that compares
Python decimals: the exact filter (``scan.truth``), min/max statistics (never pruning a file with a matching row),
and each index Paimon builds on a DECIMAL (bsi, range-bitmap), sound, and exact where it says so; and a table's read and
count."""
import decimal

import pyarrow as pa
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from index_answers import kept_rows
from sql_comparisons import condition, sql_answer

from fileindex import PaimonTable
from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError
from fileindex.java.binary_row import serialize
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.truth import matches
from fileindex.table.metadata import ValueStats
from fileindex.table.statistics import Statistics
from fileindex.types import parse_type
from fileindex.writing.data_file import build_table_index
from fileindex.writing.options import parse_options

D = decimal.Decimal
TYPES = ["DECIMAL(10, 2)", "DECIMAL(20, 4)", "DECIMAL(5, 0)"]
INDEXES = ["bsi", "range-bitmap"]  # (the indexes Paimon builds on a DECIMAL)
OPERATORS = ["=", "<>", "<", "<=", ">", ">=", "IN", "NOT IN", "BETWEEN", "NOT BETWEEN"]
DECIMAL_KEY = ROOT / "tests" / "tables" / "primary-keys" / "decimal_key"


@st.composite
def cases(draw):
    """(type, values, operator, literal texts): values near each other and literals at the column's scale or up to
    two places finer, so that finer literals fall between, on and beside the values."""
    type_name = draw(st.sampled_from(TYPES))
    scale = parse_type(type_name).scale
    values = draw(st.lists(st.one_of(st.none(), st.integers(-40, 40).map(lambda k: D(k).scaleb(-scale))),
                           min_size=1, max_size=12))
    operator = draw(st.sampled_from(OPERATORS))
    count = 2 if operator.endswith("BETWEEN") else draw(st.integers(1, 3)) if operator.endswith("IN") else 1
    places = st.integers(scale, scale + 2)
    texts = [str(D(draw(st.integers(-4100, 4100))).scaleb(-scale - 2).quantize(D(1).scaleb(-draw(places)),
                                                                              rounding=decimal.ROUND_DOWN))
             for _ in range(count)]
    return type_name, values, operator, texts


@settings(max_examples=400, deadline=None)
@given(cases())
def test_every_route_compares_a_finer_decimal_literal_by_value(case):
    type_name, values, operator, texts = case
    data_type = parse_type(type_name)
    schema = {"c": data_type}
    predicate = parse_predicate(condition(operator, texts), schema)
    literals = [D(text) for text in texts]
    expected = {row for row, value in enumerate(values) if sql_answer(value, operator, literals)}
    table = pa.table({"c": pa.array(values, type=pa.decimal128(data_type.precision, data_type.scale))})

    assert {row for row, hit in enumerate(matches(table, predicate, schema)) if hit} == expected

    present = [v for v in values if v is not None]
    low, high = (min(present), max(present)) if present else (None, None)
    stats = ValueStats(serialize([low], [data_type]), serialize([high], [data_type]), (len(values) - len(present),))
    if not Statistics(stats, ("c",), schema, len(values)).may_match(predicate):
        assert not expected

    for index_type in INDEXES[:1] if data_type.precision > 18 else INDEXES:  # (range-bitmap: precision 18 at most)
        options = parse_options({f"file-index.{index_type}.columns": "c"}, schema)
        container = FileIndexContainer.from_bytes(build_table_index(table, schema, options).data)
        for extended in (False, True):
            answer = FileIndexEvaluator(schema, extended=extended).evaluate_exact(container, predicate)
            kept = kept_rows(answer.result, len(values))
            assert expected <= kept, (index_type, extended, predicate)
            if answer.exact:
                assert kept == expected, (index_type, extended, predicate)


@pytest.mark.parametrize("where, rows", [
    ("d = 1.005", []), ("d <> 1.005", ["1.00", "1.01", "1.02"]), ("d > 1.005", ["1.01", "1.02"]),
    ("d >= 1.005", ["1.01", "1.02"]), ("d < 1.005", ["1.00"]), ("d <= 1.005", ["1.00"]),
    ("d IN (1.005, 1.02)", ["1.02"]), ("d NOT IN (1.005, 1.02)", ["1.00", "1.01"]),
    ("d BETWEEN 1.005 AND 1.015", ["1.01"]), ("d NOT BETWEEN 1.005 AND 1.015", ["1.00", "1.02"]),
    ("d = 1.010", ["1.01"]),
])
def test_a_finer_literal_answers_as_sql_does(where, rows):
    data_type = parse_type("DECIMAL(10, 2)")
    values = [D("1.00"), D("1.01"), D("1.02"), None]
    table = pa.table({"d": pa.array(values, type=pa.decimal128(10, 2))})
    options = parse_options({"file-index.bsi.columns": "d"}, {"d": data_type})
    container = FileIndexContainer.from_bytes(build_table_index(table, {"d": data_type}, options).data)
    predicate = parse_predicate(where, {"d": data_type})
    answer = FileIndexEvaluator({"d": data_type}).evaluate_exact(container, predicate)
    kept = [str(values[row]) for row in sorted(kept_rows(answer.result, 4))]
    if where.startswith("d NOT BETWEEN"):  # (no index answers NOT BETWEEN, whatever its literals: every row kept)
        assert not answer.exact and set(rows) <= set(kept)
    else:
        assert answer.exact and kept == rows
    assert [str(v) for v in values if v is not None and matches(table, predicate, {"d": data_type})[
        values.index(v)]] == rows


@pytest.mark.parametrize("where, why", [
    ("d = 100000000.005", "out of range (it holds -99999999.99 to 99999999.99)"),
    ("d > -123456789", "out of range"),
    ("d = 1." + "0" * 80 + "1", "needs more digits than the type has"),
])
def test_a_literal_beyond_the_type_is_still_refused(where, why):
    with pytest.raises(UsageError, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse_predicate(where, {"d": parse_type("DECIMAL(10, 2)")})


@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("texts", [["0.00005", "12.50001"], ["-1.00001", "0.0001"], ["12.49999", "12.5"]])
def test_a_table_read_and_count_compare_a_finer_key_literal_by_value(operator, texts):
    """A primary-key table's DECIMAL(20, 4) key: its key statistics, the merge and the row filter alike."""
    everything = PaimonTable(DECIMAL_KEY).scan().to_arrow().to_pylist()
    where = condition(operator, texts[:1] if operator in ("=", "<>", "<", "<=", ">", ">=") else texts).replace(
        "c ", "k ", 1)
    literals = [D(text) for text in texts]
    expected = [row for row in everything if sql_answer(row["k"], operator, literals[:1] if operator in (
        "=", "<>", "<", "<=", ">", ">=") else literals)]
    scan = PaimonTable(DECIMAL_KEY).scan(where)
    assert scan.to_arrow().to_pylist() == expected
    assert PaimonTable(DECIMAL_KEY).scan(where).count() == len(expected)


@pytest.mark.parametrize("operator", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"])
def test_a_polars_filter_with_a_finer_literal_is_pushed_exactly(operator):
    """Polars compares a DECIMAL column with a finer literal by value too: its filter is pushed, exactly."""
    import polars as pl

    from fileindex.scan.polars_filters import polars_pushdown
    from fileindex.scan.pushdown import NO_ROWS

    types = {"d": parse_type("DECIMAL(10, 2)")}
    values = [D("1.00"), D("1.01"), None, D("1.02")]
    table = pa.table({"d": pa.array(values, type=pa.decimal128(10, 2))})
    expression = getattr(pl.col("d"), operator)(D("1.005"))
    kept = pl.from_arrow(table).select(expression.alias("r")).to_series().to_list()
    pushed = polars_pushdown(expression, types)
    assert pushed.exact
    rows = [False] * len(values) if pushed.true is NO_ROWS else list(matches(table, pushed.true, types))
    assert rows == [hit is True for hit in kept]


def test_a_literal_of_38_digits_is_in_range_where_the_type_holds_it():
    wide = {"d": parse_type("DECIMAL(38, 2)")}
    assert parse_predicate("d = -999999999999999999999999999999999999.99", wide).literals[0] == D(
        "-999999999999999999999999999999999999.99")
    assert parse_predicate("d > 999999999999999999999999999999999999.994", wide).literals[0] == D(
        "999999999999999999999999999999999999.994")
    with pytest.raises(UsageError, match="half up to 2 places: 1000000000000000000000000000000000000.00;"):
        parse_predicate("d > 999999999999999999999999999999999999.995", wide)  # (as Paimon casts it: no value)

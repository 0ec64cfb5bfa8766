"""What a Polars filter or a DuckDB WHERE lets a scan prune with (``scan.pushdown``): for Hypothesis-drawn
Polars expressions and SQL conditions over a small frame of every comparable type (nulls, NaN, both zeros,
timestamps of three units and a zone), the predicate tree built for where the filter is TRUE holds on every row
the engine keeps (and the one for FALSE on every row it calls FALSE), by Paimon's semantics (``scan.truth``);
where the translation claims exactness, it holds on exactly those rows. DuckDB trusts an exact translation: a
source that filters by it must give DuckDB's own answer."""
from __future__ import annotations

import datetime as dt
import decimal
import functools
import json
import math
import operator
from types import SimpleNamespace

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from fileindex.arrow.types import arrow_type
from fileindex.scan.duckdb_source import duckdb_pushdown
from fileindex.scan.polars_filters import polars_pushdown
from fileindex.scan.pushdown import ALL_ROWS, NO_ROWS, Pushed, all_of
from fileindex.scan.truth import matches
from fileindex.predicate.parser import MAX_NESTING
from fileindex.predicate.tree import leaves
from fileindex.types import parse_type

NAN, INF = float("nan"), float("inf")
UTC = dt.UTC
TYPES = {name: parse_type(text) for name, text in {
    "i": "INT", "big": "BIGINT", "tiny": "TINYINT", "s": "STRING", "d": "DOUBLE", "f": "FLOAT",
    "m": "DECIMAL(10, 2)", "day": "DATE", "ts3": "TIMESTAMP(3)", "ts6": "TIMESTAMP(6)",
    "tz": "TIMESTAMP(6) WITH LOCAL TIME ZONE", "flag": "BOOLEAN", "bin": "BYTES"}.items()}
T0 = dt.datetime(2024, 1, 1, 12, 0, 0)
VALUES = {
    "i": [1, -7, 0, None, 5, 2**31 - 1, 5, -2**31],
    "big": [2**40, None, -1, 0, 7, 7, 2**63 - 1, 3],
    "tiny": [1, 2, None, -128, 127, 0, 3, 3],
    "s": ["a", "é", "", None, "zz", "B", "a'b", "`x` = 'y'"],
    "d": [NAN, -0.0, 0.0, 1.5, None, -INF, INF, 2.25],
    "f": [0.5, -0.0, NAN, None, 3.0, 0.0, -1.25, 1e30],
    "m": [decimal.Decimal("1.25"), None, decimal.Decimal("-3.00"), decimal.Decimal("0.00"),
          decimal.Decimal("99999999.99"), decimal.Decimal("1.20"), None, decimal.Decimal("0.01")],
    "day": [dt.date(2024, 1, 1), dt.date(1969, 12, 31), None, dt.date(2024, 1, 2), dt.date(1, 1, 1),
            dt.date(9999, 12, 31), dt.date(2024, 1, 1), dt.date(2000, 2, 29)],
    "ts3": [T0, T0 + dt.timedelta(milliseconds=1), None, T0 - dt.timedelta(days=400), T0, dt.datetime(1960, 1, 1),
            T0 + dt.timedelta(seconds=1), T0 + dt.timedelta(milliseconds=999)],
    "ts6": [T0, T0 + dt.timedelta(microseconds=1), None, T0 + dt.timedelta(microseconds=1500),
            dt.datetime(1969, 12, 31, 23, 59, 59, 999999), T0, T0 - dt.timedelta(hours=1), T0],
    "tz": [T0.replace(tzinfo=UTC), None, (T0 + dt.timedelta(microseconds=3)).replace(tzinfo=UTC),
           dt.datetime(1970, 1, 1, tzinfo=UTC), T0.replace(tzinfo=UTC), None,
           dt.datetime(2030, 5, 5, tzinfo=UTC), dt.datetime(1950, 5, 5, tzinfo=UTC)],
    "flag": [True, False, None, True, True, False, None, False],
    "bin": [b"a", b"", None, b"\xff\x00", b"a", b"b", b"\x00", None],
}
ROWS = len(VALUES["i"])
TABLE = pa.table({name: pa.array(values, type=arrow_type(TYPES[name])) for name, values in VALUES.items()})
FRAME = pl.from_arrow(TABLE)
EDGES = {"i": [4, 6, -8, 2**31, 2.0, 2.5], "big": [2**63, -2**63, 6.0], "tiny": [128, -129, 4],
         "s": ["A", "zzz", "\x00"], "d": [0.0, -0.0, 1e308, 1.5], "f": [0.1, 0.0, -0.0, 1e30],
         "m": [decimal.Decimal("1.255"), decimal.Decimal("1.2"), 2, decimal.Decimal("-3")],
         "day": [dt.date(2024, 1, 3)], "ts3": [T0 + dt.timedelta(microseconds=1500), T0 + dt.timedelta(milliseconds=2)],
         "ts6": [T0 + dt.timedelta(microseconds=2)], "tz": [dt.datetime(2024, 1, 1, 12, tzinfo=UTC)],
         "flag": [True, False], "bin": [b"\xff", b"c"]}
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
# is_in with a Series of the column's own type, as users write it (Polars 2 deprecates it for implode)
pytestmark = pytest.mark.filterwarnings("ignore:`is_in` with a collection of the same datatype:DeprecationWarning")


def pool(column: str) -> list:
    return [v for v in VALUES[column] if v is not None] + EDGES[column]


def rows_of(selection) -> np.ndarray:
    if selection is ALL_ROWS:
        return np.ones(ROWS, dtype=bool)
    if selection is NO_ROWS:
        return np.zeros(ROWS, dtype=bool)
    return matches(TABLE, selection, TYPES)


def check(pushed: Pushed, true_rows: np.ndarray, false_rows: np.ndarray, shown: str) -> None:
    """The translation holds where the engine's filter is TRUE (and FALSE); exactly there if it says so."""
    true_side, false_side = rows_of(pushed.true), rows_of(pushed.false)
    assert not (true_rows & ~true_side).any(), f"{shown}: rows kept by the engine that {pushed.true} drops"
    assert not (false_rows & ~false_side).any(), f"{shown}: FALSE rows outside {pushed.false}"
    if pushed.exact:
        assert (true_side == true_rows).all(), f"{shown}: not exactly {pushed.true}"
        assert (false_side == false_rows).all(), f"{shown}: not exactly {pushed.false} where FALSE"


# -- Polars ------------------------------------------------------------------------------------------

def polars_literal(draw, column: str):
    value = draw(st.sampled_from(pool(column)))
    if isinstance(value, dt.datetime) and draw(st.booleans()):  # the literal in another unit than the column's
        unit = draw(st.sampled_from(["ms", "us", "ns"]))
        return pl.lit(value, dtype=pl.Datetime(unit, "UTC" if value.tzinfo else None))
    if isinstance(value, int) and not isinstance(value, bool) and draw(st.booleans()):
        dtype = draw(st.sampled_from([pl.Int8, pl.Int64, pl.UInt64, pl.Float64, pl.Float32]))
        return pl.lit(value, dtype=dtype, allow_object=False)
    return value


@st.composite
def polars_leaves(draw):
    column = draw(st.sampled_from(sorted(VALUES)))
    c = pl.col(column)
    kind = draw(st.sampled_from(["cmp", "cmp", "null", "in", "in_series", "duckdb_in", "between", "nan", "bare",
                                 "literal"]))
    if kind == "cmp":
        op = draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]))
        literal = polars_literal(draw, column)
        if draw(st.booleans()):
            return getattr(c, f"__{op}__")(literal)
        mirrored = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}[op]
        return getattr(pl.lit(literal) if not isinstance(literal, pl.Expr) else literal, f"__{mirrored}__")(c)
    if kind == "null":
        return c.is_null() if draw(st.booleans()) else c.is_not_null()
    values = draw(st.lists(st.sampled_from(pool(column) + [None]), min_size=0, max_size=4))
    if kind == "in":
        return c.is_in(values, nulls_equal=draw(st.booleans()))
    if kind == "in_series":
        return c.is_in(pl.Series(values, dtype=FRAME.schema[column]), nulls_equal=draw(st.booleans()))
    if kind == "duckdb_in":  # the form DuckDB's LazyFrame pushdown writes for IN
        listed = pl.Series([v for v in values if v is not None] or pool(column)[:1], dtype=FRAME.schema[column])
        return pl.when(c.is_null()).then(pl.lit(None, dtype=pl.Boolean)).otherwise(c.is_in(listed.implode()))
    if kind == "between":
        low, high = draw(st.sampled_from(pool(column))), draw(st.sampled_from(pool(column)))
        return c.is_between(low, high, closed=draw(st.sampled_from(["both", "left", "right", "none"])))
    if kind == "nan":
        return c.is_nan() if draw(st.booleans()) else c.is_not_nan()
    if kind == "bare":
        return pl.col("flag")
    return pl.lit(draw(st.sampled_from([True, False, None])), dtype=pl.Boolean)


@st.composite
def polars_filters(draw, depth: int = 3):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(polars_leaves())
    shape = draw(st.sampled_from(["and", "or", "not", "when", "all", "any"]))
    parts = [draw(polars_filters(depth - 1)) for _ in range(3)]
    if shape == "not":
        return ~parts[0]
    if shape == "when":
        return pl.when(parts[0]).then(parts[1]).otherwise(parts[2])
    if shape in ("all", "any"):
        return (pl.all_horizontal if shape == "all" else pl.any_horizontal)(*parts[:2])
    return parts[0] & parts[1] if shape == "and" else parts[0] | parts[1]


@SETTINGS
@given(st.data())
def test_a_drawn_polars_filter_is_implied_by_its_translation(data):
    try:
        expression = data.draw(polars_filters())
        result = FRAME.select(expression.alias("r")).to_series()
    except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError):
        reject()  # a filter Polars itself refuses
    if result.dtype != pl.Boolean or len(result) != ROWS:
        reject()
    answers = result.to_list()
    true_rows = np.array([a is True for a in answers])
    false_rows = np.array([a is False for a in answers])
    check(polars_pushdown(expression, TYPES), true_rows, false_rows, str(expression))


def test_what_users_write_is_translated_exactly():
    col = pl.col
    cases = [
        col("i").is_in([5, 7]), col("i").is_in(pl.Series([5, 7])), col("s").is_in(["a", "zz"]),
        pl.when(col("i").is_null()).then(pl.lit(None, dtype=pl.Boolean)).otherwise(col("i").is_in(
            pl.Series([5, 7], dtype=pl.Int32).implode())),
        (col("i") == 1) | (col("s") == "zz"), ~(col("i") == 5), ~((col("i") == 5) | col("s").is_null()),
        col("i").is_between(0, 5), col("i").is_between(0, 5, closed="none"), col("d") == 0.0, col("d") < 0,
        col("d") >= 0.0, col("f") == 0.5, col("m") == decimal.Decimal("1.25"), col("m") > 1,
        col("day") == dt.date(2024, 1, 1), col("ts3") >= T0, col("ts6") < T0 + dt.timedelta(microseconds=1),
        col("tz") == T0.replace(tzinfo=UTC), col("flag"), ~col("flag"), col("bin") == b"a",
        (col("i") == 1) & (col("s") == "a"), col("d").is_nan(),
    ]
    for expression in cases:
        pushed = polars_pushdown(expression, TYPES)
        assert pushed.exact and pushed.true is not ALL_ROWS, expression
        answers = FRAME.select(expression.alias("r")).to_series().to_list()
        check(pushed, np.array([a is True for a in answers]), np.array([a is False for a in answers]),
              str(expression))


def test_an_unknown_conjunct_leaves_the_others_pruning():
    expression = (pl.col("i") == 5) & (pl.col("s").str.contains("a")) & (pl.col("d") > 1.0)
    pushed = polars_pushdown(expression, TYPES)
    assert not pushed.exact
    assert sorted(leaf.column for leaf in leaves(pushed.true)) == ["d", "i"]
    assert polars_pushdown(pl.col("s").str.contains("a") | (pl.col("i") == 5), TYPES).true is ALL_ROWS


@pytest.mark.parametrize("expression, why", [
    (pl.col("d") == NAN, "NaN serializes as null: not pushed"),
    (pl.col("ts3") == T0 + dt.timedelta(microseconds=1500), "Polars casts a finer literal to milliseconds"),
    (pl.col("i") == 2.0, "a float literal: Polars compares in floating point"),
    (pl.col("f") == 0.1, "0.1 is no FLOAT: Polars and Paimon would round it otherwise"),
    (pl.col("m") == 1.25, "a float literal on a DECIMAL column"),
    (pl.col("tz") == T0, "a literal without the column's zone"),
    (pl.col("s").str.starts_with("a"), "a string function"),
    (pl.col("i") + 1 == 3, "arithmetic"),
    (pl.col("nobody") == 1, "a column the scan does not have"),
])
def test_what_polars_compares_otherwise_is_not_pushed(expression, why):
    assert polars_pushdown(expression, TYPES).true is ALL_ROWS, why


def test_a_filter_nested_past_the_bound_prunes_nothing_there_and_the_rest_still_prunes():
    """A reduce of ORs thousands deep (a new user's 5000 took minutes) translates at once: the branch past
    MAX_NESTING levels prunes nothing, a conjunct beside it still prunes, and the translation holds on every row."""
    deep = functools.reduce(operator.or_, [pl.col("i") == v for v in range(MAX_NESTING + 20)])
    expression = (pl.col("s") == "a") & deep
    pushed = polars_pushdown(expression, TYPES)
    assert [(leaf.column, leaf.literals) for leaf in leaves(pushed.true)] == [("s", ("a",))]
    answers = FRAME.select(expression.alias("r")).to_series().to_list()
    check(pushed, np.array([a is True for a in answers]), np.array([a is False for a in answers]), "deep")
    shallow = functools.reduce(operator.or_, [pl.col("i") == v for v in range(MAX_NESTING - 2)])
    assert len(list(leaves(polars_pushdown(shallow, TYPES).true))) == MAX_NESTING - 2  # within the bound: all pushed
    assert polars_pushdown(functools.reduce(operator.or_, [pl.col("i") == v for v in range(5000)]),
                           TYPES).true is ALL_ROWS


def test_a_column_name_holding_a_backtick_is_a_name_not_predicate_text():
    """#57: a column named ``name` = 'nomatch' AND `name`` once became predicate text that pruned every file."""
    hostile = "name` = 'nomatch' AND `name"
    types = {hostile: parse_type("STRING"), "name": parse_type("STRING")}
    pushed = polars_pushdown(pl.col(hostile) == "blue", types)
    assert [(leaf.column, leaf.function, leaf.literals) for leaf in leaves(pushed.true)] == [(hostile, "eq", ("blue",))]


# -- DuckDB ------------------------------------------------------------------------------------------

def sql_literal(value, column: str) -> str:
    data_type = TYPES[column]
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        text = "'NaN'" if math.isnan(value) else f"'{'-' if value < 0 else ''}Infinity'" if math.isinf(value) \
            else repr(value)
        return f"{text}::{'FLOAT' if data_type.root == 'FLOAT' and not math.isnan(value) else 'DOUBLE'}"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "'" + "".join(f"\\x{b:02x}" for b in value) + "'::BLOB"
    if isinstance(value, dt.datetime):
        if value.tzinfo:
            return f"TIMESTAMPTZ '{value.astimezone(UTC).replace(tzinfo=None).isoformat(sep=' ')}+00'"
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    return str(value)


@st.composite
def sql_leaves(draw):
    column = draw(st.sampled_from(sorted(VALUES)))
    name = f'"{column}"'
    pick = lambda: sql_literal(draw(st.sampled_from(pool(column))), column)  # noqa: E731
    kind = draw(st.sampled_from(["cmp", "cmp", "null", "in", "not_in", "between"]))
    if kind == "cmp":
        return f"{name} {draw(st.sampled_from(['=', '<>', '<', '<=', '>', '>=']))} {pick()}"
    if kind == "null":
        return f"{name} IS {draw(st.sampled_from(['', 'NOT ']))}NULL"
    if kind in ("in", "not_in"):
        listed = [pick() for _ in range(draw(st.integers(1, 4)))] + (["NULL"] if draw(st.booleans()) else [])
        return f"{name} {'NOT ' if kind == 'not_in' else ''}IN ({', '.join(listed)})"
    return f"{name} BETWEEN {pick()} AND {pick()}"


@st.composite
def sql_conditions(draw, depth: int = 3):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(sql_leaves())
    shape = draw(st.sampled_from(["AND", "OR", "NOT"]))
    if shape == "NOT":
        return f"NOT ({draw(sql_conditions(depth - 1))})"
    return f" {shape} ".join(f"({draw(sql_conditions(depth - 1))})" for _ in range(2))


class MemorySource(duckdb._sources.ArrowScanSource):
    """DuckDB's Arrow scan source protocol over an Arrow table, filtering by what ``duckdb_pushdown`` accepts, as
    the table scan's source does (``scan.duckdb_source``)."""

    schema_is_stable = True

    def __init__(self, table: pa.Table):
        super().__init__(table)
        self.table, self.accepted = table, []
        self.scan = SimpleNamespace(columns=table.column_names, types={**TYPES, "_row": parse_type("INT")})

    def __arrow_c_schema__(self):
        return self.table.schema.__arrow_c_schema__()

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__(requested_schema)

    def accepts(self, predicate) -> bool:
        exact = duckdb_pushdown(predicate, self.scan).exact
        if exact:
            self.accepted.append(predicate.fragment())
        return exact

    def stream(self, columns, filters):
        pushed = all_of(duckdb_pushdown(node, self.scan) for node in filters).true
        rows = self.table if pushed is ALL_ROWS else self.table.slice(0, 0) if pushed is NO_ROWS else \
            self.table.filter(matches(self.table, pushed, self.scan.types))
        return rows.__arrow_c_stream__(), False


@pytest.fixture(scope="module")
def duck():
    table = TABLE.append_column("_row", pa.array(range(ROWS), pa.int32()))
    connection = duckdb.connect()
    source = MemorySource(table)
    connection.from_arrow(source).create_view("pushed")
    connection.from_arrow(table).create_view("plain")
    yield connection, source
    connection.close()


@SETTINGS
@given(st.data())
def test_duckdb_gives_its_own_answer_through_the_filters_it_leaves_to_the_source(duck, data):
    connection, source = duck
    condition = data.draw(sql_conditions())
    try:
        truth = connection.sql(f"SELECT _row FROM plain WHERE {condition} ORDER BY _row").fetchall()
    except duckdb.Error:
        reject()  # (a literal DuckDB will not cast to the column's type)
    assert connection.sql(f"SELECT _row FROM pushed WHERE {condition} ORDER BY _row").fetchall() == truth, condition


def test_duckdb_leaves_the_source_the_filters_users_write(duck):
    connection, source = duck
    for condition, expected in [
        ("i IN (5, 7)", '("i" IN (5, 7))'), ("i = 1 OR s = 'zz'", '(("i" = 1) OR ("s" = \'zz\'))'),
        ("NOT (i = 5 OR s IS NULL)", None), ("d = 0", None), ("m > 1.2", None), ("day = DATE '2024-01-01'", None),
        ("ts3 >= TIMESTAMP_MS '2024-01-01 12:00:00'", None), ("tz < TIMESTAMPTZ '2024-01-01 12:00:00+00'", None),
        ("i BETWEEN 0 AND 5", None), ("f > 0.5", None), ("flag = TRUE", None), ("bin = '\\x61'::BLOB", None),
    ]:
        source.accepted.clear()
        rows = connection.sql(f"SELECT _row FROM pushed WHERE {condition} ORDER BY _row").fetchall()
        assert rows == connection.sql(f"SELECT _row FROM plain WHERE {condition} ORDER BY _row").fetchall()
        assert source.accepted, f"{condition}: DuckDB kept the filter (nothing pruned)"
        assert expected is None or expected in source.accepted, source.accepted
    source.accepted.clear()
    connection.sql("SELECT _row FROM pushed WHERE s LIKE 'a%'").fetchall()
    assert not source.accepted  # (LIKE is DuckDB's to apply: not offered)


def test_duckdb_nulls_in_an_in_list_are_sql_nulls(duck):
    connection, _ = duck
    for condition in ["i IN (1, NULL)", "NOT (i IN (1, NULL))", "i NOT IN (1, NULL)", "i = NULL"]:
        assert connection.sql(f"SELECT _row FROM pushed WHERE {condition}").fetchall() == \
            connection.sql(f"SELECT _row FROM plain WHERE {condition}").fetchall(), condition


def test_the_translation_is_json_safe_for_every_column_name():
    for name in ["`", "``", "a`b", "[x]", "m['k']", "é space", '"q"', "x = 1 OR y", "\\", "\n"]:
        types = {name: parse_type("INT")}
        pushed = polars_pushdown(pl.col(name) == 3, types)
        assert [leaf.column for leaf in leaves(pushed.true)] == [name], json.dumps(name)


def test_predicate_text_keeps_a_bracketed_column_a_column():
    """``to_sql`` writes a column named ``br[0]`` as that column (quoted), a map key as a map key."""
    from fileindex.predicate.parser import parse_predicate, to_sql

    types = {"br[0]": parse_type("INT"), "m": parse_type("MAP<STRING, INT>"), "a`b": parse_type("STRING")}
    for where, text in [("`br[0]` = 1", "`br[0]` = 1"), ("m['k'] = 2", "m['k'] = 2"), ("`a``b` = 'x'", "`a``b` = 'x'")]:
        predicate = parse_predicate(where, types)
        assert to_sql(predicate, types) == text
        assert parse_predicate(to_sql(predicate, types), types) == predicate


def test_a_null_in_an_sql_in_list_leaves_the_other_values_null(duck):
    """SQL's ``i IN (1, NULL)`` is NULL, not FALSE, where i is not 1 (DuckDB folds such a list before offering it,
    so the rule is checked here against DuckDB's own answers)."""
    from fileindex.scan.pushdown import Value, member

    connection, _ = duck
    pushed = member("i", TYPES["i"], [Value("int", 1), None], "sql")
    rows = lambda condition: np.isin(np.arange(ROWS), [r for (r,) in connection.sql(  # noqa: E731
        f"SELECT _row FROM plain WHERE {condition}").fetchall()])
    check(pushed, rows("i IN (1, NULL)"), rows("NOT (i IN (1, NULL))"), "i IN (1, NULL)")
    assert pushed.exact and pushed.false is NO_ROWS

"""The engine routes of ``PaimonTable.scan`` on Java-written tables: real Polars expressions through
``to_polars()`` and real DuckDB SQL through ``to_duckdb()`` give the engine's own answer over a plain read of the
table, and open the data files ``scan(where)`` opens; DuckDB reads only the columns a query needs; limits prune
with the engine's filter; ``LazyFrame.explain()`` shows the funnel; hostile column names are names."""
from __future__ import annotations

import datetime as dt
import json
import math
import shutil

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from drawn_predicates import TABLES, Subject, predicates, row_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_table_read import READABLE, plain_rows

from fileindex.scan.polars_filters import polars_pushdown
from fileindex import PaimonTable
from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, visit
from fileindex.types import DataType, column_type
from fileindex.values import Timestamp

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
ALTERED = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"


@pytest.fixture(scope="module")
def subjects() -> dict[str, Subject]:
    return {str(path): Subject(str(path), *plain_rows(path)) for path in READABLE}


# -- a parsed predicate as a Polars expression and as DuckDB SQL (None: a leaf the engines cannot say) ------------

class _Unsayable(Exception):
    pass


def _python_value(value, data_type: DataType):
    if value is None or data_type.root not in ("DATE", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return value
    if data_type.root == "DATE":
        return dt.date(1970, 1, 1) + dt.timedelta(days=value)
    assert isinstance(value, Timestamp)
    if value.nanos_of_milli % 1000:
        raise _Unsayable
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=value.micros)
    return moment.replace(tzinfo=dt.UTC) if data_type.root == "TIMESTAMP_LTZ" else moment


class _AsPolars(PredicateVisitor[pl.Expr]):
    def __init__(self, types: dict[str, DataType]):
        self.types = types

    def leaf(self, leaf: Leaf) -> pl.Expr:
        data_type = column_type(self.types, leaf.column)
        if leaf.column not in self.types or data_type.root == "MAP":
            raise _Unsayable
        column, values = pl.col(leaf.column), [_python_value(v, data_type) for v in leaf.literals]
        function = leaf.function
        if function in (Operator.IS_NULL, Operator.IS_NOT_NULL):
            return column.is_null() if function is Operator.IS_NULL else column.is_not_null()
        if function in (Operator.IN, Operator.NOT_IN):
            inside = column.is_in(pl.Series(values, dtype=None).implode() if values else [])
            return inside if function is Operator.IN else ~inside
        if function in (Operator.BETWEEN, Operator.NOT_BETWEEN):
            inside = column.is_between(pl.lit(values[0]), pl.lit(values[1]))
            return inside if function is Operator.BETWEEN else ~inside
        return function.comparison(column, pl.lit(values[0]))

    def and_(self, children) -> pl.Expr:
        return pl.all_horizontal(*children)

    def or_(self, children) -> pl.Expr:
        return pl.any_horizontal(*children)


def _sql_value(value, data_type: DataType) -> str:
    value = _python_value(value, data_type)
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        text = "NaN" if math.isnan(value) else ("-" if value < 0 else "") + "Infinity" if math.isinf(value) \
            else repr(value)
        return f"'{text}'::DOUBLE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dt.datetime):
        return (f"TIMESTAMPTZ '{value.replace(tzinfo=None).isoformat(sep=' ')}+00'" if value.tzinfo
                else f"TIMESTAMP '{value.isoformat(sep=' ')}'")
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    return str(value)


class _AsSql(PredicateVisitor[str]):
    def __init__(self, types: dict[str, DataType]):
        self.types = types

    def leaf(self, leaf: Leaf) -> str:
        data_type = column_type(self.types, leaf.column)
        if leaf.column not in self.types or data_type.root == "MAP":
            raise _Unsayable
        column = '"' + leaf.column.replace('"', '""') + '"'
        values = [_sql_value(v, data_type) for v in leaf.literals]
        function = leaf.function
        if function.arity == 0:
            return f"{column} {function.sql}"
        if function in (Operator.IN, Operator.NOT_IN):
            return f"{column} {function.sql} ({', '.join(values)})" if values else \
                ("FALSE" if function is Operator.IN else f"{column} IS NOT NULL")
        if function in (Operator.BETWEEN, Operator.NOT_BETWEEN):
            return f"{column} {function.sql} {values[0]} AND {values[1]}"
        return f"{column} {function.sql} {values[0]}"

    def and_(self, children) -> str:
        return "(" + " AND ".join(children) + ")"

    def or_(self, children) -> str:
        return "(" + " OR ".join(children) + ")"


def as_polars(predicate: Predicate, types: dict[str, DataType]) -> pl.Expr | None:
    try:
        return visit(predicate, _AsPolars(types))
    except _Unsayable:
        return None


def as_sql(predicate: Predicate, types: dict[str, DataType]) -> str | None:
    try:
        return visit(predicate, _AsSql(types))
    except _Unsayable:
        return None


def keys(table: pa.Table) -> list[str]:
    return sorted(row_key(r) for r in table.to_pylist())


def reading(opened: list[str], run) -> tuple[list[str], object]:
    """The data files ``run()`` opens (each once: a read may open a file twice, for the predicate's columns
    first), and what it returns."""
    opened.clear()
    result = run()
    return sorted(set(opened)), result


def opened_by(opened: list[str], run) -> list[str]:
    return reading(opened, run)[0]


# -- drawn predicates on every shared table ------------------------------------------------------------------------

@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
@SETTINGS
@given(data=st.data())
def test_engines_answer_as_over_a_plain_read_and_prune_as_where(subjects, opened_files, path, data):
    subject = subjects[str(path)]
    where = data.draw(predicates(subject))
    predicate = parse_predicate(where, subject.types)
    table = PaimonTable(path)
    expression, sql = as_polars(predicate, subject.types), as_sql(predicate, subject.types)
    if expression is not None:
        truth = keys(pl.from_arrow(subject.rows).filter(expression).to_arrow())
        got, frame = reading(opened_files, table.scan().to_polars().filter(expression).collect)
        assert keys(frame.to_arrow()) == truth, f"Polars {expression} (where {where})"
        if polars_pushdown(expression, subject.types).true == predicate:  # the same predicate: the same files
            assert got == opened_by(opened_files, lambda: table.scan(predicate).to_arrow()), where
    if sql is not None:
        connection = duckdb.connect()
        connection.from_arrow(subject.rows).create_view("plain")
        table.scan().to_duckdb(connection, name="routed")
        truth_rows = sorted(map(repr, connection.sql(f"SELECT * FROM plain WHERE {sql}").fetchall()))
        assert sorted(map(repr, connection.sql(f"SELECT * FROM routed WHERE {sql}").fetchall())) == truth_rows, sql
        assert connection.sql("SELECT count(*) FROM routed").fetchall() == [(subject.rows.num_rows,)]  # a 2nd query
        assert sorted(map(repr, connection.sql(f"SELECT * FROM routed WHERE {sql}").fetchall())) == truth_rows, sql
        connection.close()


# -- the files opened, query by query -------------------------------------------------------------------------------

# (where, Polars, SQL): the same condition in each; the scan of ALTERED holds two files, f4's bitmap in the second
CASES = [
    ("f4 = 'Alice'", pl.col("f4") == "Alice", "f4 = 'Alice'"),
    ("f4 IN ('Alice', 'Lucy')", pl.col("f4").is_in(["Alice", "Lucy"]), "f4 IN ('Alice', 'Lucy')"),
    ("f4 IN ('David', 'nobody')", pl.col("f4").is_in(["David", "nobody"]), "f4 IN ('David', 'nobody')"),
    ("f4 = 'David' OR f1 = 7", (pl.col("f4") == "David") | (pl.col("f1") == 7), "f4 = 'David' OR f1 = 7"),
    ("f4 = 'nobody' OR f5 = 999", (pl.col("f4") == "nobody") | (pl.col("f5") == 999), "f4 = 'nobody' OR f5 = 999"),
    ("NOT (f4 <> 'nobody')", ~(pl.col("f4") != "nobody"), "NOT (f4 <> 'nobody')"),
    ("f5 BETWEEN 100 AND 100", pl.col("f5").is_between(100, 100), "f5 BETWEEN 100 AND 100"),
    ("f4 = 'David' AND f3 > 20.0", (pl.col("f4") == "David") & (pl.col("f3") > 20.0), "f4 = 'David' AND f3 > 20.0"),
    ("f4 = 'nobody'", (pl.col("f4") == "nobody") & pl.col("f4").str.contains("o"),  # an unknown conjunct
     "f4 = 'nobody' AND f4 LIKE '%o%'"),
]


@pytest.mark.parametrize("where, expression, sql", CASES, ids=[c[0] for c in CASES])
def test_polars_and_duckdb_open_the_files_where_opens(opened_files, where, expression, sql):
    table = PaimonTable(ALTERED)
    truth = table.scan(where).to_arrow()
    expected = opened_by(opened_files, lambda: table.scan(where).to_arrow())
    files, frame = reading(opened_files, table.scan().to_polars().filter(expression).collect)
    assert files == expected
    assert keys(frame.to_arrow()) == keys(truth)
    connection = duckdb.connect()
    table.scan().to_duckdb(connection, name="orders")
    files, result = reading(opened_files, connection.sql(f"SELECT * FROM orders WHERE {sql}").to_arrow_table)
    assert files == expected, sql
    assert keys(result) == keys(truth)


def test_duckdb_over_the_polars_frame_prunes_through_polars(opened_files):
    """The public route: DuckDB pushes its WHERE into a LazyFrame (IN as a null-guarded ``is_in``), which prunes."""
    table = PaimonTable(ALTERED)
    connection = duckdb.connect()
    connection.from_arrow(table.scan().to_polars()).create_view("lazy")
    for where in ("f4 IN ('David', 'nobody')", "f4 = 'nobody' OR f5 = 999", "f5 BETWEEN 100 AND 100"):
        expected = opened_by(opened_files, table.scan(where).to_arrow)
        files, result = reading(opened_files, connection.sql(f"SELECT * FROM lazy WHERE {where}").to_arrow_table)
        assert files == expected, where
        assert keys(result) == keys(table.scan(where).to_arrow())


def test_duckdb_reads_only_the_columns_a_query_needs(columns_read):
    read = columns_read
    connection = duckdb.connect()
    PaimonTable(ALTERED).scan().to_duckdb(connection, name="orders")
    assert connection.sql("SELECT f1 FROM orders WHERE f4 = 'Alice' ORDER BY f1").fetchall() == [(10,), (20,), (30,)]
    assert read and {name for columns in read for name in columns} <= {"f0", "f1", "f4", "f2"}  # (older names too)
    read.clear()
    assert connection.sql("SELECT count(*) FROM orders").fetchall() == [(12,)]
    assert read and all(len(columns) == 1 for columns in read)


def test_a_view_answers_each_query_on_its_own():
    connection = duckdb.connect()
    PaimonTable(ALTERED).scan(columns=["f4", "f5"]).to_duckdb(connection, name="people")
    for _ in range(2):
        assert connection.sql("SELECT f4 FROM people WHERE f5 = 100 ORDER BY f4").fetchall() == [("Alice",), ("Bob",)]
        assert connection.sql("SELECT count(*) FROM people WHERE f4 = 'nobody'").fetchall() == [(0,)]
        assert connection.sql("SELECT count(*) FROM people").fetchall() == [(12,)]
        assert connection.sql("SELECT count(*) FROM people WHERE f4 LIKE 'A%' LIMIT 1").fetchall() == [(3,)]
    scoped = PaimonTable(ALTERED).scan("f5 IS NOT NULL").to_duckdb(connection)  # the scan's own predicate holds too
    assert sorted(scoped.filter("f4 <> 'Bob'").fetchall()) == [(20, "Emily", 22.1, 101), (30, "Alice", 21.1, 100)]


def test_limits_prune_with_the_engines_filter(opened_files):
    table = PaimonTable(ALTERED)
    every = table.scan().to_arrow()
    for limit in (0, 1, 5, 9, 12, 50):
        first = pl.from_arrow(every.slice(0, limit))
        for expression in (pl.col("f4") == "Alice", pl.col("f4") == "nobody", pl.col("f1") > 10,
                           pl.col("f4").str.contains("o")):
            expected = first.filter(expression)
            limited = table.scan(limit=limit).to_polars()
            assert limited.filter(expression).collect().equals(expected), (limit, expression)
            assert table.scan().to_polars().head(limit).filter(expression).collect().equals(expected)
    scoped = table.scan("f1 <> 20", limit=4)  # a predicate and a limit: the window is that predicate's first rows
    first = pl.from_arrow(table.scan("f1 <> 20").to_arrow().slice(0, 4))
    assert scoped.to_polars().filter(pl.col("f4") == "Bob").collect().equals(first.filter(pl.col("f4") == "Bob"))
    assert opened_by(opened_files, lambda: table.scan(limit=12).to_polars().filter(pl.col("f4") == "nobody")
                     .collect()) == []  # every file's index rules the filter out
    connection = duckdb.connect()
    table.scan(limit=5).to_duckdb(connection, name="five")
    first_five = every.slice(0, 5).column("f4").to_pylist()
    assert connection.sql("SELECT count(*) FROM five WHERE f4 = 'Bob'").fetchall() == [(first_five.count("Bob"),)]


def test_the_polars_plan_shows_the_funnel():
    lazy = PaimonTable(ALTERED).scan("f4 = 'Alice'").to_polars()
    plan = lazy.filter(pl.col("f1") > 5).explain()
    assert "PYTHON[paimon append_with_bitmap_alter_table] SCAN" in plan
    assert ("INFO: snapshot 2 where f4 = 'Alice': statistics 2->2 files, 12->12 rows; file_index 2->2 files, "
            "12->3 rows") in plan and "deletion_vectors" not in plan, plan  # (an append table without them)
    assert "INFO: snapshot 2: " in PaimonTable(ALTERED).scan().to_polars().explain()


# -- hostile column names -------------------------------------------------------------------------------------------

HOSTILE = {"f0": "name` = 'nomatch' AND `name", "f1": "two words", "f2": "br[0]", "f3": 'say "hi"'}


@pytest.fixture
def hostile_table(tmp_path):
    """A copy of a Java-written table whose columns were renamed (a new schema: the data files keep their names,
    read by field id) to names that hold backticks, quotes, spaces and brackets."""
    root = tmp_path / "hostile"
    shutil.copytree(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap", root)
    schema = json.loads((root / "schema" / "schema-0").read_text())
    for field in schema["fields"]:
        field["name"] = HOSTILE[field["name"]]
    (root / "schema" / "schema-1").write_text(json.dumps({**schema, "id": 1}))
    return root


def test_hostile_column_names_are_names_through_where_polars_and_duckdb(hostile_table, opened_files):
    table = PaimonTable(hostile_table)
    rows = table.scan().to_arrow()
    assert rows.column_names == list(HOSTILE.values())
    name, words, brackets, quotes = HOSTILE.values()
    connection = duckdb.connect()
    table.scan().to_duckdb(connection, name="hostile")
    for where, expression, sql, expected in [
        ("`name`` = 'nomatch' AND ``name` = 'Alice'", pl.col(name) == "Alice",
         "\"name` = 'nomatch' AND `name\" = 'Alice'", 2),
        ("`two words` = 20", pl.col(words) == 20, '"two words" = 20', 3),
        ("`br[0]` = 1", pl.col(brackets) == 1, '"br[0]" = 1', 4),
        ('`say "hi"` > 17.0', pl.col(quotes) > 17.0, '"say ""hi""" > 17.0', 2),
        ("`name`` = 'nomatch' AND ``name` = 'nomatch'", pl.col(name) == "nomatch",
         "\"name` = 'nomatch' AND `name\" = 'nomatch'", 0),
    ]:
        expected_files = opened_by(opened_files, table.scan(where).to_arrow)
        assert table.scan(where).to_arrow().num_rows == expected, where
        filtered = table.scan().to_polars().filter(expression)
        assert opened_by(opened_files, filtered.collect) == expected_files
        assert filtered.collect().height == expected, expression
        assert connection.sql(f"SELECT count(*) FROM hostile WHERE {sql}").fetchall() == [(expected,)], sql
    assert opened_by(opened_files, lambda: table.scan().to_polars().filter(pl.col(name) == "nomatch").collect()) == []


def test_a_duckdb_without_the_source_protocol_reads_the_plain_stream(monkeypatch, opened_files):
    """Where the installed DuckDB has no Arrow scan source to subclass, the relation is the scan's Arrow stream:
    the same rows, every file read."""
    from fileindex.scan import duckdb_source

    monkeypatch.setattr(duckdb_source, "_source_class", lambda: None)
    connection = duckdb.connect()
    table = PaimonTable(ALTERED)
    table.scan().to_duckdb(connection, name="orders")
    files, rows = reading(opened_files, connection.sql("SELECT f4 FROM orders WHERE f4 = 'nobody'").fetchall)
    assert rows == [] and len(files) == 2

"""The engine routes on a table Java Paimon 0.9 writes in the run: 16 files (one a commit) of integers, strings,
decimals, dates, timestamps, doubles and booleans, bitmap and bloom-filter indexes, and a column named to break
predicate text (issue 57). Polars expressions and DuckDB SQL give the engines' own answers over a plain read and
open the files ``where`` opens; DuckDB's LIMIT and Polars' ``head`` stop reading early; a limited scan prunes
with the engine's filter."""
from __future__ import annotations

import datetime as dt
import decimal
import random

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from java_oracle import JavaOracle
from test_engine_routes import keys, opened_by, reading

from fileindex.parallel import threads
from fileindex import PaimonTable
from fileindex.values import Timestamp

pytestmark = pytest.mark.java
HOSTILE = "name` = 'nomatch' AND `name"
COLUMNS = [("k", "INT"), ("cat", "STRING"), ("id", "BIGINT"), ("amount", "DECIMAL(10, 2)"), ("day", "DATE"),
           ("ts", "TIMESTAMP(6)"), ("x", "DOUBLE"), ("flag", "BOOLEAN"), ("name", "STRING"), (HOSTILE, "STRING")]
FILES = 16
START = dt.datetime(2026, 1, 1)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """(the table's root, its rows as pyarrow reads the data files)."""
    folder = tmp_path_factory.mktemp("engines")
    rng = random.Random(53)
    commits = []
    for number in range(FILES):
        cats = ["white", "black"] if number % 4 else ["blue", "white"]
        commits.append([[number * 10 + i % 10, rng.choice(cats + [None]), rng.randrange(10**12),
                         str(decimal.Decimal(rng.randrange(-10**5, 10**5)).scaleb(-2)), 20_454 + number,
                         Timestamp(int((START + dt.timedelta(days=number, minutes=i)).timestamp()) * 1000),
                         rng.choice([1.5, -0.0, 0.0, float("nan"), None, float(number)]), rng.choice([True, False]),
                         "nomatch" if i % 3 else "blue", rng.choice(["blue", "red"])] for i in range(20)])
    oracle = JavaOracle(folder / "oracle", tables=True)
    try:
        options = {"bucket": "-1", "file-index.bitmap.columns": "k,cat,day,name",
                   "file-index.bloom-filter.columns": "id"}
        root = oracle.write_table(folder, "orders", COLUMNS, options, commits)
    finally:
        oracle.close()
    table = PaimonTable(root)
    rows = pa.concat_tables([pq.read_table(table.data_path(entry)) for entry, _ in table.live()])
    return root, rows.cast(table.scan().schema)


def test_the_engines_prune_a_java_table_as_where_does(generated, opened_files):
    root, rows = generated
    table = PaimonTable(root)
    assert len(table.live()) == FILES
    window = (START + dt.timedelta(days=5), START + dt.timedelta(days=5, minutes=7))
    connection = duckdb.connect()
    connection.from_arrow(rows).create_view("plain")
    table.scan().to_duckdb(connection, name="orders")
    cases = [
        ("k IN (5, 37)", pl.col("k").is_in([5, 37]), "k IN (5, 37)"),
        ("cat = 'blue' OR k = 150", (pl.col("cat") == "blue") | (pl.col("k") == 150), "cat = 'blue' OR k = 150"),
        ("NOT (cat <> 'blue')", ~(pl.col("cat") != "blue"), "NOT (cat <> 'blue')"),
        ("day BETWEEN DATE '2026-01-03' AND DATE '2026-01-04'",
         pl.col("day").is_between(dt.date(2026, 1, 3), dt.date(2026, 1, 4)),
         "day BETWEEN DATE '2026-01-03' AND DATE '2026-01-04'"),
        (f"ts >= TIMESTAMP '{window[0]}' AND ts < TIMESTAMP '{window[1]}'",
         (pl.col("ts") >= window[0]) & (pl.col("ts") < window[1]),
         f"ts >= TIMESTAMP '{window[0]}' AND ts < TIMESTAMP '{window[1]}'"),
        ("k = 77 AND amount > 0", (pl.col("k") == 77) & (pl.col("amount") > 0), "k = 77 AND amount > 0"),
        ("k = 77 AND (x = 0.0 OR x = -0.0)", (pl.col("k") == 77) & (pl.col("x") == 0), "k = 77 AND x = 0"),
        ("k < 0 OR flag IS NULL", (pl.col("k") < 0) | pl.col("flag").is_null(), "k < 0 OR flag IS NULL"),
    ]
    for where, expression, sql in cases:
        expected = opened_by(opened_files, table.scan(where).to_arrow)
        # (the case prunes, else it shows nothing; but timestamps: their statistics are not used, and no index)
        assert len(expected) < FILES or where.startswith("ts"), where
        files, frame = reading(opened_files, table.scan().to_polars().filter(expression).collect)
        assert files == expected, where
        assert keys(frame.to_arrow()) == keys(pl.from_arrow(rows).filter(expression).to_arrow()), where
        files, result = reading(opened_files, connection.sql(f"SELECT * FROM orders WHERE {sql}").fetchall)
        assert files == expected, sql
        assert sorted(map(repr, result)) == \
            sorted(map(repr, connection.sql(f"SELECT * FROM plain WHERE {sql}").fetchall())), sql


def test_limits_stop_the_read(generated, opened_files):
    root, rows = generated
    table = PaimonTable(root)
    connection = duckdb.connect()
    table.scan().to_duckdb(connection, name="orders")
    # the stream stops where DuckDB stops pulling: the files in flight then (2 per thread, and the one read)
    opened = opened_by(opened_files, lambda: connection.sql("SELECT * FROM orders LIMIT 3").fetchall())
    assert len(opened) <= 2 * threads() + 1 < FILES
    assert len(opened_by(opened_files, table.scan().to_polars().head(3).collect)) == 1
    limited = table.scan(limit=60).to_polars()  # the first three files' rows
    first = pl.from_arrow(table.scan().to_arrow().slice(0, 60))
    for expression in (pl.col("k") == 25, pl.col("cat") == "blue", pl.col("k") == 125):
        files, got = reading(opened_files, limited.filter(expression).collect)
        assert got.equals(first.filter(expression))
        assert len(files) == (1 if got.height else 0), expression


def test_a_column_named_to_break_predicate_text_is_a_name(generated, opened_files):
    """Issue 57: ``pl.col(HOSTILE) == "blue"`` once became ``name = 'nomatch' AND name = 'blue'``: no rows."""
    root, rows = generated
    table = PaimonTable(root)
    blue = pl.from_arrow(rows).filter(pl.col(HOSTILE) == "blue")
    assert blue.height > 0
    assert keys(table.scan().to_polars().filter(pl.col(HOSTILE) == "blue").collect().to_arrow()) == \
        keys(blue.to_arrow())
    quoted = HOSTILE.replace("`", "``")
    assert keys(table.scan(f"`{quoted}` = 'blue'").to_arrow()) == keys(blue.to_arrow())
    connection = duckdb.connect()
    table.scan().to_duckdb(connection, name="orders")
    assert connection.sql(f'SELECT count(*) FROM orders WHERE "{HOSTILE}" = \'blue\'').fetchall() == [(blue.height,)]

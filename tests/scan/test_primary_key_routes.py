"""A primary-key table through the engine routes: DuckDB SQL (``to_duckdb``) and Polars filters
(``to_polars``) give Java's own rows for every recorded predicate of the Java-written tables, their filters
pruning as ``where`` does (soundly: by whole bucket, the filter on merged rows), and a limit counts merged rows."""
from __future__ import annotations

import json

import duckdb
import polars as pl
import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.kit.rows import canonical_rows

DATABASE = ROOT / "tests" / "tables" / "primary-keys"
TABLES = json.loads((DATABASE / "java-answers.json").read_text())["tables"]
LATEST = [(name, java) for name, table in TABLES.items() for java in table["reads"]
          if java["where"] is not None and "error" not in java and java["snapshot"] == max(table["snapshots"])]


@pytest.mark.parametrize(("name", "java"), LATEST, ids=[f"{n}: {j['where']}" for n, j in LATEST])
def test_duckdb_sql_and_polars_filters_give_javas_rows(name, java):
    table = PaimonTable(DATABASE / name, java["snapshot"])
    connection = duckdb.connect()
    table.scan().to_duckdb(connection, "t")
    rows = connection.sql(f"SELECT * FROM t WHERE {java['where']}").to_arrow_table()
    assert canonical_rows(rows, table) == java["rows"]
    frame = table.scan().to_polars().filter(pl.sql_expr(java["where"])).collect()
    assert canonical_rows(frame.to_arrow(), table) == java["rows"]


def test_a_stale_version_never_comes_back_through_an_engine_filter():
    """``score = 20`` would drop the level-0 file holding key (2024-01-01, 2)'s newer score 999 if files were
    pruned one by one; pushed down from Polars or DuckDB it prunes by whole bucket, as ``where`` does."""
    table = PaimonTable(DATABASE / "deduplicate")
    frame = table.scan().to_polars().filter(pl.col("score") == 20).collect()
    assert [2, 20] not in frame.select("id", "score").rows()
    connection = duckdb.connect()
    table.scan().to_duckdb(connection, "t")
    assert connection.sql("SELECT count(*) FROM t WHERE id = 2 AND score = 20").fetchall() == [(0,)]
    assert connection.sql("SELECT score FROM t WHERE id = 2 AND dt = '2024-01-01'").fetchall() == [(999,)]


def test_a_limit_counts_merged_rows():
    table = PaimonTable(DATABASE / "deduplicate")
    every = table.scan().to_arrow()
    assert table.scan().to_polars().head(3).collect().height == 3
    assert table.scan(limit=2).to_arrow().num_rows == 2
    filtered = table.scan().to_polars().filter(pl.col("score") >= 0).head(every.num_rows + 5).collect()
    assert filtered.height == pl.from_arrow(every).filter(pl.col("score") >= 0).height


@pytest.mark.parametrize(("where", "read", "skipped"), [("score >= 900 OR name = 'late'", 8, 0), ("id = 2", 5, 3)])
def test_a_merged_bucket_counts_every_file_it_opens_as_read(where, read, skipped):
    """A bucket's files are merged into its first file's read (the others are listed as ``merged``): the Spark
    scan's figures said "read 4 of 8 files ... pruned 4 of 8 files" where all 8 files were read."""
    from fileindex.spark.datasource import planning_report
    from fileindex.spark.jobs import ScanStats

    files = PaimonTable(DATABASE / "deduplicate").scan(where).plan()
    assert len(files) == 8 and sum(item.data_files_read for item in files) == read
    assert ScanStats.of(files, 0.0).files_read == read
    report = planning_report(files, (), tasks=1)
    assert (report["files_read"], report["files_skipped"]) == (read, skipped)

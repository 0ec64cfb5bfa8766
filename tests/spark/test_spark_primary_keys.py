"""A primary-key table through Spark: the data source and ``spark scan`` (a job, one task per bucket, so each
bucket's merge stays inside one task) give Java's own rows, and ``spark scan --explain`` names the stages and
bucket rules ``fileindex read --explain`` names."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.kit.rows import canonical_rows
from fileindex.spark import pruned_scan
from fileindex.spark.datasource import read_table
from fileindex.spark.jobs import explain_scan

DATABASE = ROOT / "tests" / "tables" / "primary-keys"
TABLES = json.loads((DATABASE / "java-answers.json").read_text())["tables"]
CASES = [("deduplicate", "score = 20"), ("deduplicate", "id = 2"), ("partial_update", None),
         ("levels_aggregation", "s < 20")]  # (files on levels 0, 3 and 4: Java compacted it itself)


def java_rows(name: str, where: str | None) -> list:
    snapshot = max(TABLES[name]["snapshots"])
    return next(r for r in TABLES[name]["reads"] if r["snapshot"] == snapshot and r["where"] == where)["rows"]


def rows_of(frame, table: PaimonTable) -> list:
    import pyarrow as pa

    schema = table.scan().schema
    return canonical_rows(pa.Table.from_pylist([row.asDict() for row in frame.collect()], schema), table)


@pytest.mark.parametrize(("name", "where"), CASES)
def test_the_data_source_and_spark_scan_read_javas_rows(spark, name, where):
    table = PaimonTable(DATABASE / name)
    assert rows_of(read_table(spark, DATABASE / name, where), table) == java_rows(name, where)
    if where is not None:
        scanned = pruned_scan(spark, str(DATABASE / name), where, read="spark", plan="driver")
        assert all(f.merge is not None for f in scanned.files if f.to_read)
        assert rows_of(scanned.frame, table) == java_rows(name, where)


def test_spark_scan_explains_the_buckets_as_read_does():
    where = "score = 20"
    ours = PaimonTable(DATABASE / "deduplicate").scan(where).explain().as_dict()
    spark = explain_scan(str(DATABASE / "deduplicate"), where).as_dict()
    assert [s["stage"] for s in spark["stages"]] == [s["stage"] for s in ours["stages"]]
    assert "whole_bucket" in [s["stage"] for s in ours["stages"]]
    assert [(f["file"], f["read"], f["reason"]) for f in spark["files"]] == \
        [(f["file"], f["read"], f["reason"]) for f in ours["files"]]

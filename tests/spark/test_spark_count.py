"""``fileindex spark scan TABLE --where P --count``: the count ``read --count`` finds (from the metadata and indexes
where they answer exactly, the other files read by a Spark job) equals ``df.count()`` of the same filter over the
data source; where every file is answered no Spark job runs."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.cli.app import main
from fileindex.spark.count import spark_count
from fileindex.spark.datasource import read_table

TABLES = ROOT / "tests" / "tables"
BSI_BITMAP = TABLES / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / "append_with_bsi_bitmap_bloomfilter"
PK_DV = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
DEDUPLICATE = TABLES / "primary-keys" / "deduplicate"  # (no deletion vectors: a merge decides its rows)


@pytest.mark.parametrize(("table", "where", "job"), [
    (BSI_BITMAP, "f1 > 100", False),  # a bsi: answered by the index
    (BSI_BITMAP, "f0 IN ('Bob', 'Lucy') AND f1 >= 100", False),
    (BSI_BITMAP, "f3 = 11.1", True),  # a bloom filter: the file is read
    (BSI_BITMAP, "f0 = 'Bob' OR f3 > 15", True),
    (PK_DV, "f0 = 'Bob'", False),  # past a deletion vector
    (DEDUPLICATE, "score = 20", True),  # merged by key: read
], ids=str)
def test_spark_scan_counts_as_the_data_source_does(spark, capsys, table, where, job):
    assert main(["spark", "scan", str(table), "--where", where, "--count", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["count"] == read_table(spark, table, where).count() == PaimonTable(table).scan(where).count()
    assert report["spark_job"] is job and (report["answered_by"].get("read", 0) > 0) is job
    assert main(["spark", "scan", str(table), "--where", where, "--count"]) == 0
    assert capsys.readouterr().out.strip() == str(report["count"])


def test_a_count_the_index_answers_starts_no_session():
    def no_session():
        raise AssertionError("a Spark session was asked for")

    report = spark_count(no_session, str(BSI_BITMAP), "f0 = 'Bob'")
    assert report["count"] == 2 and report["answered_by"] == {"index": 1}


def test_count_with_a_flag_that_reads_rows_out_is_one_line(capsys):
    assert main(["spark", "scan", str(BSI_BITMAP), "--where", "f1 > 100", "--count", "--select", "f0"]) == 2
    assert "--count" in capsys.readouterr().err

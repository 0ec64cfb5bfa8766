"""Partitioned append tables written in the test run by Java Paimon 0.9 (string and integer partition
keys, bloom-filter and bitmap indexes, embedded and in sidecars, several files per partition): the
pruned scan and the data source return exactly the rows a brute-force filter of the live data selects."""
import json
import random

import pyarrow.parquet as pq
import pytest
from java_oracle import JavaOracle

from fileindex.spark import pruned_scan
from fileindex.spark.datasource import FORMAT, read_table
from fileindex import PaimonTable

COLUMNS = [("region", "STRING"), ("shard", "INT"), ("name", "STRING"), ("score", "BIGINT"), ("ratio", "DOUBLE")]
REGIONS = ["eu", "us", "ap", "é/x=1"]
NAMES = ["Alice", "Bob", "Emily", "Tony", ""]


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle-partitioned"), tables=True)
    yield oracle
    oracle.close()


def random_rows(rng: random.Random, count: int) -> list[list]:
    return [[rng.choice(REGIONS), rng.choice([1, 2, -7]), rng.choice(NAMES + [None]),
             rng.choice([10, 20, 2**40, None]), rng.choice([0.5, 1.5, None])] for _ in range(count)]


def brute_force(rows: list[dict], column: str, function: str, value) -> list[dict]:
    if function == "eq":
        return [r for r in rows if r[column] is not None and r[column] == value]
    if function == "is_null":
        return [r for r in rows if r[column] is None]
    return [r for r in rows if r[column] is not None and r[column] > value]


@pytest.mark.java
@pytest.mark.parametrize("seed", range(3))
def test_partitioned_java_tables(java, spark, tmp_path, seed):
    rng = random.Random(seed)
    options = {"bucket": "-1", "file-index.bloom-filter.columns": "name", "file-index.bitmap.columns": "score"}
    if seed % 2:
        options["file-index.in-manifest-threshold"] = "1B"
    else:
        options["file-index.bloom-filter.name.items"] = "50"  # small enough to embed
    partition_keys = ["region", "shard"] if seed < 2 else ["shard"]
    commits = [random_rows(rng, rng.randint(5, 15)) for _ in range(3)]
    root = java.write_table(tmp_path, f"p{seed}", COLUMNS, options, commits, partition_keys)
    table = PaimonTable(root)
    live = [table.data_path(e) for e, _ in table.live()]
    assert len(live) > len({p.parent for p in live}) >= 3  # several partitions, several files in some
    rows = [r for path in live for r in pq.ParquetFile(path).read().to_pylist()]  # no hive discovery
    for key in partition_keys:  # Paimon keeps partition columns in the files too
        assert all(r[key] is not None for r in rows)
    where_cases = [("name = 'Bob'", "name", "eq", "Bob"), ("name = 'Nobody'", "name", "eq", "Nobody"),
                   ("score = 20", "score", "eq", 20), ("score IS NULL", "score", "is_null", None),
                   ("region = 'é/x=1'", "region", "eq", "é/x=1"), ("shard = -7", "shard", "eq", -7),
                   ("score > 15", "score", "gt", 15)]
    for where, column, function, value in where_cases:
        selected = brute_force(rows, column, function, value)
        expected = sorted(map(str, (tuple(r[c] for c, _ in COLUMNS) for r in selected)))
        scan = pruned_scan(spark, str(root), where)
        got = sorted(str(tuple(r)) for r in scan.frame.collect())
        assert got == expected, where
        through_source = sorted(str(tuple(r)) for r in spark.read.format(FORMAT).load(str(root)).where(where).collect())
        assert through_source == expected, where
        pruned_source = sorted(str(tuple(r)) for r in read_table(spark, str(root), where).collect())
        assert pruned_source == expected, where
        if where == "name = 'Nobody'":
            assert scan.stats.files_read < scan.stats.files_total
    where = {v.index for v in table.plan("name IS NULL")}
    assert where == ({"sidecar"} if seed % 2 else {"embedded"})


@pytest.fixture(scope="module")
def partitioned(java, tmp_path_factory):
    """A table partitioned by region, its files' statistics apart (each commit holds other scores), every
    index in a sidecar: what the partition and the statistics rule out, no index need be opened for."""
    options = {"bucket": "-1", "file-index.bloom-filter.columns": "name", "file-index.in-manifest-threshold": "1B"}
    commits = [[[region, 1, name, score, 0.5] for region in REGIONS[:3] for name in NAMES[:3]]
               for score in (10, 20, 30)]
    return java.write_table(tmp_path_factory.mktemp("funnel"), "funnel", COLUMNS, options, commits, ["region"])


FUNNEL_WHERES = ["region = 'eu' AND name = 'Bob'", "score > 25 AND name = 'Alice'", "region = 'us' AND score = 10",
                 "name = 'Nobody'"]


@pytest.mark.java
@pytest.mark.parametrize("where", FUNNEL_WHERES)
def test_spark_scan_explains_the_funnel_fileindex_read_explains(partitioned, capsys, where):
    from fileindex.cli import main

    assert main(["read", str(partitioned), "--where", where, "--explain", "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert main(["spark", "scan", str(partitioned), "--where", where, "--explain", "--json"]) == 0
    spark = json.loads(capsys.readouterr().out)
    assert spark == read
    stages = {stage["stage"]: stage for stage in read["stages"]}
    if "region" in where:
        assert stages["partition"]["files_after"] < stages["partition"]["files_before"]
    if "score" in where:
        assert stages["statistics"]["files_after"] < stages["statistics"]["files_before"]


class IndexOpens:
    """The data files whose index is opened (a sidecar through the table, an embedded one shared)."""

    def __init__(self, monkeypatch):
        self.files: list[str] = []
        container = PaimonTable.container
        monkeypatch.setattr(PaimonTable, "container", lambda table, entry, *predicates: self.files.append(
            entry.file_name) or container(table, entry, *predicates))


@pytest.mark.java
@pytest.mark.parametrize("where", FUNNEL_WHERES[:3])
def test_the_spark_paths_open_no_index_the_partition_or_statistics_rule_out(partitioned, spark, monkeypatch, where):
    from fileindex.spark.datasource import PaimonFileIndexSource

    table = PaimonTable(partitioned)
    plan = table.scan(where).plan()
    ruled_out = {f.task.entry.file_name for f in plan if f.skipped_by in ("partition", "bucket", "statistics")}
    judged = {f.task.entry.file_name for f in plan} - ruled_out
    assert ruled_out and judged
    opens = IndexOpens(monkeypatch)
    scan = pruned_scan(spark, str(partitioned), where, plan="driver")
    assert set(opens.files) == judged and not set(opens.files) & ruled_out
    assert scan.stats.files_total == len(plan)
    opens.files.clear()
    source = PaimonFileIndexSource({"path": str(partitioned), "where": where})
    source.reader(source.schema()).partitions()  # (planned in this process, as Spark's planning worker does)
    assert set(opens.files) == judged
    opens.files.clear()
    expected = sorted(str(tuple(r)) for r in spark.read.format(FORMAT).load(str(partitioned)).where(where).collect())
    assert sorted(str(tuple(r)) for r in scan.frame.collect()) == expected

"""``PaimonTable.scan`` on partitioned append tables Java Paimon 0.9 writes in the run: the partition stage
drops the partitions a predicate rules out (before their files' indexes are opened), and the rows equal a
brute-force filter of the live data."""
import random

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from java_oracle import JavaOracle

from fileindex import PaimonTable
from fileindex.table.buckets import bucket_of

COLUMNS = [("region", "STRING"), ("shard", "INT"), ("name", "STRING"), ("score", "BIGINT")]
REGIONS = ["eu", "us", "ap", "é/x=1"]


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle-read"), tables=True)
    yield oracle
    oracle.close()


@pytest.mark.java
def test_partition_pruning_on_java_tables(java, tmp_path):
    rng = random.Random(7)
    commits = [[[rng.choice(REGIONS), rng.choice([1, 2, -7]), rng.choice(["Alice", "Bob", None]),
                 rng.choice([10, 20, None])] for _ in range(rng.randint(8, 15))] for _ in range(3)]
    options = {"bucket": "-1", "file-index.bloom-filter.columns": "name"}
    root = java.write_table(tmp_path, "parts", COLUMNS, options, commits, ["region", "shard"])
    table = PaimonTable(root)
    rows = [r for entry, _ in table.live() for r in pq.ParquetFile(table.data_path(entry)).read().to_pylist()]
    partitions = {(r["region"], r["shard"]) for r in rows}
    cases = {"region = 'é/x=1'": lambda r: r["region"] == "é/x=1",
             "region = 'eu' AND name = 'Bob'": lambda r: r["region"] == "eu" and r["name"] == "Bob",
             "shard > 1 OR name IS NULL": lambda r: r["shard"] > 1 or r["name"] is None,
             "shard = -7 AND score = 20": lambda r: r["shard"] == -7 and r["score"] == 20,
             "region IN ('us', 'ap')": lambda r: r["region"] in ("us", "ap")}
    for where, test in cases.items():
        scan = table.scan(where)
        got = sorted(map(str, (tuple(r.values()) for r in scan.to_arrow().to_pylist())))
        assert got == sorted(map(str, (tuple(r.values()) for r in rows if test(r)))), where
        stages = {s.name: s for s in scan.explain().stages}
        if where.startswith(("region =", "region IN", "shard = -7")):
            kept = {(r["region"], r["shard"]) for r in rows if test(r)}
            assert stages["partition"].files_after < stages["partition"].files_before, where
            skipped = [f for f in scan.explain().files if f.skipped_by == "partition"]
            assert skipped and len(kept) < len(partitions)
        else:
            assert "partition" not in stages or stages["partition"].files_after == stages["partition"].files_before


@pytest.mark.java
@pytest.mark.parametrize("keys", [["name"], ["shard", "name"], ["score"]])
def test_the_bucket_function_places_rows_as_java_does(java, tmp_path, keys):
    """Every row of every file Java wrote to a fixed-bucket table hashes to its file's bucket, and a scan whose
    predicate fixes the bucket key reads only those buckets and returns exactly the matching rows."""
    rng = random.Random(len(keys))
    commits = [[[rng.choice(REGIONS), rng.choice([1, 2, -7, 2**20]), rng.choice(["Alice", "Bob", "é" * 9, "", None]),
                 rng.choice([10, 20, -(2**40), None])] for _ in range(rng.randint(20, 30))] for _ in range(2)]
    options = {"bucket": "4", "bucket-key": ",".join(keys), "file-index.bloom-filter.columns": "name"}
    root = java.write_table(tmp_path, "buckets", COLUMNS, options, commits)
    table = PaimonTable(root)
    types = [table.schema.by_name()[k].type for k in keys]
    rows = []
    for entry, _ in table.live():
        for row in pq.ParquetFile(table.data_path(entry)).read().to_pylist():
            assert bucket_of([row[k] for k in keys], types, 4) == entry.bucket, (row, entry.bucket)
            rows.append(row)
    assert len({e.bucket for e, _ in table.live()}) > 1
    first = next(r for r in rows if all(r[k] is not None for k in keys))
    where = " AND ".join(f"{k} = {first[k]!r}" if isinstance(first[k], str) else f"{k} = {first[k]}" for k in keys)
    scan = table.scan(where)
    got = sorted(map(str, (tuple(r.values()) for r in scan.to_arrow().to_pylist())))
    assert got == sorted(map(str, (tuple(r.values()) for r in rows if all(r[k] == first[k] for k in keys))))
    stages = {s.name: s for s in scan.explain().stages}
    assert stages["bucket"].files_after < stages["bucket"].files_before


@pytest.mark.java
def test_manifests_of_other_partitions_are_not_read(java, tmp_path, monkeypatch):
    """A commit per region: each manifest holds one partition, and a predicate on the region reads only
    the manifests whose partition statistics can hold it (counted by the manifests decoded)."""
    from fileindex import memo
    from fileindex.table import metadata

    rng = random.Random(3)
    commits = [[[region, rng.choice([1, 2]), rng.choice(["Alice", "Bob"]), rng.choice([10, 20])] for _ in range(6)]
               for region in REGIONS]
    root = java.write_table(tmp_path, "regions", COLUMNS, {"bucket": "-1"}, commits, ["region"])
    monkeypatch.setattr(metadata, "MANIFESTS", memo.BoundedMemo(items=0, budget=0))  # decode every time
    decoded = []
    original = metadata._decoded_manifest
    monkeypatch.setattr(metadata, "_decoded_manifest",
                        lambda root, path, listed_in: decoded.append(path.name) or original(root, path, listed_in))
    table = PaimonTable(root)
    for where, regions in (("region = 'us'", {"us"}), ("region IN ('é/x=1', 'ap')", {"é/x=1", "ap"}),
                           ("region > 'eu'", {"us", "é/x=1"}), ("region = 'nowhere'", set())):
        decoded.clear()
        scan = table.scan(where)
        got = scan.to_arrow().to_pylist()
        assert {r["region"] for r in got} == regions and len(got) == 6 * len(regions), where
        (stage,) = [s for s in scan.explain().stages if s.name == "partition"]
        assert len(decoded) == len(regions) and stage.manifests_skipped == len(REGIONS) - len(regions), where
    decoded.clear()
    assert table.scan("region = 'us' OR name = 'Bob'").to_arrow().num_rows > 6
    assert len(decoded) == len(REGIONS)  # an OR with another column prunes no manifest


@pytest.mark.java
def test_rows_a_bitmap_selects_are_read_from_their_pages_in_files_java_writes(java, tmp_path, monkeypatch):
    """parquet-mr (Java Paimon's Parquet writer) keeps offset indexes: the few rows a bitmap selects in a
    many-page file are read from their pages alone, and equal the rows of a whole read."""
    from fileindex.arrow import parquet_pages

    rng = random.Random(11)
    rows = [[rng.choice(REGIONS), i % 97, "rare" if i % 4999 == 0 else rng.choice(["Alice", "Bob"]), i]
            for i in range(20_000)]
    options = {"bucket": "-1", "file-index.bitmap.columns": "name", "parquet.page.size": "2048"}
    root = java.write_table(tmp_path, "pages", COLUMNS, options, [rows])
    table = PaimonTable(root)
    (entry, _), = table.live()
    footer = parquet_pages.PagedFooter.read(str(table.data_path(entry)))
    with open(table.data_path(entry), "rb") as file:
        assert len(footer.pages(file.fileno(), 0, 3).offsets) > 10  # many pages
    paged = []
    original = parquet_pages.read_rows

    def counted(*args):
        columns = original(*args)
        paged.append(sum(column is not None for column in columns.values()))
        return columns

    monkeypatch.setattr(parquet_pages, "read_rows", counted)
    got = table.scan("name = 'rare'").to_arrow()
    whole = pq.ParquetFile(table.data_path(entry)).read()
    assert got.to_pylist() == whole.filter(pc.equal(whole["name"], "rare")).to_pylist()
    assert got.num_rows == 5 and paged and paged[0] >= 3  # (region, with four values, may fill few pages)

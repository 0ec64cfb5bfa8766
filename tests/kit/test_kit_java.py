"""The kit on Java Paimon 0.9.0 (tools/kit_java_adapter.py) beside this project: the version-compatibility
matrix. 0.9.0 reads and writes container 1, bloom-filter and bitmap V1; the rest is unsupported, not failed,
and its failures are the known 0.9.0 divergences only."""

import pytest
from java_oracle import require_jar
from kit_fixtures import ADAPTER, JAVA, among

from fileindex.kit.corpus import cases
from fileindex.kit.runner import CORPUS, FAIL, NOT_WRITTEN, PASS, UNSUPPORTED

pytestmark = pytest.mark.java
JAVA_09 = {"bloom-filter", "bitmap-v1"}
# docs/divergences.md; append_with_bloomfilter: rows 0.9.0 cannot read (INT96 timestamps before 1970)
KNOWN = {"boolean__bitmap_v1", "timestamp9__bitmap_v1", "multi__or_bitmap_bloom", "append_with_bloomfilter"}


@pytest.fixture(scope="module")
def both(kit_matrix):
    """Ours and Java's, from the session's one run of the three (kit_fixtures.kit_matrix)."""
    return among(kit_matrix, "paimon-fileindex", "java-paimon")


def outcomes(results, **where):
    return [o for o in results.outcomes if all(getattr(o, k) == v for k, v in where.items())]


def test_java_09_reports_what_it_lacks_as_unsupported(kit_folder, both):
    assert both.implementations["java-paimon"]["version"] == "0.9.0"
    beyond = [c for version in ("v1", "v2") for c in cases(kit_folder, version)
              if c.layout not in JAVA_09 or c.sidecar["container_version"] != 1]
    unsupported = [o for o in outcomes(both, consumer="java-paimon", producer=CORPUS, check="read")
                   if o.status == UNSUPPORTED]
    multi = [item for c in cases(kit_folder, "multi") for item in c.sidecar["cases"]]
    beyond_multi = [item for item in multi if not set(item["layouts"]) <= JAVA_09]  # bsi, range-bitmap, bitmap V2
    assert 0 < len(beyond_multi) < len(multi)
    # 0.9.0 has no NotBetween: it answers those cases {"unsupported": ...}, in the layouts it reads too
    not_between = [item for c in cases(kit_folder, "v1") if c.layout in JAVA_09 for item in c.sidecar["cases"]
                   if item["where"]["function"] == "NotBetween"]
    assert not_between
    assert len(unsupported) == sum(len(c.sidecar["cases"]) for c in beyond) + len(beyond_multi) + len(not_between)
    assert sum(o.status == UNSUPPORTED for o in outcomes(both, consumer="java-paimon", producer=CORPUS)
               if o.layout in JAVA_09) == len(not_between)
    tables = cases(kit_folder, "tables")  # Tier 2: whole-file verdicts, on the tables of layouts 0.9.0 reads
    readable = {c.name for c in tables if set(c.sidecar["layouts"]) <= JAVA_09 | {"table"}}
    # drop_column_rewritten: our rewrite on a 0.9.0 table writes bitmap V1, and its answers are 0.9.0's own
    assert readable == {"append_with_bitmap_v1", "append_with_bloomfilter", "drop_column_rewritten"}
    scans = outcomes(both, consumer="java-paimon", check="scan")
    assert len(scans) == sum("files" in item["expected"] for c in tables for item in c.sidecar["cases"])
    assert sum(o.case == "drop_column_rewritten" for o in scans) == 6
    assert all((o.status == PASS) == (o.case in readable) and o.status != FAIL for o in scans)
    rows = outcomes(both, consumer="java-paimon", check="rows")  # full reads, on the same tables
    assert len(rows) == sum(len(c.sidecar["cases"]) for c in tables)
    assert all((o.status == UNSUPPORTED) == (o.case not in readable) for o in rows)
    assert all(o.status == PASS for o in rows if o.case == "append_with_bitmap_v1")


def test_java_09_rejects_every_must_reject_case(kit_folder, both):
    bad = outcomes(both, consumer="java-paimon", layout="bad")
    assert len(bad) == len(cases(kit_folder, "bad")) and all(o.status == PASS for o in bad), \
        [o.detail for o in bad if o.status == FAIL]


def test_java_09_fails_only_the_known_divergences(both):
    failed = outcomes(both, consumer="java-paimon", status=FAIL)
    assert failed and {o.case for o in failed} == KNOWN, {o.case for o in failed}
    timestamps = [o for o in failed if o.case == "timestamp9__bitmap_v1"]
    assert timestamps and all("the answer of Paimon before apache/paimon #9654" in o.detail for o in timestamps)
    ors = [o for o in failed if o.case == "multi__or_bitmap_bloom"]  # 0.9.0's bitmap result ORs as an AND
    assert len(ors) == 3 and all('"function": "Or"' in o.detail for o in ors)
    assert sum(o.status == PASS for o in outcomes(both, consumer="java-paimon", case="multi__or_bitmap_bloom")) == 3
    # 0.9.0's Parquet reader cannot decode the INT96 TIMESTAMP(9) values before 1970 (rows 3, 4, 7) that Java
    # 1.x wrote: the six full reads whose result holds one of them fail, the others pass
    unreadable = [o for o in failed if o.case == "append_with_bloomfilter"]
    assert len(unreadable) == 6 and all(o.check == "rows" and "IllegalArgumentException" in o.detail
                                        for o in unreadable)
    booleans = [o for o in failed if o.case == "boolean__bitmap_v1"]
    assert any(o.check == "write" and "ClassCastException" in o.detail for o in booleans)


def test_the_two_implementations_read_each_others_files(both):
    this = outcomes(both, consumer="paimon-fileindex")
    unwritten = [o for o in this if o.status != PASS]  # 0.9.0 could not write it: counted, charged to 0.9.0
    assert {(o.producer, o.case, o.status) for o in unwritten} == {("java-paimon", "boolean__bitmap_v1", NOT_WRITTEN)}
    assert both.totals("paimon-fileindex")[FAIL] == both.totals("paimon-fileindex")[NOT_WRITTEN] == 0
    assert both.totals("java-paimon")[NOT_WRITTEN] == 2 * len(unwritten)  # read by both consumers
    java_written = outcomes(both, consumer="paimon-fileindex", producer="java-paimon", check="read")
    assert len(java_written) > 1000
    java_writes = outcomes(both, consumer="java-paimon", check="write")
    assert sum(o.status == PASS for o in java_writes) == sum(o.layout in JAVA_09 for o in java_writes) - 1  # BOOLEAN


@pytest.mark.parametrize("threshold", ["1B", "500B"])  # sidecar, embedded in the manifest
def test_java_09_plans_no_file_for_an_or_across_a_bitmap_and_a_bloom_filter(tmp_path, threshold):
    """The report of the design notes, on a table Java 0.9.0 writes now: one file holds k = 1, another
    name = 'n00003'; Java 0.9.0 keeps neither (docs/divergences.md), this project keeps both."""
    from java_oracle import JavaOracle

    from fileindex.kit.protocol import Adapter

    require_jar()
    (tmp_path / "classes").mkdir()
    oracle = JavaOracle(tmp_path / "classes", tables=True)
    try:
        options = {"file-index.bitmap.columns": "k", "file-index.bloom-filter.columns": "name",
                   "file-index.in-manifest-threshold": threshold}
        first = [[1, f"a{i:05d}"] for i in range(9)] + [[2, f"b{i:05d}"] for i in range(9)]
        second = [[3, "n00003"] for _ in range(9)] + [[4, f"c{i:05d}"] for i in range(9)]
        root = oracle.write_table(tmp_path / "warehouse", "t", [("k", "INT"), ("name", "STRING")], options,
                                  [first, second])
    finally:
        oracle.close()
    where = {"function": "Or", "children": [
        {"function": "Equal", "column": "k", "type": "INT", "literals": [1]},
        {"function": "Equal", "column": "name", "type": "STRING", "literals": ["n00003"]}]}
    verdicts = {}
    for command in (JAVA, ADAPTER):
        adapter = Adapter(command)
        try:
            verdicts[adapter.name] = adapter.ask({"op": "scan", "table": str(root), "where": where})["files"]
        finally:
            adapter.close()
    assert len(verdicts["java-paimon"]) == 2 and set(verdicts["java-paimon"]) == set(verdicts["paimon-fileindex"])
    assert all(v == {"result": "SKIP"} for v in verdicts["java-paimon"].values())  # 18 matching rows, no file
    ours = sorted(verdicts["paimon-fileindex"].values(), key=lambda v: v["result"])
    assert ours == [{"result": "REMAIN"}, {"result": "ROWS", "ranges": [[0, 8]]}]

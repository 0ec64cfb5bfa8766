"""Statistics on tables Java Paimon 0.9.0 writes during the run (issue #54): floating-point (NaN, both zeros),
decimal and timestamp columns over several data files, and a column whose type an ALTER widened between
commits. For every predicate, the files the statistics stage keeps hold every file with a matching row
(brute force over each file's rows, Paimon's comparisons); for the predicates below they are now fewer
than all (before, these types' statistics were not used: every file was kept)."""
import decimal
import math

import pyarrow.parquet as pq
import pytest
from java_oracle import JavaOracle

from fileindex import PaimonTable
from fileindex.scan.truth import matches
from fileindex.predicate.parser import parse_predicate
from fileindex.values import Timestamp

pytestmark = pytest.mark.java

COLUMNS = [("id", "INT"), ("d", "DOUBLE"), ("f", "FLOAT"), ("m", "DECIMAL(12, 2)"), ("ts", "TIMESTAMP(6)"),
           ("t3", "TIMESTAMP(3)")]
DAY = 86_400_000


def row(i: int, d: float, m: str, ms: int, nanos: int = 0) -> list:
    return [i, d, d, decimal.Decimal(m), Timestamp(ms, nanos), Timestamp(ms)]


# four files: their d/f ranges [0.1, 0.2], [0.25] with a NaN, [1.0, 2.0] with a null, and both zeros
COMMITS = [
    [row(1, 0.1, "10.00", 0), row(2, 0.2, "10.50", DAY, 1_000)],
    [row(3, 0.25, "20.00", 2 * DAY), row(4, math.nan, "20.25", 2 * DAY + 5)],
    [row(5, 1.0, "30.00", 3 * DAY, 999_000), row(6, 2.0, "31.00", 4 * DAY), [7, None, None, None, None, None]],
    [row(8, -0.0, "-5.00", -DAY), row(9, 0.0, "0.00", -DAY + 1)],
]
# predicate -> the files the statistics stage keeps (of 4). Java leaves both bounds of the file holding a NaN
# unknown: it is kept by every predicate on d and f. A NaN may hide where a writer leaves it out of the bounds
# (pypaimon-rust does), and NaN is above every number: `d > 100` keeps every file
PREDICATES = {
    "d = 0.25": 1, "f = 0.25": 1, "d < 0.15": 3, "d BETWEEN 0.9 AND 1.5": 2, "d IN (0.1, 2.0)": 3,
    "d = -0.0": 2, "d > 100": 4, "m = 20.25": 1, "m >= 30.5": 1, "m < 0": 1, "m IN (10.5, -5)": 2,
    "ts = TIMESTAMP '1970-01-03 00:00:00'": 1, "ts > TIMESTAMP '1970-01-04 12:00:00'": 1,
    "t3 < TIMESTAMP '1970-01-01 00:00:00'": 1, "ts = TIMESTAMP '1970-01-04 00:00:00.000999'": 1,
}


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle-statistics"), tables=True)
    yield oracle
    oracle.close()


def statistics_kept(table: PaimonTable, where: str) -> set[str]:
    files = table.scan(where).explain().files
    return {f.file for f in files if f.skipped_by not in ("partition", "bucket", "statistics")}


def files_matching(table: PaimonTable, root, where: str) -> set[str]:
    predicate, types = parse_predicate(where, table.schema.types()), table.schema.types()
    return {f.file for f in table.scan().explain().files
            if matches(pq.read_table(root / f.file), predicate, types).any()}


def test_statistics_keep_every_file_with_a_match_and_drop_others(java, tmp_path):
    root = java.write_table(tmp_path, "typed", COLUMNS, {"bucket": "-1"}, COMMITS)
    table = PaimonTable(root)
    assert len(table.scan().explain().files) == 4
    for where, count in PREDICATES.items():
        kept, truth = statistics_kept(table, where), files_matching(table, root, where)
        assert truth <= kept, (where, truth, kept)
        assert len(kept) == count, (where, kept)
        assert table.scan(where).to_arrow().num_rows == sum(
            int(matches(pq.read_table(root / f), parse_predicate(where, table.schema.types()),
                        table.schema.types()).sum()) for f in truth), where


def test_an_older_files_statistics_in_the_narrower_type(java, tmp_path):
    """``f1 = 5000000000``: the file written while f1 was INT is ruled out by its INT statistics."""
    columns = [("k", "INT"), ("f1", "INT")]
    root = java.write_table(tmp_path, "widened", columns, {"bucket": "-1"}, [[[1, 7], [2, 2**31 - 1]]])
    java.alter_columns(tmp_path, "widened", [["type", "f1", "BIGINT"]])
    java.write_table(tmp_path, "widened", [("k", "INT"), ("f1", "BIGINT")], {"bucket": "-1"},
                     [[[3, 5_000_000_000], [4, -3]]])
    table = PaimonTable(root)
    for where, count in {"f1 = 5000000000": 1, "f1 > 3000000000": 1, "f1 = 7": 2, "f1 < -2147483649": 0,
                         "f1 IN (2147483647, 5000000000)": 2}.items():
        kept, truth = statistics_kept(table, where), files_matching(table, root, where)
        assert truth <= kept and len(kept) == count, (where, truth, kept)
    assert table.scan("f1 = 5000000000").to_arrow().column("k").to_pylist() == [3]

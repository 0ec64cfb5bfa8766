"""``TableScan.count()`` and top-N (``scan(where, columns, order_by=..., limit=k)``) on the Java-written tables:
the count is the number of rows the scan reads (which ``tests/pipeline/test_table_read.py`` holds to a plain read
filtered exactly) for drawn predicates (NULLs, NOT, OR across bitmap, bsi and bloom-filter columns, deletion
vectors); a bitmap-answered count opens no data file; top-N rows are the first rows of the scan's read sorted the
same way, up to ties."""
from __future__ import annotations

import json
import math
import pickle

import pyarrow as pa
import pytest
from drawn_predicates import SHARED_TABLES, TABLES, plain_rows, predicates, row_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_edits import copy_table

from fileindex import PaimonTable
from fileindex.cli.app import main
from fileindex.errors import UsageError
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.answers import OrderBy, index_top
from fileindex.scan.truth import matches

READABLE = [p for p in SHARED_TABLES if "data_evolution" not in str(p)]
SETTINGS = settings(max_examples=8, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
BSI_BITMAP = TABLES / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / "append_with_bsi_bitmap_bloomfilter"
PK_DV = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
ORDERABLE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "STRING", "VARCHAR", "CHAR", "DATE",
             "TIMESTAMP", "DECIMAL")


@pytest.fixture(scope="module")
def subjects() -> dict:
    from drawn_predicates import Subject

    return {str(path): Subject(str(path), *plain_rows(path)) for path in READABLE}


def read(path, where: str | None) -> pa.Table:
    """The rows a plain scan of the table reads (no count, no order)."""
    return PaimonTable(path).scan(where).to_arrow()


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
@SETTINGS
@given(data=st.data())
def test_every_drawn_count_is_the_rows_the_scan_reads(subjects, path, data):
    subject = subjects[str(path)]
    table = PaimonTable(path)
    assert table.scan().count() == subject.rows.num_rows
    for _ in range(3):
        where = data.draw(predicates(subject))
        truth = read(path, where).num_rows
        assert table.scan(where).count() == truth, where
        limit = data.draw(st.integers(0, 4))
        assert table.scan(where, limit=limit).count() == min(limit, truth), where


@pytest.mark.parametrize("where, rows", [("f0 = 'Bob'", 2), ("f1 > 100", 3), ("NOT (f1 <= 100 OR f2 = 1)", 2),
                                         ("f0 IN ('Bob', 'Lucy')", 3)])
def test_a_count_the_index_answers_opens_no_data_file(opened_files, where, rows):
    scan = PaimonTable(BSI_BITMAP).scan(where)
    assert scan.count() == rows
    assert opened_files == []
    files = scan.explain(count=True).as_dict()["files"]
    assert [f["answered_by"] for f in files] == ["index"]
    assert PaimonTable(BSI_BITMAP).scan(where).to_arrow().num_rows == rows  # (and a read opens it)
    assert len(opened_files) == 1


def test_a_count_past_a_deletion_vector_opens_no_data_file(opened_files):
    table = PaimonTable(PK_DV)
    truth = PaimonTable(PK_DV).scan("f0 = 'Bob'").to_arrow().num_rows
    opened_files.clear()
    assert table.scan("f0 = 'Bob'").count() == truth
    assert table.scan().count() == 6  # 8 rows, 2 deleted
    assert opened_files == []


def test_a_count_the_index_cannot_answer_reads_only_the_predicates_columns(opened_files):
    scan = PaimonTable(BSI_BITMAP).scan("f3 = 11.1")  # a bloom filter: a superset
    explained = scan.explain(count=True)
    assert [(f["answered_by"], f["read_columns"]) for f in explained.as_dict()["files"]] == [("read", ["f3"])]
    assert "the count: by reading column f3" in str(explained)
    assert scan.count() == PaimonTable(BSI_BITMAP).scan("f3 = 11.1").to_arrow().num_rows
    plain = PaimonTable(BSI_BITMAP).scan("f3 = 11.1").explain().as_dict()["files"]
    assert "answered_by" not in plain[0] and plain[0]["reason"]  # (a read's funnel, as spark scan --explain's)
    assert {key: value for key, value in explained.as_dict()["files"][0].items()
            if key not in ("answered_by", "read_columns")} == plain[0]  # (the keys a read's funnel has, kept)


def test_a_repeated_count_on_one_table_plans_once(monkeypatch):
    from fileindex.scan.planner import ScanPlanner

    plans = []
    original = ScanPlanner.plan
    monkeypatch.setattr(ScanPlanner, "plan", lambda self: plans.append(self.predicate) or original(self))
    table = PaimonTable(BSI_BITMAP)
    assert [table.scan("f1 > 100").count() for _ in range(3)] == [3, 3, 3]
    assert table.scan("f1 > 100", ["f0"]).to_arrow().num_rows == 3  # (a read of the same predicate: the same plan)
    assert len(plans) == 1
    assert table.scan("f0 = 'Bob'").count() == 2 and len(plans) == 2  # (another predicate: planned)
    shipped = pickle.loads(pickle.dumps(table))  # (Spark ships tables: pickled without their plans)
    assert len(shipped.plans) == 0 and shipped.scan("f1 > 100").count() == 3 and len(plans) == 3


def test_a_table_keeps_a_bounded_number_of_plans():
    from fileindex.scan.plans import PLANS

    table = PaimonTable(BSI_BITMAP)
    counts = [table.scan(f"f1 > {n}").count() for n in range(PLANS + 8)]
    assert len(table.plans) == PLANS and counts[:3] == [7, 7, 7]  # (f1: 100, 200, 300, 50, 500, 100, null, 20)
    assert table.plans.get(table.parse("f1 > 0"), exact=True) is None  # (the least recently used went first)
    assert table.plans.get(table.parse(f"f1 > {PLANS + 7}"), exact=True) is not None


def test_a_count_at_a_later_snapshot_is_not_the_earlier_ones(tmp_path):
    root = copy_table("parquet", "pk_with_bitmap_dv", tmp_path)  # snapshot 4 (Java's) deletes 2 of 8 rows
    later = root / "snapshot" / "snapshot-4"
    written = later.read_bytes()
    later.unlink()
    (root / "snapshot" / "LATEST").write_text("3")
    earlier = PaimonTable(root)
    assert earlier.scan().count() == earlier.scan().count() == 8
    later.write_bytes(written)
    (root / "snapshot" / "LATEST").write_text("4")
    assert PaimonTable(root).scan().count() == PaimonTable(root).scan().to_arrow().num_rows == 6
    assert earlier.scan().count() == 8  # (a table reads the snapshot it was opened at)


def test_the_cli_counts(capsys):
    assert main(["read", str(BSI_BITMAP), "--where", "f1 > 100", "--count"]) == 0
    assert capsys.readouterr().out.strip() == "3"
    assert main(["read", str(BSI_BITMAP), "--where", "f1 > 100", "--count", "--explain", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"][0]["answered_by"] == "index"
    assert main(["read", str(BSI_BITMAP), "--count", "--output", "x.parquet"]) == 2
    assert "--count" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- top-N

def sort_key(value, order: OrderBy):
    """SQL's order of one value (nulls as ``order`` places them, NaN after +Infinity), as a Python key."""
    if value is None:
        return (0 if order.nulls_come_first else 2,)
    nan = isinstance(value, float) and math.isnan(value)
    key = (1, nan, 0.0 if nan else value)
    return key


def expected_order(values: list, order: OrderBy) -> list:
    present = sorted((v for v in values if v is not None), key=lambda v: sort_key(v, order)[1:],
                     reverse=order.descending)
    nulls = [None] * (len(values) - len(present))
    return nulls + present if order.nulls_come_first else present + nulls


def same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
@SETTINGS
@given(data=st.data())
def test_every_drawn_top_n_is_the_sorted_read(subjects, path, data):
    subject = subjects[str(path)]
    orderable = [n for n, t in subject.types.items() if t.root in ORDERABLE and n in subject.rows.column_names]
    where = data.draw(st.none() | predicates(subject))
    order = OrderBy(data.draw(st.sampled_from(orderable)), data.draw(st.booleans()),
                    data.draw(st.none() | st.booleans()))
    limit = data.draw(st.integers(0, 6))
    names = subject.rows.column_names
    columns = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
    truth = read(path, where)
    got = PaimonTable(path).scan(where, list(dict.fromkeys([order.column, *columns])), limit, order_by=order)
    rows = got.to_arrow()
    wanted = expected_order(truth.column(order.column).to_pylist(), order)[:limit]
    assert rows.num_rows == len(wanted), (where, order)
    assert all(same(a, b) for a, b in zip(rows.column(order.column).to_pylist(), wanted, strict=True)), (where, order)
    pool = [row_key(r) for r in truth.select(rows.column_names).to_pylist()]  # every row is a matching row
    for row in rows.to_pylist():
        assert row_key(row) in pool, (where, order)
        pool.remove(row_key(row))


def test_a_top_n_on_a_bsi_column_is_answered_by_the_index():
    table = PaimonTable(BSI_BITMAP)
    scan = table.scan("f2 <> 1", ["f0", "f1"], 2, order_by="f1 DESC")
    [item] = [f for f in scan.plan(exact=True) if f.to_read]
    assert item.exact  # (bsi's answer to <>)
    assert index_top(table, item, OrderBy("f1", True), 2, None) is not None  # (the bsi answers, no column read)
    truth = sorted((r for r in table.scan("f2 <> 1", ["f0", "f1"]).to_arrow().to_pylist() if r["f1"] is not None),
                   key=lambda r: -r["f1"])
    assert scan.to_arrow().column("f1").to_pylist() == [r["f1"] for r in truth[:2]]


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> PaimonTable:
    """``append_with_bsi`` (bsi on f1, f2, f4) with three more data files: its rows with each column rotated by
    another step (the same values per column, so the same statistics), indexed by this project's writer with the
    table's options: a top-N over several files, each later one asked only for rows that order before the k-th
    found so far."""
    import copy

    import pyarrow.parquet as pq

    from table_edits import copy_table, data_manifests, edit_rows

    from fileindex.writing.data_file import build_data_file_index

    root = copy_table("parquet", "append_with_bsi", tmp_path_factory.mktemp("copies"))
    options = PaimonTable(root).schema.options

    def copied(rows: list[dict]) -> None:
        [row] = rows
        original = pq.read_table(root / "bucket-0" / row["_FILE"]["_FILE_NAME"])
        for number in range(1, 4):
            twin = copy.deepcopy(row)
            name = row["_FILE"]["_FILE_NAME"].replace("-0.parquet", f"-{number}.parquet")
            rotated = [pa.concat_arrays([c.combine_chunks()[step:], c.combine_chunks()[:step]])
                       for c, step in zip(original.columns, (number * (i + 1) % 8 for i in range(8)), strict=False)]
            pq.write_table(pa.Table.from_arrays(rotated, schema=original.schema), root / "bucket-0" / name)
            (root / "bucket-0" / f"{name}.index").write_bytes(build_data_file_index(root / "bucket-0" / name,
                                                                                    options).data)
            twin["_FILE"]["_FILE_NAME"], twin["_FILE"]["_EXTRA_FILES"] = name, [f"{name}.index"]
            twin["_FILE"]["_FILE_SIZE"] = (root / "bucket-0" / name).stat().st_size
            rows.append(twin)

    for manifest in data_manifests(root):
        edit_rows(manifest, copied)
    return PaimonTable(root)


@settings(SETTINGS, max_examples=25)
@given(data=st.data())
def test_a_top_n_over_several_files_is_the_sorted_read(copies, data):
    rows = copies.scan().to_arrow()
    where = data.draw(st.sampled_from([None, "f2 <> 1", "f1 > 10", "f0 = 'Bob' OR f2 IS NULL", "f4 IS NOT NULL"]))
    order = OrderBy(data.draw(st.sampled_from(["f1", "f2", "f4", "f0"])), data.draw(st.booleans()),
                    data.draw(st.none() | st.booleans()))
    limit = data.draw(st.integers(1, 12))
    truth = copies.scan(where).to_arrow() if where else rows
    got = copies.scan(where, ["f0", "f1", "f2", "f4"], limit, order_by=order).to_arrow()
    wanted = expected_order(truth.column(order.column).to_pylist(), order)[:limit]
    assert got.column(order.column).to_pylist() == wanted, (where, order)
    pool = [row_key(r) for r in truth.select(got.column_names).to_pylist()]
    for row in got.to_pylist():
        pool.remove(row_key(row))  # (a ValueError: a row that is not a matching row, or one returned too often)


@pytest.mark.parametrize("order_by, message", [("nope DESC", "unknown column 'nope'"), ("", "give a column"),
                                                ("f1 DESC NULLS", "after column f1, 'DESC NULLS' is not ASC or DESC")])
def test_a_bad_order_is_one_line(order_by, message):
    with pytest.raises(UsageError, match=message):
        PaimonTable(BSI_BITMAP).scan(order_by=order_by, limit=3)


def test_a_column_without_an_order_is_refused_in_one_line():
    from fileindex.scan.answers import parse_order
    from fileindex.types import parse_type

    types = {"m": parse_type("MAP<STRING, INT>"), "n": parse_type("INT")}
    with pytest.raises(UsageError, match="'m': its type MAP<STRING, INT> has no order"):
        parse_order("m DESC", types)
    assert parse_order("n desc nulls first", types) == OrderBy("n", True, True)


def test_the_cli_orders(capsys):
    assert main(["read", str(BSI_BITMAP), "--select", "f0,f1", "--order-by", "f1 DESC", "--limit", "2", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["f1"] for r in rows] == sorted((r["f1"] for r in PaimonTable(BSI_BITMAP).scan(columns=["f1"])
                                              .to_arrow().to_pylist() if r["f1"] is not None), reverse=True)[:2]


def test_orc_local_time_zone_statistics_keep_a_matching_row(subjects):
    """The statistics of this Java-written ORC file's LOCAL TIME ZONE columns are 8 hours off the instants its
    rows hold: used, they dropped the matching file (``statistics.timestamp_bounds_trusted``)."""
    path = TABLES / "orc" / "timestamp_index.db" / "timestamp_index"
    where = "`ts_tz_micro` = TIMESTAMP '1969-12-31 15:30:54.999001'"
    subject = subjects[str(path)]
    truth = subject.rows.filter(matches(subject.rows, parse_predicate(where, subject.types), subject.types))
    assert PaimonTable(path).scan(where).count() == truth.num_rows == 1


def test_the_engine_routes_keep_a_scans_order_and_limit():
    import duckdb
    import polars as pl

    scan = PaimonTable(BSI_BITMAP).scan(columns=["f0", "f1"], limit=3, order_by="f1 DESC")
    top = scan.to_arrow()
    assert top.to_pydict() == {"f0": ["Lucy", "Emily", "Bob"], "f1": [500, 300, 200]}  # (file order: Alice 100 first)
    assert scan.to_polars().collect().to_arrow().to_pydict() == top.to_pydict()
    assert scan.to_polars().head(2).collect()["f1"].to_list() == [500, 300]
    # an engine's filter applies to the scan's rows, after their order and limit (not: the top 3 of f1 < 400)
    assert scan.to_polars().filter(pl.col("f1") < 400).collect()["f1"].to_list() == [300, 200]
    relation = scan.to_duckdb(duckdb.connect())
    assert relation.fetchall() == [("Lucy", 500), ("Emily", 300), ("Bob", 200)]
    assert relation.filter("f1 < 400").fetchall() == [("Emily", 300), ("Bob", 200)]
    assert relation.filter("f1 < 400").aggregate("count(*)").fetchall() == [(2,)]

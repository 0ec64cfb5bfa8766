"""Exhaustive verify: every row against its index; clean on correct indexes, the differing rows named."""
import json
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from generated_data import write_dataset
from test_pipeline_verify import ALL_TABLES, only_task

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.indexes.bloom_filter.reader import BloomFilterReader
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.pipeline.report import render_html
from fileindex.pipeline.verify import verify_file
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_schema
from fileindex.writing.data_file import build_data_file_index

TYPES = ("bloom-filter", "bitmap", "bsi", "range-bitmap")


@pytest.mark.parametrize("table", ALL_TABLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_java_written_tables_agree_with_every_row(table):
    for task in resolve_inputs([str(table)]).tasks:
        report = verify_file(task, exhaustive=True)
        if "timestamp_index" in str(table):  # its .index blob is missing (tables/README.md)
            assert report.status == "unreadable"
            continue
        assert report.status == "ok", report.as_row()
        assert sum(t.checks for t in report.tallies.values()) >= report.rows > 0


def test_generated_files_agree_with_every_row_of_every_index_type(tmp_path):
    for task in resolve_inputs([str(p) for p in write_dataset(tmp_path, files=2)]).tasks:
        report = verify_file(task, exhaustive=True)
        assert report.status == "ok", report.as_row()
        assert {index for (index, _) in report.tallies} == set(TYPES)
        assert all(kind == "every row" and tally.checks > 0 for (_, kind), tally in report.tallies.items())


def write(tmp_path, name, columns: dict, options: dict, index_columns: dict | None = None):
    """A Parquet file of ``columns`` with the index of ``index_columns`` (default: the same rows)."""
    path = tmp_path / f"{name}.parquet"
    pq.write_table(pa.table(index_columns or columns), path)
    data = build_data_file_index(path, options).data
    pq.write_table(pa.table(columns), path)
    path.with_name(path.name + ".index").write_bytes(data)
    return path


def violations(path, **kwargs):
    report = verify_file(only_task(path), exhaustive=True, **kwargs)
    assert report.status == "violations", report.as_row()
    return report.violations


VALUES = {  # per index type, a column type and 200 values (row 7 changed in the data below)
    "bloom-filter": pa.array(np.arange(200, dtype=np.int64) * 7),
    "bitmap": pa.array([f"v{i % 50}" if i % 9 else None for i in range(200)]),
    "bsi": pa.array([(i * 7919) % 1000 - 500 if i % 11 else None for i in range(200)], type=pa.int64()),
    "range-bitmap": pa.array([(i * 31) % 97 / 4 if i % 13 else None for i in range(200)], type=pa.float64()),
}
CHANGED = {"bloom-filter": 10**15, "bitmap": "new", "bsi": 123456, "range-bitmap": -1.5}


@pytest.mark.parametrize("index_type", TYPES)
def test_a_row_whose_value_changed_under_its_index_is_named(tmp_path, index_type):
    values = VALUES[index_type]
    edited = values.to_pylist()
    edited[7] = CHANGED[index_type]
    path = write(tmp_path, "t", {"c": pa.array(edited, type=values.type)}, {f"file-index.{index_type}.columns": "c"},
                 index_columns={"c": values})
    if index_type == "bloom-filter":  # a new value is missed unless it happens to test positive
        reader = BloomFilterReader(FileIndexContainer.open(f"{path}.index").body(
            FileIndexContainer.open(f"{path}.index").entry("c", index_type)), parse_schema("c BIGINT")["c"])
        assert not reader.might_contain(CHANGED[index_type])
    (violation,) = violations(path)
    assert violation["column"] == "c" and violation["index_type"] == index_type
    assert violation["wrong_rows"] == 1 and violation["checked_rows"] == 200
    (witness,) = violation["witnesses"]
    assert witness["row"] == 7 and witness["c"] == CHANGED[index_type]
    assert witness["index says"]


def test_the_zeroed_bloom_body_of_the_issue_is_found_and_its_first_rows_named(tmp_path, capsys):
    """8 zero bytes in the middle of a 1.15 MB bloom filter over 1M distinct ids: check (its fill rules the run
    out) and verify (the rows it loses) both find it; verify names the rows."""
    path = write(tmp_path, "ids", {"id": pa.array(np.arange(1_000_000, dtype=np.int64))},
                 {"file-index.bloom-filter.columns": "id", "file-index.bloom-filter.id.fpp": "0.01"})
    index = path.with_name(path.name + ".index")
    data = bytearray(index.read_bytes())
    assert 1_100_000 < len(data) < 1_250_000
    middle = len(data) // 2
    data[middle:middle + 8] = bytes(8)
    index.write_bytes(bytes(data))
    assert main(["check", str(index)]) == 3
    capsys.readouterr()

    assert main(["verify", str(path), "--witnesses", "4", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    (violation,) = summary["violation_detail"]
    assert violation["kind"] == "false negative" and violation["wrong_rows"] > 0
    named = [w["row"] for w in violation["witnesses"]]
    assert len(named) == 4 and named == sorted(named)
    # the brute force: the first rows whose id the filter rejects, and each one a query SKIPs
    container = FileIndexContainer.open(index)
    reader = BloomFilterReader(container.body(container.entry("id", "bloom-filter")), parse_schema("id BIGINT")["id"])
    rejected = np.flatnonzero(~reader.might_contain_column(pa.array(np.arange(1_000_000, dtype=np.int64))))
    assert named == rejected[:4].tolist() and violation["wrong_rows"] == len(rejected)
    assert f"{len(rejected)} of 1000000 rows differ" in render_html(summary)
    evaluator = FileIndexEvaluator(parse_schema("id BIGINT"))
    for row in named:
        assert repr(evaluator.evaluate(container, parse_predicate(f"id = {row}", parse_schema("id BIGINT")))) == "SKIP"

    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"row {named[0]}: id={named[0]}; index says: not in the filter" in out


@pytest.mark.parametrize("version", ["1", "2"])
def test_a_bitmap_key_changed_in_place_names_its_rows(tmp_path, version):
    """The issue's bitmap reproducer: a key rewritten (3 → 2139062143), the keys then out of order."""
    ids = pa.array(np.repeat(np.arange(1_000_000, 1_000_100, dtype=np.int32), 2))  # two rows each: stored bitmaps
    path = write(tmp_path, "b", {"id": ids},
                 {"file-index.bitmap.columns": "id", "file-index.bitmap.id.version": version})
    index = path.with_name(path.name + ".index")
    data = index.read_bytes()
    key = struct.pack(">i", 1_000_003)
    assert data.count(key) == 1
    index.write_bytes(data.replace(key, struct.pack(">i", 2139062143)))
    (violation,) = violations(path)
    assert violation["kind"] == "wrong rows" and violation["wrong_rows"] == 2
    assert [w["row"] for w in violation["witnesses"]] == [6, 7]
    assert all(w["id"] == 1_000_003 for w in violation["witnesses"])
    assert "2139062143" in violation["witnesses"][0]["index says"]


def test_a_bitmap_that_misses_nulls_is_named(tmp_path):
    values = pa.array(["a", None, "b", "a", None])
    path = write(tmp_path, "n", {"s": pa.array(["a", "x", "b", "a", None])}, {"file-index.bitmap.columns": "s"},
                 index_columns={"s": values})
    (violation,) = violations(path)
    (witness,) = violation["witnesses"]
    assert witness["row"] == 1 and witness["s"] == "x" and witness["index says"] == "held by the bitmap of null"


def set_at(path, column, index_type, offset_in_body, raw: bytes):
    index = path.with_name(path.name + ".index")
    container = FileIndexContainer.open(index)
    start = container.entry(column, index_type).start
    container.close()
    data = bytearray(index.read_bytes())
    data[start + offset_in_body:start + offset_in_body + len(raw)] = raw
    index.write_bytes(bytes(data))


def test_a_bsi_max_below_its_values_is_out_of_range(tmp_path):
    path = write(tmp_path, "m", {"v": pa.array([5, 90, 17, None, 90], type=pa.int64())},
                 {"file-index.bsi.columns": "v"})
    set_at(path, "v", "bsi", 15, struct.pack(">q", 50))  # version, row count, flag, half version, min: max at 15
    (violation,) = violations(path)
    assert violation["kind"] == "out of range" and [w["row"] for w in violation["witnesses"]] == [1, 4]
    assert "decodes to 90" in violation["witnesses"][0]["index says"]


def test_a_range_bitmap_max_below_its_values_is_out_of_range(tmp_path):
    path = write(tmp_path, "r", {"v": pa.array([5, 90, 17, None, 90], type=pa.int64())},
                 {"file-index.range-bitmap.columns": "v"})
    set_at(path, "v", "range-bitmap", 21, struct.pack(">q", 50))  # len, version, rows, cardinality, min: max at 21
    (violation,) = violations(path)
    assert violation["kind"] == "out of range" and [w["row"] for w in violation["witnesses"]] == [1, 4]


def test_the_cli_needs_the_index_and_says_how_to_build_it(tmp_path, capsys):
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"c": [1, 2]}), path)
    assert main(["verify", str(path)]) == 2
    assert f"fileindex build {path}" in capsys.readouterr().err
    other = write(tmp_path, "y", {"c": pa.array([1, 2])}, {"file-index.bsi.columns": "c"})
    assert main(["verify", str(path), f"{other}.index"]) == 0  # an index named explicitly: the same rows
    assert "0 violations" in capsys.readouterr().out
    foreign = write(tmp_path, "z", {"other": pa.array([1, 2])}, {"file-index.bsi.columns": "other"})
    assert main(["verify", str(path), f"{foreign}.index"]) == 2  # checking nothing is no pass: another file's?
    out = capsys.readouterr().out
    assert "0 checks" in out and f"WRONG SCHEMA {path}: wrong schema: the index covers only columns the data file " \
        "does not have (other; its columns: c): is it this file's index?" in out
    both = write(tmp_path, "w", {"c": pa.array([1, 2]), "other": pa.array([3, 4])},
                 {"file-index.bsi.columns": "c,other"})
    assert main(["verify", str(path), f"{both}.index"]) == 0  # c is checked; the column the file lacks is said
    out = capsys.readouterr().out
    assert "0 violations" in out and "WRONG SCHEMA" not in out


@pytest.mark.parametrize("index_type", ["bitmap", "bsi", "range-bitmap"])
def test_an_index_over_more_rows_than_the_file_says_so(tmp_path, index_type):
    path = write(tmp_path, "s", {"c": pa.array([1, 2, 3], type=pa.int64())},
                 {f"file-index.{index_type}.columns": "c"},
                 index_columns={"c": pa.array([1, 2, 3, 4, 5], type=pa.int64())})
    found = {v["kind"]: v for v in violations(path)}
    assert set(found) == {"row count", "out of range"}
    assert "the index has 5 rows, the data file 3" in found["row count"]["predicate"]
    assert "2 rows past the end" in found["out of range"]["predicate"]

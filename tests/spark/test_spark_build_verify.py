"""The build and verify jobs on local Spark: Java's bytes reproduced, retries safe, every wrong index caught."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT
from generated_data import OPTIONS, data_table, write_dataset

from fileindex.cli import main
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.spark import build_indexes, verify_indexes
from fileindex.spark.faults import failing_first_attempts
from fileindex.writing.data_file import build_data_file_index

TABLES = ROOT / "tests" / "tables"
# Tables whose sidecars and embedded containers were written by Java from their schema's options.
# (orc/append_with_bitmap_v1 holds V1 bodies its options do not ask for; orc/timestamp_index lacks its blob;
# drop_column_rewritten's containers are this project's rewrite's, by field id across a DROP and a RENAME.)
NOT_FROM_OPTIONS = ("orc/append_with_bitmap_v1.db/append_with_bitmap_v1", "timestamp_index", "drop_column_rewritten")
JAVA_BUILT = [p for p in sorted(TABLES.glob("*/*.db/*")) + sorted(TABLES.glob("*.db/*"))
              if (p / "snapshot").is_dir() and not str(p).endswith(NOT_FROM_OPTIONS)]


def rows(frame):
    return sorted((r.asDict() for r in frame.collect()), key=lambda r: r["file"])


@pytest.mark.parametrize("table", JAVA_BUILT, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_build_reproduces_the_java_written_containers(spark, tmp_path, table):
    built = rows(build_indexes(spark, str(table), {}, output_dir=str(tmp_path)))
    for row, task in zip(built, sorted(resolve_inputs([str(table)]).tasks, key=lambda t: t.name), strict=True):
        assert row["status"] == "written", row
        _, java, _ = task.container()
        assert open(row["output"], "rb").read() == bytes(java._buffer), task.name


def test_build_over_generated_files_equals_fileindex_build(spark, tmp_path):
    paths = write_dataset(tmp_path, files=5, with_indexes=False)
    built = rows(build_indexes(spark, [str(tmp_path)], OPTIONS))
    assert [r["status"] for r in built] == ["written"] * 5
    for row, path in zip(built, paths, strict=True):
        data = build_data_file_index(path, OPTIONS).data
        assert open(row["output"], "rb").read() == data and row["bytes"] == len(data) and row["rows"] == 400
        kinds = {i["index_type"] for i in json.loads(row["indexes"])}
        assert kinds == {"bloom-filter", "bitmap", "range-bitmap", "bsi"}
    assert {r["status"] for r in rows(build_indexes(spark, [str(tmp_path)], OPTIONS))} == {"kept"}


def test_a_retried_task_leaves_no_partial_sidecar(spark, tmp_path):
    paths = write_dataset(tmp_path, files=3, with_indexes=False)
    with failing_first_attempts(spark):
        built = rows(build_indexes(spark, [str(tmp_path)], OPTIONS))  # every first attempt fails
    assert [r["status"] for r in built] == ["written"] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(  # (and each sidecar's source record, whole)
        [p.name + suffix for p in paths for suffix in ("", ".index", ".index.source.json")])
    for path in paths:
        assert path.with_name(path.name + ".index").read_bytes() == build_data_file_index(path, OPTIONS).data


def test_a_bad_data_file_is_a_failed_line_and_the_rest_are_built(spark, tmp_path, capsys):
    write_dataset(tmp_path, files=2, with_indexes=False)
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not parquet PAR1")
    options = [f"--option={k}={v}" for k, v in OPTIONS.items()]
    assert main(["spark", "build", str(tmp_path), *options, "--json", "--master", "local[2,2]"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["status"] for line in lines[:-1]] == ["failed", "written", "written"]
    assert "broken.parquet" in lines[0]["error"]
    assert lines[-1]["summary"]["failed"] == 1 and lines[-1]["summary"]["written"] == 2


@pytest.mark.parametrize("table", ["parquet/append_with_bsi_bitmap_bloomfilter", "orc/pk_with_bitmap_dv",
                                   "parquet/append_with_bitmap_alter_table"])
def test_verify_finds_no_violation_in_java_written_tables(spark, table):
    fmt, name = table.split("/")
    summary = rows(verify_indexes(spark, str(TABLES / fmt / f"{name}.db" / name)))
    assert summary and all(r["status"] == "ok" and r["violations"] == 0 and r["checks"] > 15 for r in summary)


def test_verify_command_exit_codes_and_report(spark, tmp_path, capsys):
    paths = write_dataset(tmp_path / "d", files=3)
    report = tmp_path / "report"
    assert main(["spark", "verify", str(tmp_path / "d"), "--report", str(report)]) == 0
    assert "0 violations" in capsys.readouterr().out
    assert json.loads((report / "report.json").read_text())["violations"] == 0

    sidecar = paths[1].with_name(paths[1].name + ".index")
    flipped = bytearray(sidecar.read_bytes())
    flipped[0] ^= 1
    sidecar.write_bytes(bytes(flipped))
    assert main(["spark", "verify", str(tmp_path / "d")]) == 3
    assert "UNREADABLE" in capsys.readouterr().out

    table = data_table(2)
    moved = table.take(pa.array(list(range(1, table.num_rows)) + [0]))  # data rewritten, index unchanged
    pq.write_table(moved, paths[2])
    assert main(["spark", "verify", str(tmp_path / "d"), "--report", str(report), "--witnesses", "3",
                 "--overwrite"]) == 1  # replaces the first report
    out = capsys.readouterr().out
    assert "wrong rows" in out and "wrong value" in out  # small data: every row is checked by default
    saved = json.loads((report / "report.json").read_text())
    assert saved["violations"] > 0 and all(len(v["witnesses"]) <= 3 for v in saved["violation_detail"])
    page = (report / "report.html").read_text()
    assert "part-2.parquet" in page and "http" not in page and "<script" not in page


def test_verify_that_checks_nothing_does_not_pass(spark, tmp_path, capsys):
    write_dataset(tmp_path / "d", files=2, with_indexes=False)
    missing = tmp_path / "nonexistent"
    assert main(["spark", "verify", str(tmp_path / "d"), "--index-dir", str(missing)]) == 2
    assert f"--index-dir {missing}: no such folder" in capsys.readouterr().err
    assert main(["spark", "verify", str(tmp_path / "d")]) == 2  # as fileindex verify of a file without its index
    out = capsys.readouterr().out
    assert "2 no index; 0 checks" in out and "NOTHING CHECKED" in out


def test_verify_with_given_predicates(spark, tmp_path, capsys):
    write_dataset(tmp_path, files=2)
    code = main(["spark", "verify", str(tmp_path), "--where", "category = 'a' OR amount > 50",
                 "--where", "m['k'] IN (1, 2)", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["checks"] == 4 and summary["violations"] == 0

"""verify_file: zero violations on correct indexes, and every kind of wrong index caught."""
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT
from generated_data import OPTIONS, data_table, write_dataset

from fileindex.pipeline.inputs import resolve_inputs
from fileindex.pipeline.verify import verify_file
from fileindex.predicate.parser import parse_predicate
from fileindex.writing.data_file import build_data_file_index

TABLES = ROOT / "tests" / "tables"
ALL_TABLES = sorted(p for p in TABLES.glob("*/*.db/*") if (p / "snapshot").is_dir()) + \
    sorted(p for p in TABLES.glob("*.db/*") if (p / "snapshot").is_dir())


@pytest.mark.parametrize("table", ALL_TABLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_java_written_tables_have_no_violations(table):
    for task in resolve_inputs([str(table)]).tasks:
        report = verify_file(task)
        if "timestamp_index" in str(table):  # its .index blob is missing (tables/README.md)
            assert report.status == "unreadable" and "missing" in report.notes[0]
            continue
        assert report.status == "ok", report.as_row()
        assert sum(t.checks for t in report.tallies.values()) > 15


def test_generated_files_have_no_violations_and_count_bloom_probes(tmp_path):
    for task in resolve_inputs([str(p) for p in write_dataset(tmp_path)]).tasks:
        report = verify_file(task)
        assert report.status == "ok", report.as_row()
        kinds = {kind for (_, kind) in report.tallies}
        assert {"eq", "in", "between", "is_null", "lt"} <= kinds
        assert {index for (index, _) in report.tallies} == {"bloom-filter", "bitmap", "range-bitmap", "bsi"}
        bloom = report.tallies[("bloom-filter", "eq")]
        assert bloom.absent_probes >= 3 and bloom.violations == 0


def only_task(path):
    (task,) = resolve_inputs([str(path)]).tasks
    return task


def test_a_flipped_magic_byte_is_unreadable_not_a_crash(tmp_path):
    (path,) = write_dataset(tmp_path, files=1)
    sidecar = path.with_name(path.name + ".index")
    data = bytearray(sidecar.read_bytes())
    data[3] ^= 0xFF
    sidecar.write_bytes(bytes(data))
    report = verify_file(only_task(path))
    assert report.status == "unreadable" and "offset" in report.notes[0]


def test_an_index_built_over_other_rows_is_a_violation_with_witnesses(tmp_path):
    (path,) = write_dataset(tmp_path, files=1)
    table = data_table(0)
    edited = table.set_column(1, "category", pa.array(["zzz"] + table.column("category").to_pylist()[1:]))
    pq.write_table(edited, tmp_path / "edited.parquet")
    built = build_data_file_index(tmp_path / "edited.parquet", OPTIONS)
    path.with_name(path.name + ".index").write_bytes(built.data)  # the index no longer tells the truth
    report = verify_file(only_task(path), witnesses=2)
    assert report.status == "violations"
    bitmap = [v for v in report.violations if v["index_type"] == "bitmap" and v["column"] == "category"]
    assert bitmap and {v["kind"] for v in bitmap} <= {"unsound", "inexact"}
    assert any(w["row"] == 0 for v in bitmap for w in v["witnesses"])
    assert all(len(v["witnesses"]) <= 2 for v in report.violations)
    assert json.loads(report.as_row()["detail"])["violations"]


def test_data_rewritten_under_an_unchanged_index_is_a_violation(tmp_path):
    (path,) = write_dataset(tmp_path, files=1)
    table = data_table(0)
    shuffled = table.take(pa.array(list(range(1, table.num_rows)) + [0]))  # same values, other rows
    pq.write_table(shuffled, path)
    report = verify_file(only_task(path))
    assert report.status == "violations"
    assert {v["index_type"] for v in report.violations} >= {"bitmap", "range-bitmap", "bsi"}


def test_given_predicates_are_checked_for_soundness_on_tables():
    table = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    inputs = resolve_inputs([str(table)])
    predicates = [parse_predicate(text, inputs.table.schema.types())
                  for text in ("f4 = 'Alice' OR f1 = 20", "f5 IS NULL", "f1 > 10 AND f4 <> 'Bob'")]
    for task in inputs.tasks:
        report = verify_file(task, predicates)
        assert report.status == "ok" and report.tallies[("predicate", "given")].checks == 3


def test_a_missing_sidecar_named_by_the_table_is_unreadable(tmp_path):
    source = TABLES / "parquet" / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding"
    copy = tmp_path / "t"
    shutil.copytree(source, copy)
    for sidecar in copy.rglob("*.index"):
        sidecar.unlink()
    (task,) = resolve_inputs([str(copy)]).tasks
    report = verify_file(task)
    assert report.status == "unreadable" and "missing" in report.as_row()["note"]


def test_a_count_of_one_row_is_singular():
    from fileindex.pipeline.report import rows_match

    assert (rows_match(1), rows_match(0), rows_match(3)) == ("1 row matches", "0 rows match", "3 rows match")
    sources = [ROOT / "fileindex" / path for path in ("cli/spark/scan.py", "spark/compare.py")]
    assert not any("rows match" in source.read_text() for source in sources)  # their counts go through it


def test_a_file_gets_the_same_checks_in_any_folder(tmp_path):
    """The probes are seeded by the file's name: the demo's figures are the same on every run (its folder is a new
    temporary one each time)."""
    (path,) = write_dataset(tmp_path / "a", files=1)
    moved = tmp_path / "elsewhere" / "b"
    shutil.copytree(path.parent, moved)
    reports = [verify_file(only_task(p)).as_row() for p in (path, moved / path.name)]
    assert [{k: v for k, v in r.items() if k != "file"} for r in reports] == \
        [{k: v for k, v in reports[0].items() if k != "file"}] * 2

"""A sidecar of a data file rewritten after its index was built never drops a row: a scan reads the file whole,
saying why, and a build rebuilds the sidecar instead of keeping it. Its source record tells (the data file's bytes are
those the index was built from, or not), whatever the times; without one, a sidecar older than its data file is stale.
A record that cannot be read, or that lies, is ignored or costs reading the file whole, never a row."""
import json
import os
import shutil
import warnings

import pytest

import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.cli import main
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.io.staleness import SourceRecordWarning, judged, record_path, stale_index_note
from fileindex.pipeline.build import build_file
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.reader import evaluate_file
from fileindex.types import parse_type

BLOOM = {"file-index.bloom-filter.columns": "id"}
TYPES = {"id": parse_type("BIGINT")}


def rewritten_after_its_index(tmp_path, index_dir=None, *, record=False):
    """A data file of ids 0-999 indexed, then rewritten with ids 5000-5999 (its index now older); its sidecar's
    source record removed unless ``record`` (the time check decides)."""
    data = tmp_path / "data" / "part-0.parquet"
    data.parent.mkdir(parents=True)
    if index_dir is not None:
        os.makedirs(index_dir)
    pq.write_table(pa.table({"id": pa.array(range(1000), pa.int64())}), data)
    (task,) = resolve_inputs([str(data.parent)], index_dir=index_dir).tasks
    assert build_file(task, BLOOM)["status"] == "written"
    pq.write_table(pa.table({"id": pa.array(range(5000, 6000), pa.int64())}), data)
    data_time = os.stat(data).st_mtime_ns - 10**9  # (a coarse clock may give both one time)
    os.utime(task.sidecar_path(), ns=(data_time, data_time))
    if not record:
        record_path(task.sidecar_path()).unlink()
    return task


def make_older(sidecar, data):
    data_time = os.stat(data).st_mtime_ns - 10**9
    os.utime(sidecar, ns=(data_time, data_time))


def test_without_a_record_a_scan_reads_a_file_whole_when_its_index_is_older(tmp_path):
    for index_dir in (None, str(tmp_path / "idx")):
        task = rewritten_after_its_index(tmp_path / ("folder" if index_dir else "beside"), index_dir)
        verdict = evaluate_file(task, parse_predicate("id = 5005", TYPES))
        assert verdict.result is REMAIN and "older than its data file" in verdict.note, verdict
        os.utime(task.sidecar_path())  # a newer index is trusted: it prunes the file for a value it lacks
        assert evaluate_file(task, parse_predicate("id = 5005", TYPES)).result is SKIP


def test_a_build_rebuilds_a_sidecar_older_than_its_data(tmp_path):
    task = rewritten_after_its_index(tmp_path, str(tmp_path / "idx"))
    row = build_file(task, BLOOM)
    assert row["status"] == "rebuilt" and row["rows"] == 1000, row
    assert evaluate_file(task, parse_predicate("id = 5005", TYPES)).result is not SKIP
    assert build_file(task, BLOOM)["status"] == "kept"  # now of the data as it is


def test_query_answers_remain_for_a_sidecar_older_than_the_data_beside_it(tmp_path, capsys):
    task = rewritten_after_its_index(tmp_path)
    assert main(["query", str(task.sidecar_path()), "--where", "id = 5005"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "id = 5005  =>  REMAIN" and "older than its data file" in err, (out, err)


def test_a_tables_sidecar_is_trusted_whatever_its_time(tmp_path):
    """A table's sidecar is the one its manifest names: its time says nothing (a copy of the table may write it
    before its data file), so an older one still prunes, as Java's reader uses it."""
    from table_edits import copy_table

    root = copy_table("parquet", "append_with_bloomfilter", tmp_path)
    predicate = parse_predicate("f0 = 'no such value anywhere'", {"f0": parse_type("STRING")})
    before = [evaluate_file(task, predicate) for task in resolve_inputs([str(root)]).tasks]
    assert before and all(verdict.result is SKIP for verdict in before), before
    for sidecar in root.rglob("*.parquet.index"):
        data_time = os.stat(str(sidecar).removesuffix(".index")).st_mtime_ns - 10**9
        os.utime(sidecar, ns=(data_time, data_time))
    assert [evaluate_file(task, predicate) for task in resolve_inputs([str(root)]).tasks] == before


def skips(task) -> bool:
    return evaluate_file(task, parse_predicate("id = 5005", TYPES)).result is SKIP


def test_a_copy_that_does_not_keep_times_keeps_using_its_index(tmp_path):
    """cp without -p, rsync without -t, an object-store sync: the sidecar may be written before its data file. Its
    record says the bytes are those it was built from: the index prunes, and a build keeps it."""
    original = tmp_path / "original" / "part-0.parquet"
    original.parent.mkdir()
    pq.write_table(pa.table({"id": pa.array(range(1000), pa.int64())}), original)
    (built,) = resolve_inputs([str(original)]).tasks
    assert build_file(built, BLOOM)["status"] == "written" and record_path(built.sidecar_path()).is_file()
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("part-0.parquet.index.source.json", "part-0.parquet.index", "part-0.parquet"):
        shutil.copyfile(original.parent / name, copy / name)  # (no times kept)
    (task,) = resolve_inputs([str(copy / "part-0.parquet")]).tasks
    make_older(task.sidecar_path(), task.path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert stale_index_note(task.path, task.sidecar_path()) is None and skips(task)
        assert judged(task.path, task.sidecar_path())[1] is not None  # (told by hashing the files)
        assert build_file(task, BLOOM)["status"] == "kept"
        # the build renewed its record (and the sidecar's time): later checks are told by the times again
        assert os.stat(task.sidecar_path()).st_mtime_ns >= os.stat(task.path).st_mtime_ns
        assert judged(task.path, task.sidecar_path()) == (None, None) and skips(task)


def test_a_rewritten_file_is_stale_whatever_its_sidecars_time(tmp_path):
    task = rewritten_after_its_index(tmp_path, record=True)
    os.utime(task.sidecar_path())  # (newer than its data file, as a later copy or touch makes it)
    verdict = evaluate_file(task, parse_predicate("id = 5005", TYPES))
    assert verdict.result is REMAIN and "is not the file" in verdict.note, verdict
    row = build_file(task, BLOOM)
    assert row["status"] == "rebuilt" and skips(task) is False and build_file(task, BLOOM)["status"] == "kept"
    assert evaluate_file(task, parse_predicate("id = 5", TYPES)).result is SKIP  # (the new index is used)


def test_a_rewrite_of_the_same_size_is_told_by_its_bytes(tmp_path):
    """Rows swapped: the same size (and Parquet footer), other bytes."""
    data = tmp_path / "part-0.parquet"
    table = pa.table({"id": pa.array([1, 2] * 500, pa.int64())})
    pq.write_table(table, data, compression="none", use_dictionary=False)
    (task,) = resolve_inputs([str(data)]).tasks
    build_file(task, BLOOM)
    size = os.stat(data).st_size
    pq.write_table(table.take(list(range(1, 1000)) + [0]), data, compression="none", use_dictionary=False)
    os.utime(task.sidecar_path())
    assert os.stat(data).st_size == size
    assert "is not the file" in stale_index_note(data, task.sidecar_path())


def test_a_data_file_changed_while_its_index_was_built_gets_no_record(tmp_path):
    data = tmp_path / "part-0.parquet"
    pq.write_table(pa.table({"id": pa.array(range(1000), pa.int64())}), data)
    (task,) = resolve_inputs([str(data)]).tasks

    def rewrite(_temporary):
        pq.write_table(pa.table({"id": pa.array(range(5000, 6000), pa.int64())}), data)
        os.utime(data, ns=(1, 1))  # (older than the sidecar: the time check alone would use it)

    assert build_file(task, BLOOM, before_rename=rewrite)["status"] == "written"
    assert not record_path(task.sidecar_path()).exists()


def lie(record, **changes):
    fields = json.loads(record.read_text())
    for part, values in changes.items():
        fields[part].update(values)
    record.write_text(json.dumps(fields))


@pytest.mark.parametrize("text", ["{", "[]", '{"format": "fileindex-source-record/9"}', "x" * 5000, "[" * 4000,
                                  b"\xff\xfe{}",
                                  '{"format": "fileindex-source-record/1", "data": 1, "index": 2}'])
def test_a_malformed_record_is_ignored_with_a_warning_and_the_times_decide(tmp_path, text):
    task = rewritten_after_its_index(tmp_path, record=True)
    record = record_path(task.sidecar_path())
    record.write_bytes(text) if isinstance(text, bytes) else record.write_text(text)
    with pytest.warns(SourceRecordWarning, match="source record ignored"):
        assert "older than its data file" in stale_index_note(task.path, task.sidecar_path())


def test_a_lying_record_costs_reading_the_file_never_a_row(tmp_path):
    """A record claiming the data file's size and time now, of a sidecar older than it: its time is not trusted, and
    the hash recorded is not the file's, so the file is read whole; one of another sidecar is ignored (the times
    decide). (Where the sidecar is newer, the times alone trust it: a lie can do no more there.)"""
    task = rewritten_after_its_index(tmp_path, record=True)
    stat = os.stat(task.path)
    record = record_path(task.sidecar_path())
    lie(record, data={"size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    assert "is not the file" in stale_index_note(task.path, task.sidecar_path()) and not skips(task)
    lie(record, index={"size": 1})
    make_older(task.sidecar_path(), task.path)
    with pytest.warns(SourceRecordWarning, match="describes another sidecar"):
        assert not skips(task)


def test_fileindex_build_records_its_source_and_query_uses_a_copied_sidecar(tmp_path, capsys):
    data = tmp_path / "part-0.parquet"
    pq.write_table(pa.table({"id": pa.array(range(1000), pa.int64())}), data)
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=id"]) == 0
    sidecar = tmp_path / "part-0.parquet.index"
    assert record_path(sidecar).is_file()
    make_older(sidecar, data)  # (as a copy that keeps no times may leave it)
    capsys.readouterr()
    assert main(["query", str(sidecar), "--where", "id = 5005"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "id = 5005  =>  SKIP" and "older" not in err, (out, err)

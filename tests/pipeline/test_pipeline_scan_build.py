"""Per-file scan and build work: what a batch read plans, candidate rows, and built sidecars."""
import pytest
from conftest import ROOT
from generated_data import OPTIONS, write_dataset

from fileindex.errors import UsageError
from fileindex.io.staleness import SourceRecordWarning
from fileindex.pipeline.build import build_file
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.reader import (
    evaluate_file,
    output_schema,
    read_candidates,
    read_matching,
    read_verdict,
    scannable,
    selection,
)
from fileindex.scan.truth import matches
from fileindex.predicate.parser import parse_predicate
from fileindex.writing.data_file import build_data_file_index

TABLES = ROOT / "tests" / "tables"


def test_primary_key_tables_plan_compacted_files_only():
    root = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    assert [t.entry.level for t in resolve_inputs([str(root)], snapshot=3).tasks] == [5, 0]
    assert [t.entry.level for t in scannable(resolve_inputs([str(root)], snapshot=3))] == [5]
    assert scannable(resolve_inputs([str(root)], snapshot=1)) == []


def test_a_table_task_has_its_manifest_entry_and_a_plain_file_task_none(tmp_path):
    root = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    assert all(t.table_entry() is t.entry for t in resolve_inputs([str(root)]).tasks)
    (plain,) = resolve_inputs([str(write_dataset(tmp_path, files=1)[0])]).tasks
    with pytest.raises(UsageError, match="is not a file of a Paimon table"):
        plain.table_entry()


def test_tables_a_file_by_file_scan_cannot_read_are_refused(tmp_path):
    import shutil

    source = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    shutil.copytree(source, tmp_path / "t")
    schema = tmp_path / "t" / "schema" / "schema-0"
    schema.write_text(schema.read_text().replace('"deletion-vectors.enabled" : "true"', '"x" : "y"'))
    with pytest.raises(UsageError, match="primary-key table without deletion vectors cannot be read file by file"):
        scannable(resolve_inputs([str(tmp_path / "t")]))
    with pytest.raises(UsageError, match="data-evolution"):
        evolution = TABLES / "parquet" / "data_evolution_with_index.db" / "data_evolution_with_index"
        scannable(resolve_inputs([str(evolution)]))


@pytest.mark.parametrize("where", ["category = 'a'", "category IS NULL", "amount BETWEEN -10 AND 10",
                                   "m['k'] = 3 OR id < 5", "day >= DATE '2022-01-20'", "amount = 0.0"])
def test_candidate_rows_hold_every_matching_row(tmp_path, where):
    inputs = resolve_inputs([str(p) for p in write_dataset(tmp_path, files=2)])
    schema = output_schema(inputs, inputs.tasks[0].open().arrow_schema)
    types = inputs.tasks[0].types(inputs.tasks[0].open())
    predicate = parse_predicate(where, types)
    for task in inputs.tasks:
        verdict = evaluate_file(task, predicate)
        candidates = read_candidates(task, selection(verdict, None), schema)
        everything = task.open().read(schema.names)
        truth = everything.filter(matches(everything, predicate, types))
        kept = candidates.filter(matches(candidates, predicate, types))
        assert kept.column("id").to_pylist() == truth.column("id").to_pylist()  # NaN != NaN: compare ids
        assert verdict.index == "sidecar" and len(candidates) <= len(everything)


@pytest.mark.parametrize("where", ["category = 'a'", "amount BETWEEN -10 AND 10", "m['k'] = 3 OR id < 5",
                                   "id = 7"])
def test_exact_reads_return_the_matching_rows_reading_each_column_once(tmp_path, monkeypatch, where):
    from fileindex.arrow.data_files import DataFileReader

    inputs = resolve_inputs([str(p) for p in write_dataset(tmp_path, files=2)])
    schema = output_schema(inputs, inputs.tasks[0].open().arrow_schema)
    types = inputs.tasks[0].types(inputs.tasks[0].open())
    predicate = parse_predicate(where, types)
    read_columns = []
    original = DataFileReader.read_rows
    monkeypatch.setattr(DataFileReader, "read_rows",
                        lambda self, rows, names: read_columns.extend(names) or original(self, rows, names))
    for task in inputs.tasks:
        everything = task.open().read(schema.names)
        truth = everything.filter(matches(everything, predicate, types))
        verdict = evaluate_file(task, predicate)
        for read, arguments in ((read_matching, (task, None, schema, predicate, types, {})),
                                (read_verdict, (task, verdict, schema, predicate, types, {"exact": True}))):
            read_columns.clear()
            exact = read(*arguments[:-1], **arguments[-1])
            assert exact.schema == schema
            assert exact.column("id").to_pylist() == truth.column("id").to_pylist()  # NaN != NaN: compare ids
            assert len(read_columns) == len(set(read_columns)) and set(read_columns) <= set(schema.names)
            assert set(read_columns) == set(schema.names) or not len(exact)  # (no match: only the probe)


def test_build_file_writes_what_fileindex_build_writes(tmp_path):
    paths = write_dataset(tmp_path, files=1, with_indexes=False)
    (task,) = resolve_inputs([str(paths[0])]).tasks
    row = build_file(task, OPTIONS)
    assert row["status"] == "written" and row["rows"] == 400 and not row["error"]
    sidecar = paths[0].with_name(paths[0].name + ".index")
    assert sidecar.read_bytes() == build_data_file_index(paths[0], OPTIONS).data
    assert row["bytes"] == sidecar.stat().st_size
    assert build_file(task, OPTIONS)["status"] == "kept"
    sidecar.write_bytes(b"stale")
    with pytest.warns(SourceRecordWarning, match="describes another sidecar"):  # (its record: of the one built)
        assert build_file(task, OPTIONS)["status"] == "kept" and sidecar.read_bytes() == b"stale"
    assert build_file(task, OPTIONS, overwrite=True)["status"] == "written"
    assert sidecar.read_bytes() == build_data_file_index(paths[0], OPTIONS).data


def test_build_file_reports_a_bad_file_instead_of_raising(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 garbage PAR1")
    (task,) = resolve_inputs([str(bad)]).tasks
    row = build_file(task, OPTIONS)
    assert row["status"] == "failed" and "bad.parquet" in row["error"]
    assert not (tmp_path / "bad.parquet.index").exists()
    (good,) = write_dataset(tmp_path / "g", files=1, with_indexes=False)
    (task,) = resolve_inputs([str(good)]).tasks
    row = build_file(task, {"file-index.bitmap.columns": "nope"})
    assert row["status"] == "failed" and "nope" in row["error"]


def test_inputs_are_files_folders_and_globs(tmp_path):
    paths = write_dataset(tmp_path / "d", files=3, with_indexes=False)
    assert len(resolve_inputs([str(tmp_path / "d")]).tasks) == 3
    assert len(resolve_inputs([str(tmp_path / "d" / "part-[01].parquet")]).tasks) == 2
    assert len(resolve_inputs([str(paths[0]), str(paths[0])]).tasks) == 1
    for bad, message in [([str(tmp_path / "nope")], "no such"), ([str(tmp_path / "*.orc")], "matches no"),
                         ([], "name a Paimon table")]:
        with pytest.raises(UsageError, match=message):
            resolve_inputs(bad)

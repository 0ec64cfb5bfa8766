"""A sidecar older than its data file (the file rewritten after its index was built) never drops a row: a scan
reads the file whole, saying why, and a build rebuilds the sidecar instead of keeping it."""
import os

import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.cli import main
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.pipeline.build import build_file
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.reader import evaluate_file
from fileindex.types import parse_type

BLOOM = {"file-index.bloom-filter.columns": "id"}
TYPES = {"id": parse_type("BIGINT")}


def rewritten_after_its_index(tmp_path, index_dir=None):
    """A data file of ids 0-999 indexed, then rewritten with ids 5000-5999 (its index now older)."""
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
    return task


def test_a_scan_reads_a_file_whole_when_its_index_is_older(tmp_path):
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

"""One verdict type: what ``fileindex table --json`` prints and what a Spark scan job returns per file are
both made by ``FileVerdict`` (the table scan's and the pipeline's verdicts are the same objects)."""
import json
from dataclasses import replace

from conftest import ROOT
from pyroaring import BitMap

from fileindex.cli.app import main
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.reader import evaluate_file
from fileindex import PaimonTable
from fileindex.table.verdict import FileVerdict, summarize

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def test_the_json_and_the_row_of_each_answer():
    rows = FileVerdict("bucket-0/a.parquet", 10, "embedded", Rows(BitMap([1, 2, 3, 7])), "")
    assert rows.as_dict() == {"file": "bucket-0/a.parquet", "row_count": 10, "index": "embedded", "result": "ROWS",
                              "cardinality": 4, "ranges": [[1, 3], [7, 7]]}
    row = rows.as_row()
    assert BitMap.deserialize(row.pop("candidates")) == BitMap([1, 2, 3, 7])
    assert row == {"file": "bucket-0/a.parquet", "rows": 10, "index": "embedded", "result": "ROWS", "note": "",
                   "kept_before_deletes": None}
    deleted = FileVerdict("c", 8, "sidecar", SKIP, kept_before_deletes=1)  # (what a deletion vector skipped)
    assert FileVerdict.from_row(deleted.as_row()) == deleted and FileVerdict.from_row(rows.as_row()) == rows
    missing = FileVerdict("b", 5, "none", REMAIN, "data file is missing")
    assert missing.as_dict() == {"file": "b", "row_count": 5, "index": "none", "result": "REMAIN",
                                 "note": "data file is missing"}
    assert missing.as_row()["candidates"] is None and missing.as_row()["note"] == "data file is missing"
    assert [v.kept_rows for v in (rows, missing, FileVerdict("c", 3, "sidecar", SKIP))] == [4, 5, 0]
    assert summarize([rows, missing]) == {"files": 2, "files_kept": 2, "rows": 15, "rows_kept": 9, "problems": 1}


def test_the_cli_json_line_is_the_verdicts_dict(capsys):
    where = "f0 = 'Alice'"
    verdicts = list(PaimonTable(TABLE).plan(where))
    assert main(["table", str(TABLE), "--where", where, "--json"]) == 0
    *lines, summary = capsys.readouterr().out.splitlines()
    assert lines == [json.dumps({"where": where, **v.as_dict()}, ensure_ascii=False) for v in verdicts]
    assert json.loads(summary) == {"where": where, "summary": summarize(verdicts)}


def test_the_pipeline_judges_a_table_file_with_the_tables_verdict():
    table = PaimonTable(TABLE)
    predicate = table.parse("f0 = 'Alice'")
    by_file = {v.file: v for v in table.plan(predicate)}
    tasks = resolve_inputs([str(TABLE)]).tasks
    assert len(tasks) == len(by_file) > 0
    for task in tasks:
        verdict = evaluate_file(task, predicate)
        assert type(verdict) is FileVerdict
        assert replace(verdict, file=table.relative(task.table_entry())) == by_file[table.relative(task.table_entry())]

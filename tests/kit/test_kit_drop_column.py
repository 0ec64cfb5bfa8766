"""The Tier 2 case drop_column_rewritten (apache/paimon #10091): a table Java Paimon 0.9.0 wrote across DROP
COLUMN tag, ADD COLUMN tag, RENAME name TO label, indexed by our rewrite, with Java 0.9.0's own answers
(tools/kit_drop_column_table.py). Our reader agrees with Java's recorded rows and verdicts, the files written
before the drop carry no index of the dropped tag, and the kit's case is Java's answers, stamped so."""
import json

import pytest

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.result import REMAIN, Rows
from fileindex.kit.corpus import cases
from fileindex.kit.provenance import JAVA_RECORDED
from fileindex.kit.rows import matching_rows
from fileindex.kit.runner import _files_problem
from fileindex import PaimonTable

from conftest import ROOT

DB = ROOT / "tests" / "tables" / "parquet" / "drop_column_rewritten.db"
TABLE = DB / "drop_column_rewritten"
RECORDED = json.loads((DB / "java-answers.json").read_text())["cases"]
ANSWERED = [answer for answer in RECORDED if "error" not in answer]


def test_the_table_went_through_drop_add_rename_and_the_old_files_have_no_index_of_the_dropped_tag():
    table = PaimonTable(TABLE)
    assert [(f.id, f.name) for f in table.schema.fields] == [(0, "id"), (1, "label"), (3, "tag")]
    columns = {}
    for entry, _ in table.live():
        _, found, _ = table.index_location(entry)
        assert isinstance(found, bytes)  # embedded in the manifest
        with FileIndexContainer.from_bytes(found) as container:
            columns[entry.row_count] = sorted(container.columns)
        written = [f.name for f in table.data_schema(entry).fields]
        assert written == (["id", "name", "tag"] if entry.row_count < 9 else ["id", "label", "tag"])
    # the old files: label indexed under its old name, their tag (field 2, dropped) not at all
    assert columns == {6: ["name"], 7: ["name"], 9: ["label", "tag"]}
    assert sum(p.stat().st_size for p in DB.rglob("*") if p.is_file()) < 20_000  # small enough to commit


@pytest.mark.parametrize("answer", ANSWERED, ids=[a["sql"] for a in ANSWERED])
def test_our_full_read_returns_javas_rows(answer):
    assert matching_rows(TABLE, PaimonTable(TABLE).parse(answer["sql"])) == answer["rows"]


def test_the_dropped_tags_values_are_no_rows_of_the_new_tag():
    old0 = next(a for a in ANSWERED if a["sql"] == "tag = 'old0'")
    assert old0["rows"] and all(row[0] >= 900 for row in old0["rows"])  # the new file's rows only
    assert next(a for a in ANSWERED if a["sql"] == "tag = 'old1'")["rows"] == []


def test_where_javas_plan_is_decided_by_the_indexes_ours_keeps_the_same_files():
    table = PaimonTable(TABLE)
    by_index = [a for a in ANSWERED if all(v["result"] == "REMAIN" for v in a["files_without_index"].values())]
    assert len(by_index) >= 5 and any(any(v["result"] == "SKIP" for v in a["files"].values()) for a in by_index)
    for answer in by_index:
        ours = {v.file: v.result for v in table.plan(answer["sql"])}
        kept = {name: r is REMAIN or (isinstance(r, Rows) and r.cardinality > 0) for name, r in ours.items()}
        assert kept == {name: v["result"] == "REMAIN" for name, v in answer["files"].items()}, answer["sql"]


@pytest.mark.parametrize("answer", ANSWERED, ids=[a["sql"] for a in ANSWERED])
def test_the_readers_funnel_keeps_the_files_javas_plan_keeps(answer):
    """Statistics included: a file written before ``tag`` was added reads it as all null, so a predicate no null
    satisfies skips it, as Java's statistics do; the reader reads exactly the files Java's plan keeps."""
    plan = PaimonTable(TABLE).scan(answer["sql"]).plan()
    read = {f.file for f in plan if f.read in ("all", "rows")}
    assert read == {name for name, v in answer["files"].items() if v["result"] != "SKIP"}, answer["sql"]


def test_java_0_9_throws_on_is_null_of_the_added_column_and_the_kit_has_no_such_case():
    failed = {a["sql"]: a["error"] for a in RECORDED if "error" in a}
    assert "tag IS NULL" in failed and "IndexOutOfBoundsException" in failed["tag IS NULL"]


def test_the_kit_case_is_javas_answers_stamped_java_recorded_with_whole_file_verdicts(kit_folder):
    case = next(c for c in cases(kit_folder, "tables") if c.name == "drop_column_rewritten")
    assert case.sidecar["whole_files"] is True and case.sidecar["writer"]["version"].startswith("Paimon 0.9.0")
    assert [item["sql"] for item in case.sidecar["cases"]] == [a["sql"] for a in ANSWERED]
    with_files = 0
    for item, answer in zip(case.sidecar["cases"], ANSWERED, strict=True):
        assert item["expected"]["rows"] == answer["rows"]
        assert set(item["expected_from"].values()) == {JAVA_RECORDED}
        if "files" in item["expected"]:
            with_files += 1
            assert item["expected"]["files"] == answer["files"]
    assert with_files == sum(all(v["result"] == "REMAIN" for v in a["files_without_index"].values())
                             for a in ANSWERED)


def test_whole_file_verdicts_take_rows_as_keeping_the_file_and_an_empty_set_as_skipping():
    expected = {"a.parquet": {"result": "REMAIN"}, "b.parquet": {"result": "SKIP"}}
    kept = {"a.parquet": {"result": "ROWS", "ranges": [[0, 2]]}, "b.parquet": {"result": "ROWS", "ranges": []}}
    assert _files_problem({"files": kept}, expected, whole_files=True) is None
    assert _files_problem({"files": kept}, expected) is not None  # compared exactly, rows are not REMAIN
    wrong = {**kept, "b.parquet": {"result": "REMAIN"}}
    assert "skipped" in _files_problem({"files": wrong}, expected, whole_files=True)


@pytest.mark.java
def test_the_recipe_remakes_the_table_and_java_gives_the_recorded_answers_again(tmp_path):
    """tools/kit_drop_column_table.py against live Java 0.9.0: the same schemas, the same indexes per file and
    the same answers (files are named by fresh UUIDs, so they are compared by their row counts)."""
    import sys

    from java_oracle import require_jar

    require_jar()
    sys.path.insert(0, str(ROOT / "tools"))
    import kit_drop_column_table

    assert kit_drop_column_table.main(["--out", str(tmp_path)]) == 0
    remade = tmp_path / "drop_column_rewritten.db"
    assert sorted(p.name for p in (remade / "drop_column_rewritten" / "schema").iterdir()) == \
        sorted(p.name for p in (TABLE / "schema").iterdir())

    def by_rows(db):
        table = PaimonTable(db / "drop_column_rewritten")
        rows = {table.relative(entry): entry.row_count for entry, _ in table.live()}
        answers = json.loads((db / "java-answers.json").read_text())["cases"]
        return [{key: ({rows[name]: verdict for name, verdict in value.items()} if key.startswith("files") else value)
                 for key, value in answer.items()} for answer in answers]

    assert by_rows(remade) == by_rows(DB)

"""Table metadata and indexes that disagree about a data file's rows never drop its matching rows unsaid: a
manifest's row count below the rows its file's index names or records, an index built over other rows."""
from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile import fileindex, refused
from table_edits import copy_table, data_manifests, edit_json, edit_rows

from fileindex import PaimonTable
from fileindex.cli.app import main
from fileindex.container.writer import write_entries
from fileindex.indexes.bitmap import writer as bitmap_writer
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf
from fileindex.scan.reader import evaluate_file
from fileindex.scan.task import DataFileTask
from fileindex.types import parse_type
from fileindex.arrow.data_files import DataFileError
from fileindex.indexes.result import REMAIN

DATA = "bucket-0/data-54b396b6-df2d-4c6a-a0ae-b6a5afb612d7-0.parquet"  # 8 rows: Tony at rows 3 and 6


@pytest.fixture
def table(tmp_path):
    return copy_table("parquet", "append_with_bitmap", tmp_path)


def with_row_count(root, count: int) -> None:
    def edit(rows):
        for row in rows:
            row["_FILE"]["_ROW_COUNT"] = count

    for manifest in data_manifests(root):
        edit_rows(manifest, edit)


@pytest.mark.parametrize("where", ["f0 = 'Tony'", "f0 <> 'Alice'"])
def test_an_index_of_more_rows_than_the_manifest_says_does_not_skip_them(table, where):
    """The manifest says 3 rows; the embedded bitmap (of 8) names Tony's rows 3 and 6: they were cut to the 3
    rows, the file skipped, and the read answered no row (a count 0) where the file holds two, instead of reading
    the file and finding it holds 8 rows."""
    with_row_count(table, 3)
    verdict = PaimonTable(table).verdict(PaimonTable(table).live()[0][0], _parsed(table, where))
    assert verdict.result is REMAIN and not verdict.exact and "records 8 rows, the data file 3" in verdict.note
    assert_read_refused(table, where)


def test_rows_past_the_row_count_an_index_and_the_manifest_agree_on_are_not_cut_off(table):
    """The manifest and the bitmap's header both say 3 rows, yet the bitmap names Tony's rows 3 and 6: cut to
    the 3 rows, the file was skipped unread."""
    with_row_count(table, 3)
    values = pq.read_table(table / DATA).column("f0").to_pylist()
    layout = bitmap_writer.layout(values, parse_type("STRING"), {})
    layout.row_count = 3
    index = write_entries([("f0", "bitmap", bitmap_writer.encode(layout))])
    for manifest in data_manifests(table):
        edit_rows(manifest, lambda rows: rows[0]["_FILE"].__setitem__("_EMBEDDED_FILE_INDEX", index))
    verdict = PaimonTable(table).verdict(PaimonTable(table).live()[0][0], _parsed(table, "f0 = 'Tony'"))
    assert verdict.result is REMAIN and not verdict.exact and "names row 6, past the 3 rows" in verdict.note
    assert_read_refused(table, "f0 = 'Tony'")


def assert_read_refused(root, where: str) -> None:
    with pytest.raises(DataFileError, match="holds 8 rows where the table's manifest says 3"):
        PaimonTable(root).scan(where).to_arrow()
    with pytest.raises(DataFileError, match="holds 8 rows where the table's manifest says 3"):
        PaimonTable(root).scan(where).count()
    refused(fileindex("read", root, "--where", where, "--count"), DATA, "holds 8 rows")


def _parsed(root, where):
    from fileindex.predicate.parser import parse_predicate

    return parse_predicate(where, PaimonTable(root).schema.types())


def test_a_sidecar_built_over_other_rows_rules_out_none_of_the_files(tmp_path):
    """The sidecar of the 8-row file replaced by one built over its first 4 rows (Alice, Bob, Emily, Tony): its
    bitmap skipped the file for f0 = 'Lucy' (row 4) and kept only row 3 of Tony's 3 and 6, answering 0 and 1
    rows; its bodies record 4 rows, not the manifest's 8, so it is not this file's index."""
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    (data,) = (root / "bucket-0").glob("*.parquet")
    head = tmp_path / "head.parquet"
    pq.write_table(pq.read_table(data).slice(0, 4), head)
    assert main(["build", str(head), "--option", "file-index.bitmap.columns=f0,f1,f2"]) == 0
    shutil.copyfile(str(head) + ".index", str(data) + ".index")
    table = PaimonTable(root)
    verdict = table.verdict(table.live()[0][0], _parsed(root, "f0 = 'Lucy'"))
    assert verdict.result is REMAIN and "records 4 rows, the data file 8" in verdict.note
    assert [row["f0"] for row in PaimonTable(root).scan("f0 = 'Lucy' OR f0 = 'Tony'").to_arrow().to_pylist()] == \
        ["Tony", "Lucy", "Tony"]
    assert PaimonTable(root).scan("f0 = 'Tony'").count() == 2


def test_a_plain_data_files_sidecar_built_over_other_rows_rules_out_none_of_them(tmp_path):
    """The same for a data file outside a table, its sidecar beside it (``fileindex spark scan`` of files)."""
    data = tmp_path / "data.parquet"
    pq.write_table(pq.read_table(copy_table("parquet", "append_with_bitmap", tmp_path) / DATA), data)
    head = tmp_path / "head.parquet"
    pq.write_table(pq.read_table(data).slice(0, 4), head)
    assert main(["build", str(head), "--option", "file-index.bitmap.columns=f0"]) == 0
    shutil.copyfile(str(head) + ".index", str(data) + ".index")
    task = DataFileTask(str(data), "data.parquet", data.stat().st_size)
    verdict = evaluate_file(task, Leaf(Operator.EQ, "f0", ("Lucy",)))
    assert verdict.result is REMAIN and "records 4 rows, the data file 8" in verdict.note


@pytest.mark.parametrize("key, value, table_name", [
    ("data-evolution.enabled", "nope", "data_evolution_with_index"),  # (was read as false: 10 rows, not 6)
    ("deletion-vectors.enabled", " true", "pk_with_bitmap_dv"),  # (was false here, true to the merge: "not merged")
])
def test_a_boolean_option_that_is_neither_true_nor_false_is_refused_alike(tmp_path, key, value, table_name):
    root = copy_table("parquet", table_name, tmp_path)
    latest = max((root / "schema").glob("schema-*"), key=lambda p: int(p.name.split("-")[1]))
    edit_json(latest, lambda document: document["options"].update({key: "TRUE"}))
    assert PaimonTable(root).scan().to_arrow().num_rows == 6  # (any case, as Java reads it)
    edit_json(latest, lambda document: document["options"].update({key: value}))
    refused(fileindex("read", root), f"schema/{latest.name} (schema): option {key}={value!r} is not a boolean")


def _set_first_row_id(root, old: int, new: int | None) -> None:
    def edit(rows):
        for row in rows:
            if row["_FILE"]["_FIRST_ROW_ID"] == old:
                row["_FILE"]["_FIRST_ROW_ID"] = new

    for manifest in data_manifests(root):
        edit_rows(manifest, edit)


@pytest.mark.parametrize("first_row_id, message", [
    (2, "data-1e5a5e75-a7d8-4272-b1e0-19f4c7ca7617-0.parquet (rows 0 to 3) and "
        "data-4cbdaffc-cb2a-436f-b2f0-b04f2933760e-1.parquet (rows 2 to 3) hold overlapping row ids"),
    (0, "(rows 0 to 1) and data-1e5a5e75-a7d8-4272-b1e0-19f4c7ca7617-0.parquet (rows 0 to 3) hold overlapping"),
    (-1, "_FIRST_ROW_ID -1 with _ROW_COUNT 2"),
    ((1 << 63) - 1, "_FIRST_ROW_ID 9223372036854775807 with _ROW_COUNT 2"),
    (None, "_FIRST_ROW_ID None with _ROW_COUNT 2"),
])
def test_data_evolution_files_whose_row_ids_overlap_are_refused(tmp_path, first_row_id, message):
    """The 2-row file of rows 4 and 5 moved onto rows another group holds (or off the row ids): grouped apart, each
    of those rows was read twice, once with its columns from each group."""
    root = copy_table("parquet", "data_evolution_with_index", tmp_path)
    _set_first_row_id(root, 4, 100)  # (a gap between groups is no harm: the same rows)
    assert PaimonTable(root).scan().to_arrow().num_rows == 6
    _set_first_row_id(root, 100, first_row_id)
    for command in (["read", root], ["table", root, "--where", "f2 = 202"]):
        refused(fileindex(*command), message)


def test_a_data_file_of_another_size_than_its_manifest_says_is_refused(table):
    """The data file replaced (or rewritten between a plan and its read) by another of as many rows: its embedded
    index, which describes the file the table wrote, kept rows 0 and 7, and the read found one Alice of two."""
    path = table / DATA
    rows = pq.read_table(path)
    path.unlink()
    pq.write_table(pa.concat_tables([rows.slice(1), rows.slice(0, 1)]), path, compression="zstd")
    done = fileindex("read", table, "--where", "f0 = 'Alice'")
    refused(done, f"{DATA}: holds {path.stat().st_size} bytes where the table's manifest says 1116: not the data file")


def test_a_data_evolution_file_writing_a_column_its_schema_lacks_is_refused(tmp_path):
    """_WRITE_COLS naming 'zz' for f3: the file's f3 (2.1 to 5.1) was read as nulls, its claim on them unseen."""
    root = copy_table("parquet", "data_evolution_with_index", tmp_path)

    def edit(rows):
        for row in rows:
            if row["_FILE"]["_WRITE_COLS"] == ["f2", "f3"] and row["_FILE"]["_FIRST_ROW_ID"] == 0:
                row["_FILE"]["_WRITE_COLS"] = ["f2", "zz"]

    for manifest in data_manifests(root):
        edit_rows(manifest, edit)
    refused(fileindex("read", root), "data-4cbdaffc-cb2a-436f-b2f0-b04f2933760e-0.parquet (bucket 0): _WRITE_COLS "
            "names no field 'zz' of its schema (0)")
